/* One histogram input on the device: upload, chunks, timing, counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "base/cuda_check.h"
#include "base/l2_flush.h"
#include "histogram.h"
#include "histogram_launch.h"

/* The bins' place: this many bytes past a boundary of twice as many (see gpu_setup). */
enum { KS_HIST_BINS_OFFSET = 512 };

struct ks_hist_gpu {
    ks_hist_ctx *ctx;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    unsigned char *alloc; /* data lives at alloc + misalign */
    ks_hist_input in;
    unsigned *d_hist, *d_tmp;
    unsigned char *hist_alloc; /* d_hist lives in it, KS_HIST_BINS_OFFSET past a 1 KB boundary */
    unsigned bins;
    unsigned char *d_mask, *mask; /* the label mask on the device, and the host copy it was made from */
    size_t mask_cap;              /* bytes of each */
    ks_l2_flush *flush;           /* cold-cache timing's flush, made on first use */
};

extern "C" void ks_hist_gpu_destroy(ks_hist_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    cudaFree(g->alloc);
    cudaFree(g->hist_alloc);
    cudaFree(g->d_tmp);
    cudaFree(g->d_mask);
    free(g->mask);
    ks_l2_flush_destroy(g->flush);
    if (g->ev0) cudaEventDestroy(g->ev0);
    if (g->ev1) cudaEventDestroy(g->ev1);
    if (g->stream) cudaStreamDestroy(g->stream);
    ks_hist_ctx_destroy(g->ctx);
    free(g);
}

static ks_status gpu_setup(ks_hist_gpu *g, const unsigned char *data, size_t n, size_t misalign)
{
    KS_TRY(ks_hist_ctx_create(&g->ctx));
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaEventCreate(&g->ev0));
    KS_CUDA_TRY(cudaEventCreate(&g->ev1));
    KS_CUDA_TRY(cudaMalloc((void **)&g->alloc, n + misalign));
    /* Where the bins sit decides how fast one global atomic a byte goes: on an H200 the course's
       histogram ran 12.9 ms with its 1 KB of bins 512 bytes past a 1 KB boundary and 27.0 ms with
       them on it (scripts/histogram-bins-placement.cu, docs/histogram.md). A plain cudaMalloc puts
       them wherever its pool has room, so a run's time depended on what was allocated before;
       a fixed place makes every run (and a course program that places them alike) comparable. */
    KS_CUDA_TRY(cudaMalloc((void **)&g->hist_alloc, sizeof(unsigned) * g->bins + 2 * KS_HIST_BINS_OFFSET));
    g->d_hist = (unsigned *)(((uintptr_t)g->hist_alloc + 2 * KS_HIST_BINS_OFFSET - 1) /
                                 (2 * KS_HIST_BINS_OFFSET) * (2 * KS_HIST_BINS_OFFSET) +
                             KS_HIST_BINS_OFFSET);
    KS_CUDA_TRY(cudaMalloc((void **)&g->d_tmp, sizeof(unsigned) * g->bins));
    /* Upload and clear on our own stream, and wait: g->stream is non-blocking,
     * so work on the legacy default stream (cudaMemcpy from pageable memory
     * returns before its DMA ends; cudaMemset is asynchronous) would not be
     * ordered before the kernels, fills and reads that follow on g->stream. */
    KS_CUDA_TRY(cudaMemcpyAsync(g->alloc + misalign, data, n, cudaMemcpyHostToDevice, g->stream));
    KS_CUDA_TRY(cudaMemsetAsync(g->d_hist, 0, sizeof(unsigned) * g->bins, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    g->in.data = g->alloc + misalign;
    /* warp's byte kernel for this input: the fastest of a few, timed on it */
    return ks_hist_choose(g->ctx, &g->in, g->stream);
}

/* The one place zero fields become defaults (data and n have none). */
static ks_hist_gpu_desc hist_gpu_desc_defaults(const ks_hist_gpu_desc &desc)
{
    ks_hist_gpu_desc d = desc;
    if (d.mode == KS_HIST_BYTES) d.bins = KS_HIST_BYTE_BINS;
    else if (d.bins == 0) d.bins = KS_HIST_WORD_BINS_DEFAULT;
    return d;
}

extern "C" ks_status ks_hist_gpu_create(const ks_hist_gpu_desc *desc, ks_hist_gpu **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "histogram: no output pointer");
    *out = NULL;
    if (!desc || !desc->data) return ks_fail(KS_ERR_INVALID, "histogram: no input data");
    const ks_hist_gpu_desc d = hist_gpu_desc_defaults(*desc);
    const unsigned char *data = d.data;
    const size_t n = d.n, misalign = d.misalign;
    const ks_hist_mode mode = d.mode;
    const unsigned bins = d.bins;
    if (n < 1 || n > KS_HIST_MAX_BYTES || misalign > 15)
        return ks_fail(KS_ERR_INVALID, "histogram: %zu bytes at offset %zu (1..%llu bytes, offset 0..15)", n,
                       misalign, KS_HIST_MAX_BYTES);
    if (bins < 1 || bins > KS_HIST_MAX_BINS)
        return ks_fail(KS_ERR_INVALID, "histogram: %u bins (1..%d)", bins, KS_HIST_MAX_BINS);
    ks_hist_gpu *g = (ks_hist_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory");
    g->bins = bins;
    g->in.n = n;
    g->in.mode = mode;
    g->in.bins = bins;
    ks_status st = gpu_setup(g, data, n, misalign);
    if (st != KS_OK) {
        ks_hist_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void *ks_hist_gpu_stream(ks_hist_gpu *g) { return g->stream; }
extern "C" const ks_hist_input *ks_hist_gpu_input(ks_hist_gpu *g) { return &g->in; }
extern "C" ks_hist_ctx *ks_hist_gpu_ctx(ks_hist_gpu *g) { return g->ctx; }

__global__ void ks_hist_fill_kernel(unsigned *h, unsigned bins, unsigned value)
{
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bins) h[b] = value;
}

extern "C" ks_status ks_hist_gpu_fill(ks_hist_gpu *g, unsigned value)
{
    ks_hist_fill_kernel<<<(g->bins + 255) / 256, 256, 0, g->stream>>>(g->d_hist, g->bins, value);
    KS_CUDA_TRY_LAUNCH("histogram fill");
    return KS_OK;
}

extern "C" ks_status ks_hist_gpu_counts(ks_hist_gpu *g, uint64_t *out)
{
    unsigned *h = (unsigned *)malloc(sizeof(unsigned) * g->bins);
    if (!h) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory");
    cudaError_t e = cudaMemcpyAsync(h, g->d_hist, sizeof(unsigned) * g->bins, cudaMemcpyDeviceToHost, g->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
    if (e == cudaSuccess)
        for (unsigned b = 0; b < g->bins; ++b) out[b] = h[b];
    free(h);
    KS_CUDA_TRY(e);
    return KS_OK;
}

extern "C" ks_status ks_hist_gpu_draw(ks_hist_gpu *g, int log_scale, const ks_hist_axes *ax,
                                      const unsigned char *mask, unsigned char *rgba, int w, int h)
{
    const size_t n = (size_t)w * h;
    if (g->mask_cap < n) {
        cudaFree(g->d_mask);
        free(g->mask);
        g->d_mask = NULL;
        g->mask_cap = 0;
        g->mask = (unsigned char *)malloc(n);
        if (!g->mask) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory for the label mask");
        KS_CUDA_TRY(cudaMalloc(&g->d_mask, n));
        g->mask_cap = n;
        memset(g->mask, 0xFF, n); /* no mask has this: the first one is copied */
    }
    /* labels change only when the axis does (a new tick, a new tallest byte): copy then; the
     * stream orders the copy after the last draw's reads */
    if (memcmp(g->mask, mask, n) != 0) {
        memcpy(g->mask, mask, n);
        KS_CUDA_TRY(cudaMemcpyAsync(g->d_mask, g->mask, n, cudaMemcpyHostToDevice, g->stream));
    }
    return ks_hist_draw_bars(g->d_hist, g->bins, log_scale, ax, g->d_mask, rgba, w, h, g->stream);
}

/* ---- runs: one of ours, or a user's kernel (histogram_user.h) at its block ---- */

typedef struct hist_run {
    int variant;               /* ours, when user is NULL */
    const ks_hist_user *user;  /* a user's kernel */
    const int *block;          /* its block */
} hist_run;

/* A user's kernel over [begin, end) of the input, into the counts. */
static ks_status user_range(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], size_t begin, size_t end)
{
    if (g->in.mode != KS_HIST_BYTES)
        return ks_fail(KS_ERR_INVALID, "%s: users' kernels count bytes (256 bins), not %s", ks_user_code_name(u),
                       ks_hist_mode_name(g->in.mode));
    if (end > g->in.n || begin > end)
        return ks_fail(KS_ERR_INVALID, "histogram: range [%zu, %zu) outside %zu bytes", begin, end, g->in.n);
    KS_TRY(ks_hist_user_launch(u, block, g->in.data + begin, end - begin, g->d_hist, g->stream));
    KS_CUDA_TRY_LAUNCH("histogram (your kernel)");
    return KS_OK;
}

/* Adds the counts of [begin, end) into the counts (a variant that overwrites runs into the scratch counts first). */
static ks_status run_range(ks_hist_gpu *g, const hist_run *r, size_t begin, size_t end)
{
    if (r->user) return user_range(g, r->user, r->block, begin, end);
    const ks_hist_variant *v = ks_hist_variant_get(r->variant);
    if (!v) return ks_fail(KS_ERR_INVALID, "histogram: no variant %d", r->variant);
    if (!v->overwrites) return ks_hist_run(g->ctx, r->variant, &g->in, begin, end, g->d_hist, g->stream);
    KS_TRY(ks_hist_run(g->ctx, r->variant, &g->in, begin, end, g->d_tmp, g->stream));
    return ks_hist_add(g->d_hist, g->d_tmp, g->bins, g->stream);
}

/* The whole input into cleared counts, as the bench times it. */
static ks_status run_whole(ks_hist_gpu *g, const hist_run *r)
{
    const ks_hist_variant *v = r->user ? NULL : ks_hist_variant_get(r->variant);
    if (!r->user && !v) return ks_fail(KS_ERR_INVALID, "histogram: no variant %d", r->variant);
    if (r->user || !v->overwrites) KS_CUDA_TRY(cudaMemsetAsync(g->d_hist, 0, sizeof(unsigned) * g->bins, g->stream));
    if (r->user) return user_range(g, r->user, r->block, 0, g->in.n);
    return ks_hist_run(g->ctx, r->variant, &g->in, 0, g->in.n, g->d_hist, g->stream);
}

/* A chunk between the context's two events; *ms its time (NULL: not waited for). */
static ks_status timed_chunk(ks_hist_gpu *g, const hist_run *r, size_t begin, size_t end, double *ms)
{
    KS_CUDA_TRY(cudaEventRecord(g->ev0, g->stream));
    KS_TRY(run_range(g, r, begin, end));
    KS_CUDA_TRY(cudaEventRecord(g->ev1, g->stream));
    if (ms) {
        float t = 0.0f;
        KS_CUDA_TRY(cudaEventSynchronize(g->ev1));
        KS_CUDA_TRY(cudaEventElapsedTime(&t, g->ev0, g->ev1));
        *ms = t;
    }
    return KS_OK;
}

/* One whole run between the context's events (the timing loop's sample). */
static ks_status whole_timed(ks_hist_gpu *g, const hist_run *r, double *ms)
{
    float t = 0.0f;
    KS_CUDA_TRY(cudaEventRecord(g->ev0, g->stream));
    KS_TRY(run_whole(g, r));
    KS_CUDA_TRY(cudaEventRecord(g->ev1, g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(g->ev1));
    KS_CUDA_TRY(cudaEventElapsedTime(&t, g->ev0, g->ev1));
    *ms = t;
    return KS_OK;
}

typedef struct hist_timed {
    ks_hist_gpu *g;
    const hist_run *r;
} hist_timed;

static ks_status hist_sample(void *ctx, double *ms)
{
    const hist_timed *t = (const hist_timed *)ctx;
    return whole_timed(t->g, t->r, ms);
}

static ks_status hist_flush(void *ctx)
{
    ks_hist_gpu *g = ((const hist_timed *)ctx)->g;
    return ks_l2_flush_run(&g->flush, g->stream);
}

/* The benches' loop (bench_timing.h) over whole runs; working set: the input and the counts. */
static ks_status time_whole(ks_hist_gpu *g, const hist_run *r, const ks_timing_opts *o, ks_timing *out)
{
    double l2 = 0.0;
    KS_TRY(ks_cuda_l2_bytes(&l2));
    hist_timed t = {g, r};
    const ks_timing_run run = {hist_sample, hist_flush, &t, (double)g->in.n + 4.0 * g->bins, l2};
    const ks_status st = ks_timing_measure(&run, o, out);
    if (st != KS_OK && r->user) ks_error_prefix("histogram timing (your kernel)");
    return st;
}

extern "C" ks_status ks_hist_gpu_chunk(ks_hist_gpu *g, int variant, size_t begin, size_t end, double *ms)
{
    const hist_run r = {variant, NULL, NULL};
    return timed_chunk(g, &r, begin, end, ms);
}

extern "C" ks_status ks_hist_gpu_whole(ks_hist_gpu *g, int variant)
{
    const hist_run r = {variant, NULL, NULL};
    return run_whole(g, &r);
}

extern "C" ks_status ks_hist_gpu_time(ks_hist_gpu *g, int variant, const ks_timing_opts *o, ks_timing *out)
{
    const hist_run r = {variant, NULL, NULL};
    return time_whole(g, &r, o, out);
}

extern "C" ks_status ks_hist_gpu_chunk_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], size_t begin,
                                            size_t end, double *ms)
{
    const hist_run r = {-1, u, block};
    return timed_chunk(g, &r, begin, end, ms);
}

extern "C" ks_status ks_hist_gpu_whole_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3])
{
    const hist_run r = {-1, u, block};
    return run_whole(g, &r);
}

extern "C" ks_status ks_hist_gpu_time_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3],
                                           const ks_timing_opts *o, ks_timing *out)
{
    const hist_run r = {-1, u, block};
    return time_whole(g, &r, o, out);
}
