/* Laplace on CUDA, the optimised variants:
 *   regq   3D: each thread owns V consecutive i of one row j and marches a
 *          short chunk of k planes, keeping k-1, k, k+1 in registers;
 *          x-neighbours by warp shuffle; launched over interior rows and
 *          planes only (the only boundary test left is the i = 0 / nx-1
 *          lane select). V = 4 (float4) when rows are 16-byte aligned
 *          (nx % 4 == 0), else V = 1.
 *   vec2d  2D: each thread owns V x points of R rows, all loads issued up
 *          front; the 1D grid streams bands of rows, x tiles fastest.
 * (tblock, T steps per launch, is in laplace_tblock.cu.)
 * All arithmetic goes through ks_stencil6/4 (gold order, no contraction). */
#include <stdint.h>

#include "laplace_launch.h"

long long ks_resident_blocks(const void *fn, int threads, size_t smem, const cudaDeviceProp *p)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess)
        per_sm = 1;
    return (long long)(per_sm < 1 ? 1 : per_sm) * p->multiProcessorCount;
}

/* Register cap for vec2d blocks of <= 256 threads: MINB resident blocks per SM
 * (an experiment switch, docs/laplace-perf.md). 0 = no capped instantiation. */
#ifndef KS_LAPLACE_MINB
#define KS_LAPLACE_MINB 0
#endif
#define KS_CAP_MINB(M) ((M) ? (M) : 1)

/* regq's register cap (float4 rows, blocks of <= 256 threads): as many blocks of
 * 256 as the SM holds threads, so the SM is full (sm_80 and sm_90: 8 -> 32
 * registers; sm_86 / sm_89 hold 1536 threads: 6; sm_75 1024: 4). Measured on an
 * H200 (tests/laplace/perf_regq, ncu): 32 registers and no spill, warps active
 * 89 % against 66 % at the 40 registers uncapped, DRAM reads 1.00 x the model,
 * T_eff/T_peak 0.979 at 512^3 and 0.953 at 1024^3 against 0.949 and 0.925. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KS_REGQ_CAP_BLOCKS 4
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ > 800 && __CUDA_ARCH__ < 900
#define KS_REGQ_CAP_BLOCKS 6
#else
#define KS_REGQ_CAP_BLOCKS 8
#endif

/* ================= regq (3D) ================= */

enum { KS_REGQ_PLANES = 4 }; /* planes marched per thread, float4 path */

/* regq, scalar rows (nx % 4 != 0) */
static __device__ __forceinline__ void jacobi3d_regq_scalar_body(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                                                                 int ny, int nz, int kchunk)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i == 0 || i >= nx - 1 || j > ny - 2) return;
    const int kbeg = 1 + blockIdx.z * kchunk;
    const int kend = min(kbeg + kchunk, nz - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    size_t ind = (size_t)i + (size_t)j * sy + (size_t)kbeg * sz;
    float zm = u1[ind - sz], c = u1[ind];
#pragma unroll 4
    for (int k = kbeg; k < kend; ++k, ind += sz) {
        const float zp = u1[ind + sz];
        u2[ind] = ks_stencil6(u1[ind - 1], u1[ind + 1], u1[ind - sy], u1[ind + sy], zm, zp);
        zm = c;
        c = zp;
    }
}

/* regq, float4 rows: every thread of the block runs the loop (no early exit)
 * so the x-neighbours can come from the lane beside it by shuffle; a lane
 * whose x-neighbour is not the thread beside it in the warp (row edge of the
 * block, warp edge, partial last warp) loads it instead. Threads past the
 * grid work on clamped addresses and store nothing. */
static __device__ __forceinline__ void jacobi3d_regq_vec_body(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
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
    float4 zm = *(const float4 *)(u1 + ind - sz);
    float4 c = *(const float4 *)(u1 + ind);
    for (int k = kbeg; k < kend; ++k, ind += sz) {
        const float4 zp = *(const float4 *)(u1 + ind + sz);
        const float4 ym = *(const float4 *)(u1 + ind - sy);
        const float4 yp = *(const float4 *)(u1 + ind + sy);
        float xl = __shfl_up_sync(wmask, c.w, 1);
        float xr = __shfl_down_sync(wmask, c.x, 1);
        if (!shl && !first) xl = u1[ind - 1];
        if (!shr && !last) xr = u1[ind + 4];
        const float4 r = ks_stencil6_x4(xl, c, xr, ym, yp, zm, zp, first, last);
        if (live) *(float4 *)(u2 + ind) = r;
        zm = c;
        c = zp;
    }
}

template <int V>
static __device__ __forceinline__ void jacobi3d_regq_any_body(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                         int nz, int kchunk)
{
    if (V == 4)
        jacobi3d_regq_vec_body(u1, u2, nx, ny, nz, kchunk);
    else
        jacobi3d_regq_scalar_body(u1, u2, nx, ny, nz, kchunk);
}

/* No __launch_bounds__(1024) here: with it ptxas spends 50 registers on the
 * float4 body instead of 40 (occupancy 0.5 instead of 0.75, measured 6-8%
 * slower); 40 registers still allow 1024-thread blocks. Runs scalar rows, and
 * float4 rows in blocks of more than 256 threads. */
template <int V>
__global__ void jacobi3d_regq_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny, int nz, int kchunk)
{
    jacobi3d_regq_any_body<V>(u1, u2, nx, ny, nz, kchunk);
}

/* float4 rows in blocks of <= 256 threads (the default 32x8 and every faster
 * block measured): KS_REGQ_CAP_BLOCKS of them resident per SM. */
__global__ void __launch_bounds__(256, KS_REGQ_CAP_BLOCKS)
    jacobi3d_regq_capped_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny, int nz, int kchunk)
{
    jacobi3d_regq_vec_body(u1, u2, nx, ny, nz, kchunk);
}

ks_status ks_llaunch_regq(const ks_lsweep *sw)
{
    const int *b = sw->block;
    KS_TRY(ks_lneed_2d_block(sw, "regq"));
    const int threads = b[0] * b[1];
    const ks_grid *g = sw->grid;
    const int vec = (g->nx % 4 == 0) ? 4 : 1;
    const bool capped = vec == 4 && threads <= 256;
    const void *fn = capped     ? (const void *)jacobi3d_regq_capped_kernel
                     : vec == 4 ? (const void *)jacobi3d_regq_kernel<4>
                                : (const void *)jacobi3d_regq_kernel<1>;
    KS_TRY(ks_lcheck_kernel(sw, fn, "regq", threads, 0));
    if (sw->dry_run) return KS_OK;
    const unsigned gx = ks_fdiv_up(ks_fdiv_up(g->nx, vec), b[0]);
    const unsigned gy = ks_fdiv_up(g->ny - 2, b[1]);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    /* float4 rows: short chunks, measured (perf_stream, docs/laplace-perf.md
     * run 6a): the blocks resident at once then share a band of a few planes,
     * and the chunk-edge planes they re-read are still in L2 */
    const int kchunk = vec == 4 ? KS_REGQ_PLANES
                                : ks_pick_chunk(g->nz - 2, (long long)gx * gy, 1,
                                                ks_resident_blocks(fn, threads, 0, sw->prop), 2, 16);
    const unsigned gz = ks_fdiv_up(g->nz - 2, kchunk);
    KS_TRY(ks_lcheck_grid_dim(sw, 2, gz));
    dim3 block(b[0], b[1]), grid(gx, gy, gz);
    void *args[] = {(void *)&sw->in, (void *)&sw->out, (void *)&g->nx, (void *)&g->ny,
                    (void *)&g->nz, (void *)&kchunk};
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, 0, sw->stream));
    KS_CUDA_TRY_LAUNCH("jacobi3d_regq_kernel");
    return KS_OK;
}

/* ================= vec2d (2D) ================= */

/* Rows per thread. Each thread issues all its loads (R + 2 rows and the x
 * edges) before any arithmetic, and the 1D grid runs x tiles fastest, so the
 * resident blocks stream one band of rows: measured 0.98-1.0 x T_peak where
 * marching long row chunks gave 0.89 (perf_stream, docs run 6a). R = 2 beat
 * R = 1 (more row re-reads) and R = 4, 8 (fewer threads per band). */
enum { KS_VEC2D_ROWS = 2 };

/* Thread (tx, ty) of block b owns V x points of rows
 * [1 + (band by + ty) R, + R), band = b / xtiles. */
template <int V>
static __device__ __forceinline__ void jacobi2d_vec_band_body(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                                                             int ny, unsigned xtiles)
{
    constexpr int R = KS_VEC2D_ROWS;
    const unsigned xt = blockIdx.x % xtiles, band = blockIdx.x / xtiles;
    const int i0 = (int)(xt * blockDim.x + threadIdx.x) * V;
    const long long jb = 1 + ((long long)band * blockDim.y + threadIdx.y) * R;
    if (i0 >= nx || jb > ny - 2) return;
    const int jbeg = (int)jb;
    const size_t sy = (size_t)nx;
    if (V == 1) {
        if (i0 == 0 || i0 == nx - 1) return;
        float v[R + 2], xl[R], xr[R];
#pragma unroll
        for (int r = 0; r < R + 2; ++r) v[r] = u1[(size_t)i0 + (size_t)min(jbeg - 1 + r, ny - 1) * sy];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const size_t ind = (size_t)i0 + (size_t)min(jbeg + r, ny - 1) * sy;
            xl[r] = u1[ind - 1];
            xr[r] = u1[ind + 1];
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
            if (jbeg + r <= ny - 2)
                u2[(size_t)i0 + (size_t)(jbeg + r) * sy] = ks_stencil4(xl[r], xr[r], v[r], v[r + 2]);
    } else {
        const bool first = i0 == 0, last = i0 + 4 == nx;
        float4 v[R + 2];
        float xl[R], xr[R];
#pragma unroll
        for (int r = 0; r < R + 2; ++r)
            v[r] = *(const float4 *)(u1 + (size_t)i0 + (size_t)min(jbeg - 1 + r, ny - 1) * sy);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const size_t ind = (size_t)i0 + (size_t)min(jbeg + r, ny - 1) * sy;
            xl[r] = first ? 0.0f : u1[ind - 1];
            xr[r] = last ? 0.0f : u1[ind + 4];
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (jbeg + r > ny - 2) break;
            const float4 ym = v[r], c = v[r + 1], yp = v[r + 2];
            const float4 o = ks_stencil4_x4(xl[r], c, xr[r], ym, yp, first, last);
            *(float4 *)(u2 + (size_t)i0 + (size_t)(jbeg + r) * sy) = o;
        }
    }
}

template <int V>
__global__ void __launch_bounds__(1024) jacobi2d_vec_band_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny, unsigned xtiles)
{
    jacobi2d_vec_band_body<V>(u1, u2, nx, ny, xtiles);
}

/* capped: blocks of <= 256 threads, KS_LAPLACE_MINB of them resident per SM */
template <int V>
__global__ void __launch_bounds__(256, KS_CAP_MINB(KS_LAPLACE_MINB))
    jacobi2d_vec_band_capped_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny, unsigned xtiles)
{
    jacobi2d_vec_band_body<V>(u1, u2, nx, ny, xtiles);
}

ks_status ks_llaunch_vec2d(const ks_lsweep *sw)
{
    const int *b = sw->block;
    KS_TRY(ks_lneed_2d_block(sw, "vec2d"));
    const int threads = b[0] * b[1];
    const ks_grid *g = sw->grid;
    const int vec = (g->nx % 4 == 0) ? 4 : 1;
    const bool capped = KS_LAPLACE_MINB > 0 && vec == 4 && threads <= 256;
    const void *fn = capped     ? (const void *)jacobi2d_vec_band_capped_kernel<4>
                     : vec == 4 ? (const void *)jacobi2d_vec_band_kernel<4>
                                : (const void *)jacobi2d_vec_band_kernel<1>;
    KS_TRY(ks_lcheck_kernel(sw, fn, "vec2d", threads, 0));
    if (sw->dry_run) return KS_OK;
    const long long xtiles = ks_fdiv_up(ks_fdiv_up(g->nx, vec), b[0]);
    const long long bands = ks_fdiv_up(g->ny - 2, (long long)b[1] * KS_VEC2D_ROWS);
    const long long blocks = xtiles * bands;
    if (blocks > sw->prop->maxGridSize[0])
        return ks_fail(KS_ERR_UNSUPPORTED, "grid needs %lld blocks; %s allows %d", blocks,
                       sw->prop->name, sw->prop->maxGridSize[0]);
    const unsigned xt = (unsigned)xtiles;
    dim3 block(b[0], b[1]), grid((unsigned)blocks);
    void *args[] = {(void *)&sw->in, (void *)&sw->out, (void *)&g->nx, (void *)&g->ny, (void *)&xt};
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, 0, sw->stream));
    KS_CUDA_TRY_LAUNCH("jacobi2d_vec_band_kernel");
    return KS_OK;
}
