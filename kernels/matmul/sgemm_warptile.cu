/* Register- and warp-tiled FP32 SGEMM in several tile shapes (sgemm_warptile.h). */
#include "sgemm_warptile.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/cuda_check.h"

/* ---- asynchronous copies (sm_80 and later); the register path elsewhere ---- */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KS_WT_HAVE_CP_ASYNC 1
#else
#define KS_WT_HAVE_CP_ASYNC 0
#endif

/* 16 bytes global -> shared, zero-filled when !valid (src is then not read). */
__device__ __forceinline__ void ks_wt_cp_async16(float *dst, const float *src, bool valid)
{
#if KS_WT_HAVE_CP_ASYNC
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
#else
    (void)dst;
    (void)src;
    (void)valid;
#endif
}

__device__ __forceinline__ void ks_wt_cp_async_wait_all()
{
#if KS_WT_HAVE_CP_ASYNC
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* ---- the kernel ----
 * Block: BM x BN of C, THREADS threads = (BM / WM) x (BN / WN) warps. A warp's
 * 32 lanes are TR rows x TC columns; lane (tr, tc) owns rows
 * wm0 + i (WM / MI) + tr 4 + {0..3} (i < MI) and columns
 * wn0 + j (WN / NI) + tc 4 + {0..3} (j < NI): at each k a warp reads TR and TC
 * consecutive float4 of the two slices, whole 128-byte rows at most.
 * Shared memory: As[2][BK][BM + 32] (A's slice transposed, k-major) and
 * Bs[2][BK][BN]. Row k of As starts (k / 4) (32 / (BK / 4)) floats late: the
 * lanes of a warp that store one k-row of a slice (32 / (BK / 4) rows of A, a
 * float4 of k each) then hit 32 different banks, and the reads stay 16-byte
 * aligned and contiguous, at offsets fixed at compile time.
 * One __syncthreads per slice: the next slice's A comes into registers and its
 * B into the other buffer (cp.async) while this one is multiplied. */
template <int BM, int BN, int BK, int WM, int WN, int TR, int MI, int NI, int THREADS, int MINB, bool ASYNC>
__global__ void __launch_bounds__(THREADS, MINB)
    ks_mm_wt_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
                    int K)
{
    constexpr int TC = 32 / TR;
    constexpr int TM = 4 * MI, TN = 4 * NI;
    constexpr int WARPS_N = BN / WN;
    constexpr int KQ = BK / 4;                 /* float4 per row of A's slice */
    constexpr int A_LOADS = BM * KQ / THREADS; /* float4 of A per thread per slice */
    constexpr int A_RSTEP = THREADS / KQ;      /* rows between a thread's A loads */
    constexpr int BQ = BN / 4;                 /* float4 per row of B's slice */
    constexpr int B_LOADS = BK * BQ / THREADS;
    constexpr int B_KSTEP = THREADS / BQ;      /* k rows between a thread's B loads */
    constexpr int SKEW = 32 / KQ;              /* As row k starts (k / 4) SKEW late */
    constexpr int BMP = BM + 32;               /* As row pitch */
    static_assert(TR * TC == 32, "a warp is TR x TC lanes");
    static_assert(WM == MI * TR * 4 && WN == NI * TC * 4, "warp tile = pieces x lanes x 4");
    static_assert((BM / WM) * (BN / WN) * 32 == THREADS, "one warp per warp tile");
    static_assert(A_LOADS * THREADS == BM * KQ && B_LOADS * THREADS == BK * BQ, "whole loads per thread");
    static_assert(THREADS % KQ == 0 && THREADS % BQ == 0, "a thread's loads share their k / column");
    static_assert(KQ == 2 || KQ == 4 || KQ == 8, "BK is 8, 16 or 32");
    static_assert(BM % 32 == 0, "the skew cycles within 32 banks");
    constexpr bool kAsync = ASYNC && KS_WT_HAVE_CP_ASYNC;

    extern __shared__ float4 ks_wt_dyn[];
    float *const As = reinterpret_cast<float *>(ks_wt_dyn); /* [2][BK][BMP] */
    float *const Bs = As + 2 * BK * BMP;                    /* [2][BK][BN] */

    const int t = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    /* This thread's loads: A float4 l is row a_m + l A_RSTEP, k 4 a_kq of the
     * slice; B float4 l is k row b_k + l B_KSTEP, columns 4 b_q.. */
    const int a_kq = t % KQ, a_m = t / KQ;
    const float *a_src = A + (size_t)(row0 + a_m < M ? row0 + a_m : 0) * K + a_kq * 4;
    const size_t a_lstep = (size_t)A_RSTEP * K;
    const int a_st = a_kq * (4 * BMP + SKEW) + a_m; /* k = 4 a_kq: row start, skew, column */
    const int b_q = t % BQ, b_k = t / BQ;
    const bool b_col_ok = col0 + b_q * 4 < N;
    const float *b_src = B + (size_t)b_k * N + (b_col_ok ? col0 + b_q * 4 : 0);
    const size_t b_lstep = (size_t)B_KSTEP * N;
    const int b_st = b_k * BN + b_q * 4;

    float4 ra[A_LOADS];
    float4 rb[kAsync ? 1 : B_LOADS];
    (void)rb;
    /* Slice s (k0 = s BK): A's float4 into ra; B's by cp.async into buffer buf, or into rb. */
    auto load = [&](int k0, int buf) {
        const bool a_k_ok = k0 + a_kq * 4 < K;
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const bool ok = a_k_ok && row0 + a_m + l * A_RSTEP < M;
            ra[l] = ok ? __ldg(reinterpret_cast<const float4 *>(a_src + l * a_lstep + k0))
                       : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const bool ok = b_col_ok && k0 + b_k + l * B_KSTEP < K;
            const float *src = ok ? b_src + l * b_lstep + (size_t)k0 * N : B;
            if (kAsync)
                ks_wt_cp_async16(Bs + buf * BK * BN + b_st + l * B_KSTEP * BN, src, ok);
            else
                rb[kAsync ? 0 : l] =
                    ok ? __ldg(reinterpret_cast<const float4 *>(src)) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
    };
    /* ra (and rb) into buffer buf; B's cp.async of that slice waited for. */
    auto store = [&](int buf) {
        float *as = As + buf * BK * BMP + a_st;
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            as[l * A_RSTEP] = ra[l].x;
            as[l * A_RSTEP + BMP] = ra[l].y;
            as[l * A_RSTEP + 2 * BMP] = ra[l].z;
            as[l * A_RSTEP + 3 * BMP] = ra[l].w;
        }
        if (kAsync) {
            ks_wt_cp_async_wait_all();
        } else {
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l)
                *reinterpret_cast<float4 *>(Bs + buf * BK * BN + b_st + l * B_KSTEP * BN) = rb[kAsync ? 0 : l];
        }
    };

    /* This thread's place in the block tile. */
    const int warp = t >> 5, lane = t & 31;
    const int wr = warp / WARPS_N, wc = warp % WARPS_N;
    const int tr = lane / TC, tc = lane % TC;
    const int a_rd = wr * WM + tr * 4; /* + i (WM / MI): row piece i */
    const int b_rd = wc * WN + tc * 4; /* + j (WN / NI): column piece j */

    float acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = 0.0f;

    load(0, 0);
    store(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) load(k0 + BK, buf ^ 1);
        const float *as = As + buf * BK * BMP + a_rd;
        const float *bs = Bs + buf * BK * BN + b_rd;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < MI; ++i) {
                const float4 v = *reinterpret_cast<const float4 *>(as + kk * BMP + (kk / 4) * SKEW + i * (WM / MI));
                a[4 * i] = v.x;
                a[4 * i + 1] = v.y;
                a[4 * i + 2] = v.z;
                a[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < NI; ++j) {
                const float4 v = *reinterpret_cast<const float4 *>(bs + kk * BN + j * (WN / NI));
                b[4 * j] = v.x;
                b[4 * j + 1] = v.y;
                b[4 * j + 2] = v.z;
                b[4 * j + 3] = v.w;
            }
#pragma unroll
            for (int r = 0; r < TM; ++r)
#pragma unroll
                for (int c = 0; c < TN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }
        if (more) store(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = row0 + a_rd + i * (WM / MI) + r;
            if (row >= M) continue;
#pragma unroll
            for (int j = 0; j < NI; ++j) {
                const int col = col0 + b_rd + j * (WN / NI);
                if (col < N)
                    *reinterpret_cast<float4 *>(C + (size_t)row * N + col) =
                        make_float4(acc[4 * i + r][4 * j], acc[4 * i + r][4 * j + 1], acc[4 * i + r][4 * j + 2],
                                    acc[4 * i + r][4 * j + 3]);
            }
        }
}

/* ---- the table: one row per instance ----
 * X(name, BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, ASYNC) */
#define KS_WT_CONFIGS(X)                                                                                     \
    X("128x128x8/64x32/8x8", 128, 128, 8, 64, 32, 8, 2, 2, 256, 2, true)                                       \
    X("128x128x16/64x32/8x8", 128, 128, 16, 64, 32, 8, 2, 2, 256, 2, true)                                     \
    X("128x128x16/32x64/8x8", 128, 128, 16, 32, 64, 4, 2, 2, 256, 2, true)                                     \
    X("128x128x16/64x32/8x8/regB", 128, 128, 16, 64, 32, 8, 2, 2, 256, 2, false)                               \
    X("128x256x16/64x64/8x16", 128, 256, 16, 64, 64, 8, 2, 4, 256, 1, true)                                    \
    X("256x128x16/64x64/16x8", 256, 128, 16, 64, 64, 4, 4, 2, 256, 1, true)                                    \
    X("128x128x16/64x64/8x16", 128, 128, 16, 64, 64, 8, 2, 4, 128, 2, true)                                    \
    X("128x128x8/64x64/8x16", 128, 128, 8, 64, 64, 8, 2, 4, 128, 2, true)                                      \
    X("128x64x16/64x32/8x8", 128, 64, 16, 64, 32, 8, 2, 2, 128, 3, true)                                       \
    X("64x64x16/32x64/8x8", 64, 64, 16, 32, 64, 4, 2, 2, 64, 8, true)

typedef void (*ks_wt_fn)(const float *, const float *, float *, int, int, int);

#define KS_WT_ROW(name, BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, ASYNC)                                  \
    {name, BM, BN, BK, WM, WN, 4 * MI, 4 * NI, THREADS, MINB, ASYNC ? 1 : 0},
static const ks_matmul_wt_config ks_wt_configs[] = {KS_WT_CONFIGS(KS_WT_ROW)};
#undef KS_WT_ROW

#define KS_WT_FN(name, BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, ASYNC)                                   \
    ks_mm_wt_kernel<BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, ASYNC>,
static const ks_wt_fn ks_wt_fns[] = {KS_WT_CONFIGS(KS_WT_FN)};
#undef KS_WT_FN

enum { KS_WT_COUNT = (int)(sizeof ks_wt_configs / sizeof ks_wt_configs[0]) };

static size_t ks_wt_smem(const ks_matmul_wt_config *c)
{
    return (size_t)2 * c->bk * (c->bm + 32 + c->bn) * sizeof(float); /* As rows padded by 32 (the skew) */
}

extern "C" int ks_matmul_wt_count(void) { return KS_WT_COUNT; }

extern "C" const ks_matmul_wt_config *ks_matmul_wt_get(int i)
{
    return i >= 0 && i < KS_WT_COUNT ? &ks_wt_configs[i] : NULL;
}

extern "C" int ks_matmul_wt_find(const char *name)
{
    for (int i = 0; i < KS_WT_COUNT; ++i)
        if (strcmp(ks_wt_configs[i].name, name) == 0) return i;
    return -1;
}

extern "C" int ks_matmul_wt_supported(int m, int n, int k)
{
    return m > 0 && n > 0 && k > 0 && k % 4 == 0 && n % 4 == 0;
}

extern "C" ks_status ks_matmul_wt_prepare(void)
{
    for (int i = 0; i < KS_WT_COUNT; ++i) {
        const size_t smem = ks_wt_smem(&ks_wt_configs[i]);
        if (smem > 48 * 1024)
            KS_CUDA_TRY(cudaFuncSetAttribute((const void *)ks_wt_fns[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
    }
    return KS_OK;
}

extern "C" ks_status ks_matmul_wt_attrs_get(int i, ks_matmul_wt_attrs *out)
{
    if (i < 0 || i >= KS_WT_COUNT) return ks_fail(KS_ERR_INVALID, "sgemm: no config %d", i);
    const ks_matmul_wt_config *c = &ks_wt_configs[i];
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)ks_wt_fns[i]));
    int per_sm = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)ks_wt_fns[i], c->threads,
                                                              ks_wt_smem(c)));
    out->regs = fa.numRegs;
    out->local_bytes = (int)fa.localSizeBytes;
    out->smem_bytes = (int)ks_wt_smem(c);
    out->blocks_per_sm = per_sm;
    out->warps_per_sm = per_sm * c->threads / 32;
    return KS_OK;
}

extern "C" ks_status ks_matmul_wt_run(int i, const float *a, const float *b, float *c, int m, int n, int k,
                                      void *stream)
{
    if (i < 0 || i >= KS_WT_COUNT) return ks_fail(KS_ERR_INVALID, "sgemm: no config %d", i);
    if (!ks_matmul_wt_supported(m, n, k))
        return ks_fail(KS_ERR_UNSUPPORTED, "sgemm: %dx%dx%d needs K and N multiples of 4", m, n, k);
    if (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) & 15u)
        return ks_fail(KS_ERR_UNSUPPORTED, "sgemm: A, B and C must start at 16-byte aligned addresses");
    const ks_matmul_wt_config *cf = &ks_wt_configs[i];
    const dim3 grid((unsigned)((n + cf->bn - 1) / cf->bn), (unsigned)((m + cf->bm - 1) / cf->bm));
    if (grid.y > 65535) return ks_fail(KS_ERR_UNSUPPORTED, "sgemm: M = %d needs more than 65535 block rows", m);
    ks_wt_fns[i]<<<grid, cf->threads, ks_wt_smem(cf), (cudaStream_t)stream>>>(a, b, c, m, n, k);
    KS_CUDA_TRY_LAUNCH("sgemm");
    return KS_OK;
}

/* Measured on the GPU (scripts/perf-issue38.sh, tests/matmul/perf_sgemm): the fastest config per size
 * class, for a device by compute capability and SM count. Sizes are the cube root of m n k. Empty rows
 * until a run fills them; the heuristic below answers then. */
typedef struct ks_wt_measured {
    int cc, sms;
    int max_size; /* up to this size (inclusive) */
    const char *config;
} ks_wt_measured;
static const ks_wt_measured ks_wt_table[] = {{0, 0, 0, NULL}};

extern "C" int ks_matmul_wt_pick(int m, int n, int k, int sm_count, int cc)
{
    const double size = cbrt((double)m * (double)n * (double)k);
    for (size_t r = 0; r < sizeof ks_wt_table / sizeof ks_wt_table[0]; ++r) {
        const ks_wt_measured *w = &ks_wt_table[r];
        if (w->config && w->cc == cc && w->sms == sm_count && size <= w->max_size) {
            const int i = ks_matmul_wt_find(w->config);
            if (i >= 0) return i;
        }
    }
    /* Waves: the share of the SMs' block slots the last wave fills, for each
     * config with B through cp.async; ties go to the larger tile (more FMAs per
     * shared-memory read). */
    int best = 1;
    double best_score = -1.0;
    for (int i = 0; i < KS_WT_COUNT; ++i) {
        const ks_matmul_wt_config *c = &ks_wt_configs[i];
        if (!c->async_b) continue;
        const double tiles = (double)((m + c->bm - 1) / c->bm) * (double)((n + c->bn - 1) / c->bn);
        const double slots = (double)(sm_count > 0 ? sm_count : 1) * c->min_blocks;
        const double waves = ceil(tiles / slots);
        const double fill = tiles / (waves * slots);
        const double score = fill * (1.0 + 1e-6 * c->bm * c->bn);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return best;
}

extern "C" ks_status ks_matmul_wt_tune(const float *a, const float *b, float *c, int m, int n, int k, void *stream,
                                       int *best, double *best_ms)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    ks_status st = KS_OK;
    *best = -1;
    *best_ms = 0.0;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        st = ks_fail(KS_ERR_CUDA, "sgemm tune: cannot create events");
    }
    const cudaStream_t s = (cudaStream_t)stream;
    for (int i = 0; i < KS_WT_COUNT && st == KS_OK; ++i) {
        st = ks_matmul_wt_run(i, a, b, c, m, n, k, stream);
        float ms = 0.0f;
        cudaError_t e = st == KS_OK ? cudaEventRecord(e0, s) : cudaSuccess;
        if (st == KS_OK && e == cudaSuccess) st = ks_matmul_wt_run(i, a, b, c, m, n, k, stream);
        if (st == KS_OK && e == cudaSuccess) e = cudaEventRecord(e1, s);
        if (st == KS_OK && e == cudaSuccess) e = cudaEventSynchronize(e1);
        if (st == KS_OK && e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
        if (st == KS_OK && e != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "sgemm tune: %s", cudaGetErrorString(e));
        if (st == KS_OK && (*best < 0 || ms < *best_ms)) {
            *best = i;
            *best_ms = ms;
        }
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return st;
}
