/* Laplace on CUDA, the optimised variants:
 *   regq   3D: each thread owns V consecutive i of one row j and marches a
 *          chunk of k planes, keeping k-1, k, k+1 in registers; launched over
 *          interior rows and planes only (the only boundary test left is the
 *          i = 0 / nx-1 lane select). V = 4 (float4) when rows are 16-byte
 *          aligned (nx % 4 == 0), else V = 1.
 *   vec2d  2D: the same idea one dimension down, marching a chunk of rows.
 *   tblock 3D: T Jacobi steps per launch. A block is an xy tile including a
 *          halo of T points; it marches in k and computes time level t of
 *          plane s-t at step s, each level's newest plane kept in shared
 *          memory (double-buffered) and its k-1, k, k+1 column in registers.
 *          Only the tile's inner (bx-2T) x (by-2T) points are written.
 * All arithmetic goes through ks_stencil6/4 (gold order, no contraction). */
#include <stdint.h>

#include "laplace_launch.h"

static unsigned ks_fdiv_up(long long a, long long b) { return (unsigned)((a + b - 1) / b); }

/* How to cut a marched axis of `span` planes/rows into chunks. Each group of
 * `group` chunks costs `unit` blocks; `cap` blocks are resident at once.
 * Picks the chunk length that maximises (blocks / blocks the waves could
 * hold) x (chunk / (chunk + halo)): a tail wave idles SMs, short chunks
 * re-read `halo` planes each. */
static int ks_pick_chunk(int span, long long unit, int group, long long cap, int halo, int min_len)
{
    if (cap < 1) cap = 1;
    int best_len = span;
    double best = -1.0;
    const long long max_groups = (span + group - 1) / group;
    for (long long g = 1; g <= max_groups && g <= 8192; ++g) {
        long long len = (span + g * group - 1) / (g * group);
        if (len < min_len && g > 1) break;
        const long long chunks = (span + len - 1) / len;
        const long long blocks = unit * ((chunks + group - 1) / group);
        const long long waves = (blocks + cap - 1) / cap;
        const double score = (double)blocks / (double)(waves * cap) * (double)len / (double)(len + halo);
        if (score > best + 1e-9) best = score, best_len = (int)len;
    }
    return best_len;
}

static long long ks_resident_blocks(const void *fn, int threads, size_t smem, const cudaDeviceProp *p)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess)
        per_sm = 1;
    return (long long)(per_sm < 1 ? 1 : per_sm) * p->multiProcessorCount;
}

/* ================= regq (3D) ================= */

template <int V>
__global__ void __launch_bounds__(1024)
    jacobi3d_regq_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                         int nz, int kchunk)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i0 >= nx || j > ny - 2) return;
    const int kbeg = 1 + blockIdx.z * kchunk;
    const int kend = min(kbeg + kchunk, nz - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    size_t ind = (size_t)i0 + (size_t)j * sy + (size_t)kbeg * sz;
    if (V == 1) {
        if (i0 == 0 || i0 == nx - 1) return;
        float zm = u1[ind - sz], c = u1[ind];
#pragma unroll 4
        for (int k = kbeg; k < kend; ++k, ind += sz) {
            const float zp = u1[ind + sz];
            u2[ind] = ks_stencil6(u1[ind - 1], u1[ind + 1], u1[ind - sy], u1[ind + sy], zm, zp);
            zm = c;
            c = zp;
        }
    } else {
        const bool first = i0 == 0, last = i0 + 4 == nx;
        float4 zm = *(const float4 *)(u1 + ind - sz);
        float4 c = *(const float4 *)(u1 + ind);
#pragma unroll 4
        for (int k = kbeg; k < kend; ++k, ind += sz) {
            const float4 zp = *(const float4 *)(u1 + ind + sz);
            const float4 ym = *(const float4 *)(u1 + ind - sy);
            const float4 yp = *(const float4 *)(u1 + ind + sy);
            const float xl = first ? 0.0f : u1[ind - 1];
            const float xr = last ? 0.0f : u1[ind + 4];
            float4 r;
            r.x = first ? c.x : ks_stencil6(xl, c.y, ym.x, yp.x, zm.x, zp.x);
            r.y = ks_stencil6(c.x, c.z, ym.y, yp.y, zm.y, zp.y);
            r.z = ks_stencil6(c.y, c.w, ym.z, yp.z, zm.z, zp.z);
            r.w = last ? c.w : ks_stencil6(c.z, xr, ym.w, yp.w, zm.w, zp.w);
            *(float4 *)(u2 + ind) = r;
            zm = c;
            c = zp;
        }
    }
}

ks_status ks_llaunch_regq(const ks_lsweep *sw)
{
    const int *b = sw->block;
    if (sw->block[2] != 1) {
        char txt[64];
        ks_lblock_text(sw->block, txt, sizeof txt);
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: regq takes a 2D block (bx x by)", txt);
    }
    const int threads = b[0] * b[1];
    KS_TRY(ks_lcheck_block_limits(sw, threads, 0));
    const ks_grid *g = sw->grid;
    const int vec = (g->nx % 4 == 0) ? 4 : 1;
    const void *fn = vec == 4 ? (const void *)jacobi3d_regq_kernel<4>
                              : (const void *)jacobi3d_regq_kernel<1>;
    if (sw->attrs) KS_TRY(ks_lfill_attrs(fn, threads, 0, sw->prop, sw->attrs));
    if (sw->dry_run) return KS_OK;
    const unsigned gx = ks_fdiv_up(ks_fdiv_up(g->nx, vec), b[0]);
    const unsigned gy = ks_fdiv_up(g->ny - 2, b[1]);
    if (gy > (unsigned)sw->prop->maxGridSize[1])
        return ks_fail(KS_ERR_UNSUPPORTED, "grid needs %u blocks in y; %s allows %d", gy,
                       sw->prop->name, sw->prop->maxGridSize[1]);
    const int kchunk = ks_pick_chunk(g->nz - 2, (long long)gx * gy, 1,
                                     ks_resident_blocks(fn, threads, 0, sw->prop), 2, 16);
    const unsigned gz = ks_fdiv_up(g->nz - 2, kchunk);
    dim3 block(b[0], b[1]), grid(gx, gy, gz);
    if (vec == 4)
        jacobi3d_regq_kernel<4><<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx, g->ny,
                                                                 g->nz, kchunk);
    else
        jacobi3d_regq_kernel<1><<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx, g->ny,
                                                                 g->nz, kchunk);
    KS_CUDA_TRY_LAUNCH("jacobi3d_regq_kernel");
    return KS_OK;
}

/* ================= vec2d (2D) ================= */

template <int V>
__global__ void __launch_bounds__(1024)
    jacobi2d_vec_rowmarch_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                                 int ny, int jchunk)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int jbeg = 1 + (blockIdx.y * blockDim.y + threadIdx.y) * jchunk;
    if (i0 >= nx || jbeg > ny - 2) return;
    const int jend = min(jbeg + jchunk, ny - 1);
    const size_t sy = (size_t)nx;
    size_t ind = (size_t)i0 + (size_t)jbeg * sy;
    if (V == 1) {
        if (i0 == 0 || i0 == nx - 1) return;
        float ym = u1[ind - sy], c = u1[ind];
#pragma unroll 4
        for (int j = jbeg; j < jend; ++j, ind += sy) {
            const float yp = u1[ind + sy];
            u2[ind] = ks_stencil4(u1[ind - 1], u1[ind + 1], ym, yp);
            ym = c;
            c = yp;
        }
    } else {
        const bool first = i0 == 0, last = i0 + 4 == nx;
        float4 ym = *(const float4 *)(u1 + ind - sy);
        float4 c = *(const float4 *)(u1 + ind);
#pragma unroll 4
        for (int j = jbeg; j < jend; ++j, ind += sy) {
            const float4 yp = *(const float4 *)(u1 + ind + sy);
            const float xl = first ? 0.0f : u1[ind - 1];
            const float xr = last ? 0.0f : u1[ind + 4];
            float4 r;
            r.x = first ? c.x : ks_stencil4(xl, c.y, ym.x, yp.x);
            r.y = ks_stencil4(c.x, c.z, ym.y, yp.y);
            r.z = ks_stencil4(c.y, c.w, ym.z, yp.z);
            r.w = last ? c.w : ks_stencil4(c.z, xr, ym.w, yp.w);
            *(float4 *)(u2 + ind) = r;
            ym = c;
            c = yp;
        }
    }
}

ks_status ks_llaunch_vec2d(const ks_lsweep *sw)
{
    const int *b = sw->block;
    if (sw->block[2] != 1) {
        char txt[64];
        ks_lblock_text(sw->block, txt, sizeof txt);
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: vec2d takes a 2D block (bx x by)", txt);
    }
    const int threads = b[0] * b[1];
    KS_TRY(ks_lcheck_block_limits(sw, threads, 0));
    const ks_grid *g = sw->grid;
    const int vec = (g->nx % 4 == 0) ? 4 : 1;
    const void *fn = vec == 4 ? (const void *)jacobi2d_vec_rowmarch_kernel<4>
                              : (const void *)jacobi2d_vec_rowmarch_kernel<1>;
    if (sw->attrs) KS_TRY(ks_lfill_attrs(fn, threads, 0, sw->prop, sw->attrs));
    if (sw->dry_run) return KS_OK;
    const long long xthreads = ks_fdiv_up(g->nx, vec);
    const unsigned gx = ks_fdiv_up(xthreads, b[0]);
    const int jchunk = ks_pick_chunk(g->ny - 2, gx, b[1],
                                     ks_resident_blocks(fn, threads, 0, sw->prop), 2, 16);
    const unsigned marchers_y = ks_fdiv_up(g->ny - 2, jchunk);
    const unsigned gy = ks_fdiv_up(marchers_y, b[1]);
    if (gy > (unsigned)sw->prop->maxGridSize[1])
        return ks_fail(KS_ERR_UNSUPPORTED, "grid needs %u blocks in y; %s allows %d", gy,
                       sw->prop->name, sw->prop->maxGridSize[1]);
    dim3 block(b[0], b[1]), grid(gx, gy);
    if (vec == 4)
        jacobi2d_vec_rowmarch_kernel<4><<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx,
                                                                         g->ny, jchunk);
    else
        jacobi2d_vec_rowmarch_kernel<1><<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx,
                                                                         g->ny, jchunk);
    KS_CUDA_TRY_LAUNCH("jacobi2d_vec_rowmarch_kernel");
    return KS_OK;
}

/* ================= tblock (3D, T steps per launch) ================= */

enum { KS_TBLOCK_MAX_STEPS = 6 };

/* Block (bx, by) = tile with a halo of T; block z = a chunk of output planes
 * [k0, k1). Step s loads level 0 of plane s and computes level t of plane
 * s-t for t = 1..T (level T goes to global memory). Level t's values at
 * points the tile cannot update (tile edge, outside the grid) are stale
 * copies; they only reach points within distance t of the tile edge, and
 * only points at distance >= T are written. Shared memory: [T][2][bx*by]. */
template <int T>
__global__ void __launch_bounds__(1024)
    jacobi3d_tblock_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                           int nz, int kchunk)
{
    extern __shared__ float ks_tb_planes[];
    const int bx = blockDim.x, by = blockDim.y, plane = bx * by;
    const int tx = threadIdx.x, ty = threadIdx.y, me = tx + ty * bx;
    const int i = blockIdx.x * (bx - 2 * T) + tx - T;
    const int j = blockIdx.y * (by - 2 * T) + ty - T;
    const bool inside = i >= 0 && i < nx && j >= 0 && j < ny;
    /* copies its own value at every level: boundary column, outside, or no
     * neighbours inside the tile */
    const bool copy_ij = !inside || i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || tx == 0 ||
                         tx == bx - 1 || ty == 0 || ty == by - 1;
    const bool writer = !copy_ij && tx >= T && tx < bx - T && ty >= T && ty < by - T;
    const int ic = min(max(i, 0), nx - 1), jc = min(max(j, 0), ny - 1);
    const size_t sz = (size_t)nx * (size_t)ny;
    const size_t col = (size_t)ic + (size_t)jc * (size_t)nx;
    const int k0 = 1 + blockIdx.z * kchunk, k1 = min(k0 + kchunk, nz - 1);

    float q[T][3]; /* level t's column: planes p-2, p-1, p after it produced p */
#pragma unroll
    for (int t = 0; t < T; ++t) q[t][0] = q[t][1] = q[t][2] = 0.0f;

    const int s_begin = max(0, k0 - T), s_end = k1 - 1 + T, load_end = min(nz - 1, k1 - 1 + T);
    /* level-0 loads run one step ahead so their latency hides behind the
     * T levels of the current step */
    const float *src = u1 + col + (size_t)s_begin * sz;
    float ahead = *src;
    for (int s = s_begin; s <= s_end; ++s) {
        if (s <= load_end) {
            const float v = ahead;
            if (s < load_end) {
                src += sz;
                ahead = *src;
            }
            q[0][0] = q[0][1];
            q[0][1] = q[0][2];
            q[0][2] = v;
            ks_tb_planes[(s & 1) * plane + me] = v;
        }
        __syncthreads();
#pragma unroll
        for (int t = 1; t <= T; ++t) {
            const int p = s - t;
            const int lo = max(0, k0 - T + t), hi = min(nz - 1, k1 - 1 + T - t);
            if (p >= lo && p <= hi) {
                float v;
                if (p == nz - 1) {
                    v = q[t - 1][2]; /* level t-1 produced no plane beyond it */
                } else if (p == 0 || copy_ij) {
                    v = q[t - 1][1];
                } else {
                    const float *sp = ks_tb_planes + ((t - 1) * 2 + (p & 1)) * plane;
                    v = ks_stencil6(sp[me - 1], sp[me + 1], sp[me - bx], sp[me + bx], q[t - 1][0],
                                    q[t - 1][2]);
                }
                if (t < T) {
                    q[t][0] = q[t][1];
                    q[t][1] = q[t][2];
                    q[t][2] = v;
                    ks_tb_planes[(t * 2 + (p & 1)) * plane + me] = v;
                } else if (writer && p >= k0 && p < k1) {
                    u2[col + (size_t)p * sz] = v;
                }
            }
            if (t < T) __syncthreads();
        }
        if (T == 1) __syncthreads(); /* next level-0 store reuses the slot just read */
    }
}

static const void *ks_tblock_fn(int steps)
{
    switch (steps) {
    case 1: return (const void *)jacobi3d_tblock_kernel<1>;
    case 2: return (const void *)jacobi3d_tblock_kernel<2>;
    case 3: return (const void *)jacobi3d_tblock_kernel<3>;
    case 4: return (const void *)jacobi3d_tblock_kernel<4>;
    case 5: return (const void *)jacobi3d_tblock_kernel<5>;
    case 6: return (const void *)jacobi3d_tblock_kernel<6>;
    default: return NULL;
    }
}

ks_status ks_llaunch_tblock(const ks_lsweep *sw)
{
    const int *b = sw->block;
    const int T = sw->steps;
    char txt[64];
    ks_lblock_text(sw->block, txt, sizeof txt);
    if (T < 1 || T > KS_TBLOCK_MAX_STEPS)
        return ks_fail(KS_ERR_UNSUPPORTED, "tblock: %d steps per launch; 1..%d are built", T,
                       KS_TBLOCK_MAX_STEPS);
    if (b[2] != 1)
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: tblock takes a 2D block (bx x by)", txt);
    const int threads = b[0] * b[1];
    const size_t smem = (size_t)T * 2 * (size_t)(b[0] > 0 ? b[0] : 0) *
                        (size_t)(b[1] > 0 ? b[1] : 0) * sizeof(float);
    KS_TRY(ks_lcheck_block_limits(sw, threads, smem));
    if (b[0] <= 2 * T || b[1] <= 2 * T)
        return ks_fail(KS_ERR_UNSUPPORTED,
                       "block %s: tblock needs bx and by > %d (a halo of %d on each side for %d "
                       "steps per launch)",
                       txt, 2 * T, T, T);
    const void *fn = ks_tblock_fn(T);
    if (smem > 48 * 1024)
        KS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (sw->attrs) KS_TRY(ks_lfill_attrs(fn, threads, smem, sw->prop, sw->attrs));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    const unsigned gx = ks_fdiv_up(g->nx - 1, b[0] - 2 * T);
    const unsigned gy = ks_fdiv_up(g->ny - 1, b[1] - 2 * T);
    if (gy > (unsigned)sw->prop->maxGridSize[1])
        return ks_fail(KS_ERR_UNSUPPORTED, "grid needs %u blocks in y; %s allows %d", gy,
                       sw->prop->name, sw->prop->maxGridSize[1]);
    /* each chunk recomputes about 2T planes of halo in k */
    int per_sm = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem));
    if (per_sm < 1)
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: tblock cannot be resident on %s", txt,
                       sw->prop->name);
    const int kchunk = ks_pick_chunk(g->nz - 2, (long long)gx * gy, 1,
                                     (long long)per_sm * sw->prop->multiProcessorCount, 2 * T, 4 * T);
    const unsigned gz = ks_fdiv_up(g->nz - 2, kchunk);
    dim3 block(b[0], b[1]), grid(gx, gy, gz);
    void *args[] = {(void *)&sw->in, (void *)&sw->out, (void *)&g->nx, (void *)&g->ny,
                    (void *)&g->nz, (void *)&kchunk};
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, smem, sw->stream));
    KS_CUDA_TRY_LAUNCH("jacobi3d_tblock_kernel");
    return KS_OK;
}
