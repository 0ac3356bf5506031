/* Reduce scene kernels and their context (reduce.h).
 *
 * Precision: every kernel adds float32 values in float32 registers, shared
 * memory or global words. Per thread: a grid-stride loop into four independent
 * float accumulators (one per float4 load in flight); per block: a tree (shared
 * memory or warp shuffles) in float; across blocks: float partials added by a
 * second pass, the last block, float atomics, or (scans) a float prefix carried
 * from tile to tile. CUB's reduce and scan also accumulate in float. The gold is
 * in double; reduce.h states the tolerances.
 *
 * Memory: sums read the input as float4 (cudaMalloc bases are 256-byte aligned)
 * in a grid-stride loop over a grid resident all at once (occupancy API, at most
 * 1024 threads per SM), each thread keeping four 16-byte loads in flight; the
 * n % 4 tail is added by the first threads. Scans work on warp segments of 512 floats: lane l holds
 * float4 number q*32 + l of the segment (q = 0..3), so every load and store of a
 * warp is one coalesced 512-byte row. */
#include "reduce.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/colormap.h"
#include "kernels/common/cuda_device.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/ks_util.h"
#include "reduce_input.h"

enum {
    KS_RD_SEG = 512,            /* floats per warp segment: 32 lanes x 16 */
    KS_RD_LOOKBACK_THREADS = 512,
    KS_RD_LOOKBACK_TILE = KS_RD_SEG * (KS_RD_LOOKBACK_THREADS / 32), /* 8192 floats */
    KS_RD_STATUS_AGG = 1,       /* tile status: its own aggregate is published */
    KS_RD_STATUS_PREFIX = 2,    /* its inclusive prefix is published */
    KS_RD_EPOCH_MAX = 1 << 29,
};
#define KS_RD_FULL 0xffffffffu

struct ks_reduce_gpu {
    ks_reduce_desc d;
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    int sm_count;
    float *x;             /* input, n */
    float *y;             /* scan output, n */
    float *result;        /* sums: 1 float */
    unsigned *counter;    /* sum_onepass: blocks finished (reset by the last) */
    float *partials;      /* per-block partial sums / scan_shuffle tile sums */
    float *blk_sums;      /* scan_blocks: block sums of every recursion level */
    unsigned long long *status; /* scan_lookback: tile t's status word */
    unsigned epoch;       /* scan_lookback: run number carried in the status words */
    void *cub_tmp;
    size_t cub_tmp_size;
    int grid_sum[KS_REDUCE_NUM]; /* persistent grid of each sum variant */
    /* the picture */
    float *lv_dev;        /* levels 1.., each at lv_off[s] floats (a multiple of 64: float4 kernels write them) */
    long long lv_off[KS_REDUCE_MAX_LEVELS];
    long long lv_cap;
    unsigned *lv_max;     /* per strip: max |v| as float bits */
    ks_reduce_levels lv;
    int have_levels;
    unsigned char *lut;
};

/* ---- input ---- */

__global__ void ks_rd_fill_kernel(float *x, long long n, int integer, unsigned seed)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = ks_reduce_value(integer, seed, i);
}

/* ---- sums ---- */

__device__ __forceinline__ float ks_rd_add4(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
}

/* This thread's share of x[0..n): grid-stride over float4 (thread t of T reads float4
 * t, t + T, t + 2T, ...) with four loads in flight; the n % 4 tail goes to the first
 * threads. (A CUB-like even-share mapping, each block reading its own contiguous run
 * of tiles, with or without an L1-bypassing 256-byte-prefetch load, measured 0.5-1 %
 * slower on the H100 at 2^28 floats.) */
__device__ __forceinline__ float ks_rd_thread_sum(const float *__restrict__ x, long long n)
{
    const float4 *__restrict__ x4 = reinterpret_cast<const float4 *>(x);
    const long long n4 = n >> 2;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i = t;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 v0 = __ldg(x4 + i), v1 = __ldg(x4 + i + stride);
        const float4 v2 = __ldg(x4 + i + 2 * stride), v3 = __ldg(x4 + i + 3 * stride);
        a0 += ks_rd_add4(v0);
        a1 += ks_rd_add4(v1);
        a2 += ks_rd_add4(v2);
        a3 += ks_rd_add4(v3);
    }
    for (; i < n4; i += stride) a0 += ks_rd_add4(__ldg(x4 + i));
    if (t < n - 4 * n4) a1 += x[4 * n4 + t]; /* the n % 4 tail */
    return (a0 + a1) + (a2 + a3);
}

__device__ __forceinline__ float ks_rd_warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(KS_RD_FULL, v, o);
    return v;
}

/* Block total by warp shuffles (valid in thread 0). */
__device__ __forceinline__ float ks_rd_block_sum_shuffle(float v)
{
    __shared__ float warp_tot[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = ks_rd_warp_sum(v);
    if (lane == 0) warp_tot[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warp_tot[lane] : 0.0f;
        v = ks_rd_warp_sum(v);
    }
    return v;
}

/* sum_atomic: every thread adds its share to *out (zeroed before the launch). */
__global__ void ks_rd_sum_atomic_kernel(const float *__restrict__ x, long long n, float *out)
{
    atomicAdd(out, ks_rd_thread_sum(x, n));
}

/* sum_tree: the lecture's shared-memory tree, blockDim floats of dynamic shared
 * memory, halving the active threads with a __syncthreads per level. */
__global__ void ks_rd_sum_tree_kernel(const float *__restrict__ x, long long n, float *out)
{
    extern __shared__ float s_tree[];
    const unsigned t = threadIdx.x;
    s_tree[t] = ks_rd_thread_sum(x, n);
    __syncthreads();
    for (unsigned d = blockDim.x >> 1; d > 0; d >>= 1) {
        if (t < d) s_tree[t] += s_tree[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s_tree[0];
}

/* sum_shuffle: each warp reduces by __shfl_xor_sync, one shared word per warp. */
__global__ void ks_rd_sum_shuffle_kernel(const float *__restrict__ x, long long n, float *out)
{
    const float v = ks_rd_block_sum_shuffle(ks_rd_thread_sum(x, n));
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* sum_onepass: partials as sum_shuffle; each block then takes a ticket, and the
 * block that takes the last one (every other partial is visible: each block fenced
 * before its ticket) adds the partials and resets the counter for the next run. */
__global__ void ks_rd_sum_onepass_kernel(const float *__restrict__ x, long long n, float *partials,
                                         unsigned *counter, float *out)
{
    __shared__ bool s_last;
    const float v = ks_rd_block_sum_shuffle(ks_rd_thread_sum(x, n));
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        s_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    float a = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) a += __ldcg(partials + i); /* L2, not L1 */
    a = ks_rd_block_sum_shuffle(a);
    if (threadIdx.x == 0) {
        *out = a;
        *counter = 0u;
    }
}

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
 * that 2048 threads fit on an SM (measured faster than 40 registers and 1536). */
__device__ __forceinline__ void ks_rd_status_store(unsigned long long *s, unsigned tag, float v)
{
    const unsigned long long w = ((unsigned long long)tag << 32) | __float_as_uint(v);
    *reinterpret_cast<volatile unsigned long long *>(s) = w;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS, 2048 / THREADS)
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

/* ---- the picture ---- */

/* One level of the sum picture: block b adds in[b*B .. b*B+B-1] (shared-memory tree, float). */
__global__ void ks_rd_level_sum_kernel(const float *in, long long len, float *out)
{
    extern __shared__ float s_lv[];
    const unsigned t = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + t;
    s_lv[t] = i < len ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned d = blockDim.x >> 1; d > 0; d >>= 1) {
        if (t < d) s_lv[t] += s_lv[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s_lv[0];
}

/* max |v| as float bits (non-negative floats order as their bits). */
__global__ void ks_rd_absmax_kernel(const float *p, long long len, unsigned *out)
{
    unsigned m = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < len; i += stride)
        m = max(m, __float_as_uint(fabsf(p[i])));
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(KS_RD_FULL, m, o));
    if ((threadIdx.x & 31) == 0) atomicMax(out, m);
}

struct ks_rd_draw_args {
    const float *p[KS_REDUCE_MAX_LEVELS];
    long long len[KS_REDUCE_MAX_LEVELS];
    float inv_scale[KS_REDUCE_MAX_LEVELS];
    int count;
};

__global__ void ks_rd_draw_kernel(ks_rd_draw_args a, int w, int h, const uchar4 *lut, float lo, float inv_span,
                                  uchar4 *out)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x, yb = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= w || yb >= h) return;
    const int r = h - 1 - yb;
    const int s = (int)((long long)r * a.count / h);
    const int first = (int)(((long long)s * h + a.count - 1) / a.count);
    uchar4 col;
    if (s > 0 && r == first) {
        col = make_uchar4(0, 0, 0, 255);
    } else {
        const long long idx = (long long)c * a.len[s] / w;
        const float v = __fmul_rn(a.p[s][idx], a.inv_scale[s]);
        col = lut[ks_colormap_index(v, lo, inv_span)];
    }
    out[(size_t)yb * w + c] = col;
}

/* ---- context ---- */

extern "C" void ks_reduce_gpu_destroy(ks_reduce_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    cudaFree(g->x);
    cudaFree(g->y);
    cudaFree(g->result);
    cudaFree(g->partials);
    cudaFree(g->blk_sums);
    cudaFree(g->status);
    cudaFree(g->cub_tmp);
    cudaFree(g->lv_dev);
    cudaFree(g->lv_max);
    cudaFree(g->lut);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

static ks_status dev_alloc(void **p, size_t bytes, const char *what)
{
    const cudaError_t err = cudaMalloc(p, bytes ? bytes : 4);
    if (err != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return ks_fail(err == cudaErrorMemoryAllocation ? KS_ERR_OUT_OF_MEMORY : KS_ERR_CUDA,
                       "reduce: cannot allocate %s (%.1f MiB): %s", what, bytes / 1048576.0, cudaGetErrorString(err));
    }
    return KS_OK;
}

/* Blocks of a persistent grid: every SM full (occupancy of kernel at this block). */
static ks_status grid_size(const void *kernel, int block, size_t smem, int sm_count, int *grid)
{
    int per_sm = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
    *grid = (per_sm > 0 ? per_sm : 1) * sm_count;
    return KS_OK;
}

/* Floats of block sums scan_blocks needs: ceil(n/B) + ceil(ceil(n/B)/B) + ... while a level has > 1 block. */
static long long blk_sums_len(long long n, int block)
{
    long long total = 0;
    for (long long m = (n + block - 1) / block;; m = (m + block - 1) / block) {
        total += m;
        if (m <= 1) break;
    }
    return total;
}

static long long lookback_tiles(long long n)
{
    return (n + KS_RD_LOOKBACK_TILE - 1) / KS_RD_LOOKBACK_TILE;
}

static ks_status gpu_init(ks_reduce_gpu *g)
{
    const long long n = g->d.n;
    const int block = g->d.block;
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaEventCreate(&g->e0));
    KS_CUDA_TRY(cudaEventCreate(&g->e1));
    int dev = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, dev));
    KS_TRY(grid_size((const void *)ks_rd_sum_atomic_kernel, block, 0, g->sm_count, &g->grid_sum[KS_REDUCE_SUM_ATOMIC]));
    KS_TRY(grid_size((const void *)ks_rd_sum_tree_kernel, block, block * sizeof(float), g->sm_count,
                     &g->grid_sum[KS_REDUCE_SUM_TREE]));
    KS_TRY(grid_size((const void *)ks_rd_sum_shuffle_kernel, block, 0, g->sm_count, &g->grid_sum[KS_REDUCE_SUM_SHUFFLE]));
    KS_TRY(grid_size((const void *)ks_rd_sum_onepass_kernel, block, 0, g->sm_count, &g->grid_sum[KS_REDUCE_SUM_ONEPASS]));
    /* At most 1024 threads per SM: on the H100 at 2^28 floats, 1024 resident threads
     * per SM read 0.3-0.5 % faster than a full SM (2048), and 512 were slower (measured). */
    for (int v = KS_REDUCE_SUM_ATOMIC; v <= KS_REDUCE_SUM_ONEPASS; ++v) {
        const int cap = g->sm_count * (1024 / block > 0 ? 1024 / block : 1);
        if (g->grid_sum[v] > cap) g->grid_sum[v] = cap;
    }
    /* no more blocks than there are float4 to read */
    const long long need = ((n >> 2) + block - 1) / block;
    int max_grid = 1;
    for (int v = KS_REDUCE_SUM_ATOMIC; v <= KS_REDUCE_SUM_ONEPASS; ++v) {
        if (g->grid_sum[v] > need) g->grid_sum[v] = need > 0 ? (int)need : 1;
        if (g->grid_sum[v] > max_grid) max_grid = g->grid_sum[v];
    }
    const long long tiles = (n + 16LL * block - 1) / (16LL * block); /* scan_shuffle */
    const long long lb_tiles = lookback_tiles(n);
    KS_TRY(dev_alloc((void **)&g->x, (size_t)n * 4, "the input"));
    KS_TRY(dev_alloc((void **)&g->y, (size_t)n * 4, "the scan output"));
    KS_TRY(dev_alloc((void **)&g->result, 16, "the sum"));
    g->counter = reinterpret_cast<unsigned *>(g->result + 1);
    KS_TRY(dev_alloc((void **)&g->partials, (size_t)(tiles > max_grid ? tiles : max_grid) * 4, "partial sums"));
    KS_TRY(dev_alloc((void **)&g->blk_sums, (size_t)blk_sums_len(n, block) * 4, "block sums"));
    KS_TRY(dev_alloc((void **)&g->status, (size_t)lb_tiles * 8, "tile status"));
    KS_TRY(dev_alloc((void **)&g->lv_max, KS_REDUCE_MAX_LEVELS * 4, "level maxima"));
    KS_TRY(dev_alloc((void **)&g->lut, 256 * 4, "colour table"));
    KS_CUDA_TRY(cudaMemsetAsync(g->result, 0, 16, g->stream));
    KS_CUDA_TRY(cudaMemsetAsync(g->status, 0, (size_t)lb_tiles * 8, g->stream));
    g->epoch = 0;
    size_t a = 0, b = 0;
    KS_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, a, g->x, g->result, (int)n, g->stream));
    KS_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, b, g->x, g->y, (int)n, g->stream));
    g->cub_tmp_size = a > b ? a : b;
    KS_TRY(dev_alloc(&g->cub_tmp, g->cub_tmp_size, "CUB temporary storage"));
    return ks_reduce_gpu_fill(g, g->d.input, g->d.seed);
}

extern "C" ks_status ks_reduce_gpu_create(const ks_reduce_desc *d, ks_reduce_gpu **out)
{
    *out = NULL;
    KS_TRY(ks_reduce_desc_check(d));
    ks_device_info dev;
    KS_TRY(ks_cuda_probe(&dev));
    if (!dev.present) return ks_fail(KS_ERR_NO_DEVICE, "reduce: no CUDA device");
    ks_reduce_gpu *g = (ks_reduce_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "reduce: out of host memory");
    g->d = ks_reduce_desc_defaults(d);
    const ks_status st = gpu_init(g);
    if (st != KS_OK) {
        ks_reduce_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void *ks_reduce_gpu_stream(ks_reduce_gpu *g)
{
    return g ? (void *)g->stream : NULL;
}

extern "C" ks_reduce_desc ks_reduce_gpu_desc(const ks_reduce_gpu *g)
{
    return g->d;
}

extern "C" const float *ks_reduce_gpu_scan_output(ks_reduce_gpu *g)
{
    return g->y;
}

extern "C" const float *ks_reduce_gpu_input(ks_reduce_gpu *g)
{
    return g->x;
}

extern "C" ks_status ks_reduce_gpu_fill(ks_reduce_gpu *g, ks_reduce_input kind, unsigned seed)
{
    if ((int)kind < 0 || kind >= KS_REDUCE_INPUT_NUM)
        return ks_fail(KS_ERR_INVALID, "reduce: unknown input kind %d", (int)kind);
    if (kind == KS_REDUCE_INPUT_DEFAULT) kind = KS_REDUCE_INPUT_RANDOM;
    if (seed == 0) seed = KS_REDUCE_DEFAULT_SEED;
    ks_rd_fill_kernel<<<g->sm_count * 8, 256, 0, g->stream>>>(g->x, g->d.n, kind == KS_REDUCE_INPUT_INTEGER, seed);
    KS_CUDA_TRY_LAUNCH("fill");
    g->d.input = kind;
    g->d.seed = seed;
    g->have_levels = 0;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_upload(ks_reduce_gpu *g, const float *x, long long n)
{
    if (n != g->d.n) return ks_fail(KS_ERR_INVALID, "reduce: %lld values given for a context of %lld", n, g->d.n);
    KS_CUDA_TRY(cudaMemcpyAsync(g->x, x, (size_t)n * 4, cudaMemcpyHostToDevice, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    g->have_levels = 0;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_poison(ks_reduce_gpu *g)
{
    KS_CUDA_TRY(cudaMemsetAsync(g->y, 0xFF, (size_t)g->d.n * 4, g->stream));
    KS_CUDA_TRY(cudaMemsetAsync(g->result, 0xFF, 4, g->stream));
    return KS_OK;
}

/* scan_blocks on in[0..n) into out, block sums at sums (and the levels below them after). */
static ks_status scan_by_blocks(ks_reduce_gpu *g, const float *in, float *out, long long n, float *sums)
{
    const int B = g->d.block;
    const long long m = (n + B - 1) / B;
    ks_rd_scan_local_kernel<<<(unsigned)m, B, B * sizeof(float), g->stream>>>(in, out, n, sums);
    KS_CUDA_TRY_LAUNCH("scan_blocks local");
    if (m <= 1) return KS_OK;
    KS_TRY(scan_by_blocks(g, sums, sums, m, sums + m)); /* the block sums' own scan */
    ks_rd_scan_add_kernel<<<(unsigned)m, B, 0, g->stream>>>(out, n, sums);
    KS_CUDA_TRY_LAUNCH("scan_blocks add");
    return KS_OK;
}

static ks_status lookback_scan(ks_reduce_gpu *g, float *out)
{
    if (++g->epoch >= KS_RD_EPOCH_MAX) { /* wrapped: clear the words of old runs */
        KS_CUDA_TRY(cudaMemsetAsync(g->status, 0, (size_t)lookback_tiles(g->d.n) * 8, g->stream));
        g->epoch = 1;
    }
    const long long tiles = lookback_tiles(g->d.n);
    ks_rd_scan_lookback_kernel<KS_RD_LOOKBACK_THREADS><<<(unsigned)tiles, KS_RD_LOOKBACK_THREADS, 0, g->stream>>>(
        g->x, out, g->d.n, g->status, g->epoch);
    KS_CUDA_TRY_LAUNCH("scan_lookback");
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_run(ks_reduce_gpu *g, ks_reduce_variant v)
{
    const long long n = g->d.n;
    const int B = g->d.block;
    cudaStream_t s = g->stream;
    switch (v) {
    case KS_REDUCE_SUM_ATOMIC:
        KS_CUDA_TRY(cudaMemsetAsync(g->result, 0, 4, s));
        ks_rd_sum_atomic_kernel<<<g->grid_sum[v], B, 0, s>>>(g->x, n, g->result);
        break;
    case KS_REDUCE_SUM_TREE:
        ks_rd_sum_tree_kernel<<<g->grid_sum[v], B, B * sizeof(float), s>>>(g->x, n, g->partials);
        ks_rd_sum_tree_kernel<<<1, B, B * sizeof(float), s>>>(g->partials, g->grid_sum[v], g->result);
        break;
    case KS_REDUCE_SUM_SHUFFLE:
        ks_rd_sum_shuffle_kernel<<<g->grid_sum[v], B, 0, s>>>(g->x, n, g->partials);
        ks_rd_sum_shuffle_kernel<<<1, B, 0, s>>>(g->partials, g->grid_sum[v], g->result);
        break;
    case KS_REDUCE_SUM_ONEPASS:
        ks_rd_sum_onepass_kernel<<<g->grid_sum[v], B, 0, s>>>(g->x, n, g->partials, g->counter, g->result);
        break;
    case KS_REDUCE_SUM_CUB: {
        size_t bytes = g->cub_tmp_size;
        KS_CUDA_TRY(cub::DeviceReduce::Sum(g->cub_tmp, bytes, g->x, g->result, (int)n, s));
        break;
    }
    case KS_REDUCE_SCAN_BLOCKS: KS_TRY(scan_by_blocks(g, g->x, g->y, n, g->blk_sums)); break;
    case KS_REDUCE_SCAN_SHUFFLE: {
        const long long tiles = (n + 16LL * B - 1) / (16LL * B);
        ks_rd_tile_sum_kernel<<<(unsigned)tiles, B, 0, s>>>(g->x, n, g->partials);
        ks_rd_scan_sums_kernel<<<1, 1024, 0, s>>>(g->partials, tiles);
        ks_rd_scan_tiles_kernel<<<(unsigned)tiles, B, 0, s>>>(g->x, g->y, n, g->partials);
        break;
    }
    case KS_REDUCE_SCAN_LOOKBACK: KS_TRY(lookback_scan(g, g->y)); break;
    case KS_REDUCE_SCAN_CUB: {
        size_t bytes = g->cub_tmp_size;
        KS_CUDA_TRY(cub::DeviceScan::InclusiveSum(g->cub_tmp, bytes, g->x, g->y, (int)n, s));
        break;
    }
    default: return ks_fail(KS_ERR_INVALID, "reduce: unknown variant %d", (int)v);
    }
    KS_CUDA_TRY_LAUNCH("reduce");
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_sum_result(ks_reduce_gpu *g, double *sum)
{
    float f = 0.0f;
    KS_CUDA_TRY(cudaMemcpyAsync(&f, g->result, 4, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    *sum = f;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_scan_download(ks_reduce_gpu *g, float *y)
{
    KS_CUDA_TRY(cudaMemcpyAsync(y, g->y, (size_t)g->d.n * 4, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_scan_read(ks_reduce_gpu *g, long long i, float *value)
{
    if (i < 0 || i >= g->d.n) return ks_fail(KS_ERR_INVALID, "reduce: no element %lld of %lld", i, g->d.n);
    KS_CUDA_TRY(cudaMemcpyAsync(value, g->y + i, 4, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

static ks_status time_span(ks_reduce_gpu *g, ks_reduce_variant v, int k, double *ms)
{
    KS_CUDA_TRY(cudaEventRecord(g->e0, g->stream));
    for (int i = 0; i < k; ++i) KS_TRY(ks_reduce_gpu_run(g, v));
    KS_CUDA_TRY(cudaEventRecord(g->e1, g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(g->e1));
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&f, g->e0, g->e1));
    *ms = f;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_time(ks_reduce_gpu *g, ks_reduce_variant v, double span_ms, int warmup, int reps,
                                        ks_reduce_timing *out)
{
    if (!ks_reduce_variant_get(v)) return ks_fail(KS_ERR_INVALID, "reduce: unknown variant %d", (int)v);
    if (span_ms <= 0) span_ms = 20.0;
    if (warmup <= 0) warmup = 3;
    if (reps <= 0) reps = 7;
    for (int i = 0; i < warmup; ++i) KS_TRY(ks_reduce_gpu_run(g, v));
    double one = 0.0;
    KS_TRY(time_span(g, v, 1, &one));
    double k = one > 0 ? ceil(span_ms / one) : 100000.0;
    if (k < 1) k = 1;
    if (k > 100000) k = 100000;
    double *ms = (double *)malloc((size_t)reps * sizeof *ms);
    if (!ms) return ks_fail(KS_ERR_OUT_OF_MEMORY, "reduce: out of host memory");
    ks_status st = KS_OK;
    for (int r = 0; r < reps && st == KS_OK; ++r) {
        st = time_span(g, v, (int)k, &ms[r]);
        ms[r] /= k;
    }
    if (st == KS_OK) {
        out->median_ms = ks_median_sort(ms, reps); /* sorts: ms[0] is the minimum */
        out->min_ms = ms[0];
        out->launches = (int)k;
        out->reps = reps;
    }
    free(ms);
    return st;
}

/* ---- levels and the picture ---- */

static const float *level_ptr(ks_reduce_gpu *g, int s)
{
    return s == 0 ? g->x : g->lv_dev + g->lv_off[s];
}

extern "C" ks_status ks_reduce_gpu_levels(ks_reduce_gpu *g, ks_reduce_op op, ks_reduce_levels *lv)
{
    if (op != KS_REDUCE_OP_SUM && op != KS_REDUCE_OP_SCAN)
        return ks_fail(KS_ERR_INVALID, "reduce: unknown operation %d", (int)op);
    const int B = g->d.block;
    g->have_levels = 0;
    ks_reduce_levels_layout(op, g->d.n, B, &g->lv);
    long long need = 0;
    for (int s = 1; s < g->lv.count; ++s) {
        g->lv_off[s] = need;
        need += (g->lv.len[s] + 63) / 64 * 64;
    }
    if (need > g->lv_cap) {
        cudaFree(g->lv_dev);
        g->lv_dev = NULL;
        g->lv_cap = 0;
        KS_TRY(dev_alloc((void **)&g->lv_dev, (size_t)need * 4, "the picture's levels"));
        g->lv_cap = need;
    }
    ks_reduce_levels *L = &g->lv;
    if (op == KS_REDUCE_OP_SCAN) {
        float *local = (float *)level_ptr(g, 1), *sums = (float *)level_ptr(g, 2);
        ks_rd_scan_local_kernel<<<(unsigned)L->len[2], B, B * sizeof(float), g->stream>>>(g->x, local, g->d.n, sums);
        KS_CUDA_TRY_LAUNCH("levels local");
        KS_TRY(lookback_scan(g, (float *)level_ptr(g, 3)));
    } else {
        for (int s = 1; s < L->count; ++s) {
            ks_rd_level_sum_kernel<<<(unsigned)L->len[s], B, B * sizeof(float), g->stream>>>(
                level_ptr(g, s - 1), L->len[s - 1], (float *)level_ptr(g, s));
            KS_CUDA_TRY_LAUNCH("levels sum");
        }
    }
    KS_CUDA_TRY(cudaMemsetAsync(g->lv_max, 0, KS_REDUCE_MAX_LEVELS * 4, g->stream));
    for (int s = 0; s < L->count; ++s) {
        long long blocks = (L->len[s] + 255) / 256;
        if (blocks > g->sm_count * 8LL) blocks = g->sm_count * 8LL;
        ks_rd_absmax_kernel<<<(unsigned)blocks, 256, 0, g->stream>>>(level_ptr(g, s), L->len[s], g->lv_max + s);
        KS_CUDA_TRY_LAUNCH("levels max");
    }
    unsigned bits[KS_REDUCE_MAX_LEVELS];
    KS_CUDA_TRY(cudaMemcpyAsync(bits, g->lv_max, sizeof bits, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    for (int s = 0; s < L->count; ++s) {
        float f;
        memcpy(&f, &bits[s], 4);
        L->scale[s] = f > 0.0f ? f : 1.0f;
    }
    g->have_levels = 1;
    *lv = *L;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_levels_download(ks_reduce_gpu *g, float *data)
{
    if (!g->have_levels) return ks_fail(KS_ERR_INVALID, "reduce: no levels computed");
    for (int s = 0; s < g->lv.count; ++s)
        KS_CUDA_TRY(cudaMemcpyAsync(data + g->lv.offset[s], level_ptr(g, s), (size_t)g->lv.len[s] * 4,
                                    cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_draw(ks_reduce_gpu *g, int w, int h, const unsigned char lut[256][4], float lo,
                                        float hi, void *rgba)
{
    if (!g->have_levels) return ks_fail(KS_ERR_INVALID, "reduce: no levels computed");
    if (w < 1 || h < 1) return ks_fail(KS_ERR_INVALID, "reduce: picture size %dx%d", w, h);
    KS_CUDA_TRY(cudaMemcpyAsync(g->lut, lut, 256 * 4, cudaMemcpyHostToDevice, g->stream));
    ks_rd_draw_args a;
    memset(&a, 0, sizeof a);
    a.count = g->lv.count;
    for (int s = 0; s < a.count; ++s) {
        a.p[s] = level_ptr(g, s);
        a.len[s] = g->lv.len[s];
        a.inv_scale[s] = 1.0f / g->lv.scale[s];
    }
    const dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    ks_rd_draw_kernel<<<grid, block, 0, g->stream>>>(a, w, h, (const uchar4 *)g->lut, lo, ks_colormap_inv_span(lo, hi),
                                                      (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("reduce draw");
    return KS_OK;
}
