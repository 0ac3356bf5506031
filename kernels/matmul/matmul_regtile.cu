/* regtile: the register- and warp-tiled FP32 SGEMM, C = A * B, row-major, in
 * the tile shapes of matmul_tiles.h (one template instance each). Plain FP32:
 * one fmaf per product, no tensor cores, no TF32, so C is bit for bit the
 * CPU gold's on the scene's exact inputs.
 *
 * Each block computes a BM x BN tile of C from BK-wide slices of A and B held
 * in two shared-memory buffers; each warp a WM x WN part of it; each thread
 * TM x TN elements in registers, as (TM/4) x (TN/4) 4x4 pieces spread across
 * the warp tile so that a warp's shared-memory reads are 128-byte rows (no
 * bank conflicts). A's slice is stored transposed (k-major) through registers,
 * with a skew that keeps both the stores and the 16-byte reads free of bank
 * conflicts; B's slice is copied with cp.async (sm_80 and later; through
 * registers before). VEC: K and N multiples of 4 (16-byte rows); the any-shape
 * instance loads and stores element by element, edges zero-filled and masked.
 * Each block's thread 0 records its tile (ks_mm_record) after its stores. */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"
#include "matmul_launch.h"

/* ---- asynchronous copies (sm_80 and later); the register path elsewhere ---- */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KS_RT_HAVE_CP_ASYNC 1
#else
#define KS_RT_HAVE_CP_ASYNC 0
#endif

/* 16 bytes global -> shared, zero-filled when !valid (src is then not read). */
__device__ __forceinline__ void ks_rt_cp_async16(float *dst, const float *src, bool valid)
{
#if KS_RT_HAVE_CP_ASYNC
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
#else
    (void)dst;
    (void)src;
    (void)valid;
#endif
}

__device__ __forceinline__ void ks_rt_cp_async_wait_all()
{
#if KS_RT_HAVE_CP_ASYNC
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* Four consecutive floats of a row from p (element e0 of the row at p), those at or past
 * limit as 0: one 16-byte load (VEC: the row is 16-byte aligned and the four are all in or
 * all out), else one by one. */
template <bool VEC>
__device__ __forceinline__ float4 ks_rt_load4(const float *p, int e0, int limit, bool row_ok)
{
    if (VEC) return row_ok && e0 < limit ? __ldg(reinterpret_cast<const float4 *>(p)) : make_float4(0.f, 0.f, 0.f, 0.f);
    float4 v;
    v.x = row_ok && e0 < limit ? __ldg(p) : 0.0f;
    v.y = row_ok && e0 + 1 < limit ? __ldg(p + 1) : 0.0f;
    v.z = row_ok && e0 + 2 < limit ? __ldg(p + 2) : 0.0f;
    v.w = row_ok && e0 + 3 < limit ? __ldg(p + 3) : 0.0f;
    return v;
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
template <int BM, int BN, int BK, int WM, int WN, int TR, int MI, int NI, int THREADS, int MINB, bool VEC>
__global__ void __launch_bounds__(THREADS, MINB)
    ks_mm_rt_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K,
                    ks_matmul_tile_rec *rec)
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
    constexpr bool kAsync = VEC && KS_RT_HAVE_CP_ASYNC; /* cp.async needs 16-byte aligned rows */

    extern __shared__ float4 ks_rt_dyn[];
    float *const As = reinterpret_cast<float *>(ks_rt_dyn); /* [2][BK][BMP] */
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
    const int b_col = col0 + b_q * 4;
    const float *b_src = B + (size_t)b_k * N + (b_col < N ? b_col : 0);
    const size_t b_lstep = (size_t)B_KSTEP * N;
    const int b_st = b_k * BN + b_q * 4;

    float4 ra[A_LOADS];
    float4 rb[kAsync ? 1 : B_LOADS];
    (void)rb;
    /* Slice s (k0 = s BK): A's float4 into ra; B's by cp.async into buffer buf, or into rb. */
    auto load = [&](int k0, int buf) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l)
            ra[l] = ks_rt_load4<VEC>(a_src + l * a_lstep + k0, k0 + a_kq * 4, K, row0 + a_m + l * A_RSTEP < M);
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const bool k_ok = k0 + b_k + l * B_KSTEP < K;
            const float *src = k_ok ? b_src + l * b_lstep + (size_t)k0 * N : B;
            if (kAsync)
                ks_rt_cp_async16(Bs + buf * BK * BN + b_st + l * B_KSTEP * BN, src, k_ok && b_col < N);
            else
                rb[kAsync ? 0 : l] = ks_rt_load4<VEC>(src, b_col, N, k_ok);
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
            ks_rt_cp_async_wait_all();
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
                float *dst = C + (size_t)row * N + col;
                const float4 v = make_float4(acc[4 * i + r][4 * j], acc[4 * i + r][4 * j + 1],
                                             acc[4 * i + r][4 * j + 2], acc[4 * i + r][4 * j + 3]);
                if (VEC) {
                    if (col < N) *reinterpret_cast<float4 *>(dst) = v;
                } else {
                    if (col < N) dst[0] = v.x;
                    if (col + 1 < N) dst[1] = v.y;
                    if (col + 2 < N) dst[2] = v.z;
                    if (col + 3 < N) dst[3] = v.w;
                }
            }
        }
    ks_mm_record(rec); /* after every barrier of the block: the others end a few instructions later */
}

typedef void (*ks_rt_fn)(const float *, const float *, float *, int, int, int, ks_matmul_tile_rec *);

#define KS_RT_FN(name, BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, VEC)                                    \
    ks_mm_rt_kernel<BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, (VEC) != 0>,
static const ks_rt_fn ks_rt_fns[] = {KS_MM_RT_CONFIGS(KS_RT_FN)};
#undef KS_RT_FN

static size_t ks_rt_smem(const ks_matmul_rt_config *c)
{
    return (size_t)2 * c->bk * (c->bm + 32 + c->bn) * sizeof(float); /* As rows padded by 32 (the skew) */
}

ks_status ks_matmul_rt_prepare(void)
{
    if ((int)(sizeof ks_rt_fns / sizeof ks_rt_fns[0]) != ks_matmul_rt_count())
        return ks_fail(KS_ERR_INVALID, "matmul: %d regtile kernels for %d shapes", (int)(sizeof ks_rt_fns / sizeof ks_rt_fns[0]),
                       ks_matmul_rt_count());
    for (int i = 0; i < ks_matmul_rt_count(); ++i) {
        const size_t smem = ks_rt_smem(ks_matmul_rt_get(i));
        if (smem > 48 * 1024)
            KS_CUDA_TRY(cudaFuncSetAttribute((const void *)ks_rt_fns[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
    }
    return KS_OK;
}

ks_status ks_matmul_rt_attrs_get(int i, ks_matmul_rt_attrs *out)
{
    const ks_matmul_rt_config *c = ks_matmul_rt_get(i);
    if (!c) return ks_fail(KS_ERR_INVALID, "matmul: no regtile shape %d", i);
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)ks_rt_fns[i]));
    int per_sm = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)ks_rt_fns[i], c->threads,
                                                              ks_rt_smem(c)));
    out->regs = fa.numRegs;
    out->local_bytes = (int)fa.localSizeBytes;
    out->smem_bytes = (int)ks_rt_smem(c);
    out->blocks_per_sm = per_sm;
    out->warps_per_sm = per_sm * c->threads / 32;
    return KS_OK;
}

ks_status ks_matmul_rt_run(int i, const float *A, const float *B, float *C, const ks_matmul_size *s,
                           ks_matmul_tile_rec *rec, cudaStream_t stream)
{
    const ks_matmul_rt_config *cf = ks_matmul_rt_get(i);
    if (!cf) return ks_fail(KS_ERR_INVALID, "matmul: no regtile shape %d", i);
    if (cf->vec && !ks_matmul_rt_vec_ok(s))
        return ks_fail(KS_ERR_UNSUPPORTED, "matmul: regtile %s needs K and N multiples of 4 (%dx%dx%d)", cf->name, s->m,
                       s->n, s->k);
    if (cf->vec && (((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) & 15u))
        return ks_fail(KS_ERR_UNSUPPORTED, "matmul: regtile %s needs A, B and C at 16-byte aligned addresses", cf->name);
    const dim3 grid((unsigned)((s->n + cf->bn - 1) / cf->bn), (unsigned)((s->m + cf->bm - 1) / cf->bm));
    if (grid.y > 65535) return ks_fail(KS_ERR_UNSUPPORTED, "matmul: M = %d needs more than 65535 block rows", s->m);
    ks_rt_fns[i]<<<grid, cf->threads, ks_rt_smem(cf), stream>>>(A, B, C, s->m, s->n, s->k, rec);
    KS_CUDA_TRY_LAUNCH("regtile");
    return KS_OK;
}

ks_status ks_matmul_rt_tune(const float *A, const float *B, float *C, const ks_matmul_size *s, cudaStream_t stream,
                            ks_matmul_rt_choice *out)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    ks_status st = KS_OK;
    int best = -1, timed = 0;
    float best_ms = 0.0f;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        st = ks_fail(KS_ERR_CUDA, "matmul: regtile tune: cannot create events");
    for (int i = 0; i < ks_matmul_rt_count() && st == KS_OK; ++i) {
        if (!ks_matmul_rt_get(i)->vec) continue; /* the any-shape instance is for shapes the others refuse */
        /* one launch to warm up (module load, clocks), then the best of two timed */
        float ms = -1.0f;
        st = ks_matmul_rt_run(i, A, B, C, s, NULL, stream);
        for (int k = 0; k < 2 && st == KS_OK; ++k) {
            float once = 0.0f;
            cudaError_t e = cudaEventRecord(e0, stream);
            if (e == cudaSuccess) st = ks_matmul_rt_run(i, A, B, C, s, NULL, stream);
            if (st == KS_OK && e == cudaSuccess) e = cudaEventRecord(e1, stream);
            if (st == KS_OK && e == cudaSuccess) e = cudaEventSynchronize(e1);
            if (st == KS_OK && e == cudaSuccess) e = cudaEventElapsedTime(&once, e0, e1);
            if (st == KS_OK && e != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "matmul: regtile tune: %s", cudaGetErrorString(e));
            if (st == KS_OK && (ms < 0.0f || once < ms)) ms = once;
        }
        if (st == KS_OK) {
            ++timed;
            if (best < 0 || ms < best_ms) {
                best = i;
                best_ms = ms;
            }
        }
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (st == KS_OK && best < 0) st = ks_fail(KS_ERR_INVALID, "matmul: regtile tune: no shape to time");
    if (st == KS_OK) {
        memset(out, 0, sizeof *out);
        out->config = best;
        out->how = KS_MM_RT_TUNED;
        out->tuned_ms = best_ms;
        out->tuned_of = timed;
    }
    return st;
}
