/* Matmul kernels and their launches (matmul_launch.h): naive, tiled (T = 8,
 * 16, 32), regtile (128x128 block tile, 8x8 per thread, BK = 8, float4 loads
 * where aligned, double-buffered shared memory), each block recording who
 * computed its tile of C and when. The context that runs them, cuBLAS and the
 * pictures are matmul_gpu.cu. */
#include <stdint.h>

#include "kernels/common/ks_error.h"
#include "matmul_launch.h"

/* ---- the per-block record: who computed this tile of C, and when it was done ---- */
/* Thread 0 of the block, after its own store of C: %smid and %globaltimer, one 16-byte
 * store. rec NULL (recording off) is a uniform branch past it. tiled and regtile: every
 * warp passed the same last barrier, so the others end a few instructions later; naive
 * has no barrier, so its record is the end of the block's first warp. */
__device__ __forceinline__ void ks_mm_record(ks_matmul_tile_rec *rec)
{
    if (rec == nullptr || (threadIdx.x | threadIdx.y) != 0) return;
    unsigned int sm;
    unsigned long long t;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    reinterpret_cast<uint4 *>(rec)[blockIdx.y * gridDim.x + blockIdx.x] =
        make_uint4(sm, 1u, (unsigned int)t, (unsigned int)(t >> 32));
}

/* ---- naive: one thread per C element ---- */

__global__ void ks_mm_naive_kernel(const float *__restrict__ A, const float *__restrict__ B,
                                   float *__restrict__ C, int M, int N, int K, ks_matmul_tile_rec *rec)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)i * K + k] * B[(size_t)k * N + j];
    C[(size_t)i * N + j] = acc;
    ks_mm_record(rec); /* thread (0, 0) is always inside C */
}

/* ---- tiled: T x T tiles of A and B in shared memory ---- */
/* FULL: M, N and K are multiples of T, so no load needs a bounds check and
 * the two read pointers just step along K (T columns of A, T rows of B); the
 * same algorithm, without the per-load compares and 64-bit index products
 * that sizes known only at run time otherwise cost. */
template <int T, bool FULL>
__global__ void __launch_bounds__(T *T) ks_mm_tiled_kernel(const float *__restrict__ A,
                                                           const float *__restrict__ B,
                                                           float *__restrict__ C, int M, int N, int K,
                                                           ks_matmul_tile_rec *rec)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int j = blockIdx.x * T + tx, i = blockIdx.y * T + ty;
    float acc = 0.0f;
    if (FULL) {
        const float *a = A + (size_t)i * K + tx;
        const float *b = B + (size_t)ty * N + j;
        const size_t b_step = (size_t)T * N;
        for (int k0 = 0; k0 < K; k0 += T, a += T, b += b_step) {
            As[ty][tx] = *a;
            Bs[ty][tx] = *b;
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < T; ++kk) acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
        }
        C[(size_t)i * N + j] = acc;
        ks_mm_record(rec);
    } else {
        for (int k0 = 0; k0 < K; k0 += T) {
            As[ty][tx] = (i < M && k0 + tx < K) ? A[(size_t)i * K + k0 + tx] : 0.0f;
            Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(size_t)(k0 + ty) * N + j] : 0.0f;
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < T; ++kk) acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
        }
        if (i < M && j < N) C[(size_t)i * N + j] = acc;
        ks_mm_record(rec);
    }
}

template <int T>
static void tiled_launch(dim3 grid, dim3 block, cudaStream_t stream, const float *A, const float *B, float *C,
                         int M, int N, int K, ks_matmul_tile_rec *rec)
{
    if (M % T == 0 && N % T == 0 && K % T == 0)
        ks_mm_tiled_kernel<T, true><<<grid, block, 0, stream>>>(A, B, C, M, N, K, rec);
    else
        ks_mm_tiled_kernel<T, false><<<grid, block, 0, stream>>>(A, B, C, M, N, K, rec);
}

/* ---- regtile ---- */
/* Block: 256 threads as 16 x 16, tile of C 128 x 128. Thread (ty, tx) owns rows
 * ty*4+{0..3} and 64+ty*4+{0..3} and the same pattern of columns, so its reads
 * of a shared row are two float4 each (conflict free). As holds the A tile
 * transposed (As[k][row]) so that rows are contiguous for those reads. Each
 * K step of 8: every thread loads 4 floats of A (row t/2, k (t%2)*4..+3) and
 * 4 of B (k row t/32, columns (t%32)*4..+3) into registers for the next step
 * while computing this one, then stores them into the other shared buffer:
 * one __syncthreads per step. VEC: K and N multiples of 4, so a row's float4
 * at a multiple-of-4 column is 16-byte aligned (cudaMalloc bases are). */
enum { KS_RT_BM = 128, KS_RT_BN = 128, KS_RT_BK = 8, KS_RT_THREADS = 256,
       KS_RT_APAD = 4 /* As rows of 132: the transposed stores of a warp hit 32 banks */ };

template <bool VEC>
__device__ __forceinline__ void ks_rt_load(const float *__restrict__ A, const float *__restrict__ B, int M,
                                           int N, int K, int row0, int col0, int k0, float ra[4], float rb[4])
{
    const int t = threadIdx.x;
    const int ar = row0 + (t >> 1), ak = k0 + ((t & 1) << 2);
    if (VEC && ar < M && ak + 3 < K) {
        const float4 v = *reinterpret_cast<const float4 *>(A + (size_t)ar * K + ak);
        ra[0] = v.x; ra[1] = v.y; ra[2] = v.z; ra[3] = v.w;
    } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) ra[q] = (ar < M && ak + q < K) ? A[(size_t)ar * K + ak + q] : 0.0f;
    }
    const int bk = k0 + (t >> 5), bc = col0 + ((t & 31) << 2);
    if (VEC && bk < K && bc + 3 < N) {
        const float4 v = *reinterpret_cast<const float4 *>(B + (size_t)bk * N + bc);
        rb[0] = v.x; rb[1] = v.y; rb[2] = v.z; rb[3] = v.w;
    } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) rb[q] = (bk < K && bc + q < N) ? B[(size_t)bk * N + bc + q] : 0.0f;
    }
}

__device__ __forceinline__ void ks_rt_store(float (*As)[KS_RT_BM + KS_RT_APAD], float (*Bs)[KS_RT_BN], const float ra[4],
                                            const float rb[4])
{
    const int t = threadIdx.x;
    const int ar = t >> 1, ak = (t & 1) << 2;
#pragma unroll
    for (int q = 0; q < 4; ++q) As[ak + q][ar] = ra[q];
    *reinterpret_cast<float4 *>(&Bs[t >> 5][(t & 31) << 2]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
}

template <bool VEC>
__global__ void __launch_bounds__(KS_RT_THREADS, 2) ks_mm_regtile_kernel(const float *__restrict__ A,
                                                                         const float *__restrict__ B,
                                                                         float *__restrict__ C, int M, int N,
                                                                         int K, ks_matmul_tile_rec *rec)
{
    __shared__ __align__(16) float As[2][KS_RT_BK][KS_RT_BM + KS_RT_APAD];
    __shared__ __align__(16) float Bs[2][KS_RT_BK][KS_RT_BN];
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    const int row0 = blockIdx.y * KS_RT_BM, col0 = blockIdx.x * KS_RT_BN;
    float acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = 0.0f;

    float ra[4], rb[4];
    ks_rt_load<VEC>(A, B, M, N, K, row0, col0, 0, ra, rb);
    ks_rt_store(As[0], Bs[0], ra, rb);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += KS_RT_BK) {
        const int more = k0 + KS_RT_BK < K;
        if (more) ks_rt_load<VEC>(A, B, M, N, K, row0, col0, k0 + KS_RT_BK, ra, rb);
#pragma unroll
        for (int kk = 0; kk < KS_RT_BK; ++kk) {
            float a[8], b[8];
            const float4 a0 = *reinterpret_cast<const float4 *>(&As[buf][kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&As[buf][kk][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][64 + tx * 4]);
            a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
            a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
            b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
            b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }
        if (more) {
            ks_rt_store(As[buf ^ 1], Bs[buf ^ 1], ra, rb);
            __syncthreads();
            buf ^= 1;
        }
    }
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        const int i = row0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4);
        if (i >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int j = col0 + h * 64 + tx * 4;
            float *dst = C + (size_t)i * N + j;
            if (VEC && j + 3 < N) {
                *reinterpret_cast<float4 *>(dst) =
                    make_float4(acc[r][h * 4], acc[r][h * 4 + 1], acc[r][h * 4 + 2], acc[r][h * 4 + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (j + q < N) dst[q] = acc[r][h * 4 + q];
            }
        }
    }
    ks_mm_record(rec);
}

/* ---- the launches ---- */

ks_status ks_matmul_launch_ours(ks_matmul_variant v, int tile, const float *A, const float *B, float *C,
                                const ks_matmul_size *s, ks_matmul_tile_rec *rec, cudaStream_t stream)
{
    const int M = s->m, N = s->n, K = s->k;
    switch (v) {
    case KS_MATMUL_NAIVE: {
        const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
        ks_mm_naive_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K, rec);
        break;
    }
    case KS_MATMUL_TILED: {
        const dim3 block(tile, tile), grid((N + tile - 1) / tile, (M + tile - 1) / tile);
        if (tile == 8) tiled_launch<8>(grid, block, stream, A, B, C, M, N, K, rec);
        else if (tile == 16) tiled_launch<16>(grid, block, stream, A, B, C, M, N, K, rec);
        else tiled_launch<32>(grid, block, stream, A, B, C, M, N, K, rec);
        break;
    }
    case KS_MATMUL_REGTILE: {
        const dim3 grid((N + KS_RT_BN - 1) / KS_RT_BN, (M + KS_RT_BM - 1) / KS_RT_BM);
        if (K % 4 == 0 && N % 4 == 0)
            ks_mm_regtile_kernel<true><<<grid, KS_RT_THREADS, 0, stream>>>(A, B, C, M, N, K, rec);
        else
            ks_mm_regtile_kernel<false><<<grid, KS_RT_THREADS, 0, stream>>>(A, B, C, M, N, K, rec);
        break;
    }
    default: return ks_fail(KS_ERR_INVALID, "matmul: no kernel of ours for variant %d", (int)v);
    }
    return KS_OK;
}
