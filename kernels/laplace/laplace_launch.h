/* Internal to kernels/: how laplace_gpu.cu calls each variant's launcher.
 * CUDA-only header (never included by app/ or render/). */
#ifndef KS_LAPLACE_LAUNCH_H
#define KS_LAPLACE_LAUNCH_H

#include <cuda_runtime.h>

#include "base/cuda_check.h"
#include "laplace.h"
#include "laplace_chunks.h" /* ks_fdiv_up, ks_pick_chunk, tblock's plan */

/* A temporally blocked launch over one GPU's slab of several
 * (laplace_multi.cu): it writes the planes [lo, hi) of the slow axis and
 * the edge range [edge_lo, edge_hi) (none when equal), the edge's blocks
 * first. The blocks of the edge range, when it is set, and those of the
 * range that starts at lo, when low_end is, each add one to *signal once the
 * edge's planes (or the planes below low_end) are written, so that another
 * stream can send them (cuStreamWaitValue32) while the rest of the launch
 * runs. The launcher sets signals to how many adds to expect. */
typedef struct ks_ledges {
    int lo, hi;
    int edge_lo, edge_hi;
    int low_end;
    unsigned *signal;
    int signals; /* out */
} ks_ledges;

typedef struct ks_lsweep {
    const ks_grid *grid;
    const float *in;   /* iterate n (both fields hold valid boundary values) */
    float *out;        /* receives iterate n + steps; interior-only variants
                          may leave its boundary untouched */
    int block[3];      /* as given by the user / table; unused components 1 */
    int steps;         /* iterations this launch performs (1 unless temporally blocked) */
    cudaStream_t stream;
    const cudaDeviceProp *prop;
    /* When dry_run is set: validate block (and fill attrs when non-NULL) but
     * launch nothing; in/out may be NULL. */
    int dry_run;
    ks_kernel_attrs *attrs;
    /* tblock only: which planes, in which order, with which signals; NULL:
     * every interior plane (others ignore it) */
    ks_ledges *edges;
} ks_lsweep;

typedef ks_status (*ks_llaunch_fn)(const ks_lsweep *sw);

/* Oxford Practical 3 styles and 2D basics: laplace_course.cu */
ks_status ks_llaunch_kmarch(const ks_lsweep *sw);
ks_status ks_llaunch_block3d(const ks_lsweep *sw);
ks_status ks_llaunch_block2d(const ks_lsweep *sw);
ks_status ks_llaunch_smem2d(const ks_lsweep *sw);
/* Optimised variants: laplace_fast.cu (regq, vec2d), laplace_tblock.cu (tblock) */
ks_status ks_llaunch_regq(const ks_lsweep *sw);
ks_status ks_llaunch_tblock(const ks_lsweep *sw);
ks_status ks_llaunch_vec2d(const ks_lsweep *sw);

/* Shared helpers (laplace_course.cu). Block checks against the device limits: */
ks_status ks_lcheck_block_limits(const ks_lsweep *sw, int threads, size_t dyn_smem);
/* ... and, in a dry run, against kernel fn itself (its threads-per-block
 * limit, at least one resident block), filling sw->attrs when set. Launches
 * skip the driver queries: callers validate with a dry run first. `name`
 * is the variant's, for messages. Set a dynamic shared-memory limit above
 * 48 KiB on fn before calling. */
ks_status ks_lcheck_kernel(const ks_lsweep *sw, const void *fn, const char *name, int threads,
                           size_t dyn_smem);
/* Refuses a block with a z extent other than 1. */
ks_status ks_lneed_2d_block(const ks_lsweep *sw, const char *name);
/* Refuses a launch that needs more than the device's grid size along axis
 * (1 = y, 2 = z). */
ks_status ks_lcheck_grid_dim(const ks_lsweep *sw, int axis, unsigned blocks);
/* "32x8" or "32x4x4" (third component shown when it is not 1), for messages. */
void ks_lblock_text(const int block[3], char *buf, size_t len);

#ifdef __CUDACC__
/* The stencil in the gold order (i-1, i+1, j-1, j+1[, k-1, k+1], then one
 * multiply). The _rn intrinsics forbid FMA contraction, so every variant
 * rounds exactly like the CPU gold and results match bit for bit. */
static __device__ __forceinline__ float ks_stencil6(float xm, float xp, float ym, float yp,
                                                    float zm, float zp)
{
    float s = __fadd_rn(xm, xp);
    s = __fadd_rn(s, ym);
    s = __fadd_rn(s, yp);
    s = __fadd_rn(s, zm);
    s = __fadd_rn(s, zp);
    return __fmul_rn(s, 1.0f / 6.0f);
}

static __device__ __forceinline__ float ks_stencil4(float xm, float xp, float ym, float yp)
{
    float s = __fadd_rn(xm, xp);
    s = __fadd_rn(s, ym);
    s = __fadd_rn(s, yp);
    return __fmul_rn(s, 0.25f);
}

/* Four consecutive x points c.x .. c.w of one row: xl is the point left of
 * c.x, xr the one right of c.w. A point on the grid's x boundary (c.x when
 * first, c.w when last) keeps its value. */
static __device__ __forceinline__ float4 ks_stencil6_x4(float xl, float4 c, float xr, float4 ym,
                                                        float4 yp, float4 zm, float4 zp, bool first,
                                                        bool last)
{
    float4 r;
    r.x = first ? c.x : ks_stencil6(xl, c.y, ym.x, yp.x, zm.x, zp.x);
    r.y = ks_stencil6(c.x, c.z, ym.y, yp.y, zm.y, zp.y);
    r.z = ks_stencil6(c.y, c.w, ym.z, yp.z, zm.z, zp.z);
    r.w = last ? c.w : ks_stencil6(c.z, xr, ym.w, yp.w, zm.w, zp.w);
    return r;
}

static __device__ __forceinline__ float4 ks_stencil4_x4(float xl, float4 c, float xr, float4 ym,
                                                        float4 yp, bool first, bool last)
{
    float4 r;
    r.x = first ? c.x : ks_stencil4(xl, c.y, ym.x, yp.x);
    r.y = ks_stencil4(c.x, c.z, ym.y, yp.y);
    r.z = ks_stencil4(c.y, c.w, ym.z, yp.z);
    r.w = last ? c.w : ks_stencil4(c.z, xr, ym.w, yp.w);
    return r;
}
#endif

/* Launch-shape helper of the optimised variants (laplace_fast.cu): blocks of fn resident on the whole device at once (at least one per SM). */
long long ks_resident_blocks(const void *fn, int threads, size_t smem, const cudaDeviceProp *p);

#endif
