/* reduce_gpu.cu in a build without CUDA: the GPU context; no device, nothing can be created. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "reduce.h"
#include "reduce_user.h"

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
ks_status ks_reduce_gpu_time(ks_reduce_gpu *g, ks_reduce_variant v, double span_ms, const ks_timing_opts *o,
                             ks_reduce_timing *out)
{
    (void)v, (void)span_ms, (void)o, (void)out;
    KS_RNO;
}
