/* CUDA sphere renderer, binned variant (spheres_render.cu has the rest):
 * spheres_bin_count/scan/fill_kernel build per-tile lists on the GPU (tile =
 * the pixels of one block), then spheres_binned_kernel renders each tile
 * from its own list, 4 pixels a thread. */
#include "spheres_gpu_internal.h"

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

/* Tile arrays and entry storage for this configuration; the entry count is
 * bounded on the host from the bounding squares (the GPU, culling corners,
 * writes at most that many). */
ks_status ks_sph_prepare_bins(ks_spheres_gpu *g, int tw, int th, int w, int h, int tiles)
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

ks_status ks_sph_launch_binned(ks_spheres_gpu *g, const ks_sph_launch *l)
{
    const unsigned bin_blocks = (unsigned)(((size_t)l->n * 32 + KS_SPH_BIN_THREADS - 1) / KS_SPH_BIN_THREADS);
    g->counts_dirty = 1; /* until the scan has cleared them again */
    if (l->n > 0) {
        spheres_bin_count_kernel<<<bin_blocks, KS_SPH_BIN_THREADS, 0, g->stream>>>(
            g->d_spheres, l->n, l->w, l->h, l->tw, l->th, (int)l->tile_grid.x, g->d_tile_count);
        KS_CUDA_TRY_LAUNCH("spheres_bin_count_kernel");
    }
    spheres_bin_scan_kernel<<<1, KS_SPH_SCAN_THREADS, 0, g->stream>>>(
        g->d_tile_count, g->d_tile_offset, g->d_tile_cursor, g->tiles_cap / KS_SPH_SCAN_CHUNK);
    KS_CUDA_TRY_LAUNCH("spheres_bin_scan_kernel");
    g->counts_dirty = 0;
    if (l->n > 0) {
        spheres_bin_fill_kernel<<<bin_blocks, KS_SPH_BIN_THREADS, 0, g->stream>>>(
            g->d_spheres, l->n, l->w, l->h, l->tw, l->th, (int)l->tile_grid.x, g->d_tile_cursor, g->d_entries,
            g->d_entry_geom, g->entries_cap);
        KS_CUDA_TRY_LAUNCH("spheres_bin_fill_kernel");
    }
    spheres_binned_kernel<<<l->tile_grid, l->threads, l->list_smem, g->stream>>>(
        g->d_spheres, g->d_tile_offset, g->d_entries, g->d_entry_geom, g->entries_cap, l->w, l->h, l->out);
    return KS_OK;
}
