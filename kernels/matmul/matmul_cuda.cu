/* Matmul kernels and their launchers (matmul.h): naive, tiled (T = 8, 16, 32),
 * regtile (128x128 block tile, 8x8 per thread, BK = 8, float4 loads where
 * aligned, double-buffered shared memory) and cuBLAS SGEMM in plain FP32. */
#include "kernels/common/ks_util.h"
#include "matmul.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/colormap.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_device.h"
#include "matmul_draw.h"
#include "matmul_user_launch.h"

#define KS_CUBLAS_TRY(call) KS_STATUS_TRY(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublasGetStatusString, call, #call)

struct ks_matmul_gpu {
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    cublasHandle_t blas;
    ks_matmul_size size;
    int have_size;
    float *a, *b, *c;
    size_t cap_a, cap_b, cap_c; /* elements */
    unsigned char *lut;         /* 256 x 4 */
    unsigned char *pal;         /* 256 x 4: the unit palette */
    int record;                 /* blocks write their records */
    ks_matmul_tile_rec *rec;    /* one per block of the last recorded run */
    size_t cap_rec;             /* records */
    int rec_count, rec_bt;      /* the last run's records (0: none, e.g. cuBLAS) and its block tile */
    unsigned long long *clock;  /* ks_matmul_gpu_clock's slot */
};

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

__global__ void ks_mm_clock_kernel(unsigned long long *out)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    *out = t;
}

/* ---- inputs ---- */

__global__ void ks_mm_fill_kernel(float *a, long long na, float *b, long long nb)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < na; e += stride)
        a[e] = (float)(e % 17 - 8) / 8.0f;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < nb; e += stride)
        b[e] = (float)(e % 13 - 6) / 4.0f;
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

/* ---- picture: mean of the cells under each pixel, tile grid over it ---- */

__global__ void ks_mm_draw_kernel(const float *__restrict__ C, int M, int N, int w, int h,
                                  const uchar4 *__restrict__ lut, float lo, float inv_span, int grid,
                                  uchar4 *__restrict__ out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const int row_pic = h - 1 - py; /* rows bottom-up: C's row 0 at the top */
    long long i0, i1, j0, j1;
    ks_matmul_cells(row_pic, M, h, &i0, &i1);
    ks_matmul_cells(px, N, w, &j0, &j1);
    double sum = 0.0;
    for (long long i = i0; i < i1; ++i)
        for (long long j = j0; j < j1; ++j) sum += C[i * N + j];
    const float mean = (float)(sum / (double)((i1 - i0) * (j1 - j0)));
    uchar4 col = lut[ks_colormap_index(mean, lo, inv_span)];
    if (grid > 0 && (ks_matmul_edge(row_pic, M, h, grid) || ks_matmul_edge(px, N, w, grid)))
        col = make_uchar4(255, 255, 255, 255);
    out[(size_t)py * w + px] = col;
}

/* ---- picture of the records: ks_matmul_tile_code, as the CPU's ---- */

__global__ void ks_mm_draw_tiles_kernel(const ks_matmul_tile_rec *__restrict__ rec, int M, int N, int bt, int edges,
                                        int pic, const uchar4 *__restrict__ table, unsigned long long first,
                                        float inv_span, int w, int h, uchar4 *__restrict__ out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const int code = ks_matmul_tile_code(px, h - 1 - py, M, N, w, h, bt, edges, rec, pic, first, inv_span);
    out[(size_t)py * w + px] = code == KS_MATMUL_TILE_EDGE   ? make_uchar4(20, 20, 20, 255)
                               : code == KS_MATMUL_TILE_NONE ? make_uchar4(96, 96, 96, 255)
                                                             : table[code];
}

/* ---- the hovered tile's bands over the picture drawn: ks_matmul_band_code, as the CPU's ---- */

__global__ void ks_mm_shade_bands_kernel(int M, int N, int w, int h, ks_matmul_band b, uchar4 *__restrict__ out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const int code = ks_matmul_band_code(px, h - 1 - py, M, N, w, h, b.i0, b.i1, b.j0, b.j1);
    if (code == KS_MATMUL_BAND_KEEP) return;
    uchar4 c = out[(size_t)py * w + px];
    unsigned char rgba[4] = {c.x, c.y, c.z, c.w};
    ks_matmul_band_shade(code, rgba);
    out[(size_t)py * w + px] = make_uchar4(rgba[0], rgba[1], rgba[2], rgba[3]);
}

/* ---- context ---- */

extern "C" void ks_matmul_gpu_destroy(ks_matmul_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    if (g->blas) cublasDestroy(g->blas);
    cudaFree(g->a);
    cudaFree(g->b);
    cudaFree(g->c);
    cudaFree(g->lut);
    cudaFree(g->pal);
    cudaFree(g->rec);
    cudaFree(g->clock);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

static ks_status gpu_init(ks_matmul_gpu *g)
{
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaEventCreate(&g->e0));
    KS_CUDA_TRY(cudaEventCreate(&g->e1));
    KS_CUDA_TRY(cudaMalloc(&g->lut, 256 * 4));
    KS_CUDA_TRY(cudaMalloc(&g->pal, 256 * 4));
    KS_CUDA_TRY(cudaMalloc(&g->clock, sizeof *g->clock));
    KS_CUBLAS_TRY(cublasCreate(&g->blas));
    KS_CUBLAS_TRY(cublasSetStream(g->blas, g->stream));
    /* Plain FP32: pedantic math forbids tensor cores, TF32 and reduced-precision tricks. */
    KS_CUBLAS_TRY(cublasSetMathMode(g->blas, CUBLAS_PEDANTIC_MATH));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_create(ks_matmul_gpu **out)
{
    *out = NULL;
    ks_device_info dev;
    KS_TRY(ks_cuda_probe(&dev));
    if (!dev.present) return ks_fail(KS_ERR_NO_DEVICE, "matmul: no CUDA device");
    ks_matmul_gpu *g = (ks_matmul_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: out of host memory");
    const ks_status st = gpu_init(g);
    if (st != KS_OK) {
        ks_matmul_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void *ks_matmul_gpu_stream(ks_matmul_gpu *g)
{
    return g ? (void *)g->stream : NULL;
}

static ks_status reserve(float **p, size_t *cap, size_t n, const char *what)
{
    if (*cap >= n) return KS_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    const cudaError_t err = cudaMalloc(p, n * sizeof(float));
    if (err != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return ks_fail(err == cudaErrorMemoryAllocation ? KS_ERR_OUT_OF_MEMORY : KS_ERR_CUDA,
                       "matmul: cannot allocate %s (%.1f MiB): %s", what, n * 4.0 / 1048576.0,
                       cudaGetErrorString(err));
    }
    *cap = n;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_setup(ks_matmul_gpu *g, const ks_matmul_size *s)
{
    KS_TRY(ks_matmul_size_check(s));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    g->have_size = 0;
    const size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
    KS_TRY(reserve(&g->a, &g->cap_a, na, "A"));
    KS_TRY(reserve(&g->b, &g->cap_b, nb, "B"));
    KS_TRY(reserve(&g->c, &g->cap_c, nc, "C"));
    ks_mm_fill_kernel<<<1024, 256, 0, g->stream>>>(g->a, (long long)na, g->b, (long long)nb);
    KS_CUDA_TRY_LAUNCH("fill");
    g->size = *s;
    g->have_size = 1;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_poison(ks_matmul_gpu *g)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    KS_CUDA_TRY(cudaMemsetAsync(g->c, 0xFF, (size_t)g->size.m * g->size.n * sizeof(float), g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_run(ks_matmul_gpu *g, ks_matmul_variant v, int tile)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    const int M = g->size.m, N = g->size.n, K = g->size.k;
    if (v == KS_MATMUL_TILED && tile != 8 && tile != 16 && tile != 32)
        return ks_fail(KS_ERR_INVALID, "matmul: tiled takes tile 8, 16 or 32, not %d", tile);
    /* records: one per block of this launch (none for cuBLAS) */
    ks_matmul_tile_rec *rec = NULL;
    g->rec_count = 0;
    if (g->record && v != KS_MATMUL_CUBLAS && v >= 0 && v < KS_MATMUL_NUM) {
        const int bt = ks_matmul_block_tile(v, tile);
        int tx, ty;
        ks_matmul_tile_grid(&g->size, bt, &tx, &ty);
        const size_t n = (size_t)tx * ty;
        if (g->cap_rec < n) {
            cudaFree(g->rec);
            g->rec = NULL;
            g->cap_rec = 0;
            KS_CUDA_TRY(cudaMalloc(&g->rec, n * sizeof *g->rec));
            g->cap_rec = n;
            KS_CUDA_TRY(cudaMemsetAsync(g->rec, 0, n * sizeof *g->rec, g->stream));
        }
        rec = g->rec;
        g->rec_count = (int)n;
        g->rec_bt = bt;
    }
    switch (v) {
    case KS_MATMUL_NAIVE: {
        const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
        ks_mm_naive_kernel<<<grid, block, 0, g->stream>>>(g->a, g->b, g->c, M, N, K, rec);
        break;
    }
    case KS_MATMUL_TILED: {
        const dim3 block(tile, tile), grid((N + tile - 1) / tile, (M + tile - 1) / tile);
        if (tile == 8) tiled_launch<8>(grid, block, g->stream, g->a, g->b, g->c, M, N, K, rec);
        else if (tile == 16) tiled_launch<16>(grid, block, g->stream, g->a, g->b, g->c, M, N, K, rec);
        else tiled_launch<32>(grid, block, g->stream, g->a, g->b, g->c, M, N, K, rec);
        break;
    }
    case KS_MATMUL_REGTILE: {
        const dim3 grid((N + KS_RT_BN - 1) / KS_RT_BN, (M + KS_RT_BM - 1) / KS_RT_BM);
        if (K % 4 == 0 && N % 4 == 0)
            ks_mm_regtile_kernel<true><<<grid, KS_RT_THREADS, 0, g->stream>>>(g->a, g->b, g->c, M, N, K, rec);
        else
            ks_mm_regtile_kernel<false><<<grid, KS_RT_THREADS, 0, g->stream>>>(g->a, g->b, g->c, M, N, K, rec);
        break;
    }
    case KS_MATMUL_CUBLAS: {
        /* cuBLAS is column-major: a row-major C (MxN) is a column-major C^T (NxM),
         * and C^T = B^T A^T with B^T the column-major view of B (N x K, ld N). */
        const float one = 1.0f, zero = 0.0f;
        KS_CUBLAS_TRY(cublasSgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, g->b, N, g->a, K, &zero,
                                  g->c, N));
        break;
    }
    default: return ks_fail(KS_ERR_INVALID, "matmul: unknown variant %d", (int)v);
    }
    KS_CUDA_TRY_LAUNCH("matmul");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_run_timed(ks_matmul_gpu *g, ks_matmul_variant v, int tile, double *ms)
{
    KS_CUDA_TRY(cudaEventRecord(g->e0, g->stream));
    KS_TRY(ks_matmul_gpu_run(g, v, tile));
    KS_CUDA_TRY(cudaEventRecord(g->e1, g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(g->e1));
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&f, g->e0, g->e1));
    *ms = f;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_time(ks_matmul_gpu *g, ks_matmul_variant v, int tile, int warmup, int reps,
                                        double *median_ms, double *min_ms)
{
    if (reps < 1) reps = 1;
    for (int r = 0; r < warmup; ++r) KS_TRY(ks_matmul_gpu_run(g, v, tile));
    double *ms = (double *)malloc((size_t)reps * sizeof *ms);
    if (!ms) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: out of host memory");
    ks_status st = KS_OK;
    for (int r = 0; r < reps && st == KS_OK; ++r) st = ks_matmul_gpu_run_timed(g, v, tile, &ms[r]);
    if (st == KS_OK) {
        *median_ms = ks_median_sort(ms, reps); /* sorts: ms[0] is the minimum */
        *min_ms = ms[0];
    }
    free(ms);
    return st;
}

extern "C" ks_status ks_matmul_gpu_download(ks_matmul_gpu *g, float *c)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    KS_CUDA_TRY(cudaMemcpyAsync(c, g->c, (size_t)g->size.m * g->size.n * sizeof(float), cudaMemcpyDeviceToHost,
                                g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_draw(ks_matmul_gpu *g, int w, int h, const unsigned char lut[256][4], float lo,
                                        float hi, int grid_tile, void *rgba)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    KS_CUDA_TRY(cudaMemcpyAsync(g->lut, lut, 256 * 4, cudaMemcpyHostToDevice, g->stream));
    const float inv = hi > lo ? 1.0f / (hi - lo) : 1.0f;
    const dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    ks_mm_draw_kernel<<<grid, block, 0, g->stream>>>(g->c, g->size.m, g->size.n, w, h, (const uchar4 *)g->lut, lo,
                                                      inv, grid_tile, (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("matmul draw");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_read(ks_matmul_gpu *g, int i, int j, float *value)
{
    if (!g->have_size || i < 0 || j < 0 || i >= g->size.m || j >= g->size.n)
        return ks_fail(KS_ERR_INVALID, "matmul: no element C[%d][%d]", i, j);
    KS_CUDA_TRY(cudaMemcpyAsync(value, g->c + (size_t)i * g->size.n + j, sizeof(float), cudaMemcpyDeviceToHost,
                                g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_set_record(ks_matmul_gpu *g, int on)
{
    g->record = on != 0;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_records(ks_matmul_gpu *g, ks_matmul_tile_rec *rec, int n, int *count)
{
    *count = g->rec_count;
    const int k = g->rec_count < n ? g->rec_count : n;
    if (k > 0)
        KS_CUDA_TRY(cudaMemcpyAsync(rec, g->rec, (size_t)k * sizeof *rec, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_clock(ks_matmul_gpu *g, unsigned long long *ns)
{
    ks_mm_clock_kernel<<<1, 1, 0, g->stream>>>(g->clock);
    KS_CUDA_TRY_LAUNCH("matmul clock");
    KS_CUDA_TRY(cudaMemcpyAsync(ns, g->clock, sizeof *ns, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_draw_tiles(ks_matmul_gpu *g, int bt, ks_matmul_picture pic,
                                              const unsigned char pal[256][4], const unsigned char lut[256][4],
                                              unsigned long long first, unsigned long long last, int w, int h,
                                              void *rgba)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    if (g->rec_count == 0 || bt != g->rec_bt)
        return ks_fail(KS_ERR_INVALID, "matmul: no records of block tile %d from the last run", bt);
    unsigned char *table = pic == KS_MATMUL_PIC_UNIT ? g->pal : g->lut;
    KS_CUDA_TRY(cudaMemcpyAsync(table, pic == KS_MATMUL_PIC_UNIT ? pal : lut, 256 * 4, cudaMemcpyHostToDevice,
                                g->stream));
    const float inv = ks_colormap_inv_span(0.0f, (float)(last - first));
    const int edges = ks_matmul_tile_edges(g->size.m, g->size.n, bt, w, h);
    const dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    ks_mm_draw_tiles_kernel<<<grid, block, 0, g->stream>>>(g->rec, g->size.m, g->size.n, bt, edges, (int)pic,
                                                           (const uchar4 *)table, first, inv, w, h,
                                                           (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("matmul draw tiles");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_shade_bands(ks_matmul_gpu *g, const ks_matmul_band *b, int w, int h, void *rgba)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    const dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    ks_mm_shade_bands_kernel<<<grid, block, 0, g->stream>>>(g->size.m, g->size.n, w, h, *b, (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("matmul shade bands");
    return KS_OK;
}

/* ---- a user's kernel (matmul_user.h) ---- */

extern "C" ks_status ks_matmul_gpu_run_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3])
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    g->rec_count = 0; /* a user's kernel keeps no per-block records */
    KS_TRY(ks_matmul_user_launch(u, block, g->a, g->b, g->c, &g->size, g->stream));
    KS_CUDA_TRY_LAUNCH("matmul (your kernel)");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_run_user_timed(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3],
                                                  double *ms)
{
    KS_CUDA_TRY(cudaEventRecord(g->e0, g->stream));
    KS_TRY(ks_matmul_gpu_run_user(g, u, block));
    KS_CUDA_TRY(cudaEventRecord(g->e1, g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(g->e1));
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&f, g->e0, g->e1));
    *ms = f;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_time_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3],
                                             int warmup, int reps, double *median_ms, double *min_ms)
{
    if (reps < 1) reps = 1;
    for (int r = 0; r < warmup; ++r) KS_TRY(ks_matmul_gpu_run_user(g, u, block));
    double *ms = (double *)malloc((size_t)reps * sizeof *ms);
    if (!ms) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: out of host memory");
    ks_status st = KS_OK;
    for (int r = 0; r < reps && st == KS_OK; ++r) st = ks_matmul_gpu_run_user_timed(g, u, block, &ms[r]);
    if (st == KS_OK) {
        *median_ms = ks_median_sort(ms, reps);
        *min_ms = ms[0];
    }
    free(ms);
    return st;
}
