/* Jacobi on several GPUs: the global grid cut into slabs along its slowest
 * axis (laplace_domains.h), one slab a GPU, each held by a ks_lsolver of its
 * own, halos exchanged with NCCL. The GPUs of one process are driven by one
 * host thread each (kernels/laplace/worker_pool.h); under an MPI launcher
 * each process is one rank with one GPU, and the NCCL id travels by MPI
 * (kernels/laplace/mpi_job.h). Either way the field after any number of
 * iterations is bit for bit the one a single GPU computes.
 *
 * Each block of b iterations (b = 1, or up to the time block of a
 * temporally blocked variant), on every GPU:
 *   1. the edge planes its neighbours need (D of them a side, D = the
 *      variant's time block) are computed first, from a sub-slab b planes
 *      wider than them, into a scratch buffer;
 *   2. the rest of the slab is computed while the edges travel: NCCL sends
 *      them from the scratch and receives the neighbours' into the halo, on a
 *      stream of its own;
 *   3. the edges are copied into the new field and the next block waits for
 *      the exchange.
 * Built with NCCL where CMake finds it (laplace_multi.cu), else every call
 * says what is missing (laplace_multi_none.c). */
#ifndef KS_LAPLACE_MULTI_H
#define KS_LAPLACE_MULTI_H

#include "kernels/laplace/laplace.h"
#include "kernels/laplace/laplace_domains.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KS_LMULTI_MAX_GPUS = 16, /* GPUs one process drives */
    KS_LMULTI_DEPTH = 4      /* halo planes a side: the deepest time block (tblock's) */
};

typedef struct ks_lmulti ks_lmulti;

typedef struct ks_lmulti_desc {
    ks_grid grid;              /* the global grid */
    int gpus;                  /* GPUs this process drives, one host thread each (0: 1) */
    const int *devices;        /* their CUDA ids; NULL: 0 .. gpus-1 (under MPI: the local rank's) */
    int mpi;                   /* 1: this process is one rank of the running MPI job, with one GPU */
    int lead;                  /* with mpi: rank 0 leads (the live view): each call on it is sent to
                                  the other ranks, which sit in ks_lmulti_follow; 0: every rank
                                  makes the same calls itself (the bench) */
} ks_lmulti_desc;

/* A rank other than 0 of a led job: runs what rank 0's calls send until
 * rank 0 destroys its solver, then returns (destroy this one after). */
ks_status ks_lmulti_follow(ks_lmulti *m);

/* 1 when this build can run on several GPUs (NCCL), else 0 with why set to
 * one line naming what is missing. */
int ks_lmulti_supported(const char **why);
/* Sets NCCL_NVLS_ENABLE=0 (NVLink multicast off, always) and, unless the
 * environment sets it, NCCL_MAX_P2P_NCHANNELS=4, before any NCCL call;
 * create does it too. */
void ks_lmulti_set_nccl_env(void);

/* KS_ERR_INVALID for a grid or split that does not work (one line: too thin
 * slabs, more GPUs than planes), KS_ERR_NO_DEVICE when fewer GPUs exist
 * than asked, KS_ERR_UNSUPPORTED without NCCL. */
ks_status ks_lmulti_create(const ks_lmulti_desc *d, ks_lmulti **out);
void ks_lmulti_destroy(ks_lmulti *m);

int ks_lmulti_domains(const ks_lmulti *m);     /* in the whole job */
int ks_lmulti_local(const ks_lmulti *m);       /* held by this process */
int ks_lmulti_first_domain(const ks_lmulti *m); /* index of this process's first one */
const ks_slab *ks_lmulti_slab(const ks_lmulti *m, int domain); /* any domain of the job */
int ks_lmulti_device(const ks_lmulti *m, int local);
/* "NVIDIA H200" of the first local GPU. */
const char *ks_lmulti_device_name(const ks_lmulti *m);
/* cc "9.0" of the first local GPU. */
void ks_lmulti_cc(const ks_lmulti *m, char *buf, size_t len);

/* Every process passes the whole field (boundary included); each GPU takes
 * its slab. Synchronous. */
ks_status ks_lmulti_upload(ks_lmulti *m, const float *field);
/* The whole field into field on the job's rank 0 (other ranks: may be
 * NULL). Synchronous. */
ks_status ks_lmulti_download(ks_lmulti *m, float *field);
/* Checks the variant and block on every GPU (as ks_lsolver_check_block). */
ks_status ks_lmulti_check_block(ks_lmulti *m, int variant, const int block[3]);
/* Runs exactly iters iterations (prev as ks_lsolver_run) and waits for them. */
ks_status ks_lmulti_run(ks_lmulti *m, int variant, const int block[3], int iters, ks_lprev prev);
/* sqrt(sum of (cur - prev)^2 / points) over the whole grid: each GPU's own
 * planes, summed across GPUs by an NCCL all-reduce. Synchronous. */
ks_status ks_lmulti_residual(ks_lmulti *m, double *rms);

/* ---- The live view: a slice of the field on the display GPU ----
 * The picture is drawn by an ordinary ks_lsolver on the display GPU (the
 * calling thread's device) whose grid holds just the slice: a slice of a 3D
 * grid three times over (the planes 0, 1, 2 of the thin grid this gives; the
 * slice is plane 1), the whole field in 2D (the slice is the field). Its
 * rendering, readback and histogram work unchanged; only the slice's bytes
 * cross between GPUs. */
/* The grid of that solver for slices along axis, and the slice's index in it
 * for the global index. */
ks_grid ks_lmulti_slice_grid(const ks_lmulti *m, ks_axis axis);
int ks_lmulti_slice_index(const ks_lmulti *m, ks_axis axis, int index);
/* The point of that grid that shows global point p (i, j, k). */
void ks_lmulti_slice_point(const ks_lmulti *m, ks_axis axis, const int p[3], int out[3]);
/* Enqueues on view's stream the copies of slice (axis, index) from the GPUs
 * that own its planes into view's current field (view made with
 * ks_lmulti_slice_grid(m, axis)). The next run waits for them. In a led MPI
 * job the other ranks' parts come through MPI to rank 0 (host memory), and
 * view is rank 0's (NULL on the others). */
ks_status ks_lmulti_slice_into(ks_lmulti *m, ks_axis axis, int index, ks_lsolver *view);
/* The domain that owns global plane `plane` of the slow axis (its boundary
 * planes: the end domains). */
int ks_lmulti_owner(const ks_lmulti *m, int plane);

typedef struct ks_lmulti_timing {
    double ms_per_iter;    /* median over reps of the slowest GPU's time, per iteration */
    double halo_ms;        /* median time of one halo exchange (both neighbours, sent and received) */
    double hidden_share;   /* the share of the exchanges' time the interior update overlapped, 0..1 */
    double jacobi_ms[KS_LMULTI_MAX_GPUS]; /* per local GPU: median update time (edges + interior) of a block */
    int exchanges_per_iter_x1000; /* exchanges per 1000 iterations (1000, or 250 for tblock) */
    /* per local GPU, from the profiled blocks: */
    double gpu_halo_ms[KS_LMULTI_MAX_GPUS];  /* mean time of its exchanges */
    double gpu_hidden[KS_LMULTI_MAX_GPUS];   /* the share of them the interior overlapped */
    int gpus;                                /* local GPUs filled in */
    /* ks_lmulti_last: the run's time on the slowest GPU (of the job), from its
     * first launch to its last exchange (CUDA events on each GPU) */
    double run_ms;
} ks_lmulti_timing;
/* The figures of the last ks_lmulti_run (its first blocks profiled):
 * jacobi_ms per iteration, the exchanges' time and hidden share per GPU. */
void ks_lmulti_last(const ks_lmulti *m, ks_lmulti_timing *out);
/* Times iters iterations reps times (CUDA events on each GPU, after two
 * warm-up runs; KS_LPREV_ANY, so a temporally blocked variant runs whole
 * blocks), then one profiled run with events around each exchange. Under MPI
 * every rank gets the same figures (the job's slowest). */
ks_status ks_lmulti_time(ks_lmulti *m, int variant, const int block[3], int iters, int reps,
                         ks_lmulti_timing *out);

#ifdef __cplusplus
}
#endif
#endif
