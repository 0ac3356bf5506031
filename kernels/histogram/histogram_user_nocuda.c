/* histogram_user.cu in a build without CUDA: a user's kernel; nothing loads. */
#include <string.h>

#include "histogram.h"
#include "histogram_user.h"
#include "base/ks_nocuda.h"

/* A user's kernel (histogram_user.h): nothing loads without CUDA. */
ks_status ks_hist_user_load(const char *name, const void *code, size_t size, ks_hist_user **out)
{
    (void)name, (void)code, (void)size;
    *out = NULL;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_user_check_block(const ks_hist_user *u, size_t n, const int block[3])
{
    (void)u, (void)n, (void)block;
    return KS_NO_CUDA("histogram");
}
