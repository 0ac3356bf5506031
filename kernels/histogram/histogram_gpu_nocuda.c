/* histogram_gpu.cu in a build without CUDA: one input on the device; nothing can be created. */
#include <string.h>

#include "histogram.h"
#include "histogram_user.h"
#include "base/ks_nocuda.h"

ks_status ks_hist_gpu_create(const ks_hist_gpu_desc *desc, ks_hist_gpu **out)
{
    (void)desc;
    *out = NULL;
    return KS_NO_CUDA("histogram");
}
void ks_hist_gpu_destroy(ks_hist_gpu *g) { (void)g; }
void *ks_hist_gpu_stream(ks_hist_gpu *g) { (void)g; return NULL; }
const ks_hist_input *ks_hist_gpu_input(ks_hist_gpu *g) { (void)g; return NULL; }
ks_hist_ctx *ks_hist_gpu_ctx(ks_hist_gpu *g) { (void)g; return NULL; }
ks_status ks_hist_gpu_fill(ks_hist_gpu *g, unsigned value)
{
    (void)g, (void)value;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_chunk(ks_hist_gpu *g, int variant, size_t begin, size_t end, double *ms)
{
    (void)g, (void)variant, (void)begin, (void)end, (void)ms;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_counts(ks_hist_gpu *g, uint64_t *out)
{
    (void)g, (void)out;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_whole(ks_hist_gpu *g, int variant)
{
    (void)g, (void)variant;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_time(ks_hist_gpu *g, int variant, const ks_timing_opts *o, ks_timing *out)
{
    (void)g, (void)variant, (void)o, (void)out;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_draw(ks_hist_gpu *g, int log_scale, const ks_hist_axes *ax, const unsigned char *mask,
                           unsigned char *rgba, int w, int h)
{
    (void)g, (void)log_scale, (void)ax, (void)mask, (void)rgba, (void)w, (void)h;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_chunk_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], size_t begin, size_t end,
                                 double *ms)
{
    (void)g, (void)u, (void)block, (void)begin, (void)end, (void)ms;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_whole_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3])
{
    (void)g, (void)u, (void)block;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_time_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], const ks_timing_opts *o,
                                ks_timing *out)
{
    (void)g, (void)u, (void)block, (void)o, (void)out;
    return KS_NO_CUDA("histogram");
}
