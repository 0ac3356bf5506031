/* CUDA sphere renderer: five memory variants of one ray cast (spheres.h).
 *
 * Spheres travel as two float4 each: (x, y, z, r2) then (red, green, blue,
 * radius), so the hot loop reads 16 bytes per sphere and colour only for
 * the winner. Every kernel shades with spheres_shade.h, like the CPU gold.
 *
 *  global   spheres_global_kernel       plain loads from a device array, one pixel a thread
 *  readonly spheres_readonly_kernel     const __restrict__ + __ldg (read-only data cache)
 *  constant spheres_constant_kernel     c_spheres in __constant__ memory
 *  shared   spheres_shared_cull_kernel  tiles of blockDim spheres staged in shared memory;
 *                                       while staging, each block keeps only those whose
 *                                       bounding square touches its pixels; 4 pixels a thread
 *  binned   spheres_bin_count/scan/fill_kernel build per-tile lists on the GPU (tile = the
 *           spheres_binned_kernel       pixels of one block), then each block renders its
 *                                       tile from its own list, 4 pixels a thread
 * The first three are the Sheffield lab's kernels and differ only in where the
 * spheres live; shared and binned change the algorithm's work as well.
 */
#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ks_util.h"
#include "kernels/common/cuda_check.h"
#include "spheres.h"
#include "spheres_shade.h"

/* [2k] = x, y, z, r2; [2k+1] = red, green, blue, radius. Exactly 64 KiB. */
__constant__ float4 c_spheres[2 * KS_SPHERES_CONST_MAX];

/* One process has one c_spheres: the renderer that wrote it last owns it. */
static const ks_spheres_gpu *ks_const_owner;

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
};

/* ---- Kernels ---- */

struct ks_load_global {
    const float4 *p;
    __device__ __forceinline__ float4 operator()(int k) const { return p[k]; }
};
struct ks_load_readonly {
    const float4 *__restrict__ p;
    __device__ __forceinline__ float4 operator()(int k) const { return __ldg(p + k); }
};
struct ks_load_constant {
    __device__ __forceinline__ float4 operator()(int k) const { return c_spheres[k]; }
};

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

/* Brute force in list order: strict > keeps the first sphere on equal depth. */
template <class Load>
__device__ __forceinline__ void ks_sph_brute(Load load, int n, int w, int h, uchar4 *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= w || j >= h) return;
    const float px = ks_sph_ray(i, w), py = ks_sph_ray(j, h);
    float best_depth = -INFINITY;
    int best = -1;
    for (int k = 0; k < n; ++k) {
        const float4 g = load(2 * k);
        const float d2 = ks_sph_d2(px, py, g.x, g.y);
        if (d2 < g.w) {
            const float depth = ks_sph_depth(g.z, g.w, d2);
            if (depth > best_depth) {
                best_depth = depth;
                best = k;
            }
        }
    }
    const int hit = best >= 0;
    const float4 g = hit ? load(2 * best) : make_float4(0.f, 0.f, 0.f, 0.f);
    const float4 c = hit ? load(2 * best + 1) : make_float4(0.f, 0.f, 0.f, 1.f);
    out[(size_t)j * w + i] = ks_sph_color(px, py, g, c, hit);
}

__global__ void spheres_global_kernel(const float4 *spheres, int n, int w, int h, uchar4 *out)
{
    ks_load_global load = {spheres};
    ks_sph_brute(load, n, w, h, out);
}

__global__ void spheres_readonly_kernel(const float4 *__restrict__ spheres, int n, int w, int h,
                                        uchar4 *__restrict__ out)
{
    ks_load_readonly load = {spheres};
    ks_sph_brute(load, n, w, h, out);
}

__global__ void spheres_constant_kernel(int n, int w, int h, uchar4 *out)
{
    ks_load_constant load;
    ks_sph_brute(load, n, w, h, out);
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

__global__ void spheres_shared_cull_kernel(const float4 *__restrict__ spheres, int n, int w, int h,
                                           uchar4 *__restrict__ out)
{
    extern __shared__ float4 s_geom[]; /* T spheres' (x, y, z, r2), then T list indices */
    __shared__ int s_count;
    const int T = blockDim.x * blockDim.y;
    int *s_index = (int *)(s_geom + T);
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int i0 = blockIdx.x * blockDim.x, j0 = blockIdx.y * blockDim.y * KS_SPH_ROWS;
    const int i1 = min(i0 + (int)blockDim.x, w) - 1;
    const int j1 = min(j0 + (int)blockDim.y * KS_SPH_ROWS, h) - 1;
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    ks_sph_rows p;
    ks_sph_rows_init(&p, i, j, w, h);
    for (int base = 0; base < n; base += T) {
        if (tid == 0) s_count = 0;
        __syncthreads();
        const int k = base + tid;
        if (k < n) { /* stage the spheres whose bounding square touches this block's pixels */
            const float4 g = __ldg(spheres + 2 * k);
            const float r = __ldg(&spheres[2 * k + 1].w);
            int lo, hi, lo2, hi2;
            ks_sph_span(g.x, r, w, &lo, &hi);
            ks_sph_span(g.y, r, h, &lo2, &hi2);
            if (lo <= i1 && hi >= i0 && lo2 <= j1 && hi2 >= j0) {
                const int slot = atomicAdd(&s_count, 1);
                s_geom[slot] = g;
                s_index[slot] = k;
            }
        }
        __syncthreads();
        ks_sph_rows_test(&p, s_geom, s_index, s_count);
        __syncthreads(); /* the next tile of spheres overwrites the list */
    }
    ks_sph_rows_store(&p, spheres, i, j, w, h, out);
}

/* Tiles (tx0..tx1, ty0..ty1) of tw x th pixels the sphere's bounding square
 * touches; 0 when none. Host and device compute the same (spheres_shade.h). */
KS_SPH_FN int ks_sph_tile_rect(float x, float y, float r, int w, int h, int tw, int th, int t[4])
{
    int lo, hi, lo2, hi2;
    ks_sph_span(x, r, w, &lo, &hi);
    ks_sph_span(y, r, h, &lo2, &hi2);
    if (lo > hi || lo2 > hi2) return 0;
    t[0] = lo / tw;
    t[1] = hi / tw;
    t[2] = lo2 / th;
    t[3] = hi2 / th;
    return 1;
}

/* Does the circle (with a pixel of margin) reach tile (tx, ty)? Same answer in
 * the count and the fill pass: one function, single-rounding operations. */
__device__ __forceinline__ int ks_sph_tile_touch(float x, float y, float r, int tx, int ty, int w,
                                                 int h, int tw, int th)
{
    const float ax = ks_sph_ray(tx * tw, w), bxr = ks_sph_ray(min((tx + 1) * tw, w) - 1, w);
    const float ay = ks_sph_ray(ty * th, h), byr = ks_sph_ray(min((ty + 1) * th, h) - 1, h);
    const float cx = fminf(fmaxf(x, ax), bxr), cy = fminf(fmaxf(y, ay), byr);
    const float rr = KS_SPH_ADD(r, 1.0f);
    return ks_sph_d2(cx, cy, x, y) < KS_SPH_MUL(rr, rr);
}

/* One warp per sphere, lanes over its tiles. Fill == 0: count; 1: write entries. */
template <int Fill>
__device__ __forceinline__ void ks_sph_bin(const float4 *__restrict__ spheres, int n, int w, int h,
                                           int tw, int th, int tiles_x, int *tile_count,
                                           int *tile_cursor, int *entries, float4 *entry_geom,
                                           long long cap)
{
    const int k = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5);
    const int lane = threadIdx.x & 31;
    if (k >= n) return;
    const float4 g = __ldg(spheres + 2 * k);
    const float r = __ldg(&spheres[2 * k + 1].w);
    int t[4];
    if (!ks_sph_tile_rect(g.x, g.y, r, w, h, tw, th, t)) return;
    const int ntx = t[1] - t[0] + 1, cells = ntx * (t[3] - t[2] + 1);
    for (int q = lane; q < cells; q += 32) {
        const int tx = t[0] + q % ntx, ty = t[2] + q / ntx;
        if (!ks_sph_tile_touch(g.x, g.y, r, tx, ty, w, h, tw, th)) continue;
        const int tile = ty * tiles_x + tx;
        if (Fill) {
            const int pos = atomicAdd(&tile_cursor[tile], 1);
            if (pos < cap) {
                entries[pos] = k;
                entry_geom[pos] = g;
            }
        } else {
            atomicAdd(&tile_count[tile], 1);
        }
    }
}

__global__ void spheres_bin_count_kernel(const float4 *__restrict__ spheres, int n, int w, int h,
                                         int tw, int th, int tiles_x, int *tile_count)
{
    ks_sph_bin<0>(spheres, n, w, h, tw, th, tiles_x, tile_count, NULL, NULL, NULL, 0);
}

__global__ void spheres_bin_fill_kernel(const float4 *__restrict__ spheres, int n, int w, int h,
                                        int tw, int th, int tiles_x, int *tile_cursor, int *entries,
                                        float4 *entry_geom, long long cap)
{
    ks_sph_bin<1>(spheres, n, w, h, tw, th, tiles_x, NULL, tile_cursor, entries, entry_geom, cap);
}

/* Exclusive scan of the tile counts into offsets and cursors by one block of
 * 1024 threads, 16 counts a thread (four int4 loads in flight at once) per
 * chunk; clears the counts for the next frame. The arrays hold whole chunks
 * and counts past the last tile are 0, so offset[tiles] is the total. */
__global__ void __launch_bounds__(KS_SPH_SCAN_THREADS)
spheres_bin_scan_kernel(int *tile_count, int *tile_offset, int *tile_cursor, int chunks)
{
    __shared__ int s_warp[32];
    __shared__ int s_carry;
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    if (t == 0) s_carry = 0;
    __syncthreads();
    for (int chunk = 0; chunk < chunks; ++chunk) {
        const size_t at = (size_t)chunk * KS_SPH_SCAN_CHUNK + (size_t)t * KS_SPH_SCAN_PER;
        int4 *c4 = (int4 *)(tile_count + at);
        int v[KS_SPH_SCAN_PER];
#pragma unroll
        for (int q = 0; q < KS_SPH_SCAN_PER / 4; ++q) {
            const int4 x = c4[q];
            v[4 * q] = x.x;
            v[4 * q + 1] = x.y;
            v[4 * q + 2] = x.z;
            v[4 * q + 3] = x.w;
        }
        int sum = 0;
#pragma unroll
        for (int q = 0; q < KS_SPH_SCAN_PER; ++q) {
            const int c = v[q];
            v[q] = sum; /* exclusive within the thread */
            sum += c;
        }
        int x = sum; /* inclusive scan of the thread sums across the warp */
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const int y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o) x += y;
        }
        if (lane == 31) s_warp[wid] = x;
        __syncthreads();
        if (wid == 0) {
            int s = s_warp[lane];
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, s, o);
                if (lane >= o) s += y;
            }
            s_warp[lane] = s;
        }
        __syncthreads();
        const int base = s_carry + (wid ? s_warp[wid - 1] : 0) + x - sum;
        int4 *o4 = (int4 *)(tile_offset + at), *u4 = (int4 *)(tile_cursor + at);
#pragma unroll
        for (int q = 0; q < KS_SPH_SCAN_PER / 4; ++q) {
            const int4 y = make_int4(base + v[4 * q], base + v[4 * q + 1], base + v[4 * q + 2], base + v[4 * q + 3]);
            o4[q] = y;
            u4[q] = y;
            c4[q] = make_int4(0, 0, 0, 0);
        }
        __syncthreads(); /* every thread has read s_carry and s_warp */
        if (t == KS_SPH_SCAN_THREADS - 1) s_carry = base + sum;
        __syncthreads();
    }
}

/* One block per tile (bx x by*KS_SPH_ROWS pixels): its list staged through
 * shared memory blockDim spheres at a time. */
__global__ void spheres_binned_kernel(const float4 *__restrict__ spheres,
                                      const int *__restrict__ tile_offset,
                                      const int *__restrict__ entries,
                                      const float4 *__restrict__ entry_geom, long long cap, int w,
                                      int h, uchar4 *__restrict__ out)
{
    extern __shared__ float4 s_geom[];
    const int T = blockDim.x * blockDim.y;
    int *s_index = (int *)(s_geom + T);
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int tile = blockIdx.y * gridDim.x + blockIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y * KS_SPH_ROWS + threadIdx.y;
    const long long begin = tile_offset[tile];
    const long long end = min((long long)tile_offset[tile + 1], cap);
    ks_sph_rows p;
    ks_sph_rows_init(&p, i, j, w, h);
    for (long long base = begin; base < end; base += T) {
        const long long e = base + tid;
        if (e < end) {
            s_geom[tid] = entry_geom[e];
            s_index[tid] = entries[e];
        }
        __syncthreads();
        ks_sph_rows_test(&p, s_geom, s_index, (int)min((long long)T, end - base));
        __syncthreads();
    }
    ks_sph_rows_store(&p, spheres, i, j, w, h, out);
}

/* ---- Host side ---- */

extern "C" int ks_spheres_gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* "no driver" is an answer here, not an error to keep */
        return 0;
    }
    return n;
}

extern "C" ks_status ks_spheres_gpu_device_name(char *buf, size_t len)
{
    int dev = 0;
    cudaDeviceProp p;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaGetDeviceProperties(&p, dev));
    if (len) {
        strncpy(buf, p.name, len - 1);
        buf[len - 1] = '\0';
    }
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_create(ks_spheres_gpu **out)
{
    *out = NULL;
    ks_spheres_gpu *g = (ks_spheres_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: out of host memory");
    g->n_global = g->n_const = -1;
    g->bound = -1;
    ks_status st = KS_OK;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&g->max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g->stage_done, cudaEventDisableTiming);
    if (e != cudaSuccess) {
        st = ks_fail(KS_ERR_CUDA, "spheres: creating the renderer failed: %s", cudaGetErrorString(e));
        ks_spheres_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void ks_spheres_gpu_destroy(ks_spheres_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    if (ks_const_owner == g) ks_const_owner = NULL;
    if (g->ring_ready)
        for (int k = 0; k < KS_SPH_RING; ++k) {
            cudaEventDestroy(g->ring[k].start);
            cudaEventDestroy(g->ring[k].stop);
        }
    cudaFree(g->d_spheres);
    cudaFree(g->d_tile_count);
    cudaFree(g->d_tile_offset);
    cudaFree(g->d_tile_cursor);
    cudaFree(g->d_entries);
    cudaFree(g->d_entry_geom);
    cudaFree(g->d_image);
    cudaFreeHost(g->h_stage);
    free(g->h_global);
    if (g->stage_done) cudaEventDestroy(g->stage_done);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

extern "C" void *ks_spheres_gpu_stream(ks_spheres_gpu *g) { return (void *)g->stream; }

/* Live timing: a sample slot opened before the work and closed after it. */
static int ks_sph_sample_begin(ks_spheres_gpu *g, ks_spheres_sample_kind kind, ks_spheres_mem m,
                               int count)
{
    if (!g->track || !g->ring_ready || g->ring_used == KS_SPH_RING) return -1; /* full: drop */
    const int slot = (g->ring_head + g->ring_used) % KS_SPH_RING;
    if (cudaEventRecord(g->ring[slot].start, g->stream) != cudaSuccess) return -1;
    g->ring[slot].sample.kind = kind;
    g->ring[slot].sample.mem = m;
    g->ring[slot].sample.count = count;
    g->ring[slot].sample.ms = 0.0;
    return slot;
}

static void ks_sph_sample_end(ks_spheres_gpu *g, int slot)
{
    if (slot < 0) return;
    if (cudaEventRecord(g->ring[slot].stop, g->stream) == cudaSuccess) ++g->ring_used;
}

extern "C" void ks_spheres_gpu_track(ks_spheres_gpu *g, int on)
{
    if (on && !g->ring_ready) {
        int made = 0;
        for (; made < KS_SPH_RING; ++made) {
            if (cudaEventCreate(&g->ring[made].start) != cudaSuccess) break;
            if (cudaEventCreate(&g->ring[made].stop) != cudaSuccess) {
                cudaEventDestroy(g->ring[made].start);
                break;
            }
        }
        if (made < KS_SPH_RING) { /* timing is optional: go without it */
            for (int k = 0; k < made; ++k) {
                cudaEventDestroy(g->ring[k].start);
                cudaEventDestroy(g->ring[k].stop);
            }
            (void)cudaGetLastError();
            return;
        }
        g->ring_ready = 1;
    }
    g->track = on;
}

extern "C" int ks_spheres_gpu_collect(ks_spheres_gpu *g, ks_spheres_sample *out, int max)
{
    int got = 0;
    while (got < max && g->ring_used > 0) {
        ks_sph_slot *s = &g->ring[g->ring_head];
        const cudaError_t e = cudaEventQuery(s->stop);
        if (e == cudaErrorNotReady) break;
        float ms = -1.0f;
        if (e == cudaSuccess && cudaEventElapsedTime(&ms, s->start, s->stop) == cudaSuccess) {
            out[got] = s->sample;
            out[got].ms = ms;
            ++got;
        }
        g->ring_head = (g->ring_head + 1) % KS_SPH_RING;
        --g->ring_used;
    }
    return got;
}

static ks_status ks_sph_grow_stage(ks_spheres_gpu *g, int count)
{
    if (count <= g->stage_cap) return KS_OK;
    KS_CUDA_TRY(cudaEventSynchronize(g->stage_done));
    KS_CUDA_TRY(cudaFreeHost(g->h_stage));
    g->h_stage = NULL;
    g->stage_cap = 0;
    free(g->h_global);
    g->h_global = NULL;
    const size_t bytes = (size_t)count * sizeof(ks_sphere_packed);
    KS_CUDA_TRY(cudaMallocHost((void **)&g->h_stage, bytes));
    g->h_global = (ks_sphere_packed *)malloc(bytes);
    if (!g->h_global) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: no host memory for %d spheres", count);
    g->stage_cap = count;
    g->n_global = -1; /* the host copy is gone */
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_upload(ks_spheres_gpu *g, ks_spheres_mem m,
                                           const ks_sphere_packed *s, int count)
{
    m = ks_spheres_mem_resolve(m);
    KS_TRY(ks_spheres_mem_check(m, count));
    KS_TRY(ks_sph_grow_stage(g, count > 0 ? count : 1));
    KS_CUDA_TRY(cudaEventSynchronize(g->stage_done)); /* the previous copy has left h_stage */
    const size_t bytes = (size_t)count * sizeof(ks_sphere_packed);
    if (count) memcpy(g->h_stage, s, bytes);
    if (m != KS_SPHERES_MEM_CONSTANT && count > g->device_cap) {
        KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
        KS_CUDA_TRY(cudaFree(g->d_spheres));
        g->d_spheres = NULL;
        g->device_cap = 0;
        g->n_global = -1;
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_spheres, bytes));
        g->device_cap = count;
    }
    const int slot = ks_sph_sample_begin(g, KS_SPHERES_SAMPLE_UPLOAD, m, count);
    cudaError_t e = cudaSuccess;
    if (count && m == KS_SPHERES_MEM_CONSTANT)
        e = cudaMemcpyToSymbolAsync(c_spheres, g->h_stage, bytes, 0, cudaMemcpyHostToDevice, g->stream);
    else if (count)
        e = cudaMemcpyAsync(g->d_spheres, g->h_stage, bytes, cudaMemcpyHostToDevice, g->stream);
    ks_sph_sample_end(g, slot);
    KS_CUDA_TRY(e);
    KS_CUDA_TRY(cudaEventRecord(g->stage_done, g->stream));
    if (m == KS_SPHERES_MEM_CONSTANT) {
        g->n_const = count;
        ks_const_owner = g;
    } else {
        if (count) memcpy(g->h_global, s, bytes);
        g->n_global = count;
        g->bound = -1;
    }
    return KS_OK;
}

static ks_status ks_sph_grow_image(ks_spheres_gpu *g, size_t bytes)
{
    if (bytes <= g->image_cap) return KS_OK;
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    KS_CUDA_TRY(cudaFree(g->d_image));
    g->d_image = NULL;
    g->image_cap = 0;
    KS_CUDA_TRY(cudaMalloc((void **)&g->d_image, bytes));
    g->image_cap = bytes;
    return KS_OK;
}

/* Tile arrays and entry storage for this configuration; the entry count is
 * bounded on the host from the bounding squares (the GPU, culling corners,
 * writes at most that many). */
static ks_status ks_sph_prepare_bins(ks_spheres_gpu *g, int tw, int th, int w, int h, int tiles)
{
    const int chunks = (tiles + 1 + KS_SPH_SCAN_CHUNK - 1) / KS_SPH_SCAN_CHUNK;
    const int padded = chunks * KS_SPH_SCAN_CHUNK;
    if (padded > g->tiles_cap) {
        KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
        cudaFree(g->d_tile_count);
        cudaFree(g->d_tile_offset);
        cudaFree(g->d_tile_cursor);
        g->d_tile_count = g->d_tile_offset = g->d_tile_cursor = NULL;
        g->tiles_cap = 0;
        const size_t bytes = (size_t)padded * sizeof(int);
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_tile_count, bytes));
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_tile_offset, bytes));
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_tile_cursor, bytes));
        g->tiles_cap = padded;
        g->counts_dirty = 1;
    }
    if (g->counts_dirty) {
        KS_CUDA_TRY(cudaMemsetAsync(g->d_tile_count, 0, (size_t)g->tiles_cap * sizeof(int), g->stream));
        g->counts_dirty = 0;
    }
    const int key[4] = {tw, th, w, h};
    if (g->bound < 0 || memcmp(key, g->bound_key, sizeof key) != 0) {
        long long bound = 0;
        for (int k = 0; k < g->n_global; ++k) {
            const ks_sphere_packed *s = &g->h_global[k];
            int t[4];
            if (ks_sph_tile_rect(s->x, s->y, s->radius, w, h, tw, th, t))
                bound += (long long)(t[1] - t[0] + 1) * (t[3] - t[2] + 1);
        }
        if (bound > INT_MAX)
            return ks_fail(KS_ERR_UNSUPPORTED, "binned: %lld tile entries exceed the 32-bit offsets; use larger blocks", bound);
        g->bound = bound;
        memcpy(g->bound_key, key, sizeof key);
    }
    if (g->bound > g->entries_cap) {
        KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
        KS_CUDA_TRY(cudaFree(g->d_entries));
        KS_CUDA_TRY(cudaFree(g->d_entry_geom));
        g->d_entries = NULL;
        g->d_entry_geom = NULL;
        g->entries_cap = 0;
        const long long cap = g->bound + g->bound / 4 + 1024; /* room for drift while animating */
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_entries, (size_t)cap * sizeof(int)));
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_entry_geom, (size_t)cap * sizeof(float4)));
        g->entries_cap = cap;
    }
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_render(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2],
                                           int w, int h, void *dst)
{
    m = ks_spheres_mem_resolve(m);
    KS_TRY(ks_spheres_block_check(block));
    if (w < 1 || h < 1 || w > 32768 || h > 32768)
        return ks_fail(KS_ERR_INVALID, "spheres: image %dx%d must be 1..32768 on each side", w, h);
    const int n = m == KS_SPHERES_MEM_CONSTANT ? g->n_const : g->n_global;
    if (n < 0)
        return ks_fail(KS_ERR_INVALID, "spheres: nothing uploaded for the %s variant", ks_spheres_mem_name(m));
    if (m == KS_SPHERES_MEM_CONSTANT && ks_const_owner != g)
        return ks_fail(KS_ERR_INVALID, "spheres: constant memory was overwritten by another renderer; upload again");
    if (!dst) {
        KS_TRY(ks_sph_grow_image(g, (size_t)w * h * 4));
        dst = g->d_image;
    }
    uchar4 *out = (uchar4 *)dst;
    const dim3 threads((unsigned)block[0], (unsigned)block[1]);
    const dim3 grid((unsigned)((w + block[0] - 1) / block[0]), (unsigned)((h + block[1] - 1) / block[1]));
    /* shared and binned: each thread shades KS_SPH_ROWS pixels, so a block covers a taller tile */
    const int tw = block[0], th = block[1] * KS_SPH_ROWS;
    const dim3 tile_grid((unsigned)((w + tw - 1) / tw), (unsigned)((h + th - 1) / th));
    const int T = block[0] * block[1];
    const size_t list_smem = (size_t)T * (sizeof(float4) + sizeof(int));
    const int tiles = (int)(tile_grid.x * tile_grid.y);
    if (m == KS_SPHERES_MEM_BINNED) KS_TRY(ks_sph_prepare_bins(g, tw, th, w, h, tiles));

    const int slot = ks_sph_sample_begin(g, KS_SPHERES_SAMPLE_RENDER, m, n);
    switch (m) {
    case KS_SPHERES_MEM_READONLY:
        spheres_readonly_kernel<<<grid, threads, 0, g->stream>>>(g->d_spheres, n, w, h, out);
        break;
    case KS_SPHERES_MEM_CONSTANT:
        spheres_constant_kernel<<<grid, threads, 0, g->stream>>>(n, w, h, out);
        break;
    case KS_SPHERES_MEM_SHARED:
        spheres_shared_cull_kernel<<<tile_grid, threads, list_smem, g->stream>>>(g->d_spheres, n, w, h, out);
        break;
    case KS_SPHERES_MEM_BINNED: {
        const unsigned bin_blocks = (unsigned)(((size_t)n * 32 + KS_SPH_BIN_THREADS - 1) / KS_SPH_BIN_THREADS);
        g->counts_dirty = 1; /* until the scan has cleared them again */
        if (n > 0) {
            spheres_bin_count_kernel<<<bin_blocks, KS_SPH_BIN_THREADS, 0, g->stream>>>(
                g->d_spheres, n, w, h, tw, th, (int)tile_grid.x, g->d_tile_count);
            KS_CUDA_TRY_LAUNCH("spheres_bin_count_kernel");
        }
        spheres_bin_scan_kernel<<<1, KS_SPH_SCAN_THREADS, 0, g->stream>>>(
            g->d_tile_count, g->d_tile_offset, g->d_tile_cursor, g->tiles_cap / KS_SPH_SCAN_CHUNK);
        KS_CUDA_TRY_LAUNCH("spheres_bin_scan_kernel");
        g->counts_dirty = 0;
        if (n > 0) {
            spheres_bin_fill_kernel<<<bin_blocks, KS_SPH_BIN_THREADS, 0, g->stream>>>(
                g->d_spheres, n, w, h, tw, th, (int)tile_grid.x, g->d_tile_cursor, g->d_entries,
                g->d_entry_geom, g->entries_cap);
            KS_CUDA_TRY_LAUNCH("spheres_bin_fill_kernel");
        }
        spheres_binned_kernel<<<tile_grid, threads, list_smem, g->stream>>>(
            g->d_spheres, g->d_tile_offset, g->d_entries, g->d_entry_geom, g->entries_cap, w, h, out);
        break;
    }
    default:
        spheres_global_kernel<<<grid, threads, 0, g->stream>>>(g->d_spheres, n, w, h, out);
        break;
    }
    ks_sph_sample_end(g, slot);
    KS_CUDA_TRY_LAUNCH(ks_spheres_mem_kernel(m));
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_poison(ks_spheres_gpu *g, int w, int h, unsigned char byte)
{
    const size_t bytes = (size_t)w * h * 4;
    KS_TRY(ks_sph_grow_image(g, bytes));
    KS_CUDA_TRY(cudaMemsetAsync(g->d_image, byte, bytes, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_download(ks_spheres_gpu *g, int w, int h, unsigned char *rgba)
{
    const size_t bytes = (size_t)w * h * 4;
    if (bytes > g->image_cap) return ks_fail(KS_ERR_INVALID, "spheres: no %dx%d image to download", w, h);
    KS_CUDA_TRY(cudaMemcpyAsync(rgba, g->d_image, bytes, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_kernel_attrs(ks_spheres_gpu *g, ks_spheres_mem m,
                                                 const int block[2], ks_kernel_attrs *out)
{
    memset(out, 0, sizeof *out);
    m = ks_spheres_mem_resolve(m);
    KS_TRY(ks_spheres_block_check(block));
    const int T = block[0] * block[1];
    size_t dyn = 0;
    const void *fn = (const void *)spheres_global_kernel;
    switch (m) {
    case KS_SPHERES_MEM_READONLY: fn = (const void *)spheres_readonly_kernel; break;
    case KS_SPHERES_MEM_CONSTANT: fn = (const void *)spheres_constant_kernel; break;
    case KS_SPHERES_MEM_SHARED:
        fn = (const void *)spheres_shared_cull_kernel;
        dyn = (size_t)T * (sizeof(float4) + sizeof(int));
        break;
    case KS_SPHERES_MEM_BINNED:
        fn = (const void *)spheres_binned_kernel;
        dyn = (size_t)T * (sizeof(float4) + sizeof(int));
        break;
    default: break;
    }
    return ks_cuda_kernel_attrs(fn, T, dyn, g->max_threads_sm, out);
}

/* Holds the stream for ns nanoseconds (the device's global timer), so the
 * timed launches queued behind it start back to back: the host's launch
 * overhead (several launches for binned) is not counted, as in the live
 * loop, where it overlaps the previous frame. */
__global__ void spheres_wait_kernel(long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}

extern "C" ks_status ks_spheres_gpu_time(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2],
                                         int w, int h, int warmup, int reps, double *median_ms,
                                         double *min_ms)
{
    if (reps < 1) reps = 1;
    const int track = g->track;
    g->track = 0;
    ks_status st = KS_OK;
    double *ms = (double *)malloc((size_t)reps * sizeof *ms);
    cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)reps * 2, sizeof *ev);
    if (!ms || !ev) {
        free(ms);
        free(ev);
        g->track = track;
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: out of host memory");
    }
    cudaError_t e = cudaSuccess;
    int made = 0;
    for (; made < 2 * reps && e == cudaSuccess; ++made) e = cudaEventCreate(&ev[made]);
    if (e != cudaSuccess) --made;
    for (int k = 0; e == cudaSuccess && st == KS_OK && k < warmup; ++k)
        st = ks_spheres_gpu_render(g, m, block, w, h, NULL);
    if (e == cudaSuccess && st == KS_OK) e = cudaStreamSynchronize(g->stream);
    if (e == cudaSuccess && st == KS_OK) {
        /* enough head start for the host to queue every rep (a few us each) */
        const long long wait_ns = 1000000LL + 50000LL * reps;
        spheres_wait_kernel<<<1, 1, 0, g->stream>>>(wait_ns < 50000000LL ? wait_ns : 50000000LL);
        e = cudaPeekAtLastError();
    }
    for (int k = 0; e == cudaSuccess && st == KS_OK && k < reps; ++k) {
        e = cudaEventRecord(ev[2 * k], g->stream);
        if (e != cudaSuccess) break;
        st = ks_spheres_gpu_render(g, m, block, w, h, NULL);
        if (st == KS_OK) e = cudaEventRecord(ev[2 * k + 1], g->stream);
    }
    const cudaError_t sync = cudaStreamSynchronize(g->stream);
    if (e == cudaSuccess) e = sync;
    for (int k = 0; e == cudaSuccess && st == KS_OK && k < reps; ++k) {
        float f = 0.0f;
        e = cudaEventElapsedTime(&f, ev[2 * k], ev[2 * k + 1]);
        ms[k] = f;
    }
    if (st == KS_OK && e != cudaSuccess)
        st = ks_fail(KS_ERR_CUDA, "spheres: timing %s failed: %s", ks_spheres_mem_name(m), cudaGetErrorString(e));
    if (st == KS_OK) {
        qsort(ms, (size_t)reps, sizeof *ms, ks_cmp_double);
        *median_ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        *min_ms = ms[0];
    }
    for (int k = 0; k < made; ++k) cudaEventDestroy(ev[k]);
    free(ev);
    free(ms);
    g->track = track;
    return st;
}
