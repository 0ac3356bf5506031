/* Jacobi on several GPUs (laplace_multi.h): the jobs each GPU's host thread
 * runs (kernels/laplace/worker_pool.h), one a GPU at once: make and free a
 * slab's solver and buffers, its NCCL communicator, uploads and downloads,
 * runs, residuals and timings, and the profile of a run's blocks. */
#include <cuda.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "laplace_multi_internal.h"

static dom *local_dom(void *arg, int i) { return &((ks_lmulti *)arg)->d[i]; }

static ks_status elapsed(cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float t = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&t, a, b));
    *ms = t;
    return KS_OK;
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

ks_status ks_lmulti_job_alloc(int i, void *arg)
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
    d->ops = ks_lmulti_stream_ops();
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

ks_status ks_lmulti_job_comm(int i, void *arg)
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

ks_status ks_lmulti_job_free(int i, void *arg)
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

ks_status ks_lmulti_job_upload(int i, void *arg)
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
void ks_lmulti_reported_planes(const ks_lmulti *m, int index, int *g0, int *g1)
{
    ks_slab_reported_planes(&m->g, &m->slabs[index], g0, g1);
}

ks_status ks_lmulti_job_download(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    int g0, g1;
    ks_lmulti_reported_planes(m, d->index, &g0, &g1);
    float *dst = m->down + (m->mpi ? 0 : (size_t)g0 * d->plane); /* under MPI: this rank's own buffer */
    KS_CUDA_TRY(cudaMemcpyAsync(dst, d->s->cur + (size_t)(g0 - d->slab.lo) * d->plane,
                                (size_t)(g1 - g0) * d->plane * sizeof(float), cudaMemcpyDeviceToHost, d->s->stream));
    return ks_lsolver_wait(d->s);
}

ks_status ks_lmulti_job_check(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    return ks_lsolver_check_block(local_dom(arg, i)->s, m->variant, m->block);
}

ks_status ks_lmulti_job_run(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    KS_CUDA_TRY(cudaEventRecord(d->run_t0, d->s->stream));
    KS_TRY(ks_lmulti_dom_run(d, m->variant, m->block, m->iters, m->prev, KS_LIVE_PROFILE_BLOCKS));
    KS_CUDA_TRY(cudaEventRecord(d->run_t1, d->s->stream)); /* after the last exchange joined */
    KS_TRY(ks_lsolver_wait(d->s));
    KS_TRY(elapsed(d->run_t0, d->run_t1, &d->run_ms));
    return profile_stats(d);
}

ks_status ks_lmulti_job_residual(int i, void *arg)
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

ks_status ks_lmulti_job_time(int i, void *arg)
{
    ks_lmulti *m = (ks_lmulti *)arg;
    dom *d = local_dom(arg, i);
    ks_lsolver *s = d->s;
    KS_TRY(ks_lsolver_check_block(s, m->variant, m->block));
    for (int w = 0; w < 2; ++w) KS_TRY(ks_lmulti_dom_run(d, m->variant, m->block, m->iters, KS_LPREV_ANY, 0));
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
        st = ks_lmulti_dom_run(d, m->variant, m->block, m->iters, KS_LPREV_ANY, 0);
        if (st == KS_OK) st = event_record(ev[r + 1], s->stream);
    }
    if (st == KS_OK) st = ks_cuda_wait_event(ev[m->reps], "timing the multi-GPU solver");
    for (int r = 0; st == KS_OK && r < m->reps; ++r) st = elapsed(ev[r], ev[r + 1], &d->rep_ms[r]);
    for (int k = 0; k < made; ++k) cudaEventDestroy(ev[k]);
    free(ev);
    KS_TRY(st);
    /* the profiled run: events around each block's parts */
    KS_TRY(ks_lmulti_dom_run(d, m->variant, m->block, m->iters, KS_LPREV_ANY, KS_LPROFILE_BLOCKS));
    KS_TRY(ks_lsolver_wait(s));
    return profile_stats(d);
}
