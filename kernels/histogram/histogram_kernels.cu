/* Histogram kernels: global, strided, shared, warp, and CUB as the reference.
 * Every launch adds the counts of [begin, end) of the input into a uint32
 * device histogram (see histogram.h for the three modes). warp in bytes mode
 * runs the byte kernel of hist_fast.h chosen for the input (ks_hist_choose). */
#include <cub/device/device_histogram.cuh>

#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"
#include "hist_fast.h"
#include "histogram.h"

enum { KS_HB = 256, KS_HWARPS = KS_HB / 32 };

struct ks_hist_ctx {
    int sm_count;
    int smem_max;      /* dynamic shared memory per block we may ask for */
    ks_hist_fast *fast; /* warp's byte kernels (bytes mode) */
    ks_hist_fast_pick pick; /* the one that runs: chosen for the input (ks_hist_choose), else the default */
    void *cub_tmp;
    size_t cub_tmp_size;
    int *d_levels;     /* pairs mode, HistogramRange levels (bins + 1) */
    int *d_scratch_hist; /* cub over more than 2^30 samples: one call's counts */
    unsigned *d_scratch_hist_u; /* ks_hist_choose's timed runs count here */
    unsigned levels_bins;
};

struct ks_src {
    const unsigned char *d;
    size_t n, begin, end;
    int mode;
    unsigned bins;
};

__device__ __forceinline__ bool ks_letter(unsigned c)
{
    return ((c | 32u) - 'a') < 26u;
}

/* Item idx of the range: 1 and its bin when it counts, 0 otherwise. */
__device__ __forceinline__ bool ks_item_bin(const ks_src &s, size_t idx, unsigned *bin)
{
    if (s.mode == KS_HIST_BYTES) {
        *bin = s.d[s.begin + idx];
        return true;
    }
    if (s.mode == KS_HIST_PAIRS) {
        const size_t i = s.begin + 2 * idx;
        const unsigned v = s.d[i] | (i + 1 < s.n ? (unsigned)s.d[i + 1] << 8 : 0u);
        *bin = (v * s.bins) >> 16; /* v < 2^16, bins <= 2^16: fits in 32 bits */
        return true;
    }
    const size_t i = s.begin + idx;
    if (!ks_letter(s.d[i]) || (i > 0 && ks_letter(s.d[i - 1]))) return false;
    unsigned h = 2166136261u;
    for (size_t j = i; j < s.n; ++j) {
        const unsigned c = s.d[j];
        if (!ks_letter(c)) break;
        h = (h ^ (c | 32u)) * 16777619u;
    }
    *bin = h % s.bins;
    return true;
}

/* global: one thread per item, one global atomic each. */
__global__ void ks_hist_global_kernel(ks_src s, size_t items, unsigned *hist)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned bin;
    if (idx < items && ks_item_bin(s, idx, &bin)) atomicAdd(hist + bin, 1u);
}

/* strided: the grid-stride loop, still one global atomic per item. */
__global__ void ks_hist_strided_kernel(ks_src s, size_t items, unsigned *hist)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < items; idx += stride) {
        unsigned bin;
        if (ks_item_bin(s, idx, &bin)) atomicAdd(hist + bin, 1u);
    }
}

/* shared (copies == 1) and warp for pairs/words (copies > 1): the bins
 * [lo, lo + span) in `copies` shared sub-histograms (warp w uses copy
 * w % copies); the whole input once per bin range (span < bins when the
 * bins do not fit). kRuns (warp): each thread adds runs of equal bins at
 * once; without (shared, the course's version): one shared atomic per item. */
template <bool kRuns>
__global__ void ks_hist_shared_kernel(ks_src s, size_t items, unsigned span, int copies,
                                      unsigned *hist)
{
    extern __shared__ unsigned ks_sh[];
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned *mine = ks_sh + (size_t)((threadIdx.x >> 5) % copies) * span;
    for (unsigned lo = 0; lo < s.bins; lo += span) {
        const unsigned width = min(span, s.bins - lo);
        for (unsigned i = threadIdx.x; i < width * copies; i += blockDim.x) ks_sh[i % width + (i / width) * span] = 0;
        __syncthreads();
        unsigned cur = 0xffffffffu, run = 0;
        for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < items; idx += stride) {
            unsigned bin;
            if (!ks_item_bin(s, idx, &bin) || bin - lo >= width) continue;
            if (!kRuns) {
                atomicAdd(mine + (bin - lo), 1u);
            } else if (bin == cur) {
                ++run;
            } else {
                if (run) atomicAdd(mine + (cur - lo), run);
                cur = bin;
                run = 1;
            }
        }
        if (run) atomicAdd(mine + (cur - lo), run);
        __syncthreads();
        for (unsigned b = threadIdx.x; b < width; b += blockDim.x) {
            unsigned sum = 0;
            for (int c = 0; c < copies; ++c) sum += ks_sh[(size_t)c * span + b];
            if (sum) atomicAdd(hist + lo + b, sum);
        }
        __syncthreads();
    }
}

/* Lone odd final byte of pairs mode for CUB (which sees whole pairs only). */
__global__ void ks_hist_lone_byte_kernel(const unsigned char *last, unsigned bins, unsigned *hist)
{
    atomicAdd(hist + ((*last * bins) >> 16), 1u);
}

static ks_src make_src(const ks_hist_input *in, size_t begin, size_t end)
{
    ks_src s;
    s.d = in->data;
    s.n = in->n;
    s.begin = begin;
    s.end = end;
    s.mode = (int)in->mode;
    s.bins = in->mode == KS_HIST_BYTES ? 256u : in->bins;
    return s;
}

static int grid_for(const ks_hist_ctx *ctx, size_t items, int per_sm)
{
    const size_t want = (items + KS_HB - 1) / KS_HB;
    size_t g = (size_t)ctx->sm_count * per_sm;
    if (g > want) g = want;
    return g ? (int)g : 1;
}

static ks_status check_args(const ks_hist_input *in, size_t begin, size_t end)
{
    if (end > in->n || begin > end)
        return ks_fail(KS_ERR_INVALID, "histogram: range [%zu, %zu) outside %zu bytes", begin, end, in->n);
    if (in->mode != KS_HIST_BYTES && (in->bins < 1 || in->bins > KS_HIST_MAX_BINS))
        return ks_fail(KS_ERR_INVALID, "histogram: %u bins (1..%d)", in->bins, KS_HIST_MAX_BINS);
    if (in->mode == KS_HIST_PAIRS && (begin & 1))
        return ks_fail(KS_ERR_INVALID, "histogram: pairs start at even offsets (got %zu)", begin);
    return KS_OK;
}

static ks_status launch_global(ks_hist_ctx *, const ks_hist_input *in, size_t begin, size_t end,
                               unsigned *hist, void *stream)
{
    const size_t items = ks_hist_items(in->mode, begin, end);
    if (!items) return KS_OK;
    const size_t blocks = (items + KS_HB - 1) / KS_HB;
    ks_hist_global_kernel<<<(unsigned)blocks, KS_HB, 0, (cudaStream_t)stream>>>(make_src(in, begin, end),
                                                                               items, hist);
    KS_CUDA_TRY_LAUNCH("global");
    return KS_OK;
}

static ks_status launch_strided(ks_hist_ctx *ctx, const ks_hist_input *in, size_t begin, size_t end,
                                unsigned *hist, void *stream)
{
    const size_t items = ks_hist_items(in->mode, begin, end);
    if (!items) return KS_OK;
    ks_hist_strided_kernel<<<grid_for(ctx, items, 8), KS_HB, 0, (cudaStream_t)stream>>>(
        make_src(in, begin, end), items, hist);
    KS_CUDA_TRY_LAUNCH("strided");
    return KS_OK;
}

static ks_status launch_shared_copies(ks_hist_ctx *ctx, const ks_hist_input *in, size_t begin,
                                      size_t end, unsigned *hist, void *stream, int copies, bool runs)
{
    const size_t items = ks_hist_items(in->mode, begin, end);
    if (!items) return KS_OK;
    const ks_src s = make_src(in, begin, end);
    const unsigned cap = (unsigned)ctx->smem_max / 4u;
    unsigned span = s.bins < cap ? s.bins : cap;
    while (copies > 1 && span * (unsigned)copies > cap) --copies;
    if (copies < 1) copies = 1;
    const size_t smem = (size_t)span * copies * 4u;
    /* One wave of resident blocks (as many as fit with this much shared memory). */
    void (*kernel)(ks_src, size_t, unsigned, int, unsigned *) =
        runs ? ks_hist_shared_kernel<true> : ks_hist_shared_kernel<false>;
    int per_sm = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, KS_HB, smem));
    if (per_sm < 1) return ks_fail(KS_ERR_UNSUPPORTED, "shared: %zu bytes of shared memory leave no block resident", smem);
    kernel<<<grid_for(ctx, items, per_sm), KS_HB, smem, (cudaStream_t)stream>>>(s, items, span, copies, hist);
    KS_CUDA_TRY_LAUNCH("shared");
    return KS_OK;
}

static ks_status launch_shared(ks_hist_ctx *ctx, const ks_hist_input *in, size_t begin, size_t end,
                               unsigned *hist, void *stream)
{
    return launch_shared_copies(ctx, in, begin, end, hist, stream, 1, false);
}

static ks_status launch_warp(ks_hist_ctx *ctx, const ks_hist_input *in, size_t begin, size_t end,
                             unsigned *hist, void *stream)
{
    /* pairs and words: per-warp sub-histograms with runs of equal bins */
    if (in->mode != KS_HIST_BYTES) return launch_shared_copies(ctx, in, begin, end, hist, stream, KS_HWARPS, true);
    return ks_hist_fast_run(ctx->fast, ctx->pick.kind, ctx->pick.per_sm, in->data + begin, end - begin, hist, stream);
}

static ks_status cub_scratch(ks_hist_ctx *ctx, size_t need)
{
    if (need <= ctx->cub_tmp_size) return KS_OK;
    if (ctx->cub_tmp) KS_CUDA_TRY(cudaFree(ctx->cub_tmp));
    ctx->cub_tmp = NULL;
    ctx->cub_tmp_size = 0;
    KS_CUDA_TRY(cudaMalloc(&ctx->cub_tmp, need));
    ctx->cub_tmp_size = need;
    return KS_OK;
}


__global__ void ks_hist_add_kernel(unsigned *dst, const int *src, unsigned bins)
{
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bins) dst[b] += (unsigned)src[b];
}

/* One CUB call over `count` samples starting at p into counts (overwritten). */
static ks_status cub_once(ks_hist_ctx *ctx, const ks_hist_input *in, const unsigned char *p, int count,
                          int *counts, cudaStream_t st)
{
    size_t need = 0;
    if (count == 0) { /* a lone odd byte only: nothing for CUB, but the counts are still written */
        KS_CUDA_TRY(cudaMemsetAsync(counts, 0, sizeof(int) * (in->mode == KS_HIST_BYTES ? 256u : in->bins), st));
        return KS_OK;
    }
    if (in->mode == KS_HIST_BYTES) {
        KS_CUDA_TRY(cub::DeviceHistogram::HistogramEven((void *)NULL, need, p, counts, 257, 0, 256, count, st));
        KS_TRY(cub_scratch(ctx, need));
        KS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(ctx->cub_tmp, need, p, counts, 257, 0, 256, count, st));
        return KS_OK;
    }
    /* Pairs: bin b holds v >= ceil(b * 65536 / B), so HistogramRange with
     * those levels is exact for every B (no floating-point scale). */
    const unsigned short *q = reinterpret_cast<const unsigned short *>(p);
    const int levels = (int)in->bins + 1;
    if (ctx->levels_bins != in->bins) {
        int *h = (int *)malloc(sizeof(int) * (size_t)levels);
        if (!h) return ks_fail(KS_ERR_OUT_OF_MEMORY, "cub: no memory for levels");
        for (int b = 0; b < levels; ++b)
            h[b] = (int)(((unsigned long long)b * 65536u + in->bins - 1) / in->bins);
        /* On st and waited for: st may be a non-blocking stream, which a
         * cudaMemcpy on the legacy default stream would not be ordered with. */
        cudaError_t e = cudaMemcpyAsync(ctx->d_levels, h, sizeof(int) * (size_t)levels, cudaMemcpyHostToDevice, st);
        if (e == cudaSuccess) e = cudaStreamSynchronize(st);
        free(h);
        KS_CUDA_TRY(e);
        ctx->levels_bins = in->bins;
    }
    KS_CUDA_TRY(cub::DeviceHistogram::HistogramRange((void *)NULL, need, q, counts, levels, ctx->d_levels,
                                                      count, st));
    KS_TRY(cub_scratch(ctx, need));
    KS_CUDA_TRY(cub::DeviceHistogram::HistogramRange(ctx->cub_tmp, need, q, counts, levels, ctx->d_levels,
                                                      count, st));
    return KS_OK;
}

/* cub writes (not adds) the counts of [begin, end): see histogram.h. */
static ks_status launch_cub(ks_hist_ctx *ctx, const ks_hist_input *in, size_t begin, size_t end,
                            unsigned *hist, void *stream)
{
    if (in->mode == KS_HIST_WORDS)
        return ks_fail(KS_ERR_UNSUPPORTED, "cub counts samples, not words: no cub in word mode");
    const cudaStream_t st = (cudaStream_t)stream;
    const unsigned char *p = in->data + begin;
    const size_t n = end - begin;
    const unsigned bins = in->mode == KS_HIST_BYTES ? 256u : in->bins;
    if (in->mode == KS_HIST_PAIRS && ((size_t)p & 1))
        return ks_fail(KS_ERR_UNSUPPORTED, "cub reads pairs as uint16: the range must start at an even address");
    const int per = in->mode == KS_HIST_PAIRS ? 2 : 1;
    const size_t samples = n / per;
    const size_t max_call = (size_t)1 << 30;
    if (samples <= max_call) {
        KS_TRY(cub_once(ctx, in, p, (int)samples, (int *)hist, st));
    } else {
        KS_CUDA_TRY(cudaMemsetAsync(hist, 0, sizeof(unsigned) * bins, st));
        for (size_t off = 0; off < samples; off += max_call) {
            const size_t cnt = samples - off < max_call ? samples - off : max_call;
            KS_TRY(cub_once(ctx, in, p + off * per, (int)cnt, ctx->d_scratch_hist, st));
            ks_hist_add_kernel<<<(bins + 255) / 256, 256, 0, st>>>(hist, ctx->d_scratch_hist, bins);
            KS_CUDA_TRY_LAUNCH("cub add");
        }
    }
    if (in->mode == KS_HIST_PAIRS && (n & 1)) {
        ks_hist_lone_byte_kernel<<<1, 1, 0, st>>>(p + n - 1, bins, hist);
        KS_CUDA_TRY_LAUNCH("cub lone byte");
    }
    return KS_OK;
}

#define KS_HIST_ROW(name, summary, words, overwrites) {#name, summary, words, overwrites, launch_##name},
static const ks_hist_variant ks_hist_variants[KS_HIST_VARIANT_NUM] = {KS_HIST_VARIANT_ROWS(KS_HIST_ROW)};
#undef KS_HIST_ROW

extern "C" const ks_hist_variant *ks_hist_variant_get(int i)
{
    return (i >= 0 && i < KS_HIST_VARIANT_NUM) ? &ks_hist_variants[i] : NULL;
}

extern "C" int ks_hist_variant_find(const char *name)
{
    for (int i = 0; i < KS_HIST_VARIANT_NUM; ++i)
        if (strcmp(name, ks_hist_variants[i].name) == 0) return i;
    return -1;
}

extern "C" void ks_hist_atomics_model(ks_hist_ctx *ctx, int variant, const ks_hist_input *in, size_t bytes,
                                      double items_per_byte, double *global, double *shared)
{
    const unsigned bins = in->mode == KS_HIST_BYTES ? 256u : in->bins;
    const double blocks = ctx ? (double)ctx->sm_count * 8 : 1.0;
    const double merge = bytes ? blocks * bins / (double)bytes : 0.0;
    *global = *shared = 0.0;
    if (variant == 0 || variant == 1) {
        *global = items_per_byte;
    } else if (variant == 3 && in->mode == KS_HIST_BYTES && ctx) {
        /* one shared atomic per byte (16 equal bytes: one); per block at most
         * 256 global atomics, plus at most 30 for the unaligned ends */
        const double gl = bytes ? merge + 30.0 / (double)bytes : 0.0;
        *shared = items_per_byte;
        *global = gl < items_per_byte ? gl : items_per_byte;
    } else if (variant == 2 || variant == 3) {
        *shared = items_per_byte; /* at most: equal neighbours are added as one run */
        *global = merge < items_per_byte ? merge : items_per_byte;
    } else {
        *global = *shared = -1.0;
    }
}

extern "C" ks_status ks_hist_ctx_create(ks_hist_ctx **out)
{
    *out = NULL;
    ks_hist_ctx *ctx = (ks_hist_ctx *)calloc(1, sizeof *ctx);
    if (!ctx) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory");
    int dev = 0, smem_optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess) {
        /* Up to 64 KiB per block (several blocks per SM stay resident). */
        ctx->smem_max = smem_optin < 65536 ? smem_optin : 65536;
        e = cudaFuncSetAttribute(ks_hist_shared_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 ctx->smem_max);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(ks_hist_shared_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 ctx->smem_max);
    }
    if (e == cudaSuccess) e = cudaMalloc(&ctx->d_levels, sizeof(int) * (KS_HIST_MAX_BINS + 1));
    if (e == cudaSuccess) e = cudaMalloc(&ctx->d_scratch_hist, sizeof(int) * KS_HIST_MAX_BINS);
    if (e == cudaSuccess) e = cudaMalloc(&ctx->d_scratch_hist_u, sizeof(unsigned) * KS_HIST_BYTE_BINS);
    if (e != cudaSuccess) {
        ks_hist_ctx_destroy(ctx);
        return ks_fail(KS_ERR_CUDA, "histogram: device set-up failed: %s", cudaGetErrorString(e));
    }
    const ks_status st = ks_hist_fast_create(&ctx->fast);
    if (st != KS_OK) {
        ks_hist_ctx_destroy(ctx);
        return st;
    }
    ks_hist_fast_default(ctx->fast, &ctx->pick);
    *out = ctx;
    return KS_OK;
}

extern "C" ks_status ks_hist_choose(ks_hist_ctx *ctx, const ks_hist_input *in, void *stream)
{
    if (in->mode != KS_HIST_BYTES || in->n == 0) return KS_OK;
    return ks_hist_fast_choose(ctx->fast, in->data, in->n, ctx->d_scratch_hist_u, stream, &ctx->pick);
}

extern "C" void ks_hist_choice_text(const ks_hist_ctx *ctx, char *buf, size_t len)
{
    ks_hist_fast_pick_text(&ctx->pick, buf, len);
}

extern "C" void ks_hist_ctx_destroy(ks_hist_ctx *ctx)
{
    if (!ctx) return;
    cudaFree(ctx->cub_tmp);
    cudaFree(ctx->d_levels);
    cudaFree(ctx->d_scratch_hist);
    cudaFree(ctx->d_scratch_hist_u);
    ks_hist_fast_destroy(ctx->fast);
    free(ctx);
}

extern "C" ks_status ks_hist_run(ks_hist_ctx *ctx, int variant, const ks_hist_input *in, size_t begin,
                                 size_t end, unsigned *d_hist, void *stream)
{
    const ks_hist_variant *v = ks_hist_variant_get(variant);
    if (!v) return ks_fail(KS_ERR_INVALID, "histogram: no variant %d", variant);
    KS_TRY(check_args(in, begin, end));
    if (in->mode == KS_HIST_WORDS && !v->words)
        return ks_fail(KS_ERR_UNSUPPORTED, "%s: not available in word mode", v->name);
    return v->launch(ctx, in, begin, end, d_hist, stream);
}

extern "C" ks_status ks_hist_add(unsigned *d_dst, const unsigned *d_src, unsigned bins, void *stream)
{
    ks_hist_add_kernel<<<(bins + 255) / 256, 256, 0, (cudaStream_t)stream>>>(d_dst, (const int *)d_src, bins);
    KS_CUDA_TRY_LAUNCH("histogram add");
    return KS_OK;
}

/* Column values (sum of the column's bins, log10(1 + s) on a log scale), as ks_hist_column. */
__device__ float ks_hist_cols[16384];

__global__ void ks_hist_cols_kernel(const unsigned *hist, unsigned bins, int log_scale, int pw)
{
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < pw; x += gridDim.x * blockDim.x) {
        const unsigned b0 = (unsigned)((unsigned long long)x * bins / (unsigned)pw);
        unsigned b1 = (unsigned)((unsigned long long)(x + 1) * bins / (unsigned)pw);
        if (b1 <= b0) b1 = b0 + 1;
        double s = 0.0;
        for (unsigned b = b0; b < b1; ++b) s += (double)hist[b];
        if (log_scale) s = log10(1.0 + s);
        ks_hist_cols[x] = (float)s;
    }
}

/* One pixel: label ink over everything, bars, grid lines behind the bars, background
 * (ks_hist_draw_bars_cpu's order and colours). The bar height with single-rounding steps,
 * as the host's float arithmetic. */
__global__ void ks_hist_bars_kernel(uchar4 *rgba, int w, int h, ks_hist_axes ax, const unsigned char *mask)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const size_t e = (size_t)y * w + x;
    const int px = x - ax.x0, py = y - ax.y0;
    int on = 0;
    if (px >= 0 && px < ax.pw && py >= 0 && ax.top > 0.0f) {
        const int rows = (int)__fadd_rn(__fmul_rn(__fdiv_rn(ks_hist_cols[px / ax.cw], ax.top), (float)(ax.ph - 1)), 0.5f);
        on = py < rows;
    }
    const unsigned char m = mask[e];
    rgba[e] = m == KS_HIST_MASK_INK ? make_uchar4(225, 225, 230, 255)
              : on                  ? make_uchar4(70, 160, 230, 255)
              : m == KS_HIST_MASK_GRID ? make_uchar4(52, 52, 64, 255)
                                       : make_uchar4(18, 18, 24, 255);
}

extern "C" ks_status ks_hist_draw_bars(const unsigned *d_hist, unsigned bins, int log_scale, const ks_hist_axes *ax,
                                       const unsigned char *d_mask, unsigned char *rgba, int w, int h, void *stream)
{
    if (w < 1 || w >= 16384 || h < 1 || ax->pw < 1 || ax->pw > w || ax->cw < 1 || ax->cols * ax->cw != ax->pw)
        return ks_fail(KS_ERR_INVALID, "histogram bars: picture %dx%d", w, h);
    const cudaStream_t st = (cudaStream_t)stream;
    ks_hist_cols_kernel<<<(ax->cols + 255) / 256, 256, 0, st>>>(d_hist, bins, log_scale, ax->cols);
    KS_CUDA_TRY_LAUNCH("histogram columns");
    const dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    ks_hist_bars_kernel<<<grid, block, 0, st>>>((uchar4 *)rgba, w, h, *ax, d_mask);
    KS_CUDA_TRY_LAUNCH("histogram bars");
    return KS_OK;
}
