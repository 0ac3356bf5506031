/* Jacobi on several GPUs (laplace_multi.h): the live view's slice, gathered
 * from the slabs that hold its parts onto the display GPU (peer copies, or
 * through rank 0's host memory in a led MPI job). */
#include <stdlib.h>
#include <string.h>

#include "kernels/laplace/mpi_job.h"
#include "laplace_multi_internal.h"

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
    st = ks_lmulti_agree(m, st);
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
    KS_TRY(ks_lmulti_lead(m, LEAD_SLICE, 0, NULL, 0, 0, (int)axis, index));
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
