/* Reduce: the levels of a sum or scan and the picture drawn from them
 * (ks_reduce_gpu_levels, _levels_download, _draw), with their kernels. */
#include "reduce_gpu_internal.h"

#include "base/colormap.h"

/* ---- the picture ---- */

/* One level of the sum picture: block b adds in[b*B .. b*B+B-1] (shared-memory tree, float). */
__global__ void ks_rd_level_sum_kernel(const float *in, long long len, float *out)
{
    extern __shared__ float s_lv[];
    const unsigned t = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + t;
    s_lv[t] = i < len ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned d = blockDim.x >> 1; d > 0; d >>= 1) {
        if (t < d) s_lv[t] += s_lv[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s_lv[0];
}

/* max |v| as float bits (non-negative floats order as their bits). */
__global__ void ks_rd_absmax_kernel(const float *p, long long len, unsigned *out)
{
    unsigned m = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < len; i += stride)
        m = max(m, __float_as_uint(fabsf(p[i])));
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(KS_RD_FULL, m, o));
    if ((threadIdx.x & 31) == 0) atomicMax(out, m);
}

struct ks_rd_draw_args {
    const float *p[KS_REDUCE_MAX_LEVELS];
    long long len[KS_REDUCE_MAX_LEVELS];
    float inv_scale[KS_REDUCE_MAX_LEVELS];
    int count;
};

__global__ void ks_rd_draw_kernel(ks_rd_draw_args a, int w, int h, const uchar4 *lut, float lo, float inv_span,
                                  uchar4 *out)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x, yb = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= w || yb >= h) return;
    const int r = h - 1 - yb;
    const int s = (int)((long long)r * a.count / h);
    const int first = (int)(((long long)s * h + a.count - 1) / a.count);
    uchar4 col;
    if (s > 0 && r == first) {
        col = make_uchar4(0, 0, 0, 255);
    } else {
        const long long idx = (long long)c * a.len[s] / w;
        const float v = __fmul_rn(a.p[s][idx], a.inv_scale[s]);
        col = lut[ks_colormap_index(v, lo, inv_span)];
    }
    out[(size_t)yb * w + c] = col;
}

static const float *level_ptr(ks_reduce_gpu *g, int s)
{
    return s == 0 ? g->x : g->lv_dev + g->lv_off[s];
}

extern "C" ks_status ks_reduce_gpu_levels(ks_reduce_gpu *g, ks_reduce_op op, ks_reduce_levels *lv)
{
    if (op != KS_REDUCE_OP_SUM && op != KS_REDUCE_OP_SCAN)
        return ks_fail(KS_ERR_INVALID, "reduce: unknown operation %d", (int)op);
    const int B = g->d.block;
    g->have_levels = 0;
    ks_reduce_levels_layout(op, g->d.n, B, &g->lv);
    long long need = 0;
    for (int s = 1; s < g->lv.count; ++s) {
        g->lv_off[s] = need;
        need += (g->lv.len[s] + 63) / 64 * 64;
    }
    if (need > g->lv_cap) {
        cudaFree(g->lv_dev);
        g->lv_dev = NULL;
        g->lv_cap = 0;
        KS_TRY(ks_rd_dev_alloc((void **)&g->lv_dev, (size_t)need * 4, "the picture's levels"));
        g->lv_cap = need;
    }
    ks_reduce_levels *L = &g->lv;
    if (op == KS_REDUCE_OP_SCAN) {
        float *local = (float *)level_ptr(g, 1), *sums = (float *)level_ptr(g, 2);
        ks_rd_scan_local_launch(g, (unsigned)L->len[2], g->x, local, g->d.n, sums);
        KS_CUDA_TRY_LAUNCH("levels local");
        KS_TRY(ks_rd_scan_lookback(g, (float *)level_ptr(g, 3)));
    } else {
        for (int s = 1; s < L->count; ++s) {
            ks_rd_level_sum_kernel<<<(unsigned)L->len[s], B, B * sizeof(float), g->stream>>>(
                level_ptr(g, s - 1), L->len[s - 1], (float *)level_ptr(g, s));
            KS_CUDA_TRY_LAUNCH("levels sum");
        }
    }
    KS_CUDA_TRY(cudaMemsetAsync(g->lv_max, 0, KS_REDUCE_MAX_LEVELS * 4, g->stream));
    for (int s = 0; s < L->count; ++s) {
        long long blocks = (L->len[s] + 255) / 256;
        if (blocks > g->sm_count * 8LL) blocks = g->sm_count * 8LL;
        ks_rd_absmax_kernel<<<(unsigned)blocks, 256, 0, g->stream>>>(level_ptr(g, s), L->len[s], g->lv_max + s);
        KS_CUDA_TRY_LAUNCH("levels max");
    }
    unsigned bits[KS_REDUCE_MAX_LEVELS];
    KS_CUDA_TRY(cudaMemcpyAsync(bits, g->lv_max, sizeof bits, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    for (int s = 0; s < L->count; ++s) {
        float f;
        memcpy(&f, &bits[s], 4);
        L->scale[s] = f > 0.0f ? f : 1.0f;
    }
    g->have_levels = 1;
    *lv = *L;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_levels_download(ks_reduce_gpu *g, float *data)
{
    if (!g->have_levels) return ks_fail(KS_ERR_INVALID, "reduce: no levels computed");
    for (int s = 0; s < g->lv.count; ++s)
        KS_CUDA_TRY(cudaMemcpyAsync(data + g->lv.offset[s], level_ptr(g, s), (size_t)g->lv.len[s] * 4,
                                    cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_draw(ks_reduce_gpu *g, int w, int h, const unsigned char lut[256][4], float lo,
                                        float hi, void *rgba)
{
    if (!g->have_levels) return ks_fail(KS_ERR_INVALID, "reduce: no levels computed");
    if (w < 1 || h < 1) return ks_fail(KS_ERR_INVALID, "reduce: picture size %dx%d", w, h);
    KS_CUDA_TRY(cudaMemcpyAsync(g->lut, lut, 256 * 4, cudaMemcpyHostToDevice, g->stream));
    ks_rd_draw_args a;
    memset(&a, 0, sizeof a);
    a.count = g->lv.count;
    for (int s = 0; s < a.count; ++s) {
        a.p[s] = level_ptr(g, s);
        a.len[s] = g->lv.len[s];
        a.inv_scale[s] = 1.0f / g->lv.scale[s];
    }
    const dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    ks_rd_draw_kernel<<<grid, block, 0, g->stream>>>(a, w, h, (const uchar4 *)g->lut, lo, ks_colormap_inv_span(lo, hi),
                                                      (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("reduce draw");
    return KS_OK;
}
