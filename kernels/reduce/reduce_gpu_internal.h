/* Internal to kernels/reduce/: what the CUDA side's four files share
 * (reduce_gpu.cu: the context, input, run dispatch, results and timing;
 * reduce_sum.cu: the sum kernels; reduce_scan.cu: the scan kernels;
 * reduce_picture.cu: the levels and the picture). CUDA-only header (never
 * included by C code). The build has no separable compilation, so a kernel
 * is launched (and its occupancy asked) only in the file that defines it,
 * through the host functions declared at the end.
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
 * warp is one coalesced 512-byte row.
 */
#ifndef KS_REDUCE_GPU_INTERNAL_H
#define KS_REDUCE_GPU_INTERNAL_H

#include "reduce.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"
#include "base/ks_util.h"

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
    float *user_partials; /* a declared user's kernel's per-block partials (reduce_user.cu), grown as needed */
    long long user_partials_cap;
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
    struct ks_l2_flush *flush; /* cold-cache timing's flush (base/l2_flush.h), made on first use */
};

/* ---- device helpers of more than one file ---- */

__device__ __forceinline__ float ks_rd_add4(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
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

/* ---- host functions across the files ---- */

/* reduce_gpu.cu: cudaMalloc of bytes (at least 4), a failure named after what. */
ks_status ks_rd_dev_alloc(void **p, size_t bytes, const char *what);
/* reduce_gpu.cu: the timing of ks_reduce_gpu_time (reduce.h says how) for any
 * run: run(g, what) enqueues one run (ours: a variant; reduce_user.cu: a user's
 * kernel and its block). */
typedef ks_status (*ks_rd_run_fn)(ks_reduce_gpu *g, const void *what);
ks_status ks_rd_time_runs(ks_reduce_gpu *g, ks_rd_run_fn run, const void *what, double span_ms, double working_set,
                          const ks_timing_opts *o, ks_reduce_timing *out);

/* Tiles of scan_lookback over n floats (the status words it needs). */
static inline long long ks_rd_lookback_tiles(long long n)
{
    return (n + KS_RD_LOOKBACK_TILE - 1) / KS_RD_LOOKBACK_TILE;
}

/* reduce_sum.cu: the persistent grid of each hand-written sum (its occupancy at
 * block) into g->grid_sum; the launches of sum variant v (sum_atomic: the caller
 * zeroes *result first). The caller checks the launch. */
ks_status ks_rd_sum_grids(ks_reduce_gpu *g, int block);
void ks_rd_sum_launch(ks_reduce_gpu *g, ks_reduce_variant v);

/* reduce_scan.cu: scan_blocks on in[0..n) into out, block sums at sums (and the
 * levels below them after); its first phase alone on grid blocks (unchecked);
 * scan_shuffle's three launches (unchecked); scan_lookback of g->x into out. */
ks_status ks_rd_scan_blocks(ks_reduce_gpu *g, const float *in, float *out, long long n, float *sums);
void ks_rd_scan_local_launch(ks_reduce_gpu *g, unsigned grid, const float *in, float *out, long long n, float *sums);
void ks_rd_scan_shuffle_launch(ks_reduce_gpu *g);
ks_status ks_rd_scan_lookback(ks_reduce_gpu *g, float *out);

#endif
