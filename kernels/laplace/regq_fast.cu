/* Candidates for regq (regq_fast.h). */
#include "regq_fast.h"

#include <stdint.h>
#include <string.h>

#include "laplace_launch.h" /* ks_stencil6_x4: the gold's rounding order */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KS_LRQ_HAVE_HINTS 1
#else
#define KS_LRQ_HAVE_HINTS 0
#endif

/* A float4 load with an L2 eviction policy (sm_80 and later; a plain load before). */
__device__ __forceinline__ float4 ks_lrq_load(const float *p, unsigned long long policy, bool hinted)
{
#if KS_LRQ_HAVE_HINTS
    if (hinted) {
        float4 r;
        asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(p), "l"(policy));
        return r;
    }
#else
    (void)policy;
    (void)hinted;
#endif
    return *reinterpret_cast<const float4 *>(p);
}

/* The regq float4 body (laplace_fast.cu's jacobi3d_regq_vec_body) with:
 * CS    streaming stores (st.global.cs: out is not read again in this launch);
 * HINT  the chunk's first two planes (k0 - 1, k0: the chunk below read them
 *       first) loaded evict-first, its last two (read again by the chunk
 *       above) evict-last;
 * PIPE  plane k + 2 loaded while plane k is computed (two planes of the march
 *       in flight instead of one). */
template <bool CS, bool HINT, bool PIPE>
__device__ __forceinline__ void ks_lrq_body(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                                            int nz, int kchunk)
{
    const unsigned wmask = __activemask(); /* converged here: the warp's existing lanes */
    const int lane = (int)((threadIdx.y * blockDim.x + threadIdx.x) & 31u);
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const bool live = i0 < nx && j <= ny - 2;
    const bool shl = lane > 0 && threadIdx.x > 0;
    const bool shr = lane < 31 && threadIdx.x + 1 < blockDim.x && (wmask >> (lane + 1) & 1u);
    const int kbeg = 1 + blockIdx.z * kchunk;
    const int kend = min(kbeg + kchunk, nz - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    size_t ind = (size_t)min(i0, nx - 4) + (size_t)min(j, ny - 2) * sy + (size_t)kbeg * sz;
    const bool first = i0 == 0, last = i0 + 4 >= nx;
    unsigned long long pol_first = 0, pol_last = 0;
#if KS_LRQ_HAVE_HINTS
    if (HINT) {
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol_first));
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol_last));
    }
#endif
    float4 zm = ks_lrq_load(u1 + ind - sz, pol_first, HINT);
    float4 c = ks_lrq_load(u1 + ind, pol_first, HINT);
    float4 zp = PIPE ? ks_lrq_load(u1 + ind + sz, pol_last, HINT && kbeg + 1 >= kend - 1) : c;
    for (int k = kbeg; k < kend; ++k, ind += sz) {
        float4 znext = zp;
        if (PIPE) {
            if (k + 2 <= kend) znext = ks_lrq_load(u1 + ind + 2 * sz, pol_last, HINT && k + 2 >= kend - 1);
        } else {
            zp = ks_lrq_load(u1 + ind + sz, pol_last, HINT && k + 1 >= kend - 1);
        }
        const float4 ym = *(const float4 *)(u1 + ind - sy);
        const float4 yp = *(const float4 *)(u1 + ind + sy);
        float xl = __shfl_up_sync(wmask, c.w, 1);
        float xr = __shfl_down_sync(wmask, c.x, 1);
        if (!shl && !first) xl = u1[ind - 1];
        if (!shr && !last) xr = u1[ind + 4];
        const float4 r = ks_stencil6_x4(xl, c, xr, ym, yp, zm, zp, first, last);
        if (live) {
            if (CS)
                __stcs(reinterpret_cast<float4 *>(u2 + ind), r);
            else
                *(float4 *)(u2 + ind) = r;
        }
        zm = c;
        c = zp;
        if (PIPE) zp = znext;
    }
}

/* MINB 0: no __launch_bounds__, as regq (with __launch_bounds__(1024) ptxas spends
 * more registers: laplace_fast.cu). MINB > 0: at most 256 threads a block, MINB
 * blocks resident per SM (the register cap that follows). */
template <int MINB, bool CS, bool HINT, bool PIPE>
__global__ void ks_lrq_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny, int nz, int kchunk)
{
    ks_lrq_body<CS, HINT, PIPE>(u1, u2, nx, ny, nz, kchunk);
}

/* 8 x 256 threads fill an SM of sm_80 and sm_90; sm_86 / sm_89 hold 1536 threads, sm_75 1024 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KS_LRQ_CAP_BLOCKS 4
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ > 800 && __CUDA_ARCH__ < 900
#define KS_LRQ_CAP_BLOCKS 6
#else
#define KS_LRQ_CAP_BLOCKS 8
#endif

template <bool CS, bool HINT, bool PIPE>
__global__ void __launch_bounds__(256, KS_LRQ_CAP_BLOCKS)
    ks_lrq_kernel_cap8(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny, int nz, int kchunk)
{
    ks_lrq_body<CS, HINT, PIPE>(u1, u2, nx, ny, nz, kchunk);
}

typedef void (*ks_lrq_fn)(const float *, float *, int, int, int, int);

template <int MINB, bool CS, bool HINT, bool PIPE>
static constexpr ks_lrq_fn ks_lrq_entry()
{
    if constexpr (MINB > 0)
        return ks_lrq_kernel_cap8<CS, HINT, PIPE>;
    else
        return ks_lrq_kernel<0, CS, HINT, PIPE>;
}

/* X(name, summary, MINB (0 or 8), CS, HINT, PIPE) */
#define KS_LRQ_KINDS(X)                                                                                     \
    X("ref", "regq as in laplace_fast.cu (chunk a parameter)", 0, false, false, false)                       \
    X("cs", "streaming stores", 0, true, false, false)                                                       \
    X("hint", "L2 evict-first / evict-last on the chunk's re-read planes", 0, false, true, false)            \
    X("cs_hint", "streaming stores and the L2 hints", 0, true, true, false)                                  \
    X("pipe", "plane k + 2 loaded while k is computed", 0, false, false, true)                               \
    X("pipe_cs", "plane k + 2 early and streaming stores", 0, true, false, true)                             \
    X("occ8", "register cap for 8 blocks of 256 per SM (full occupancy)", 8, false, false, false)            \
    X("occ8_cs", "register cap for full occupancy, streaming stores", 8, true, false, false)                 \
    X("occ8_pipe", "register cap for full occupancy, plane k + 2 early", 8, false, false, true)

#define KS_LRQ_ROW(name, summary, minb, cs, hint, pipe) {name, summary, minb ? 256 : 1024},
static const ks_lrq_kind ks_lrq_kinds[] = {KS_LRQ_KINDS(KS_LRQ_ROW)};
#undef KS_LRQ_ROW
#define KS_LRQ_FN(name, summary, minb, cs, hint, pipe) ks_lrq_entry<minb, cs, hint, pipe>(),
static const ks_lrq_fn ks_lrq_fns[] = {KS_LRQ_KINDS(KS_LRQ_FN)};
#undef KS_LRQ_FN
enum { KS_LRQ_COUNT = (int)(sizeof ks_lrq_kinds / sizeof ks_lrq_kinds[0]) };

int ks_lrq_count(void) { return KS_LRQ_COUNT; }

const ks_lrq_kind *ks_lrq_get(int i) { return i >= 0 && i < KS_LRQ_COUNT ? &ks_lrq_kinds[i] : NULL; }

int ks_lrq_find(const char *name)
{
    for (int i = 0; i < KS_LRQ_COUNT; ++i)
        if (strcmp(ks_lrq_kinds[i].name, name) == 0) return i;
    return -1;
}

static ks_status lrq_check_block(int i, int bx, int by)
{
    if (i < 0 || i >= KS_LRQ_COUNT) return ks_fail(KS_ERR_INVALID, "regq candidates: no candidate %d", i);
    if (bx < 1 || by < 1 || bx * by > ks_lrq_kinds[i].max_threads)
        return ks_fail(KS_ERR_INVALID, "regq candidate %s: block %dx%d (at most %d threads)", ks_lrq_kinds[i].name, bx,
                       by, ks_lrq_kinds[i].max_threads);
    return KS_OK;
}

ks_status ks_lrq_attrs(int i, int bx, int by, int *regs, int *local_bytes, int *blocks_per_sm)
{
    KS_TRY(lrq_check_block(i, bx, by));
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)ks_lrq_fns[i]));
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, (const void *)ks_lrq_fns[i], bx * by, 0));
    *regs = fa.numRegs;
    *local_bytes = (int)fa.localSizeBytes;
    return KS_OK;
}

ks_status ks_lrq_run(int i, const float *in, float *out, int nx, int ny, int nz, int bx, int by, int kchunk,
                     void *stream)
{
    KS_TRY(lrq_check_block(i, bx, by));
    if (nx < 4 || nx % 4 != 0 || ny < 3 || nz < 3 || kchunk < 1)
        return ks_fail(KS_ERR_INVALID, "regq candidates: grid %dx%dx%d, chunk %d (nx a multiple of 4)", nx, ny, nz,
                       kchunk);
    if (((uintptr_t)in | (uintptr_t)out) & 15u)
        return ks_fail(KS_ERR_INVALID, "regq candidates: fields must be 16-byte aligned");
    const unsigned gx = (unsigned)ks_fdiv_up(nx / 4, bx);
    const unsigned gy = (unsigned)ks_fdiv_up(ny - 2, by);
    const unsigned gz = (unsigned)ks_fdiv_up(nz - 2, kchunk);
    if (gy > 65535 || gz > 65535)
        return ks_fail(KS_ERR_UNSUPPORTED, "regq candidates: grid of %u x %u x %u blocks", gx, gy, gz);
    ks_lrq_fns[i]<<<dim3(gx, gy, gz), dim3(bx, by), 0, (cudaStream_t)stream>>>(in, out, nx, ny, nz, kchunk);
    KS_CUDA_TRY_LAUNCH("regq candidate");
    return KS_OK;
}
