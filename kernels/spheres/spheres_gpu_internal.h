/* Internal to kernels/spheres/: what the CUDA renderer's three files share
 * (spheres_gpu.cu: the renderer object, uploads, sample ring and timing;
 * spheres_render.cu: the render kernels and the variant table;
 * spheres_binning.cu: binning to screen tiles). CUDA-only header (never
 * included by C code).
 *
 * Spheres travel as two float4 each: (x, y, z, r2) then (red, green, blue,
 * radius), so the hot loop reads 16 bytes per sphere and colour only for
 * the winner. Every kernel shades with spheres_shade.h, like the CPU gold.
 */
#ifndef KS_SPHERES_GPU_INTERNAL_H
#define KS_SPHERES_GPU_INTERNAL_H

#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "base/cuda_check.h"
#include "spheres.h"
#include "spheres_shade.h"

/* One process has one c_spheres: the renderer that wrote it last owns it. */
extern const ks_spheres_gpu *ks_const_owner;

/* Shared and binned shade KS_SPH_ROWS pixels per thread (a column, blockDim.y
 * apart), so a bx x by block covers bx x (by * KS_SPH_ROWS) pixels: each
 * sphere read from shared memory serves four pixels and the grid has a
 * quarter of the blocks (the render was bound by each block's load latency). */
enum { KS_SPH_ROWS = 4 };
enum { KS_SPH_RING = 32, KS_SPH_BIN_THREADS = 256 };
/* The scan: 1024 threads x 16 counts (four int4 each) per chunk. */
enum { KS_SPH_SCAN_THREADS = 1024, KS_SPH_SCAN_PER = 16, KS_SPH_SCAN_CHUNK = KS_SPH_SCAN_THREADS * KS_SPH_SCAN_PER };

typedef struct ks_sph_slot {
    cudaEvent_t start, stop;
    ks_spheres_sample sample;
} ks_sph_slot;

struct ks_spheres_gpu {
    cudaStream_t stream;
    float4 *d_spheres;          /* 2 float4 per sphere; global/readonly/shared/binned read it */
    int device_cap;             /* spheres d_spheres holds */
    ks_sphere_packed *h_stage;  /* pinned staging for asynchronous uploads */
    int stage_cap;
    cudaEvent_t stage_done;     /* the last copy out of h_stage finished */
    ks_sphere_packed *h_global; /* host copy of d_spheres, for the binning bound */
    int n_global, n_const;      /* spheres uploaded to each place; -1 none yet */
    long long global_gen;       /* bumps with every upload to d_spheres */
    const void *user_const;     /* a user's kernelscope_spheres last filled from d_spheres (spheres_user.cu) */
    long long user_const_gen;   /* the global_gen it was filled at */
    /* binning: per-tile counts (kept zero between frames), offsets, cursors (each padded to
     * whole scan chunks; offset[tiles] is the total), entries */
    int *d_tile_count, *d_tile_offset, *d_tile_cursor;
    int tiles_cap;
    int *d_entries;             /* sphere index per entry */
    float4 *d_entry_geom;       /* its (x, y, z, r2), so the render's loads do not chain */
    long long entries_cap;
    int counts_dirty;           /* counts may be non-zero: clear before binning */
    long long bound;            /* entries needed for bound_key; -1 unknown */
    int bound_key[4];           /* tile w, tile h, w, h the bound was computed for */
    unsigned char *d_image;     /* own image for tests and timing */
    size_t image_cap;
    int max_threads_sm;
    /* live timing ring */
    int track;
    ks_sph_slot ring[KS_SPH_RING];
    int ring_ready;             /* events created */
    int ring_head, ring_used;
    struct ks_l2_flush *flush;  /* cold-cache timing's flush (base/l2_flush.h), made on first use */
};

/* ---- Device helpers of the shared and binned kernels ---- */

/* Colour of pixel (px, py) given its winner's two float4 (best < 0: black). */
__device__ __forceinline__ uchar4 ks_sph_color(float px, float py, float4 g, float4 c, int hit)
{
    uchar4 o = make_uchar4(0, 0, 0, 255);
    if (hit) {
        const float scale = ks_sph_scale(g.w, ks_sph_d2(px, py, g.x, g.y), c.w);
        o.x = ks_sph_channel(c.x, scale);
        o.y = ks_sph_channel(c.y, scale);
        o.z = ks_sph_channel(c.z, scale);
    }
    return o;
}

/* Nearest wins; on equal depth the lower list index (lists here are not in order). */
__device__ __forceinline__ void ks_sph_consider(float px, float py, float4 g, int idx,
                                                float *best_depth, int *best)
{
    const float d2 = ks_sph_d2(px, py, g.x, g.y);
    if (d2 < g.w) {
        const float depth = ks_sph_depth(g.z, g.w, d2);
        if (depth > *best_depth || (depth == *best_depth && idx < *best)) {
            *best_depth = depth;
            *best = idx;
        }
    }
}

/* KS_SPH_ROWS pixels of one thread: rays, and the best sphere so far of each. */
struct ks_sph_rows {
    float px, py[KS_SPH_ROWS];
    float depth[KS_SPH_ROWS];
    int best[KS_SPH_ROWS];
};

__device__ __forceinline__ void ks_sph_rows_init(ks_sph_rows *p, int i, int j, int w, int h)
{
    p->px = ks_sph_ray(i, w);
#pragma unroll
    for (int r = 0; r < KS_SPH_ROWS; ++r) {
        p->py[r] = ks_sph_ray(j + r * (int)blockDim.y, h);
        p->depth[r] = -INFINITY;
        p->best[r] = INT_MAX;
    }
}

/* The m spheres staged in shared memory against the thread's pixels. */
__device__ __forceinline__ void ks_sph_rows_test(ks_sph_rows *p, const float4 *s_geom,
                                                 const int *s_index, int m)
{
    for (int c = 0; c < m; ++c) {
        const float4 g = s_geom[c];
        const int idx = s_index[c];
#pragma unroll
        for (int r = 0; r < KS_SPH_ROWS; ++r) ks_sph_consider(p->px, p->py[r], g, idx, &p->depth[r], &p->best[r]);
    }
}

__device__ __forceinline__ void ks_sph_rows_store(const ks_sph_rows *p, const float4 *__restrict__ spheres,
                                                  int i, int j, int w, int h, uchar4 *__restrict__ out)
{
    if (i >= w) return;
#pragma unroll
    for (int r = 0; r < KS_SPH_ROWS; ++r) {
        const int jr = j + r * (int)blockDim.y;
        if (jr >= h) return;
        const int hit = p->best[r] != INT_MAX;
        const float4 g = hit ? __ldg(spheres + 2 * p->best[r]) : make_float4(0.f, 0.f, 0.f, 0.f);
        const float4 c = hit ? __ldg(spheres + 2 * p->best[r] + 1) : make_float4(0.f, 0.f, 0.f, 1.f);
        out[(size_t)jr * w + i] = ks_sph_color(p->px, p->py[r], g, c, hit);
    }
}

/* ---- Between the files ---- */

/* One render's configuration, computed once by ks_spheres_gpu_render. */
typedef struct ks_sph_launch {
    int n, w, h;
    int tw, th;          /* shared and binned: the pixels of one block's tile */
    dim3 threads, grid;  /* one pixel a thread */
    dim3 tile_grid;      /* one tile a block */
    size_t list_smem;    /* shared and binned: the staged list */
    uchar4 *out;
} ks_sph_launch;

/* Queues one variant's kernels on g->stream; the caller checks the last launch. */
typedef ks_status (*ks_sph_launch_fn)(ks_spheres_gpu *g, const ks_sph_launch *l);

/* spheres_gpu.cu: live timing slots (-1: not tracked). */
int ks_sph_sample_begin(ks_spheres_gpu *g, ks_spheres_sample_kind kind, ks_spheres_mem m, int count);
void ks_sph_sample_end(ks_spheres_gpu *g, int slot);
ks_status ks_sph_grow_image(ks_spheres_gpu *g, size_t bytes);
/* One render for the timing below: enqueues it on g->stream. */
typedef ks_status (*ks_sph_render_fn)(ks_spheres_gpu *g, const void *ctx);
/* Renders timed by the benches' loop (ks_spheres_gpu_time's way, for ours and a user's): n spheres
 * and a w x h picture make the working set; name for the error. */
ks_status ks_sph_time_renders(ks_spheres_gpu *g, ks_sph_render_fn render, const void *ctx, const char *name,
                              int n, int w, int h, const ks_timing_opts *o, ks_timing *out);

/* spheres_render.cu: copies bytes of packed spheres into c_spheres. */
cudaError_t ks_sph_copy_constant(const void *src, size_t bytes, cudaStream_t stream);
/* spheres_render.cu: variant m's kernel launched as l says (the render's size and timing are
 * spheres_gpu.cu's). */
ks_status ks_sph_launch_variant(ks_spheres_gpu *g, ks_spheres_mem m, const struct ks_sph_launch *l);

/* spheres_binning.cu */
ks_status ks_sph_prepare_bins(ks_spheres_gpu *g, int tw, int th, int w, int h, int tiles);
ks_status ks_sph_launch_binned(ks_spheres_gpu *g, const ks_sph_launch *l);
__global__ void spheres_binned_kernel(const float4 *__restrict__ spheres,
                                      const int *__restrict__ tile_offset,
                                      const int *__restrict__ entries,
                                      const float4 *__restrict__ entry_geom, long long cap, int w,
                                      int h, uchar4 *__restrict__ out);

#endif
