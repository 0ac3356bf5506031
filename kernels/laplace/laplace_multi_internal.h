/* Internal to kernels/laplace/: what the multi-GPU solver's files share
 * (laplace_multi.cu: the calls; laplace_multi_jobs.cu: the GPU threads' jobs
 * and the blocks' profile; laplace_multi_block.cu: the edge-first blocks;
 * laplace_multi_halo.cu: the halo exchange; laplace_multi_lead.cu and
 * laplace_multi_follow.cu: a led MPI job; laplace_multi_slice.cu: the live
 * view's slice). CUDA and NCCL only (never included by C code). */
#ifndef KS_LAPLACE_MULTI_INTERNAL_H
#define KS_LAPLACE_MULTI_INTERNAL_H

#include <cuda.h>
#include <nccl.h>

#include "kernels/laplace/mpi_job.h"
#include "kernels/laplace/worker_pool.h"
#include "laplace_multi.h"
#include "laplace_gpu_internal.h"

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

/* A led MPI job's calls, as rank 0 sends them to the others. */
typedef enum lead_op { LEAD_QUIT = 1, LEAD_RUN, LEAD_RESIDUAL, LEAD_SLICE, LEAD_UPLOAD, LEAD_DOWNLOAD, LEAD_CHECK } lead_op;

typedef struct lead_cmd {
    int op, variant, block[3], iters, prev, axis, index;
} lead_cmd;

static inline int has_lo(const dom *d) { return d->scratch[0] != NULL; }
static inline int has_hi(const dom *d) { return d->scratch[1] != NULL; }
static inline float *plane_at(const dom *d, float *base, int local_plane)
{
    return base + (size_t)local_plane * d->plane;
}

static inline ks_status ks_lmulti_run_job(ks_lmulti *m, ks_worker_fn fn) { return ks_workers_run(m->pool, fn, m); }
/* Under MPI a failure on one rank must stop the others too (they would wait
 * in NCCL or MPI forever): every rank learns whether any failed. */
static inline ks_status ks_lmulti_agree(ks_lmulti *m, ks_status st) { return m->mpi ? ks_mpi_agree(st) : st; }

/* laplace_multi_halo.cu: the driver's stream memory operations (NULL where it
 * lacks them); st waits until *signal >= n, then sets it back to 0; the
 * exchange of D planes a side posted on the exchange stream (prof >= 0: that
 * block's profile events); the exchange stream forked from the solver's, the
 * solver's joined to it; the current field's halos brought up to date D
 * planes deep. */
stream_ops ks_lmulti_stream_ops(void);
ks_status ks_lmulti_wait_signal(const stream_ops *ops, cudaStream_t st, unsigned *signal, int n);
ks_status ks_lmulti_exchange_post(dom *d, float *field, const float *lo_src, const float *hi_src, int D, int prof);
ks_status ks_lmulti_fork_exchange(dom *d);
ks_status ks_lmulti_join(dom *d);
ks_status ks_lmulti_refresh_halos(dom *d, int D);

/* laplace_multi_block.cu: iters iterations on one slab in edge-first blocks
 * (prof_blocks > 0: the first blocks profiled). */
ks_status ks_lmulti_dom_run(dom *d, int variant, const int block[3], int iters, ks_lprev prev, int prof_blocks);

/* laplace_multi_jobs.cu: the jobs (ks_worker_fn) on the GPU threads; the
 * planes domain index reports (its own, and the grid's boundary at an end). */
ks_status ks_lmulti_job_alloc(int i, void *arg);
ks_status ks_lmulti_job_comm(int i, void *arg);
ks_status ks_lmulti_job_free(int i, void *arg);
ks_status ks_lmulti_job_upload(int i, void *arg);
ks_status ks_lmulti_job_download(int i, void *arg);
ks_status ks_lmulti_job_check(int i, void *arg);
ks_status ks_lmulti_job_run(int i, void *arg);
ks_status ks_lmulti_job_residual(int i, void *arg);
ks_status ks_lmulti_job_time(int i, void *arg);
void ks_lmulti_reported_planes(const ks_lmulti *m, int index, int *g0, int *g1);

/* laplace_multi_lead.cu: on rank 0 of a led job, tells the other ranks which call follows. */
ks_status ks_lmulti_lead(ks_lmulti *m, lead_op op, int variant, const int block[3], int iters, int prev, int axis,
                         int index);

#endif
