/* Reduce: the sum kernels (sum_atomic, sum_tree, sum_shuffle, sum_onepass),
 * their persistent grids and launches. reduce_gpu_internal.h says how they read. */
#include "reduce_gpu_internal.h"

/* ---- sums ---- */

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

/* Blocks of a persistent grid: every SM full (occupancy of kernel at this block). */
static ks_status grid_size(const void *kernel, int block, size_t smem, int sm_count, int *grid)
{
    int per_sm = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
    *grid = (per_sm > 0 ? per_sm : 1) * sm_count;
    return KS_OK;
}

ks_status ks_rd_sum_grids(ks_reduce_gpu *g, int block)
{
    KS_TRY(grid_size((const void *)ks_rd_sum_atomic_kernel, block, 0, g->sm_count, &g->grid_sum[KS_REDUCE_SUM_ATOMIC]));
    KS_TRY(grid_size((const void *)ks_rd_sum_tree_kernel, block, block * sizeof(float), g->sm_count,
                     &g->grid_sum[KS_REDUCE_SUM_TREE]));
    KS_TRY(grid_size((const void *)ks_rd_sum_shuffle_kernel, block, 0, g->sm_count, &g->grid_sum[KS_REDUCE_SUM_SHUFFLE]));
    KS_TRY(grid_size((const void *)ks_rd_sum_onepass_kernel, block, 0, g->sm_count, &g->grid_sum[KS_REDUCE_SUM_ONEPASS]));
    return KS_OK;
}

void ks_rd_sum_launch(ks_reduce_gpu *g, ks_reduce_variant v)
{
    const long long n = g->d.n;
    const int B = g->d.block;
    cudaStream_t s = g->stream;
    switch (v) {
    case KS_REDUCE_SUM_ATOMIC:
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
    default: break;
    }
}
