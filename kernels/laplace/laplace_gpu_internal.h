/* Internal to kernels/laplace/: the CUDA solver object that laplace_gpu.cu
 * (fields, sweeps, residual, timing) and laplace_slice.cu (slice colormap,
 * min/max, readback) share. CUDA-only header (never included by C code). */
#ifndef KS_LAPLACE_GPU_INTERNAL_H
#define KS_LAPLACE_GPU_INTERNAL_H

#include "kernels/laplace/field_histogram.h"
#include "laplace_launch.h"

enum { KS_LREADBACK_SLOTS = 8 }; /* more than the frames a host may run ahead */

/* What one readback copies into pinned memory. */
typedef struct ks_lreadback_raw {
    double residual_sum;   /* the residual accumulator */
    unsigned minmax[2];    /* order-preserving encodings of the slice min, max */
    float probe;
} ks_lreadback_raw;

typedef struct ks_lreadback_slot {
    ks_lreadback_raw *host; /* pinned */
    cudaEvent_t done;
    int pending;            /* requested and not yet handed out */
    long long seq;          /* request order */
    int had_residual, has_probe;
    int probe[3];
    long long iteration;
} ks_lreadback_slot;

/* One captured frame of launches (ks_lsolver_run with graphs on). The key
 * is everything the captured launches depend on; the fields' addresses are
 * baked in, so which field is current at the start is part of it. */
enum {
    KS_LGRAPH_CACHE = 6,  /* an odd launch count alternates two parities, x exact/any, + a chunk */
    KS_LGRAPH_CHUNK = 256 /* launches in one graph at most (even); longer runs replay it */
};
typedef struct ks_lgraph {
    cudaGraphExec_t exec;   /* NULL: free */
    int variant, block[3], iters, prev;
    long long code;         /* a user variant's load (ks_luser_generation): a reload captures anew */
    const float *start_cur;
    float *end_cur, *end_prev; /* the fields after a replay */
    long long used;         /* last use (eviction: least recently used) */
} ks_lgraph;

struct ks_lsolver {
    ks_grid g;
    size_t points, bytes;
    int device;
    cudaDeviceProp prop;
    cudaStream_t stream;
    int stream_borrowed;    /* ks_lsolver_use_stream: another's stream, not destroyed with this one */
    float *cur, *prev;      /* cur = newest iterate, prev = the one before */
    double *d_residual;     /* residual accumulator (sum of squares) */
    unsigned *d_minmax;     /* encoded slice min, max */
    int have_residual;      /* a residual was enqueued since the last readback request */
    ks_lreadback_slot slots[KS_LREADBACK_SLOTS];
    long long next_seq;
    cudaEvent_t t0, t1;     /* timing pair */
    unsigned *d_hist;       /* the value histogram (created on first use) */
    ks_lhist *h_hist;       /* pinned: where the counts land */
    cudaEvent_t hist_done;
    int hist_pending;
    ks_lhist hist_req;      /* bins, range and iteration of the request in flight */
    int use_graphs;         /* ks_lsolver_use_graphs */
    ks_lgraph graphs[KS_LGRAPH_CACHE];
    long long graph_clock;
    long long graph_captures, graph_replays;
    struct ks_l2_flush *flush; /* cold-cache timing's flush (base/l2_flush.h), made on first use */
};

/* For the multi-GPU solver (laplace_multi.cu), which drives one solver per
 * slab: the variant's row and launcher (a user variant's when loaded), or
 * the error lookup gives; the residual accumulator over points [first,
 * first + points) of the fields only (a slab's own planes, not its halos). */
ks_status ks_lsolver_launcher(const ks_lsolver *s, int variant, const ks_lvariant_info **info,
                              ks_llaunch_fn *fn);
ks_status ks_lsolver_residual_range(ks_lsolver *s, size_t first, size_t points);

#endif
