/* Laplace on CUDA: the solver object (fields, stream, sweeps through the
 * variant table, residual, timing). The kernels are in laplace_course.cu,
 * laplace_fast.cu and laplace_tblock.cu; slices and readback in
 * laplace_slice.cu. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "base/l2_flush.h"
#include "laplace_gpu_internal.h"
#include "laplace_user.h"

/* ================= solver ================= */

static void graph_free(ks_lgraph *g);

static ks_status check_grid(const ks_grid *g)
{
    if (!g || (g->dims != 2 && g->dims != 3))
        return ks_fail(KS_ERR_INVALID, "grid must be 2D or 3D");
    if (g->nx < 3 || g->ny < 3 || (g->dims == 3 && g->nz < 3) || (g->dims == 2 && g->nz != 1))
        return ks_fail(KS_ERR_INVALID, "grid %dx%dx%d: need >= 3 points per axis (nz = 1 in 2D)",
                       g->nx, g->ny, g->nz);
    return KS_OK;
}

static ks_status solver_alloc(ks_lsolver *s)
{
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaMalloc((void **)&s->cur, s->bytes));
    KS_CUDA_TRY(cudaMalloc((void **)&s->prev, s->bytes));
    KS_CUDA_TRY(cudaMalloc((void **)&s->d_residual, sizeof(double)));
    KS_CUDA_TRY(cudaMalloc((void **)&s->d_minmax, 2 * sizeof(unsigned)));
    KS_CUDA_TRY(cudaMemset(s->d_residual, 0, sizeof(double)));
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n) {
        KS_CUDA_TRY(cudaMallocHost((void **)&s->slots[n].host, sizeof(ks_lreadback_raw)));
        KS_CUDA_TRY(cudaEventCreateWithFlags(&s->slots[n].done, cudaEventDisableTiming));
    }
    KS_CUDA_TRY(cudaEventCreate(&s->t0));
    KS_CUDA_TRY(cudaEventCreate(&s->t1));
    return KS_OK;
}

ks_status ks_lsolver_create(const ks_grid *g, ks_lsolver **out)
{
    *out = NULL;
    KS_TRY(check_grid(g));
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        return ks_fail(KS_ERR_NO_DEVICE, "no CUDA device");
    }
    ks_lsolver *s = (ks_lsolver *)calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "solver: host allocation failed");
    s->g = *g;
    if (s->g.dims == 2) s->g.nz = 1;
    s->points = ks_grid_points(&s->g);
    s->bytes = ks_grid_bytes(&s->g);
    ks_status st = KS_OK;
    size_t free_b = 0, total_b = 0;
    if (cudaGetDevice(&s->device) != cudaSuccess ||
        cudaGetDeviceProperties(&s->prop, s->device) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        st = ks_fail(KS_ERR_CUDA, "solver: cannot query the CUDA device: %s",
                     cudaGetErrorString(cudaGetLastError()));
    } else {
        const double need = 2.0 * (double)s->bytes;
        const double gib = 1024.0 * 1024.0 * 1024.0;
        /* leave a little room for the driver, the render buffer and scratch */
        if (need + 64.0 * 1024.0 * 1024.0 > (double)free_b)
            st = ks_fail(KS_ERR_OUT_OF_MEMORY,
                         "grid %dx%dx%d needs %.1f GiB of GPU memory (2 fields), %s has %.1f GiB free",
                         g->nx, g->ny, s->g.nz, need / gib, s->prop.name, (double)free_b / gib);
    }
    if (st == KS_OK) st = solver_alloc(s);
    if (st != KS_OK) {
        ks_lsolver_destroy(s);
        return st;
    }
    *out = s;
    return KS_OK;
}

void ks_lsolver_destroy(ks_lsolver *s)
{
    if (!s) return;
    if (s->stream && ks_cuda_wait_stream(s->stream, "ending the solver") != KS_OK) return; /* a stalled GPU */
    ks_lsolver_drop_graphs(s);
    cudaFree(s->cur);
    cudaFree(s->prev);
    cudaFree(s->d_residual);
    cudaFree(s->d_minmax);
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n) {
        if (s->slots[n].host) cudaFreeHost(s->slots[n].host);
        if (s->slots[n].done) cudaEventDestroy(s->slots[n].done);
    }
    if (s->t0) cudaEventDestroy(s->t0);
    if (s->t1) cudaEventDestroy(s->t1);
    cudaFree(s->d_hist);
    if (s->h_hist) cudaFreeHost(s->h_hist);
    if (s->hist_done) cudaEventDestroy(s->hist_done);
    ks_l2_flush_destroy(s->flush);
    if (s->stream && !s->stream_borrowed) cudaStreamDestroy(s->stream);
    cudaGetLastError(); /* nothing to report on the way out */
    free(s);
}

void *ks_lsolver_stream(ks_lsolver *s) { return (void *)s->stream; }

ks_status ks_lsolver_fill_bytes(ks_lsolver *s, void *dst, int value, size_t bytes)
{
    KS_CUDA_TRY(cudaMemsetAsync(dst, value, bytes, s->stream));
    return KS_OK;
}

ks_status ks_lsolver_upload_bytes(ks_lsolver *s, void *dst, const void *src, size_t bytes)
{
    if (!dst || !src) return ks_fail(KS_ERR_INVALID, "upload: no source or destination");
    KS_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s->stream));
    return KS_OK;
}

ks_status ks_lsolver_use_stream(ks_lsolver *s, void *stream)
{
    KS_TRY(ks_lsolver_wait(s));
    ks_lsolver_drop_graphs(s); /* captured on the old stream */
    if (!s->stream_borrowed) KS_CUDA_TRY(cudaStreamDestroy(s->stream));
    s->stream = (cudaStream_t)stream;
    s->stream_borrowed = 1;
    return KS_OK;
}

ks_status ks_lsolver_wait(ks_lsolver *s)
{
    return ks_cuda_wait_stream(s->stream, "waiting for the solver");
}

ks_status ks_lsolver_upload(ks_lsolver *s, const float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(s->cur, host, s->bytes, cudaMemcpyHostToDevice, s->stream));
    KS_CUDA_TRY(cudaMemcpyAsync(s->prev, host, s->bytes, cudaMemcpyHostToDevice, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

ks_status ks_lsolver_upload_previous(ks_lsolver *s, const float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(s->prev, host, s->bytes, cudaMemcpyHostToDevice, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

ks_status ks_lsolver_download(ks_lsolver *s, float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(host, s->cur, s->bytes, cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

ks_status ks_lsolver_download_previous(ks_lsolver *s, float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(host, s->prev, s->bytes, cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

/* The launcher of each variant, at the variant's index (laplace.h's rows). */
#define KS_LLAUNCH_ROW(name, summary, dims, rank, bx, by, bz, steps) ks_llaunch_##name,
static const ks_llaunch_fn ks_llaunchers[] = {KS_LVARIANT_ROWS(KS_LLAUNCH_ROW)};
#undef KS_LLAUNCH_ROW

ks_status ks_lsolver_launcher(const ks_lsolver *s, int variant, const ks_lvariant_info **info,
                              ks_llaunch_fn *fn)
{
    const ks_lvariant_info *v = ks_lvariant_get(variant);
    if (!v) return ks_fail(KS_ERR_INVALID, "no kernel variant %d", variant);
    if (v->dims != s->g.dims)
        return ks_fail(KS_ERR_INVALID, "variant %s is for %dD grids, this grid is %dD", v->name,
                       v->dims, s->g.dims);
    if (ks_lvariant_is_user(variant) && !ks_luser_ready(variant))
        return ks_fail(KS_ERR_INVALID, "%s has no compiled code yet", v->name);
    *info = v;
    *fn = ks_lvariant_is_user(variant) ? ks_luser_launcher(variant) : ks_llaunchers[variant];
    return KS_OK;
}

static void sweep_init(const ks_lsolver *s, const int block[3], ks_lsweep *sw)
{
    memset(sw, 0, sizeof *sw);
    sw->grid = &s->g;
    sw->in = s->cur;
    sw->out = s->prev;
    for (int d = 0; d < 3; ++d) sw->block[d] = block[d];
    sw->steps = 1;
    sw->stream = s->stream;
    sw->prop = &s->prop;
}

ks_status ks_lsolver_check_block(const ks_lsolver *s, int variant, const int block[3])
{
    return ks_lsolver_kernel_attrs(s, variant, block, NULL); /* the same dry run, no figures */
}

/* A dry run of the variant's launcher: every check, no launch; out (may be
 * NULL) gets the kernel's registers, shared memory and occupancy. */
ks_status ks_lsolver_kernel_attrs(const ks_lsolver *s, int variant, const int block[3],
                                  ks_kernel_attrs *out)
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_lsolver_launcher(s, variant, &info, &fn));
    ks_lsweep sw;
    sweep_init(s, block, &sw);
    sw.steps = info->steps_per_launch;
    sw.dry_run = 1;
    sw.attrs = out;
    return fn(&sw);
}

static ks_status solver_sweep(ks_lsolver *s, ks_llaunch_fn fn, const int block[3], int steps)
{
    ks_lsweep sw;
    sweep_init(s, block, &sw);
    sw.steps = steps;
    KS_TRY(fn(&sw));
    float *t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return KS_OK;
}

/* Validates the launches of a run with dry runs (so the launches themselves
 * skip the driver queries). */
static ks_status solver_validate_run(const ks_lsolver *s, ks_llaunch_fn fn, int T,
                                     const int block[3], int iters, ks_lprev prev)
{
    ks_lsweep sw;
    sweep_init(s, block, &sw);
    sw.dry_run = 1;
    if (T <= 1) return fn(&sw);
    if (prev == KS_LPREV_ANY) {
        sw.steps = iters < T ? iters : T;
        return fn(&sw);
    }
    sw.steps = iters - 1 < T ? iters - 1 : T;
    if (sw.steps > 0) KS_TRY(fn(&sw));
    sw.steps = 1;
    return ks_llaunch_regq(&sw);
}

/* Enqueues the launches of a validated run (or records them, inside a
 * stream capture) and swaps the fields as they go. */
static ks_status solver_enqueue_run(ks_lsolver *s, ks_llaunch_fn fn, int T, const int block[3],
                                    int iters, ks_lprev prev)
{
    if (T <= 1) {
        for (int n = 0; n < iters; ++n) KS_TRY(solver_sweep(s, fn, block, 1));
        return KS_OK;
    }
    /* Temporally blocked. Exact: launches of up to T steps, then one single
     * step with regq so that prev holds iterate n-1. Any: launches only. */
    int rem = prev == KS_LPREV_EXACT ? iters - 1 : iters;
    while (rem > 0) {
        const int st = rem < T ? rem : T;
        KS_TRY(solver_sweep(s, fn, block, st));
        rem -= st;
    }
    if (prev == KS_LPREV_EXACT) KS_TRY(solver_sweep(s, ks_llaunch_regq, block, 1));
    return KS_OK;
}

static ks_lgraph *graph_find(ks_lsolver *s, int variant, const int block[3], int iters,
                             ks_lprev prev)
{
    for (int n = 0; n < KS_LGRAPH_CACHE; ++n) {
        ks_lgraph *g = &s->graphs[n];
        if (g->exec && g->variant == variant && g->iters == iters && g->prev == (int)prev &&
            g->start_cur == s->cur && memcmp(g->block, block, sizeof g->block) == 0 &&
            g->code == ks_luser_generation(variant))
            return g;
    }
    return NULL;
}

static void graph_free(ks_lgraph *g)
{
    if (g->exec) cudaGraphExecDestroy(g->exec);
    memset(g, 0, sizeof *g);
}

/* Captures the run as a graph into the least recently used cache entry. The
 * fields are left as they were: the capture only records the launches. */
static ks_status graph_capture(ks_lsolver *s, ks_llaunch_fn fn, int T, int variant,
                               const int block[3], int iters, ks_lprev prev, ks_lgraph **out)
{
    float *cur0 = s->cur, *prev0 = s->prev;
    KS_CUDA_TRY(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeRelaxed));
    ks_status st = solver_enqueue_run(s, fn, T, block, iters, prev);
    cudaGraph_t graph = NULL;
    const cudaError_t e_end = cudaStreamEndCapture(s->stream, &graph);
    float *cur1 = s->cur, *prev1 = s->prev;
    s->cur = cur0;
    s->prev = prev0;
    if (st == KS_OK && e_end != cudaSuccess)
        st = ks_fail(KS_ERR_CUDA, "capturing the frame's launches as a CUDA graph failed: %s",
                     cudaGetErrorString(e_end));
    cudaGraphExec_t exec = NULL;
    if (st == KS_OK) {
        const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
        if (e != cudaSuccess)
            st = ks_fail(KS_ERR_CUDA, "cudaGraphInstantiate (%d launches of %s) failed: %s", iters,
                         ks_lvariant_get(variant)->name, cudaGetErrorString(e));
    }
    if (graph) cudaGraphDestroy(graph);
    if (st != KS_OK) {
        cudaGetLastError(); /* the capture's error is reported above */
        return st;
    }
    ks_lgraph *g = &s->graphs[0];
    for (int n = 1; n < KS_LGRAPH_CACHE && g->exec; ++n)
        if (!s->graphs[n].exec || s->graphs[n].used < g->used) g = &s->graphs[n];
    graph_free(g);
    g->exec = exec;
    g->variant = variant;
    g->code = ks_luser_generation(variant);
    memcpy(g->block, block, sizeof g->block);
    g->iters = iters;
    g->prev = (int)prev;
    g->start_cur = cur0;
    g->end_cur = cur1;
    g->end_prev = prev1;
    ++s->graph_captures;
    *out = g;
    return KS_OK;
}

/* Replays the graph of this run, capturing it first when it is not cached. */
static ks_status solver_run_graph(ks_lsolver *s, ks_llaunch_fn fn, int T, int variant,
                                  const int block[3], int iters, ks_lprev prev)
{
    ks_lgraph *g = graph_find(s, variant, block, iters, prev);
    if (!g) {
        KS_TRY(solver_validate_run(s, fn, T, block, iters, prev));
        KS_TRY(graph_capture(s, fn, T, variant, block, iters, prev, &g));
    } else {
        ++s->graph_replays;
    }
    KS_CUDA_TRY(cudaGraphLaunch(g->exec, s->stream));
    g->used = ++s->graph_clock;
    s->cur = g->end_cur;
    s->prev = g->end_prev;
    return KS_OK;
}

ks_status ks_lsolver_run(ks_lsolver *s, int variant, const int block[3], int iters, ks_lprev prev)
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_lsolver_launcher(s, variant, &info, &fn));
    if (iters < 0) return ks_fail(KS_ERR_INVALID, "iterations must be >= 0, got %d", iters);
    if (prev != KS_LPREV_EXACT && prev != KS_LPREV_ANY)
        return ks_fail(KS_ERR_INVALID, "unknown previous-field mode %d", (int)prev);
    if (iters == 0) return KS_OK;
    const int T = info->steps_per_launch;
    if (!s->use_graphs) {
        KS_TRY(solver_validate_run(s, fn, T, block, iters, prev));
        return solver_enqueue_run(s, fn, T, block, iters, prev);
    }
    /* Long runs replay one graph of KS_LGRAPH_CHUNK whole launches (an even
     * count, so the same graph fits every time) and then the rest, which
     * carries the previous-field mode. The launches are the same, in the same
     * order, as one long run, since a chunk is a whole number of time blocks. */
    const int chunk = KS_LGRAPH_CHUNK * T;
    int rest = iters;
    if (iters > chunk) {
        const int whole = (iters - 1) / chunk;
        for (int n = 0; n < whole; ++n)
            KS_TRY(solver_run_graph(s, fn, T, variant, block, chunk, KS_LPREV_ANY));
        rest = iters - whole * chunk;
    }
    return solver_run_graph(s, fn, T, variant, block, rest, prev);
}

ks_status ks_lsolver_iterate(ks_lsolver *s, int variant, const int block[3], int iters)
{
    return ks_lsolver_run(s, variant, block, iters, KS_LPREV_EXACT);
}

ks_status ks_lsolver_launch_once(ks_lsolver *s, int variant, const int block[3])
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_lsolver_launcher(s, variant, &info, &fn));
    const int T = info->steps_per_launch > 1 ? info->steps_per_launch : 1;
    KS_TRY(solver_validate_run(s, fn, T, block, T, KS_LPREV_ANY));
    return solver_sweep(s, fn, block, T);
}

void ks_lsolver_drop_graphs(ks_lsolver *s)
{
    for (int n = 0; n < KS_LGRAPH_CACHE; ++n) graph_free(&s->graphs[n]);
}

ks_status ks_lsolver_use_graphs(ks_lsolver *s, int on)
{
    if (!on) ks_lsolver_drop_graphs(s);
    s->use_graphs = on != 0;
    return KS_OK;
}

void ks_lsolver_graph_stats(const ks_lsolver *s, ks_lgraph_stats *out)
{
    memset(out, 0, sizeof *out);
    out->captures = s->graph_captures;
    out->replays = s->graph_replays;
    for (int n = 0; n < KS_LGRAPH_CACHE; ++n) out->cached += s->graphs[n].exec != NULL;
}

/* ---- residual: sum of (cur - prev)^2 ---- */

static __device__ __forceinline__ double warp_sum(double v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* Grid-stride partial sums in double, a warp-shuffle reduction per warp, the
 * warps' sums through shared memory, then one atomicAdd per block. */
__global__ void residual_sumsq_shfl_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                           size_t n, double *__restrict__ acc)
{
    __shared__ double warp_sums[32];
    double sum = 0.0;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n;
         p += (size_t)gridDim.x * blockDim.x) {
        const double d = (double)a[p] - (double)b[p];
        sum += d * d;
    }
    sum = warp_sum(sum);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        sum = lane < nwarps ? warp_sums[lane] : 0.0;
        sum = warp_sum(sum);
        if (lane == 0) atomicAdd(acc, sum);
    }
}

ks_status ks_lsolver_residual_range(ks_lsolver *s, size_t first, size_t points)
{
    if (first > s->points || points > s->points - first)
        return ks_fail(KS_ERR_INVALID, "residual over points [%zu, %zu): the field has %zu", first, first + points,
                       s->points);
    KS_CUDA_TRY(cudaMemsetAsync(s->d_residual, 0, sizeof(double), s->stream));
    s->have_residual = 1;
    if (points == 0) return KS_OK;
    const int threads = 256;
    long long blocks = (long long)s->prop.multiProcessorCount * 8;
    const long long need = ((long long)points + threads - 1) / threads;
    if (blocks > need) blocks = need;
    residual_sumsq_shfl_kernel<<<(unsigned)blocks, threads, 0, s->stream>>>(s->cur + first, s->prev + first,
                                                                            points, s->d_residual);
    KS_CUDA_TRY_LAUNCH("residual_sumsq_shfl_kernel");
    return KS_OK;
}

ks_status ks_lsolver_residual(ks_lsolver *s) { return ks_lsolver_residual_range(s, 0, s->points); }

/* ---- value histogram ---- */

ks_status ks_lsolver_request_histogram(ks_lsolver *s, float lo, float hi, int bins, long long iteration)
{
    if (!(lo < hi) || bins < 1 || bins > KS_LHIST_MAX_BINS)
        return ks_fail(KS_ERR_INVALID, "field histogram: range [%g, %g] and %d bins (lo < hi, 1..%d bins)", lo, hi,
                       bins, (int)KS_LHIST_MAX_BINS);
    if (!s->hist_done) { /* first use; the event last, so a failed step is retried */
        if (!s->d_hist) KS_CUDA_TRY(cudaMalloc((void **)&s->d_hist, KS_LHIST_MAX_BINS * sizeof(unsigned)));
        if (!s->h_hist) KS_CUDA_TRY(cudaMallocHost((void **)&s->h_hist, sizeof(ks_lhist)));
        KS_CUDA_TRY(cudaEventCreateWithFlags(&s->hist_done, cudaEventDisableTiming));
    }
    if (s->hist_pending) {
        const cudaError_t e = cudaEventQuery(s->hist_done);
        if (e == cudaErrorNotReady) return KS_OK; /* the last one is still on its way */
        if (e != cudaSuccess) KS_CUDA_TRY(e);
    }
    KS_CUDA_TRY(cudaMemsetAsync(s->d_hist, 0, (size_t)bins * sizeof(unsigned), s->stream));
    KS_TRY(ks_field_hist_run(s->cur, s->points, lo, hi, (unsigned)bins, s->d_hist, s->stream));
    KS_CUDA_TRY(cudaMemcpyAsync(s->h_hist->counts, s->d_hist, (size_t)bins * sizeof(unsigned),
                                cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaEventRecord(s->hist_done, s->stream));
    s->hist_req.bins = bins;
    s->hist_req.lo = lo;
    s->hist_req.hi = hi;
    s->hist_req.iteration = iteration;
    s->hist_pending = 1;
    return KS_OK;
}

int ks_lsolver_histogram_pending(const ks_lsolver *s) { return s->hist_pending; }

int ks_lsolver_poll_histogram(ks_lsolver *s, ks_lhist *out)
{
    if (!s->hist_pending) return 0;
    const cudaError_t e = cudaEventQuery(s->hist_done);
    if (e == cudaErrorNotReady) return 0;
    s->hist_pending = 0;
    if (e != cudaSuccess) {
        cudaGetLastError(); /* a real fault shows up at the next checked call */
        return 0;
    }
    out->bins = s->hist_req.bins;
    out->lo = s->hist_req.lo;
    out->hi = s->hist_req.hi;
    out->iteration = s->hist_req.iteration;
    memcpy(out->counts, s->h_hist->counts, (size_t)out->bins * sizeof(unsigned));
    return 1;
}

/* ---- timing ---- */

/* launches of `steps` each, no trailing single step (timing only) */
static ks_status solver_run_launches(ks_lsolver *s, ks_llaunch_fn fn, const int block[3],
                                     int launches, int steps)
{
    for (int n = 0; n < launches; ++n) KS_TRY(solver_sweep(s, fn, block, steps));
    return KS_OK;
}

/* One timed run of a timing (the loop's sample): iters iterations, as ks_lsolver_time says. */
typedef struct lsolver_timed {
    ks_lsolver *s;
    int variant;
    const int *block;
    int iters;
    ks_llaunch_fn fn; /* pure launches of T steps (a temporally blocked variant), NULL: ks_lsolver_iterate */
    int T;
} lsolver_timed;

static ks_status lsolver_run(const lsolver_timed *t)
{
    return t->fn ? solver_run_launches(t->s, t->fn, t->block, t->iters / t->T, t->T)
                 : ks_lsolver_iterate(t->s, t->variant, t->block, t->iters);
}

static ks_status lsolver_sample(void *ctx, double *ms)
{
    const lsolver_timed *t = (const lsolver_timed *)ctx;
    ks_lsolver *s = t->s;
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventRecord(s->t0, s->stream));
    KS_TRY(lsolver_run(t));
    KS_CUDA_TRY(cudaEventRecord(s->t1, s->stream));
    KS_CUDA_TRY(cudaEventSynchronize(s->t1));
    KS_CUDA_TRY(cudaEventElapsedTime(&f, s->t0, s->t1));
    *ms = f;
    return KS_OK;
}

static ks_status lsolver_flush(void *ctx)
{
    ks_lsolver *s = ((const lsolver_timed *)ctx)->s;
    return ks_l2_flush_run(&s->flush, s->stream);
}

ks_status ks_lsolver_time(ks_lsolver *s, int variant, const int block[3], int iters, const ks_timing_opts *o,
                          ks_timing *out)
{
    if (iters < 1) return ks_fail(KS_ERR_INVALID, "timing needs iters >= 1 (got %d)", iters);
    KS_TRY(ks_lsolver_check_block(s, variant, block));
    /* A temporally blocked variant is timed as pure launches of T steps when
     * iters is a multiple of T: no trailing single step, so the figure is the
     * variant's own. Otherwise the iterate contract (ends with a single step). */
    const ks_lvariant_info *info = ks_lvariant_get(variant);
    lsolver_timed t = {s, variant, block, iters, NULL, info ? info->steps_per_launch : 1};
    if (t.T > 1 && iters % t.T == 0) {
        const ks_lvariant_info *unused;
        KS_TRY(ks_lsolver_launcher(s, variant, &unused, &t.fn));
    }
    double l2 = 0.0;
    KS_TRY(ks_cuda_l2_bytes(&l2));
    const ks_timing_run run = {lsolver_sample, lsolver_flush, &t, 2.0 * (double)s->bytes, l2};
    return ks_timing_measure(&run, o, out);
}
