/* Jacobi on several GPUs with NCCL halo exchanges (laplace_multi.h): the
 * solver's calls. One ks_lsolver per slab holds the two fields; a call runs a
 * job on every GPU's host thread (laplace_multi_jobs.cu), which runs the
 * edge-first blocks (laplace_multi_block.cu) and their halo exchange
 * (laplace_multi_halo.cu); under mpirun rank 0 leads (laplace_multi_lead.cu,
 * laplace_multi_follow.cu); the live view's slice is laplace_multi_slice.cu. */
#include <math.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "kernels/laplace/mpi_job.h"
#include "laplace_multi_internal.h"

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
    if (st == KS_OK) st = ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_alloc));
    if (st == KS_OK) {
        ks_lmulti_set_nccl_env();
        if (m->first == 0) {
            const ncclResult_t r = ncclGetUniqueId(&m->id);
            if (r != ncclSuccess) st = ks_fail(KS_ERR_CUDA, "ncclGetUniqueId failed: %s", ncclGetErrorString(r));
        }
        st = ks_lmulti_agree(m, st);
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
    if (st == KS_OK) st = ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_comm));
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
    ks_lmulti_lead(m, LEAD_QUIT, 0, NULL, 0, 0, 0, 0); /* the other ranks leave ks_lmulti_follow */
    if (m->slice_pending) ks_cuda_wait_event(m->slice_done, "copying the slice");
    if (m->slice_done) cudaEventDestroy(m->slice_done);
    if (m->pool) {
        ks_lmulti_run_job(m, ks_lmulti_job_free);
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
    KS_TRY(ks_lmulti_lead(m, LEAD_UPLOAD, 0, NULL, 0, 0, 0, 0));
    if (m->leading || m->following) /* rank 0's field to every rank */
        KS_TRY(ks_mpi_bcast((void *)field, ks_grid_bytes(&m->g), 0));
    if (m->slice_pending) { /* the picture's copies read the fields this writes */
        KS_TRY(ks_cuda_wait_event(m->slice_done, "copying the slice"));
        m->slice_pending = 0;
    }
    m->up = field;
    return ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_upload));
}

ks_status ks_lmulti_download(ks_lmulti *m, float *field)
{
    KS_TRY(ks_lmulti_lead(m, LEAD_DOWNLOAD, 0, NULL, 0, 0, 0, 0));
    if (!m->mpi) {
        m->down = field;
        return ks_lmulti_run_job(m, ks_lmulti_job_download);
    }
    /* one rank, one domain: its planes into a buffer of its own, then to rank 0 */
    const size_t plane = m->d[0].plane;
    int g0, g1;
    ks_lmulti_reported_planes(m, m->first, &g0, &g1);
    const size_t mine = (size_t)(g1 - g0) * plane * sizeof(float);
    m->down = (float *)malloc(mine);
    ks_status st = m->down ? ks_lmulti_run_job(m, ks_lmulti_job_download) : ks_fail(KS_ERR_OUT_OF_MEMORY, "download: host allocation failed");
    st = ks_lmulti_agree(m, st);
    size_t *offset = (size_t *)calloc((size_t)m->count, sizeof(size_t)),
           *bytes_of = (size_t *)calloc((size_t)m->count, sizeof(size_t));
    if (st == KS_OK && (!offset || !bytes_of)) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "download: host allocation failed");
    for (int r = 0; st == KS_OK && r < m->count; ++r) {
        int a, b;
        ks_lmulti_reported_planes(m, r, &a, &b);
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
    KS_TRY(ks_lmulti_lead(m, LEAD_CHECK, variant, block, 0, 0, 0, 0));
    m->variant = variant;
    memcpy(m->block, block, sizeof m->block);
    return ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_check));
}

ks_status ks_lmulti_run(ks_lmulti *m, int variant, const int block[3], int iters, ks_lprev prev)
{
    if (iters < 0) return ks_fail(KS_ERR_INVALID, "iterations must be >= 0, got %d", iters);
    if (iters == 0) return KS_OK;
    KS_TRY(ks_lmulti_lead(m, LEAD_RUN, variant, block, iters, (int)prev, 0, 0));
    m->variant = variant;
    memcpy(m->block, block, sizeof m->block);
    m->iters = iters;
    m->prev = prev;
    if (m->slice_pending) { /* the picture's copies read the fields this run writes */
        KS_TRY(ks_cuda_wait_event(m->slice_done, "copying the slice"));
        m->slice_pending = 0;
    }
    KS_TRY(ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_run)));
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

ks_status ks_lmulti_residual(ks_lmulti *m, double *rms)
{
    KS_TRY(ks_lmulti_lead(m, LEAD_RESIDUAL, 0, NULL, 0, 0, 0, 0));
    KS_TRY(ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_residual)));
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
    KS_TRY(ks_lmulti_agree(m, ks_lmulti_run_job(m, ks_lmulti_job_time)));
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
