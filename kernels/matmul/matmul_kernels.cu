/* The course's matmul kernels and their launches (matmul_launch.h): naive and
 * tiled (T = 8, 16, 32), each block recording who computed its tile of C and
 * when (ks_mm_record). regtile is matmul_regtile.cu; the context that runs
 * them, cuBLAS and the pictures are matmul_gpu.cu. */
#include <stdint.h>

#include "base/ks_error.h"
#include "matmul_launch.h"

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
    default: return ks_fail(KS_ERR_INVALID, "matmul: no course kernel for variant %d", (int)v);
    }
    return KS_OK;
}
