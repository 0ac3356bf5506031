/* reduce_user.cu in a build without CUDA: a user's kernel; nothing loads. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "reduce.h"
#include "reduce_user.h"

#define KS_RNO (void)g; return KS_NO_CUDA("reduce")

/* A user's kernel (reduce_user.h): nothing loads without CUDA. */
ks_status ks_reduce_user_load(const char *name, const void *code, size_t size, ks_reduce_user **out)
{
    (void)name, (void)code, (void)size;
    *out = NULL;
    return KS_NO_CUDA("reduce");
}
ks_status ks_reduce_user_check_block(const ks_reduce_user *u, long long n, int bx)
{
    (void)u, (void)n, (void)bx;
    return KS_NO_CUDA("reduce");
}
ks_status ks_reduce_gpu_run_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx) { (void)u, (void)bx; KS_RNO; }
ks_status ks_reduce_gpu_time_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx, double span_ms,
                                  const ks_timing_opts *o, ks_reduce_timing *out)
{
    (void)u, (void)bx, (void)span_ms, (void)o, (void)out;
    KS_RNO;
}
ks_status ks_reduce_user_probe(const ks_reduce_user *u, int bx, const float *x, long long n, long long split,
                               ks_reduce_probe *out)
{
    (void)u, (void)bx, (void)x, (void)n, (void)split, (void)out;
    return KS_NO_CUDA("reduce");
}
