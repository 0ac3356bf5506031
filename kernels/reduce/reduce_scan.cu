/* Reduce: the scan kernels (scan_blocks, scan_shuffle, scan_lookback) and their
 * launches. reduce_gpu_internal.h says how they read and write. */
#include "reduce_gpu_internal.h"

/* ---- scans ---- */

/* Loads the warp's segment at seg (lane: float4 number q*32 + lane, q = 0..3). */
template <bool FULL>
__device__ __forceinline__ void ks_rd_seg_load(const float *__restrict__ x, long long seg, long long n, int lane,
                                               float4 v[4])
{
    if (FULL) {
        const float4 *p = reinterpret_cast<const float4 *>(x + seg) + lane;
#pragma unroll
        for (int q = 0; q < 4; ++q) v[q] = __ldcs(p + q * 32); /* read once: evict first */
    } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const long long b = seg + (long long)(q * 32 + lane) * 4;
            v[q].x = b < n ? x[b] : 0.0f;
            v[q].y = b + 1 < n ? x[b + 1] : 0.0f;
            v[q].z = b + 2 < n ? x[b + 2] : 0.0f;
            v[q].w = b + 3 < n ? x[b + 3] : 0.0f;
        }
    }
}

template <bool FULL>
__device__ __forceinline__ void ks_rd_seg_store(float *__restrict__ y, long long seg, long long n, int lane,
                                                const float4 v[4])
{
    if (FULL) {
        float4 *p = reinterpret_cast<float4 *>(y + seg) + lane;
#pragma unroll
        for (int q = 0; q < 4; ++q) __stcs(p + q * 32, v[q]);
    } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const long long b = seg + (long long)(q * 32 + lane) * 4;
            if (b < n) y[b] = v[q].x;
            if (b + 1 < n) y[b + 1] = v[q].y;
            if (b + 2 < n) y[b + 2] = v[q].z;
            if (b + 3 < n) y[b + 3] = v[q].w;
        }
    }
}

/* Inclusive warp scan (Hillis-Steele over lanes with __shfl_up_sync). */
__device__ __forceinline__ float ks_rd_warp_incl(float v, int lane)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const float u = __shfl_up_sync(KS_RD_FULL, v, o);
        if (lane >= o) v += u;
    }
    return v;
}

/* Scans the warp's segment in place (inclusive, from 0); returns its total.
 * Row q: each lane scans its 4 values, the warp scans the lane totals, and the
 * rows before it are carried in. */
__device__ __forceinline__ float ks_rd_seg_scan(float4 v[4], int lane)
{
    float carry = 0.0f;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        v[q].y += v[q].x;
        v[q].z += v[q].y;
        v[q].w += v[q].z;
        const float incl = ks_rd_warp_incl(v[q].w, lane);
        float excl = __shfl_up_sync(KS_RD_FULL, incl, 1);
        if (lane == 0) excl = 0.0f;
        const float add = carry + excl;
        v[q].x += add;
        v[q].y += add;
        v[q].z += add;
        v[q].w += add;
        carry += __shfl_sync(KS_RD_FULL, incl, 31);
    }
    return carry;
}

__device__ __forceinline__ void ks_rd_seg_add(float4 v[4], float a)
{
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        v[q].x += a;
        v[q].y += a;
        v[q].z += a;
        v[q].w += a;
    }
}

/* Exclusive scan of the block's warp totals in shared memory (warp_tot[w] in,
 * warp_pre[w] out, *total the block's sum). Caller syncs before and after. */
__device__ __forceinline__ void ks_rd_warp_totals_scan(const float *warp_tot, float *warp_pre, float *total)
{
    const int lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    if (threadIdx.x < 32) {
        const float w = lane < nw ? warp_tot[lane] : 0.0f;
        const float incl = ks_rd_warp_incl(w, lane);
        const float excl = __shfl_up_sync(KS_RD_FULL, incl, 1);
        if (lane < nw) warp_pre[lane] = lane == 0 ? 0.0f : excl;
        if (lane == nw - 1) *total = incl;
    }
}

/* scan_blocks, phase 1: each block scans blockDim consecutive values in shared
 * memory (Hillis-Steele, two __syncthreads per step) and writes its total. In place is fine. */
__global__ void ks_rd_scan_local_kernel(const float *in, float *out, long long n, float *sums)
{
    extern __shared__ float s_scan[];
    const unsigned t = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + t;
    float v = i < n ? in[i] : 0.0f;
    s_scan[t] = v;
    __syncthreads();
    for (unsigned o = 1; o < blockDim.x; o <<= 1) {
        const float u = t >= o ? s_scan[t - o] : 0.0f;
        __syncthreads();
        v += u;
        s_scan[t] = v;
        __syncthreads();
    }
    if (i < n) out[i] = v;
    if (t == blockDim.x - 1) sums[blockIdx.x] = v;
}

/* scan_blocks, phase 3: block b > 0 adds the inclusive scan of the block sums up to b - 1. */
__global__ void ks_rd_scan_add_kernel(float *y, long long n, const float *scanned_sums)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n) y[i] += scanned_sums[blockIdx.x - 1];
}

/* scan_shuffle, pass 1: one tile (16 values a thread) per block, its total. */
__global__ void ks_rd_tile_sum_kernel(const float *__restrict__ x, long long n, float *tile_sums)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile = (long long)blockIdx.x * blockDim.x * 16;
    const long long seg = tile + (long long)warp * KS_RD_SEG;
    float4 v[4];
    if (tile + (long long)blockDim.x * 16 <= n) ks_rd_seg_load<true>(x, seg, n, lane, v);
    else ks_rd_seg_load<false>(x, seg, n, lane, v);
    float a = (ks_rd_add4(v[0]) + ks_rd_add4(v[1])) + (ks_rd_add4(v[2]) + ks_rd_add4(v[3]));
    a = ks_rd_block_sum_shuffle(a);
    if (threadIdx.x == 0) tile_sums[blockIdx.x] = a;
}

/* scan_shuffle, pass 2: one block of 1024 turns the m tile sums into exclusive prefixes,
 * in place: 16 consecutive sums a thread per step (serial in registers), the thread
 * totals scanned across the block with warp shuffles, a carry from step to step. */
enum { KS_RD_SUMS_ITEMS = 16 };
__global__ void __launch_bounds__(1024) ks_rd_scan_sums_kernel(float *a, long long m)
{
    __shared__ float warp_tot[32], warp_pre[32], s_total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float carry = 0.0f;
    for (long long base = 0; base < m; base += (long long)blockDim.x * KS_RD_SUMS_ITEMS) {
        const long long b = base + (long long)threadIdx.x * KS_RD_SUMS_ITEMS;
        float v[KS_RD_SUMS_ITEMS], t = 0.0f;
#pragma unroll
        for (int k = 0; k < KS_RD_SUMS_ITEMS; ++k) {
            v[k] = b + k < m ? a[b + k] : 0.0f;
            t += v[k];
        }
        const float incl = ks_rd_warp_incl(t, lane);
        float ex = __shfl_up_sync(KS_RD_FULL, incl, 1);
        if (lane == 0) ex = 0.0f;
        if (lane == 31) warp_tot[warp] = incl;
        __syncthreads();
        ks_rd_warp_totals_scan(warp_tot, warp_pre, &s_total);
        __syncthreads();
        float run = carry + (warp_pre[warp] + ex);
#pragma unroll
        for (int k = 0; k < KS_RD_SUMS_ITEMS; ++k) {
            if (b + k < m) a[b + k] = run;
            run += v[k];
        }
        carry += s_total;
        __syncthreads();
    }
}

/* scan_shuffle, pass 3: each block rescans its tile with warp shuffles and adds its prefix. */
template <bool FULL>
__device__ __forceinline__ void ks_rd_tile_scan(const float *__restrict__ x, float *__restrict__ y, long long n,
                                                long long tile, float prefix)
{
    __shared__ float warp_tot[32], warp_pre[32], s_total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long seg = tile + (long long)warp * KS_RD_SEG;
    float4 v[4];
    ks_rd_seg_load<FULL>(x, seg, n, lane, v);
    const float tot = ks_rd_seg_scan(v, lane);
    if (lane == 0) warp_tot[warp] = tot;
    __syncthreads();
    ks_rd_warp_totals_scan(warp_tot, warp_pre, &s_total);
    __syncthreads();
    ks_rd_seg_add(v, prefix + warp_pre[warp]);
    ks_rd_seg_store<FULL>(y, seg, n, lane, v);
}

__global__ void ks_rd_scan_tiles_kernel(const float *__restrict__ x, float *__restrict__ y, long long n,
                                        const float *tile_prefix)
{
    const long long tile = (long long)blockIdx.x * blockDim.x * 16;
    const float prefix = tile_prefix[blockIdx.x];
    if (tile + (long long)blockDim.x * 16 <= n) ks_rd_tile_scan<true>(x, y, n, tile, prefix);
    else ks_rd_tile_scan<false>(x, y, n, tile, prefix);
}

/* scan_lookback: single pass. Block b scans tile b (16 x THREADS floats), publishes
 * its aggregate, then warp 0 looks back 32 predecessors at a time: it adds their
 * aggregates until one of them has published its inclusive prefix, adds that and
 * stops; the block publishes its own inclusive prefix and writes its tile. Tile b
 * waits only on tiles < b, which the hardware dispatches before it (blocks start in
 * index order; CUB's scan relies on the same; a tile counter taken by atomicAdd
 * instead measured about 1 % slower). A status word is 64 bits, (epoch << 2 | flag) << 32
 * | float bits, stored and loaded whole, so a value is never seen without its flag;
 * the epoch (the run's number) makes a word left from an earlier run read as "not
 * yet", so no memset is needed per run. __launch_bounds__ caps the registers at 32 so
 * that 2048 threads fit on an SM where it holds that many (Hopper, sm_80; measured
 * faster than 40 registers and 1536). */
__device__ __forceinline__ void ks_rd_status_store(unsigned long long *s, unsigned tag, float v)
{
    const unsigned long long w = ((unsigned long long)tag << 32) | __float_as_uint(v);
    *reinterpret_cast<volatile unsigned long long *>(s) = w;
}

/* Threads an SM holds, by the architecture compiled for (ptxas refuses a minimum of
 * blocks beyond it): 2048 on sm_80, sm_87 and Hopper; 1536 on sm_86 and sm_89; 1024 on
 * Turing. The host pass has no __CUDA_ARCH__ and takes the largest. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ >= 900
#define KS_RD_SM_THREADS 2048
#elif __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890
#define KS_RD_SM_THREADS 1536
#else
#define KS_RD_SM_THREADS 1024
#endif

template <int THREADS>
__global__ void __launch_bounds__(THREADS, KS_RD_SM_THREADS / THREADS)
    ks_rd_scan_lookback_kernel(const float *__restrict__ x, float *__restrict__ y, long long n,
                               unsigned long long *st, unsigned epoch)
{
    __shared__ float warp_tot[32], warp_pre[32], s_total, s_prefix;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned tile_no = blockIdx.x;
    const long long tile = (long long)tile_no * (16 * THREADS);
    const long long seg = tile + (long long)warp * KS_RD_SEG;
    const bool full = tile + 16 * THREADS <= n;
    float4 v[4];
    if (full) ks_rd_seg_load<true>(x, seg, n, lane, v);
    else ks_rd_seg_load<false>(x, seg, n, lane, v);
    const float tot = ks_rd_seg_scan(v, lane);
    if (lane == 0) warp_tot[warp] = tot;
    __syncthreads();
    ks_rd_warp_totals_scan(warp_tot, warp_pre, &s_total);
    __syncthreads();
    if (warp == 0) {
        const float agg = s_total;
        float prefix = 0.0f;
        if (tile_no == 0) {
            if (lane == 0) ks_rd_status_store(st, epoch << 2 | KS_RD_STATUS_PREFIX, agg);
        } else {
            if (lane == 0) ks_rd_status_store(st + tile_no, epoch << 2 | KS_RD_STATUS_AGG, agg);
            long long base = (long long)tile_no - 1;
            for (;;) {
                const long long p = base - lane;
                unsigned flag = KS_RD_STATUS_PREFIX;
                float val = 0.0f;
                if (p >= 0) {
                    unsigned long long w;
                    do {
                        w = *reinterpret_cast<volatile unsigned long long *>(st + p);
                    } while ((unsigned)(w >> 34) != epoch);
                    flag = (unsigned)(w >> 32) & 3u;
                    val = __uint_as_float((unsigned)w);
                }
                const unsigned pmask = __ballot_sync(KS_RD_FULL, flag == KS_RD_STATUS_PREFIX);
                if (pmask) {
                    const int first = __ffs(pmask) - 1; /* the nearest predecessor with a prefix */
                    prefix += ks_rd_warp_sum(lane <= first ? val : 0.0f);
                    break;
                }
                prefix += ks_rd_warp_sum(val);
                base -= 32;
            }
            if (lane == 0) ks_rd_status_store(st + tile_no, epoch << 2 | KS_RD_STATUS_PREFIX, prefix + agg);
        }
        if (lane == 0) s_prefix = prefix;
    }
    __syncthreads();
    ks_rd_seg_add(v, s_prefix + warp_pre[warp]);
    if (full) ks_rd_seg_store<true>(y, seg, n, lane, v);
    else ks_rd_seg_store<false>(y, seg, n, lane, v);
}

ks_status ks_rd_scan_blocks(ks_reduce_gpu *g, const float *in, float *out, long long n, float *sums)
{
    const int B = g->d.block;
    const long long m = (n + B - 1) / B;
    ks_rd_scan_local_kernel<<<(unsigned)m, B, B * sizeof(float), g->stream>>>(in, out, n, sums);
    KS_CUDA_TRY_LAUNCH("scan_blocks local");
    if (m <= 1) return KS_OK;
    KS_TRY(ks_rd_scan_blocks(g, sums, sums, m, sums + m)); /* the block sums' own scan */
    ks_rd_scan_add_kernel<<<(unsigned)m, B, 0, g->stream>>>(out, n, sums);
    KS_CUDA_TRY_LAUNCH("scan_blocks add");
    return KS_OK;
}

ks_status ks_rd_scan_lookback(ks_reduce_gpu *g, float *out)
{
    if (++g->epoch >= KS_RD_EPOCH_MAX) { /* wrapped: clear the words of old runs */
        KS_CUDA_TRY(cudaMemsetAsync(g->status, 0, (size_t)ks_rd_lookback_tiles(g->d.n) * 8, g->stream));
        g->epoch = 1;
    }
    const long long tiles = ks_rd_lookback_tiles(g->d.n);
    ks_rd_scan_lookback_kernel<KS_RD_LOOKBACK_THREADS><<<(unsigned)tiles, KS_RD_LOOKBACK_THREADS, 0, g->stream>>>(
        g->x, out, g->d.n, g->status, g->epoch);
    KS_CUDA_TRY_LAUNCH("scan_lookback");
    return KS_OK;
}

void ks_rd_scan_local_launch(ks_reduce_gpu *g, unsigned grid, const float *in, float *out, long long n, float *sums)
{
    const int B = g->d.block;
    ks_rd_scan_local_kernel<<<grid, B, B * sizeof(float), g->stream>>>(in, out, n, sums);
}

void ks_rd_scan_shuffle_launch(ks_reduce_gpu *g)
{
    const long long n = g->d.n;
    const int B = g->d.block;
    cudaStream_t s = g->stream;
    const long long tiles = (n + 16LL * B - 1) / (16LL * B);
    ks_rd_tile_sum_kernel<<<(unsigned)tiles, B, 0, s>>>(g->x, n, g->partials);
    ks_rd_scan_sums_kernel<<<1, 1024, 0, s>>>(g->partials, tiles);
    ks_rd_scan_tiles_kernel<<<(unsigned)tiles, B, 0, s>>>(g->x, g->y, n, g->partials);
}
