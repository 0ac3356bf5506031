/* Jacobi on several GPUs (laplace_multi.h): the halo exchange. Each slab's
 * edge planes go to its neighbours and theirs come into its halo planes with
 * NCCL on the slab's exchange stream, forked from and joined back to the
 * solver's stream (laplace_multi_internal.h).
 *
 * Waiting on a stream for a kernel's signal:
 * The driver's stream memory operations, reached through the runtime (the
 * program links no libcuda). NULL where the driver lacks them: tblock then
 * takes the path through the scratch buffers. */
#include <cuda.h>
#include <nccl.h>
#include <string.h>

#include "laplace_multi_internal.h"

stream_ops ks_lmulti_stream_ops(void)
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
ks_status ks_lmulti_wait_signal(const stream_ops *ops, cudaStream_t st, unsigned *signal, int n)
{
    const CUdeviceptr a = (CUdeviceptr)(uintptr_t)signal;
    CUresult r = ops->wait((CUstream)st, a, (cuuint32_t)n, CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_SUCCESS) r = ops->write((CUstream)st, a, 0, CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r != CUDA_SUCCESS) return ks_fail(KS_ERR_CUDA, "a stream wait for the edges failed (CUDA driver error %d)", (int)r);
    return KS_OK;
}

/* Enqueues on the exchange stream the exchange of D planes a side: sends D
 * own edge planes from lo_src / hi_src to the neighbours and receives theirs
 * into the D halo planes of field; ev_done marks its end. */
ks_status ks_lmulti_exchange_post(dom *d, float *field, const float *lo_src, const float *hi_src, int D, int prof)
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
ks_status ks_lmulti_fork_exchange(dom *d)
{
    KS_CUDA_TRY(cudaEventRecord(d->ev_edges, d->s->stream));
    KS_CUDA_TRY(cudaStreamWaitEvent(d->xs, d->ev_edges, 0));
    return KS_OK;
}

/* The solver's stream waits for the exchange posted last. */
ks_status ks_lmulti_join(dom *d)
{
    KS_CUDA_TRY(cudaStreamWaitEvent(d->s->stream, d->ev_done, 0));
    return KS_OK;
}

/* Brings the current field's halos up to date D planes deep (after a
 * variant with a shallower exchange, before a deeper block). */
ks_status ks_lmulti_refresh_halos(dom *d, int D)
{
    if (!has_lo(d) && !has_hi(d)) return KS_OK;
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    float *cur = d->s->cur;
    KS_TRY(ks_lmulti_fork_exchange(d));
    KS_TRY(ks_lmulti_exchange_post(d, cur, has_lo(d) ? plane_at(d, cur, f) : NULL, has_hi(d) ? plane_at(d, cur, l - D) : NULL,
                         D, -1));
    return ks_lmulti_join(d);
}
