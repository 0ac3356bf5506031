/* The reduce GPU context in a build without CUDA: no device, nothing can be created. */
#include "kernels/common/ks_nocuda.h"
#include "reduce.h"
#include "reduce_user.h"

#include <string.h>

#define KS_RNO (void)g; return KS_NO_CUDA("reduce")

ks_status ks_reduce_gpu_create(const ks_reduce_desc *d, ks_reduce_gpu **out)
{
    (void)d;
    *out = NULL;
    return KS_NO_CUDA("reduce");
}
void ks_reduce_gpu_destroy(ks_reduce_gpu *g) { (void)g; }
void *ks_reduce_gpu_stream(ks_reduce_gpu *g) { (void)g; return NULL; }
ks_reduce_desc ks_reduce_gpu_desc(const ks_reduce_gpu *g)
{
    (void)g;
    return ks_reduce_desc_defaults(NULL);
}
ks_status ks_reduce_gpu_fill(ks_reduce_gpu *g, ks_reduce_input kind, unsigned seed) { (void)kind, (void)seed; KS_RNO; }
ks_status ks_reduce_gpu_upload(ks_reduce_gpu *g, const float *x, long long n) { (void)x, (void)n; KS_RNO; }
ks_status ks_reduce_gpu_poison(ks_reduce_gpu *g) { KS_RNO; }
ks_status ks_reduce_gpu_run(ks_reduce_gpu *g, ks_reduce_variant v) { (void)v; KS_RNO; }
ks_status ks_reduce_gpu_sum_result(ks_reduce_gpu *g, double *sum) { (void)sum; KS_RNO; }
ks_status ks_reduce_gpu_scan_download(ks_reduce_gpu *g, float *y) { (void)y; KS_RNO; }
ks_status ks_reduce_gpu_scan_read(ks_reduce_gpu *g, long long i, float *value) { (void)i, (void)value; KS_RNO; }
const float *ks_reduce_gpu_scan_output(ks_reduce_gpu *g) { (void)g; return NULL; }
const float *ks_reduce_gpu_input(ks_reduce_gpu *g) { (void)g; return NULL; }
ks_status ks_reduce_gpu_time(ks_reduce_gpu *g, ks_reduce_variant v, double span_ms, int warmup, int reps,
                             ks_reduce_timing *out)
{
    (void)v, (void)span_ms, (void)warmup, (void)reps, (void)out;
    KS_RNO;
}
ks_status ks_reduce_gpu_levels(ks_reduce_gpu *g, ks_reduce_op op, ks_reduce_levels *lv) { (void)op, (void)lv; KS_RNO; }
ks_status ks_reduce_gpu_levels_download(ks_reduce_gpu *g, float *data) { (void)data; KS_RNO; }
ks_status ks_reduce_gpu_draw(ks_reduce_gpu *g, int w, int h, const unsigned char lut[256][4], float lo, float hi,
                             void *rgba)
{
    (void)w, (void)h, (void)lut, (void)lo, (void)hi, (void)rgba;
    KS_RNO;
}

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
ks_status ks_reduce_gpu_time_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx, double span_ms, int warmup,
                                  int reps, ks_reduce_timing *out)
{
    (void)u, (void)bx, (void)span_ms, (void)warmup, (void)reps, (void)out;
    KS_RNO;
}
ks_status ks_reduce_user_probe(const ks_reduce_user *u, int bx, const float *x, long long n, long long split,
                               ks_reduce_probe *out)
{
    (void)u, (void)bx, (void)x, (void)n, (void)split, (void)out;
    return KS_NO_CUDA("reduce");
}
