/* matmul_user.cu in a build without CUDA: a user's kernel; nothing loads. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "matmul.h"
#include "matmul_user.h"

/* A user's kernel (matmul_user.h): nothing loads without CUDA. */
ks_status ks_matmul_user_load(const char *name, const void *code, size_t size, ks_matmul_user **out)
{
    (void)name, (void)code, (void)size;
    *out = NULL;
    return KS_NO_CUDA("matmul");
}
ks_status ks_matmul_user_check_block(const ks_matmul_user *u, const ks_matmul_size *s, const int block[3])
{
    (void)u, (void)s, (void)block;
    return KS_NO_CUDA("matmul");
}
