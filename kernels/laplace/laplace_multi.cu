/* Jacobi on several GPUs with NCCL halo exchanges (laplace_multi.h). One
 * ks_lsolver per slab holds the two fields; this file adds the edge-first
 * block, the exchange stream, the scratch buffers and the host threads. */
#include <cuda.h>
#include <math.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ks_util.h"
#include "kernels/common/mpi_job.h"
#include "kernels/common/worker_pool.h"
#include "laplace_multi.h"
#include "laplace_solver_internal.h"

#define KS_NCCL_TRY(call) KS_STATUS_TRY(ncclResult_t, ncclSuccess, ncclGetErrorString, call, #call)

enum {
    KS_LPROFILE_BLOCKS = 64,    /* blocks the bench's profiled run records events around */
    KS_LIVE_PROFILE_BLOCKS = 8  /* and a live run, of its first blocks */
};

typedef CUresult (*stream_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef struct stream_ops {
    stream_value_fn wait, write;
} stream_ops;

typedef struct dom {
    int index;             /* in the job: the NCCL rank */
    int device;
    ks_slab slab;          /* global plane numbers */
    ks_grid sgrid;         /* what the slab holds */
    size_t plane;          /* points a plane */
    ks_lsolver *s;
    ncclComm_t comm;
    cudaStream_t xs;       /* the exchange stream (highest priority: NCCL's kernels start first) */
    float *scratch[2];     /* low and high edges, 3 * KS_LMULTI_DEPTH planes each; NULL: no neighbour */
    cudaEvent_t ev_edges, ev_done;
    cudaEvent_t run_t0, run_t1; /* around a live run's work on this GPU */
    double run_ms;
    stream_ops ops;        /* waits on a stream for a kernel's signal; NULL where the driver lacks them */
    unsigned *signal;      /* tblock's edge blocks count themselves here (NULL: no stream waits) */
    int halo_valid;        /* planes of the current field's halos that are up to date */
    /* the profiled run: block start, interior end, exchange start, exchange end */
    cudaEvent_t pe[KS_LPROFILE_BLOCKS][4];
    int pe_made, prof_blocks;
    /* ks_lmulti_time's results */
    double *rep_ms;
    double halo_sum, exposed_sum, jacobi_med;
    int halo_count;
} dom;

struct ks_lmulti {
    ks_grid g;
    int count, local, first, mpi;
    int leading, following;   /* a led MPI job (desc.lead): rank 0 sends each call, the others follow */
    ks_slab *slabs;
    dom d[KS_LMULTI_MAX_GPUS];
    ks_workers *pool;
    ncclUniqueId id;
    /* the current job's arguments */
    const float *up;
    float *down;
    int variant, block[3], iters, reps;
    ks_lprev prev;
    double residual_sum;
    cudaEvent_t slice_done;   /* the last slice copies (on the display GPU); NULL: none yet */
    int slice_pending;
    ks_lmulti_timing last;    /* the last run's profile */
};

int ks_lmulti_supported(const char **why)
{
    if (why) *why = NULL;
    return 1;
}

void ks_lmulti_set_nccl_env(void)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* NVLink multicast off */
    /* A halo of a few MiB needs few channels; each is a block on an SM the
     * interior update then lacks (on 2 H100s: tblock 512^3 a GPU 0.146 ms an
     * iteration with 4, 0.179 with NCCL's default). The user's value wins. */
    setenv("NCCL_MAX_P2P_NCHANNELS", "4", 0);
}

/* ---- waiting on a stream for a kernel's signal ----
 * The driver's stream memory operations, reached through the runtime (the
 * program links no libcuda). NULL where the driver lacks them: tblock then
 * takes the path through the scratch buffers. */

static stream_ops find_stream_ops(void)
{
    stream_ops ops = {NULL, NULL};
    void *w = NULL, *x = NULL;
    cudaDriverEntryPointQueryResult fw = cudaDriverEntryPointSymbolNotFound, fx = fw;
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &w, 12000, cudaEnableDefault, &fw) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &x, 12000, cudaEnableDefault, &fx) == cudaSuccess &&
        fw == cudaDriverEntryPointSuccess && fx == cudaDriverEntryPointSuccess && w && x) {
        ops.wait = (stream_value_fn)w;
        ops.write = (stream_value_fn)x;
    }
    cudaGetLastError();
    return ops;
}

/* st waits until *signal >= n, then sets it back to 0 for the next launch
 * (which starts only after st's work: the solver's stream joins it). */
static ks_status stream_wait_signal(const stream_ops *ops, cudaStream_t st, unsigned *signal, int n)
{
    const CUdeviceptr a = (CUdeviceptr)(uintptr_t)signal;
    CUresult r = ops->wait((CUstream)st, a, (cuuint32_t)n, CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_SUCCESS) r = ops->write((CUstream)st, a, 0, CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r != CUDA_SUCCESS) return ks_fail(KS_ERR_CUDA, "a stream wait for the edges failed (CUDA driver error %d)", (int)r);
    return KS_OK;
}

/* ---- one block of b iterations on one slab ---- */

static float *plane_at(const dom *d, float *base, int local_plane) { return base + (size_t)local_plane * d->plane; }

/* A launch of fn over the sub-slab of `planes` planes starting at in / out, on stream. */
static ks_status sub_sweep(dom *d, ks_llaunch_fn fn, const int block[3], int steps, const float *in, float *out,
                           int planes, cudaStream_t stream, ks_ledges *edges)
{
    ks_grid sub = d->sgrid;
    if (sub.dims == 3) sub.nz = planes;
    else sub.ny = planes;
    ks_lsweep sw;
    memset(&sw, 0, sizeof sw);
    sw.grid = &sub;
    sw.in = in;
    sw.out = out;
    for (int k = 0; k < 3; ++k) sw.block[k] = block[k];
    sw.steps = steps;
    sw.stream = stream;
    sw.prop = &d->s->prop;
    sw.edges = edges;
    return fn(&sw);
}

static int has_lo(const dom *d) { return d->scratch[0] != NULL; }
static int has_hi(const dom *d) { return d->scratch[1] != NULL; }

/* tblock over the whole slab in one launch that writes the high edge first
 * and the low edge early, and signals when both are written: the exchange
 * stream sends them while the rest of the launch runs. Edges through a
 * separate launch first left the GPU half idle for its length and cost tblock
 * 7 % at 512^3 a GPU on 2 H100s. */
static int fused_edges(const dom *d, ks_llaunch_fn fn, int D)
{
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    return fn == ks_llaunch_tblock && d->signal && (has_hi(d) ? l - D : l) - f >= 2 * D;
}

/* Enqueues on the exchange stream the exchange of D planes a side: sends D
 * own edge planes from lo_src / hi_src to the neighbours and receives theirs
 * into the D halo planes of field; ev_done marks its end. */
static ks_status exchange_post(dom *d, float *field, const float *lo_src, const float *hi_src, int D, int prof)
{
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    const size_t n = (size_t)D * d->plane;
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][2], d->xs));
    KS_NCCL_TRY(ncclGroupStart());
    if (lo_src) {
        KS_NCCL_TRY(ncclSend(lo_src, n, ncclFloat, d->index - 1, d->comm, d->xs));
        KS_NCCL_TRY(ncclRecv(plane_at(d, field, f - D), n, ncclFloat, d->index - 1, d->comm, d->xs));
    }
    if (hi_src) {
        KS_NCCL_TRY(ncclSend(hi_src, n, ncclFloat, d->index + 1, d->comm, d->xs));
        KS_NCCL_TRY(ncclRecv(plane_at(d, field, l), n, ncclFloat, d->index + 1, d->comm, d->xs));
    }
    KS_NCCL_TRY(ncclGroupEnd());
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][3], d->xs));
    KS_CUDA_TRY(cudaEventRecord(d->ev_done, d->xs));
    d->halo_valid = D;
    return KS_OK;
}

/* The exchange stream starts after what the solver's stream holds so far. */
static ks_status fork_exchange(dom *d)
{
    KS_CUDA_TRY(cudaEventRecord(d->ev_edges, d->s->stream));
    KS_CUDA_TRY(cudaStreamWaitEvent(d->xs, d->ev_edges, 0));
    return KS_OK;
}

/* The solver's stream waits for the exchange posted last. */
static ks_status join(dom *d)
{
    KS_CUDA_TRY(cudaStreamWaitEvent(d->s->stream, d->ev_done, 0));
    return KS_OK;
}

/* Brings the current field's halos up to date D planes deep (after a
 * variant with a shallower exchange, before a deeper block). */
static ks_status refresh_halos(dom *d, int D)
{
    if (!has_lo(d) && !has_hi(d)) return KS_OK;
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    float *cur = d->s->cur;
    KS_TRY(fork_exchange(d));
    KS_TRY(exchange_post(d, cur, has_lo(d) ? plane_at(d, cur, f) : NULL, has_hi(d) ? plane_at(d, cur, l - D) : NULL,
                         D, -1));
    return join(d);
}

/* regq and vec2d write the interior of what they are given and nothing
 * else, so for one step their edge planes can go straight into the new
 * field beside a concurrent interior launch. */
static int interior_only(ks_llaunch_fn fn) { return fn == ks_llaunch_regq || fn == ks_llaunch_vec2d; }

/* b iterations (1 <= b <= D <= KS_LMULTI_DEPTH) with launcher fn; the
 * exchange moves D planes a side. prof >= 0: record the profile events of
 * that block. */
/* dom_block for tblock with fused_edges: one launch over the whole slab, the
 * exchange stream waiting for its edge signal. */
static ks_status dom_block_fused(dom *d, ks_llaunch_fn fn, const int block[3], int b, int D, int prof)
{
    ks_lsolver *s = d->s;
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    const int side = has_lo(d) || has_hi(d);
    if (side && d->halo_valid < b) KS_TRY(refresh_halos(d, D));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][0], s->stream));
    ks_ledges e;
    memset(&e, 0, sizeof e);
    e.lo = f;
    e.hi = has_hi(d) ? l - D : l;
    if (has_hi(d)) {
        e.edge_lo = l - D;
        e.edge_hi = l;
    }
    e.low_end = has_lo(d) ? f + D : 0;
    e.signal = d->signal;
    KS_TRY(sub_sweep(d, fn, block, b, s->cur, s->prev, d->sgrid.dims == 3 ? d->sgrid.nz : d->sgrid.ny, s->stream, &e));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][1], s->stream));
    if (side) {
        KS_TRY(stream_wait_signal(&d->ops, d->xs, d->signal, e.signals));
        KS_TRY(exchange_post(d, s->prev, has_lo(d) ? plane_at(d, s->prev, f) : NULL,
                             has_hi(d) ? plane_at(d, s->prev, l - D) : NULL, D, prof));
        KS_TRY(join(d));
    }
    float *t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return KS_OK;
}

static ks_status dom_block(dom *d, ks_llaunch_fn fn, const int block[3], int b, int D, int prof)
{
    ks_lsolver *s = d->s;
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count, X = KS_LMULTI_DEPTH;
    const int side = has_lo(d) || has_hi(d);
    if (side && d->halo_valid < b) KS_TRY(refresh_halos(d, D));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][0], s->stream));
    float *lo_edge = NULL, *hi_edge = NULL; /* what is sent */
    const int direct = b == 1 && D == 1 && interior_only(fn);
    /* Direct edges run on the exchange stream beside the interior. Edges
     * through the scratch (a variant that copies its boundary; tblock on a
     * slab too thin for fused_edges, or without stream waits) run first on
     * the solver's stream: a temporally blocked interior holds every SM until
     * it ends, so an exchange queued behind it would wait for its end (2
     * H100s, tblock 512^3 a GPU: 0.146 ms an iteration this way, 0.160 with
     * the edges beside it, 0.143 with fused_edges) */
    if (side && direct) KS_TRY(fork_exchange(d));
    if (direct) {
        /* plane f from [f - 1, f + 2), plane l - 1 from [l - 2, l + 1), into the new field */
        if (has_lo(d)) {
            lo_edge = plane_at(d, s->prev, f);
            KS_TRY(sub_sweep(d, fn, block, 1, plane_at(d, s->cur, f - 1), plane_at(d, s->prev, f - 1), 3, d->xs, NULL));
        }
        if (has_hi(d)) {
            hi_edge = plane_at(d, s->prev, l - 1);
            KS_TRY(sub_sweep(d, fn, block, 1, plane_at(d, s->cur, l - 2), plane_at(d, s->prev, l - 2), 3, d->xs, NULL));
        }
    } else {
        /* planes [f, f + D) from the sub-slab [f - b, f + D + b) (its outer
         * planes go stale, b planes in, and none of those is kept), into the
         * scratch: the low one holds planes [f - X, f + 2X), the high one
         * [l - 2X, l + X) */
        if (has_lo(d)) {
            lo_edge = d->scratch[0] + (size_t)X * d->plane;
            KS_TRY(sub_sweep(d, fn, block, b, plane_at(d, s->cur, f - b), d->scratch[0] + (size_t)(X - b) * d->plane,
                             D + 2 * b, s->stream, NULL));
        }
        if (has_hi(d)) {
            hi_edge = d->scratch[1] + (size_t)(2 * X - D) * d->plane;
            KS_TRY(sub_sweep(d, fn, block, b, plane_at(d, s->cur, l - D - b),
                             d->scratch[1] + (size_t)(2 * X - D - b) * d->plane, D + 2 * b, s->stream, NULL));
        }
        if (side) KS_TRY(fork_exchange(d));
    }
    if (side) KS_TRY(exchange_post(d, s->prev, lo_edge, hi_edge, D, prof));
    /* The rest: the slab's own planes, with the grid's boundary plane where
     * there is no neighbour. Its outermost planes are not written, or come out
     * stale or copied; the edges replace them below. */
    const int ilo = has_lo(d) ? f : f - 1, ihi = has_hi(d) ? l : l + 1;
    KS_TRY(sub_sweep(d, fn, block, b, plane_at(d, s->cur, ilo), plane_at(d, s->prev, ilo), ihi - ilo, s->stream, NULL));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][1], s->stream));
    if (side) KS_TRY(join(d)); /* the edges and the halos received */
    const size_t bytes = (size_t)D * d->plane * sizeof(float);
    if (!direct && has_lo(d))
        KS_CUDA_TRY(cudaMemcpyAsync(plane_at(d, s->prev, f), lo_edge, bytes, cudaMemcpyDeviceToDevice, s->stream));
    if (!direct && has_hi(d))
        KS_CUDA_TRY(cudaMemcpyAsync(plane_at(d, s->prev, l - D), hi_edge, bytes, cudaMemcpyDeviceToDevice, s->stream));
    float *t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return KS_OK;
}

/* iters iterations in blocks, as ks_lsolver_run does them on one GPU: a
 * temporally blocked variant in blocks of its time block (exchanging that
 * many planes), with KS_LPREV_EXACT its last iteration a single regq step;
 * the others one iteration a block. prof_blocks > 0: the first blocks are
 * profiled. */
static ks_status dom_run(dom *d, int variant, const int block[3], int iters, ks_lprev prev, int prof_blocks)
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_lsolver_launcher(d->s, variant, &info, &fn));
    const int T = info->steps_per_launch > KS_LMULTI_DEPTH ? KS_LMULTI_DEPTH : info->steps_per_launch;
    const int single = T > 1 && prev == KS_LPREV_EXACT; /* end with one regq step */
    int rem = single ? iters - 1 : iters, n = 0;
    while (rem > 0) {
        const int b = rem < T ? rem : T;
        if (fused_edges(d, fn, T)) KS_TRY(dom_block_fused(d, fn, block, b, T, n < prof_blocks ? n : -1));
        else KS_TRY(dom_block(d, fn, block, b, T, n < prof_blocks ? n : -1));
        rem -= b;
        ++n;
    }
    if (single && iters > 0) KS_TRY(dom_block(d, ks_llaunch_regq, block, 1, T, n < prof_blocks ? n : -1));
    d->prof_blocks = n + single < prof_blocks ? n + single : prof_blocks;
    return KS_OK;
}

/* ---- jobs on the GPU threads ---- */

static ks_status profile_stats(dom *d);

static dom *local_dom(void *arg, int i) { return &((ks_lmulti *)arg)->d[i]; }

static ks_status job_alloc(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    KS_CUDA_TRY(cudaSetDevice(d->device));
    KS_TRY(ks_lsolver_create(&d->sgrid, &d->s));
    int lo_prio = 0, hi_prio = 0;
    KS_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&lo_prio, &hi_prio));
    KS_CUDA_TRY(cudaStreamCreateWithPriority(&d->xs, cudaStreamNonBlocking, hi_prio));
    KS_CUDA_TRY(cudaEventCreateWithFlags(&d->ev_edges, cudaEventDisableTiming));
    KS_CUDA_TRY(cudaEventCreateWithFlags(&d->ev_done, cudaEventDisableTiming));
    KS_CUDA_TRY(cudaEventCreate(&d->run_t0));
    KS_CUDA_TRY(cudaEventCreate(&d->run_t1));
    const size_t bytes = 3 * (size_t)KS_LMULTI_DEPTH * d->plane * sizeof(float);
    for (; d->pe_made < KS_LPROFILE_BLOCKS; ++d->pe_made)
        for (int k = 0; k < 4; ++k) KS_CUDA_TRY(cudaEventCreate(&d->pe[d->pe_made][k]));
    d->ops = find_stream_ops();
    if (d->ops.wait) {
        KS_CUDA_TRY(cudaMalloc((void **)&d->signal, sizeof *d->signal));
        KS_CUDA_TRY(cudaMemset(d->signal, 0, sizeof *d->signal));
        /* A driver may offer the entry points yet refuse stream memory
         * operations on this device: tried once here, so that tblock takes the
         * scratch path, rather than failing on one GPU mid-exchange while its
         * neighbour waits in NCCL for it. */
        const CUdeviceptr a = (CUdeviceptr)(uintptr_t)d->signal;
        if (d->ops.wait((CUstream)d->xs, a, 0, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS ||
            d->ops.write((CUstream)d->xs, a, 0, CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS ||
            cudaStreamSynchronize(d->xs) != cudaSuccess) {
            cudaGetLastError();
            d->ops.wait = d->ops.write = NULL;
            cudaFree(d->signal);
            d->signal = NULL; /* fused_edges() is then false */
        }
    }
    if (d->index > 0) KS_CUDA_TRY(cudaMalloc((void **)&d->scratch[0], bytes));
    if (d->index < m->count - 1) KS_CUDA_TRY(cudaMalloc((void **)&d->scratch[1], bytes));
    return KS_OK;
}

static ks_status job_comm(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    KS_NCCL_TRY(ncclCommInitRank(&d->comm, m->count, m->id, d->index));
    /* NCCL connects a collective's peers on its first use (tens of ms): an
     * all-reduce now, so the live view's first residual is not that */
    KS_CUDA_TRY(cudaMemsetAsync(d->s->d_residual, 0, sizeof(double), d->s->stream));
    KS_NCCL_TRY(ncclAllReduce(d->s->d_residual, d->s->d_residual, 1, ncclDouble, ncclSum, d->comm, d->s->stream));
    return ks_lsolver_wait(d->s);
}

static ks_status job_free(int i, void *arg)
{
    dom *d = local_dom(arg, i);
    cudaSetDevice(d->device);
    if (d->s && ks_lsolver_wait(d->s) != KS_OK) return KS_OK; /* a stalled GPU: leave it */
    if (d->comm) ncclCommDestroy(d->comm);
    for (int b = 0; b < d->pe_made; ++b)
        for (int k = 0; k < 4; ++k) cudaEventDestroy(d->pe[b][k]);
    if (d->ev_edges) cudaEventDestroy(d->ev_edges);
    if (d->ev_done) cudaEventDestroy(d->ev_done);
    if (d->run_t0) cudaEventDestroy(d->run_t0);
    if (d->run_t1) cudaEventDestroy(d->run_t1);
    if (d->xs) cudaStreamDestroy(d->xs);
    cudaFree(d->scratch[0]);
    cudaFree(d->scratch[1]);
    cudaFree(d->signal);
    ks_lsolver_destroy(d->s);
    free(d->rep_ms);
    cudaGetLastError();
    return KS_OK;
}

/* Copies the planes [g0, g1) of the global field (clipped to what the slab
 * holds) from src (the slab's field) into dst, a buffer of global planes
 * starting at dst_first. */
static ks_status copy_planes(const dom *d, float *dst, int dst_first, const float *src, int g0, int g1, cudaStream_t st)
{
    if (g0 < d->slab.lo) g0 = d->slab.lo;
    if (g1 > d->slab.hi) g1 = d->slab.hi;
    if (g1 <= g0) return KS_OK;
    KS_CUDA_TRY(cudaMemcpyAsync(dst + (size_t)(g0 - dst_first) * d->plane, src + (size_t)(g0 - d->slab.lo) * d->plane,
                                (size_t)(g1 - g0) * d->plane * sizeof(float), cudaMemcpyDeviceToDevice, st));
    return KS_OK;
}

static ks_status job_upload(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    KS_TRY(ks_lsolver_upload(d->s, m->up + (size_t)d->slab.lo * d->plane));
    /* the scratch planes' boundary points (never written by a launch) */
    const int X = KS_LMULTI_DEPTH, f = d->slab.first, l = f + d->slab.count;
    if (d->scratch[0]) KS_TRY(copy_planes(d, d->scratch[0], f - X, d->s->cur, f - X, f + 2 * X, d->s->stream));
    if (d->scratch[1]) KS_TRY(copy_planes(d, d->scratch[1], l - 2 * X, d->s->cur, l - 2 * X, l + X, d->s->stream));
    d->halo_valid = X;
    return ks_lsolver_wait(d->s);
}

/* The planes a domain reports: its own, and the grid's boundary plane at an end. */
static void reported_planes(const ks_lmulti *m, int index, int *g0, int *g1)
{
    ks_slab_reported_planes(&m->g, &m->slabs[index], g0, g1);
}

static ks_status job_download(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    int g0, g1;
    reported_planes(m, d->index, &g0, &g1);
    float *dst = m->down + (m->mpi ? 0 : (size_t)g0 * d->plane); /* under MPI: this rank's own buffer */
    KS_CUDA_TRY(cudaMemcpyAsync(dst, d->s->cur + (size_t)(g0 - d->slab.lo) * d->plane,
                                (size_t)(g1 - g0) * d->plane * sizeof(float), cudaMemcpyDeviceToHost, d->s->stream));
    return ks_lsolver_wait(d->s);
}

static ks_status job_check(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    return ks_lsolver_check_block(local_dom(arg, i)->s, m->variant, m->block);
}

static ks_status elapsed(cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float t = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&t, a, b));
    *ms = t;
    return KS_OK;
}

static ks_status job_run(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    KS_CUDA_TRY(cudaEventRecord(d->run_t0, d->s->stream));
    KS_TRY(dom_run(d, m->variant, m->block, m->iters, m->prev, KS_LIVE_PROFILE_BLOCKS));
    KS_CUDA_TRY(cudaEventRecord(d->run_t1, d->s->stream)); /* after the last exchange joined */
    KS_TRY(ks_lsolver_wait(d->s));
    KS_TRY(elapsed(d->run_t0, d->run_t1, &d->run_ms));
    return profile_stats(d);
}

static ks_status job_residual(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    const int f = d->slab.first - d->slab.lo;
    KS_TRY(ks_lsolver_residual_range(d->s, (size_t)f * d->plane, (size_t)d->slab.count * d->plane));
    KS_NCCL_TRY(ncclAllReduce(d->s->d_residual, d->s->d_residual, 1, ncclDouble, ncclSum, d->comm, d->s->stream));
    double sum = 0.0;
    KS_CUDA_TRY(cudaMemcpyAsync(&sum, d->s->d_residual, sizeof sum, cudaMemcpyDeviceToHost, d->s->stream));
    KS_TRY(ks_lsolver_wait(d->s));
    if (i == 0) m->residual_sum = sum; /* the same on every GPU */
    return KS_OK;
}

static ks_status event_make(cudaEvent_t *e)
{
    KS_CUDA_TRY(cudaEventCreate(e));
    return KS_OK;
}

static ks_status event_record(cudaEvent_t e, cudaStream_t st)
{
    KS_CUDA_TRY(cudaEventRecord(e, st));
    return KS_OK;
}

static ks_status job_time(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    ks_lsolver *s = d->s;
    KS_TRY(ks_lsolver_check_block(s, m->variant, m->block));
    for (int w = 0; w < 2; ++w) KS_TRY(dom_run(d, m->variant, m->block, m->iters, KS_LPREV_ANY, 0));
    /* The repetitions back to back, an event between each two: a wait on the
     * host between them let each start on an idle GPU and behind the other
     * GPU's thread (tblock 1024^3 on 2 H100s: 0.517 ms an iteration that way,
     * 0.482 in the live view). */
    cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)m->reps + 1, sizeof *ev);
    if (!ev) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timing the multi-GPU solver: host allocation failed");
    ks_status st = KS_OK;
    int made = 0;
    while (st == KS_OK && made <= m->reps) {
        st = event_make(&ev[made]);
        if (st == KS_OK) ++made;
    }
    if (st == KS_OK) st = event_record(ev[0], s->stream);
    for (int r = 0; st == KS_OK && r < m->reps; ++r) {
        st = dom_run(d, m->variant, m->block, m->iters, KS_LPREV_ANY, 0);
        if (st == KS_OK) st = event_record(ev[r + 1], s->stream);
    }
    if (st == KS_OK) st = ks_cuda_wait_event(ev[m->reps], "timing the multi-GPU solver");
    for (int r = 0; st == KS_OK && r < m->reps; ++r) st = elapsed(ev[r], ev[r + 1], &d->rep_ms[r]);
    for (int k = 0; k < made; ++k) cudaEventDestroy(ev[k]);
    free(ev);
    KS_TRY(st);
    /* the profiled run: events around each block's parts */
    KS_TRY(dom_run(d, m->variant, m->block, m->iters, KS_LPREV_ANY, KS_LPROFILE_BLOCKS));
    KS_TRY(ks_lsolver_wait(s));
    return profile_stats(d);
}

/* The profiled blocks' figures: update time (median), exchange time and its
 * exposed part (sums). */
static ks_status profile_stats(dom *d)
{
    double jac[KS_LPROFILE_BLOCKS];
    d->halo_sum = d->exposed_sum = 0.0;
    d->halo_count = 0;
    for (int b = 0; b < d->prof_blocks; ++b) {
        KS_TRY(elapsed(d->pe[b][0], d->pe[b][1], &jac[b]));
        if (!has_lo(d) && !has_hi(d)) continue;
        double halo = 0.0, exposed = 0.0;
        KS_TRY(elapsed(d->pe[b][2], d->pe[b][3], &halo));
        KS_TRY(elapsed(d->pe[b][1], d->pe[b][3], &exposed)); /* the exchange's end after the interior's */
        d->halo_sum += halo;
        d->exposed_sum += exposed > 0.0 ? (exposed < halo ? exposed : halo) : 0.0;
        ++d->halo_count;
    }
    d->jacobi_med = d->prof_blocks > 0 ? ks_median_sort(jac, d->prof_blocks) : 0.0;
    return KS_OK;
}


/* ---- a led MPI job: rank 0's calls, sent to the other ranks ---- */

typedef enum lead_op { LEAD_QUIT = 1, LEAD_RUN, LEAD_RESIDUAL, LEAD_SLICE, LEAD_UPLOAD, LEAD_DOWNLOAD, LEAD_CHECK } lead_op;

typedef struct lead_cmd {
    int op, variant, block[3], iters, prev, axis, index;
} lead_cmd;

/* On rank 0 of a led job: tells the other ranks which call follows. */
static ks_status lead(ks_lmulti *m, lead_op op, int variant, const int block[3], int iters, int prev, int axis,
                      int index)
{
    if (!m->leading) return KS_OK;
    lead_cmd c = {(int)op, variant, {0, 0, 0}, iters, prev, axis, index};
    if (block) memcpy(c.block, block, sizeof c.block);
    return ks_mpi_bcast(&c, sizeof c, 0);
}

/* ---- the API ---- */

static ks_status run_job(ks_lmulti *m, ks_worker_fn fn) { return ks_workers_run(m->pool, fn, m); }

/* Under MPI a failure on one rank must stop the others too (they would wait
 * in NCCL or MPI forever): every rank learns whether any failed. */
static ks_status job_agree(ks_lmulti *m, ks_status st) { return m->mpi ? ks_mpi_agree(st) : st; }

ks_status ks_lmulti_create(const ks_lmulti_desc *desc, ks_lmulti **out)
{
    *out = NULL;
    const int mpi = desc->mpi && ks_mpi_active();
    if (desc->mpi && !mpi) return ks_fail(KS_ERR_INVALID, "multi-GPU: asked for an MPI job, but none is running");
    const int local = mpi ? 1 : (desc->gpus > 0 ? desc->gpus : 1);
    if (local > KS_LMULTI_MAX_GPUS)
        return ks_fail(KS_ERR_INVALID, "%d GPUs: one process drives at most %d", local, KS_LMULTI_MAX_GPUS);
    const int count = mpi ? ks_mpi_size() : local;
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess || have < 1) {
        cudaGetLastError();
        return ks_fail(KS_ERR_NO_DEVICE, "no CUDA device");
    }
    int devices[KS_LMULTI_MAX_GPUS];
    for (int i = 0; i < local; ++i) {
        devices[i] = desc->devices ? desc->devices[i] : (mpi ? ks_mpi_local_rank() : i);
        if (devices[i] < 0 || devices[i] >= have) {
            if (mpi)
                return ks_fail(KS_ERR_NO_DEVICE, "MPI rank %d (rank %d on its machine) needs GPU %d; this machine has %d",
                               ks_mpi_rank(), ks_mpi_local_rank(), devices[i], have);
            return ks_fail(KS_ERR_NO_DEVICE, "%d GPUs asked (GPU %d), this machine has %d CUDA device%s", local,
                           devices[i], have, have == 1 ? "" : "s");
        }
        for (int j = 0; j < i; ++j)
            if (devices[j] == devices[i])
                return ks_fail(KS_ERR_INVALID, "GPU %d is named twice: one slab a GPU", devices[i]);
    }
    ks_lmulti *m = (ks_lmulti *)calloc(1, sizeof *m);
    if (!m) return ks_fail(KS_ERR_OUT_OF_MEMORY, "multi-GPU solver: host allocation failed");
    m->g = desc->grid;
    if (m->g.dims == 2) m->g.nz = 1;
    m->count = count;
    m->local = local;
    m->first = mpi ? ks_mpi_rank() : 0;
    m->mpi = mpi;
    m->leading = mpi && desc->lead && ks_mpi_rank() == 0;
    m->following = mpi && desc->lead && ks_mpi_rank() != 0;
    m->slabs = (ks_slab *)calloc((size_t)count, sizeof(ks_slab));
    ks_status st = m->slabs ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "multi-GPU solver: host allocation failed");
    if (st == KS_OK && (m->g.dims != 2 && m->g.dims != 3))
        st = ks_fail(KS_ERR_INVALID, "multi-GPU solver: the grid must be 2D or 3D");
    if (st == KS_OK) st = ks_slabs_split(&m->g, count, KS_LMULTI_DEPTH, m->slabs);
    for (int i = 0; st == KS_OK && count > 1 && i < count; ++i)
        if (m->slabs[i].count < 2 * KS_LMULTI_DEPTH)
            st = ks_fail(KS_ERR_INVALID, "%d GPUs: a slab of %d planes along %c is thinner than %d (two halo depths); "
                         "use fewer GPUs or a larger grid",
                         count, m->slabs[i].count, m->g.dims == 3 ? 'z' : 'y', 2 * KS_LMULTI_DEPTH);
    for (int i = 0; st == KS_OK && i < local; ++i) {
        dom *d = &m->d[i];
        d->index = m->first + i;
        d->device = devices[i];
        d->slab = m->slabs[d->index];
        d->sgrid = ks_slab_grid(&m->g, &d->slab);
        d->plane = ks_slab_plane_points(&m->g);
    }
    if (st == KS_OK) st = ks_workers_create(local, &m->pool);
    if (st == KS_OK) st = job_agree(m, run_job(m, job_alloc));
    if (st == KS_OK) {
        ks_lmulti_set_nccl_env();
        if (m->first == 0) {
            const ncclResult_t r = ncclGetUniqueId(&m->id);
            if (r != ncclSuccess) st = ks_fail(KS_ERR_CUDA, "ncclGetUniqueId failed: %s", ncclGetErrorString(r));
        }
        st = job_agree(m, st);
    }
    if (st == KS_OK && mpi) st = ks_mpi_bcast(&m->id, sizeof m->id, 0);
    /* the live view copies slices to this thread's GPU: direct peer reads where the GPUs allow them */
    int here = 0;
    if (st == KS_OK && cudaGetDevice(&here) == cudaSuccess) {
        for (int i = 0; i < local; ++i) {
            int can = 0;
            if (devices[i] == here || cudaDeviceCanAccessPeer(&can, here, devices[i]) != cudaSuccess || !can) continue;
            const cudaError_t e = cudaDeviceEnablePeerAccess(devices[i], 0);
            if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
                st = ks_fail(KS_ERR_CUDA, "peer access from GPU %d to GPU %d: %s", here, devices[i], cudaGetErrorString(e));
        }
        cudaGetLastError(); /* an access already enabled is no error */
    }
    if (st == KS_OK) st = job_agree(m, run_job(m, job_comm));
    if (st != KS_OK) {
        ks_lmulti_destroy(m);
        return st;
    }
    *out = m;
    return KS_OK;
}

void ks_lmulti_destroy(ks_lmulti *m)
{
    if (!m) return;
    char keep[512];
    snprintf(keep, sizeof keep, "%s", ks_error_message()); /* the error that brought us here, if any */
    lead(m, LEAD_QUIT, 0, NULL, 0, 0, 0, 0); /* the other ranks leave ks_lmulti_follow */
    if (m->slice_pending) ks_cuda_wait_event(m->slice_done, "copying the slice");
    if (m->slice_done) cudaEventDestroy(m->slice_done);
    if (m->pool) {
        run_job(m, job_free);
        ks_workers_destroy(m->pool);
    }
    free(m->slabs);
    free(m);
    if (keep[0]) ks_fail(KS_ERR_CUDA, "%s", keep); /* the text only: the caller returns its own status */
}

int ks_lmulti_domains(const ks_lmulti *m) { return m->count; }
int ks_lmulti_local(const ks_lmulti *m) { return m->local; }
int ks_lmulti_first_domain(const ks_lmulti *m) { return m->first; }
const ks_slab *ks_lmulti_slab(const ks_lmulti *m, int domain)
{
    return domain >= 0 && domain < m->count ? &m->slabs[domain] : NULL;
}
int ks_lmulti_device(const ks_lmulti *m, int local) { return local >= 0 && local < m->local ? m->d[local].device : -1; }
const char *ks_lmulti_device_name(const ks_lmulti *m) { return m->d[0].s->prop.name; }
void ks_lmulti_cc(const ks_lmulti *m, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", m->d[0].s->prop.major, m->d[0].s->prop.minor);
}

ks_status ks_lmulti_upload(ks_lmulti *m, const float *field)
{
    KS_TRY(lead(m, LEAD_UPLOAD, 0, NULL, 0, 0, 0, 0));
    if (m->leading || m->following) /* rank 0's field to every rank */
        KS_TRY(ks_mpi_bcast((void *)field, ks_grid_bytes(&m->g), 0));
    if (m->slice_pending) { /* the picture's copies read the fields this writes */
        KS_TRY(ks_cuda_wait_event(m->slice_done, "copying the slice"));
        m->slice_pending = 0;
    }
    m->up = field;
    return job_agree(m, run_job(m, job_upload));
}

ks_status ks_lmulti_download(ks_lmulti *m, float *field)
{
    KS_TRY(lead(m, LEAD_DOWNLOAD, 0, NULL, 0, 0, 0, 0));
    if (!m->mpi) {
        m->down = field;
        return run_job(m, job_download);
    }
    /* one rank, one domain: its planes into a buffer of its own, then to rank 0 */
    const size_t plane = m->d[0].plane;
    int g0, g1;
    reported_planes(m, m->first, &g0, &g1);
    const size_t mine = (size_t)(g1 - g0) * plane * sizeof(float);
    m->down = (float *)malloc(mine);
    ks_status st = m->down ? run_job(m, job_download) : ks_fail(KS_ERR_OUT_OF_MEMORY, "download: host allocation failed");
    st = job_agree(m, st);
    size_t *offset = (size_t *)calloc((size_t)m->count, sizeof(size_t)),
           *bytes_of = (size_t *)calloc((size_t)m->count, sizeof(size_t));
    if (st == KS_OK && (!offset || !bytes_of)) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "download: host allocation failed");
    for (int r = 0; st == KS_OK && r < m->count; ++r) {
        int a, b;
        reported_planes(m, r, &a, &b);
        offset[r] = (size_t)a * plane * sizeof(float);
        bytes_of[r] = (size_t)(b - a) * plane * sizeof(float);
    }
    if (st == KS_OK) st = ks_mpi_gather(m->down, mine, field, offset, bytes_of, 0);
    free(offset);
    free(bytes_of);
    free(m->down);
    m->down = NULL;
    return st;
}

ks_status ks_lmulti_check_block(ks_lmulti *m, int variant, const int block[3])
{
    KS_TRY(lead(m, LEAD_CHECK, variant, block, 0, 0, 0, 0));
    m->variant = variant;
    memcpy(m->block, block, sizeof m->block);
    return job_agree(m, run_job(m, job_check));
}

ks_status ks_lmulti_run(ks_lmulti *m, int variant, const int block[3], int iters, ks_lprev prev)
{
    if (iters < 0) return ks_fail(KS_ERR_INVALID, "iterations must be >= 0, got %d", iters);
    if (iters == 0) return KS_OK;
    KS_TRY(lead(m, LEAD_RUN, variant, block, iters, (int)prev, 0, 0));
    m->variant = variant;
    memcpy(m->block, block, sizeof m->block);
    m->iters = iters;
    m->prev = prev;
    if (m->slice_pending) { /* the picture's copies read the fields this run writes */
        KS_TRY(ks_cuda_wait_event(m->slice_done, "copying the slice"));
        m->slice_pending = 0;
    }
    KS_TRY(job_agree(m, run_job(m, job_run)));
    const ks_lvariant_info *info = ks_lvariant_get(variant);
    const int T = info && info->steps_per_launch > 1 && prev == KS_LPREV_ANY ? info->steps_per_launch : 1;
    memset(&m->last, 0, sizeof m->last);
    m->last.gpus = m->local;
    for (int i = 0; i < m->local; ++i) {
        const dom *d = &m->d[i];
        if (d->run_ms > m->last.run_ms) m->last.run_ms = d->run_ms;
        m->last.jacobi_ms[i] = d->jacobi_med / T;
        m->last.gpu_halo_ms[i] = d->halo_count ? d->halo_sum / d->halo_count : 0.0;
        m->last.gpu_hidden[i] = d->halo_sum > 0.0 ? 1.0 - d->exposed_sum / d->halo_sum : 1.0;
    }
    if (m->leading || m->following) { /* every rank's figures to rank 0, which shows them */
        double mine[4] = {m->last.jacobi_ms[0], m->last.gpu_halo_ms[0], m->last.gpu_hidden[0], m->last.run_ms};
        const int n = m->count < KS_LMULTI_MAX_GPUS ? m->count : KS_LMULTI_MAX_GPUS;
        double *all = (double *)calloc((size_t)m->count * 4, sizeof(double));
        size_t *offset = (size_t *)calloc((size_t)m->count, sizeof(size_t)),
               *bytes_of = (size_t *)calloc((size_t)m->count, sizeof(size_t));
        ks_status st = all && offset && bytes_of ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "host allocation failed");
        for (int r = 0; st == KS_OK && r < m->count; ++r) {
            offset[r] = (size_t)r * sizeof mine;
            bytes_of[r] = sizeof mine;
        }
        if (st == KS_OK) st = ks_mpi_gather(mine, sizeof mine, all, offset, bytes_of, 0);
        if (st == KS_OK && m->leading) {
            m->last.gpus = n;
            for (int r = 0; r < n; ++r) {
                m->last.jacobi_ms[r] = all[4 * r];
                m->last.gpu_halo_ms[r] = all[4 * r + 1];
                m->last.gpu_hidden[r] = all[4 * r + 2];
            }
            for (int r = 0; r < m->count; ++r)
                if (all[4 * r + 3] > m->last.run_ms) m->last.run_ms = all[4 * r + 3];
        }
        free(all);
        free(offset);
        free(bytes_of);
        KS_TRY(st);
    }
    return KS_OK;
}

void ks_lmulti_last(const ks_lmulti *m, ks_lmulti_timing *out) { *out = m->last; }

/* ---- the live view's slice ---- */

ks_grid ks_lmulti_slice_grid(const ks_lmulti *m, ks_axis axis) { return ks_slab_slice_grid(&m->g, axis); }

int ks_lmulti_slice_index(const ks_lmulti *m, ks_axis axis, int index)
{
    (void)axis;
    return m->g.dims == 2 ? index : 1;
}

void ks_lmulti_slice_point(const ks_lmulti *m, ks_axis axis, const int p[3], int out[3])
{
    for (int k = 0; k < 3; ++k) out[k] = p[k];
    if (m->g.dims == 2 || p[0] < 0) return;
    out[axis == KS_AXIS_X ? 0 : axis == KS_AXIS_Y ? 1 : 2] = 1;
}

int ks_lmulti_owner(const ks_lmulti *m, int plane)
{
    for (int r = 0; r < m->count; ++r)
        if (plane < m->slabs[r].first + m->slabs[r].count) return r;
    return m->count - 1;
}

/* A led MPI job's slice: each rank packs the part it reports (the source
 * rectangle of its copies, ks_slab_slice_copies) densely into host memory,
 * rank 0 gathers the parts and applies every rank's copies from them. */
static ks_status slice_by_mpi(ks_lmulti *m, ks_axis axis, int index, ks_lsolver *view)
{
    const size_t fs = sizeof(float);
    size_t *offset = (size_t *)calloc((size_t)m->count, sizeof(size_t)),
           *bytes_of = (size_t *)calloc((size_t)m->count, sizeof(size_t));
    if (!offset || !bytes_of) {
        free(offset);
        free(bytes_of);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "slice: host allocation failed");
    }
    size_t total = 0;
    for (int r = 0; r < m->count; ++r) {
        ks_copy2d cp[KS_SLICE_COPIES_MAX];
        const int n = ks_slab_slice_copies(&m->g, &m->slabs[r], axis, index, cp);
        offset[r] = total;
        bytes_of[r] = n ? cp[0].width * cp[0].height * fs : 0;
        total += bytes_of[r];
    }
    const int me = m->first;
    float *mine = (float *)malloc(bytes_of[me] ? bytes_of[me] : 1), *all = m->leading ? (float *)malloc(total ? total : 1) : NULL;
    ks_status st = mine && (!m->leading || all) ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "slice: host allocation failed");
    ks_copy2d cp[KS_SLICE_COPIES_MAX];
    if (st == KS_OK && ks_slab_slice_copies(&m->g, &m->d[0].slab, axis, index, cp) > 0) {
        const cudaError_t e = cudaMemcpy2D(mine, cp[0].width * fs, m->d[0].s->cur + cp[0].src_offset, cp[0].src_pitch * fs,
                                           cp[0].width * fs, cp[0].height, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "slice: copying this rank's part: %s", cudaGetErrorString(e));
    }
    st = job_agree(m, st);
    if (st == KS_OK) st = ks_mpi_gather(mine, bytes_of[me], all, offset, bytes_of, 0);
    cudaError_t e = cudaSuccess;
    for (int r = 0; st == KS_OK && m->leading && r < m->count && e == cudaSuccess; ++r) {
        const int n = ks_slab_slice_copies(&m->g, &m->slabs[r], axis, index, cp);
        for (int c = 0; c < n && e == cudaSuccess; ++c) /* from rank r's dense part */
            e = cudaMemcpy2DAsync(view->cur + cp[c].dst_offset, cp[c].dst_pitch * fs, (const char *)all + offset[r],
                                  cp[c].width * fs, cp[c].width * fs, cp[c].height, cudaMemcpyHostToDevice, view->stream);
    }
    if (st == KS_OK && m->leading && e == cudaSuccess) e = cudaStreamSynchronize(view->stream); /* the host buffer goes next */
    if (st == KS_OK && e != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "slice: upload to the display GPU: %s", cudaGetErrorString(e));
    free(mine);
    free(all);
    free(offset);
    free(bytes_of);
    return st;
}

ks_status ks_lmulti_slice_into(ks_lmulti *m, ks_axis axis, int index, ks_lsolver *view)
{
    KS_TRY(lead(m, LEAD_SLICE, 0, NULL, 0, 0, (int)axis, index));
    if (m->leading || m->following) return slice_by_mpi(m, axis, index, view);
    if (m->mpi) return ks_fail(KS_ERR_UNSUPPORTED, "the slice of an MPI job goes to its leading rank (desc.lead)");
    const ks_grid vg = ks_lmulti_slice_grid(m, axis);
    if (memcmp(&vg, &view->g, sizeof vg) != 0) return ks_fail(KS_ERR_INVALID, "slice: the view's grid is not the slice's");
    if (!m->slice_done) KS_CUDA_TRY(cudaEventCreateWithFlags(&m->slice_done, cudaEventDisableTiming));
    const size_t fs = sizeof(float);
    cudaStream_t st = view->stream;
    for (int i = 0; i < m->local; ++i) { /* peer copies from each GPU's own planes */
        ks_copy2d cp[KS_SLICE_COPIES_MAX];
        const int n = ks_slab_slice_copies(&m->g, &m->d[i].slab, axis, index, cp);
        for (int c = 0; c < n; ++c)
            KS_CUDA_TRY(cudaMemcpy2DAsync(view->cur + cp[c].dst_offset, cp[c].dst_pitch * fs, m->d[i].s->cur + cp[c].src_offset,
                                          cp[c].src_pitch * fs, cp[c].width * fs, cp[c].height, cudaMemcpyDefault, st));
    }
    KS_CUDA_TRY(cudaEventRecord(m->slice_done, st));
    m->slice_pending = 1;
    return KS_OK;
}

ks_status ks_lmulti_residual(ks_lmulti *m, double *rms)
{
    KS_TRY(lead(m, LEAD_RESIDUAL, 0, NULL, 0, 0, 0, 0));
    KS_TRY(job_agree(m, run_job(m, job_residual)));
    *rms = sqrt(m->residual_sum / (double)ks_grid_points(&m->g));
    return KS_OK;
}

ks_status ks_lmulti_time(ks_lmulti *m, int variant, const int block[3], int iters, int reps, ks_lmulti_timing *out)
{
    memset(out, 0, sizeof *out);
    if (iters < 1 || reps < 1)
        return ks_fail(KS_ERR_INVALID, "timing needs iters >= 1 and reps >= 1 (got %d, %d)", iters, reps);
    for (int i = 0; i < m->local; ++i) {
        free(m->d[i].rep_ms);
        m->d[i].rep_ms = (double *)calloc((size_t)reps, sizeof(double));
        if (!m->d[i].rep_ms) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timing: host allocation failed");
    }
    m->variant = variant;
    memcpy(m->block, block, sizeof m->block);
    m->iters = iters;
    m->reps = reps;
    KS_TRY(job_agree(m, run_job(m, job_time)));
    /* a repetition lasts as long as its slowest GPU, in this process and in the job */
    double *rep = (double *)calloc((size_t)reps, sizeof(double));
    if (!rep) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timing: host allocation failed");
    for (int r = 0; r < reps; ++r)
        for (int i = 0; i < m->local; ++i)
            if (m->d[i].rep_ms[r] > rep[r]) rep[r] = m->d[i].rep_ms[r];
    double sums[3] = {0.0, 0.0, 0.0}; /* exchange time, its exposed part, exchanges */
    for (int i = 0; i < m->local; ++i) {
        sums[0] += m->d[i].halo_sum;
        sums[1] += m->d[i].exposed_sum;
        sums[2] += m->d[i].halo_count;
        out->jacobi_ms[i] = m->d[i].jacobi_med;
    }
    ks_status st = m->mpi ? ks_mpi_allreduce_max(rep, reps) : KS_OK;
    if (st == KS_OK && m->mpi) st = ks_mpi_allreduce_sum(sums, 3);
    if (st == KS_OK) {
        out->ms_per_iter = ks_median_sort(rep, reps) / iters;
        out->halo_ms = sums[2] > 0.0 ? sums[0] / sums[2] : 0.0;
        out->hidden_share = sums[0] > 0.0 ? 1.0 - sums[1] / sums[0] : 1.0;
        const ks_lvariant_info *info = ks_lvariant_get(variant);
        const int T = info && info->steps_per_launch > 1 ? info->steps_per_launch : 1;
        out->exchanges_per_iter_x1000 = m->count > 1 ? 1000 / T : 0;
    }
    free(rep);
    return st;
}

ks_status ks_lmulti_follow(ks_lmulti *m)
{
    if (!m->following) return ks_fail(KS_ERR_INVALID, "follow: this rank does not follow a led MPI job");
    float *field = NULL;
    ks_status st = KS_OK;
    for (;;) {
        lead_cmd c;
        memset(&c, 0, sizeof c);
        KS_TRY(ks_mpi_bcast(&c, sizeof c, 0));
        double rms = 0.0;
        switch ((lead_op)c.op) {
        case LEAD_QUIT: free(field); return KS_OK;
        case LEAD_RUN: st = ks_lmulti_run(m, c.variant, c.block, c.iters, (ks_lprev)c.prev); break;
        case LEAD_RESIDUAL: st = ks_lmulti_residual(m, &rms); break;
        case LEAD_SLICE: st = ks_lmulti_slice_into(m, (ks_axis)c.axis, c.index, NULL); break;
        case LEAD_CHECK: st = ks_lmulti_check_block(m, c.variant, c.block); break;
        case LEAD_DOWNLOAD: st = ks_lmulti_download(m, NULL); break;
        case LEAD_UPLOAD:
            if (!field) field = (float *)malloc(ks_grid_bytes(&m->g));
            if (!field) {
                st = ks_fail(KS_ERR_OUT_OF_MEMORY, "follow: no host memory for the field");
                break;
            }
            st = ks_lmulti_upload(m, field);
            break;
        default: st = ks_fail(KS_ERR_INVALID, "follow: unknown call %d from rank 0", c.op); break;
        }
        /* a failure here reached rank 0 through the call's own agreement; rank 0 ends the job */
        if (st != KS_OK) fprintf(stderr, "kernelscope: rank %d: %s\n", ks_mpi_rank(), ks_error_message());
    }
}
