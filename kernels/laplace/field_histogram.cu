/* The float field histogram on the device (field_histogram.h): per-block
 * shared-memory histograms merged by global atomics. */
#include "base/cuda_check.h"
#include "field_histogram.h"

enum { KS_FHB = 256, KS_FH_BLOCKS_PER_SM = 8 };

/* Float values into bins (see ks_field_hist_gold: the same float arithmetic). */
__global__ void ks_field_hist_kernel(const float *v, size_t n, float lo, float scale, unsigned bins, unsigned *hist)
{
    extern __shared__ unsigned ks_fsh[];
    for (unsigned i = threadIdx.x; i < bins; i += blockDim.x) ks_fsh[i] = 0;
    __syncthreads();
    unsigned cur = 0xffffffffu, run = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float x = v[i];
        if (x != x) continue;
        const float t = __fmul_rn(__fsub_rn(x, lo), scale); /* no contraction: as on the CPU */
        const unsigned b = t < 1.0f ? 0u : t >= (float)bins ? bins - 1 : (unsigned)t;
        if (b == cur) {
            ++run;
        } else {
            if (run) atomicAdd(ks_fsh + cur, run);
            cur = b;
            run = 1;
        }
    }
    if (run) atomicAdd(ks_fsh + cur, run);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        if (ks_fsh[b]) atomicAdd(hist + b, ks_fsh[b]);
}

extern "C" ks_status ks_field_hist_run(const float *d_v, size_t n, float lo, float hi, unsigned bins,
                                       unsigned *d_hist, void *stream)
{
    if (!(lo < hi) || bins < 1 || bins > KS_FIELD_HIST_MAX_BINS)
        return ks_fail(KS_ERR_INVALID, "float histogram: range [%g, %g] and %u bins (lo < hi, 1..%d bins)", lo, hi,
                       bins, KS_FIELD_HIST_MAX_BINS);
    if (!n) return KS_OK;
    /* Enough blocks to fill the device (8 per SM), no more than the items need. */
    int dev = 0, sm_count = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
    const size_t want = (n + KS_FHB - 1) / KS_FHB;
    size_t grid = (size_t)sm_count * KS_FH_BLOCKS_PER_SM;
    if (grid > want) grid = want;
    if (!grid) grid = 1;
    const float scale = ks_field_hist_scale(lo, hi, bins);
    ks_field_hist_kernel<<<(unsigned)grid, KS_FHB, sizeof(unsigned) * bins, (cudaStream_t)stream>>>(
        d_v, n, lo, scale, bins, d_hist);
    KS_CUDA_TRY_LAUNCH("float histogram");
    return KS_OK;
}
