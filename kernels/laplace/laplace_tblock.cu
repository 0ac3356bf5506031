/* Laplace on CUDA, the temporally blocked variant:
 *   tblock 3D: T Jacobi steps per launch. A block is an xy tile including a
 *          halo of T points; it marches in k and computes time level t of
 *          plane s-t at step s, each level's newest plane kept in shared
 *          memory (double-buffered) and its k-1, k, k+1 column in registers.
 *          Only the tile's inner (bx-2T) x (by-2T) points are written.
 * This file: the scalar kernel and the launcher; the vector path's kernel is
 * laplace_tblock_vec.cu. All arithmetic goes through ks_stencil6 (gold order,
 * no contraction). */
#include <stdint.h>
#include <string.h>

#include "laplace_tblock_internal.h"

/* Block (bx, by) = tile with a halo of T; block z = a chunk of output planes
 * [k0, k1). Step s loads level 0 of plane s and computes level t of plane
 * s-t for t = 1..T (level T goes to global memory). Level t's values at
 * points the tile cannot update (tile edge, outside the grid) are stale
 * copies; they only reach points within distance t of the tile edge, and
 * only points at distance >= T are written. Shared memory: [T][2][bx*by]. */
template <int T>
__global__ void __launch_bounds__(1024)
    jacobi3d_tblock_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                           int nz, tb_chunks chunks)
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
    int k0, k1;
    tb_chunk(chunks, &k0, &k1);
    const int signal_step = tb_low_signal_step(chunks, T);

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
        if (s == signal_step) tb_signal(chunks.signal);
    }
    if ((int)blockIdx.z < chunks.edges) tb_signal(chunks.signal);
}

static const void *tblock_fn(int steps)
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

/* The vector path takes block (32, W): W warps of 128 x R rows, 32 W <=
 * KS_TBV_MAX_THREADS, W R > 2T, and 2 planes x T levels of the tile in shared
 * memory (W R T KiB, + 256 B for the mbarriers). Otherwise, and on grids with
 * nx % 4 != 0, such a block runs the scalar kernel with a 32 x min(W R, 32)
 * tile, so a block is valid on any grid. */
static size_t tblock_vec_smem(int W, int T)
{
    return (size_t)2 * (size_t)W * KS_TBV_ROWS * (size_t)T * 32 * sizeof(float4);
}

/* Which tblock code the running binary holds, from the PTX version the driver
 * loaded the vector kernel from: a PTX-only compute_80 build JIT-compiled on a
 * Hopper GPU runs the sm_80 path, as it would on an A100. Asked once. */
typedef enum tblock_path { KS_TBP_SCALAR = 0, KS_TBP_CP_ASYNC, KS_TBP_HOPPER } tblock_path;

static tblock_path tblock_code_path(void)
{
    static int cached = -1;
    if (cached < 0) {
        cudaFuncAttributes a;
        if (cudaFuncGetAttributes(&a, ks_tblock_vec_fn(4)) != cudaSuccess) {
            (void)cudaGetLastError(); /* no device: the scalar path is the safe answer */
            return KS_TBP_SCALAR;
        }
        cached = a.ptxVersion >= 90 ? KS_TBP_HOPPER : a.ptxVersion >= 80 ? KS_TBP_CP_ASYNC : KS_TBP_SCALAR;
    }
    return (tblock_path)cached;
}

static const char *tblock_code_path_text(void)
{
    switch (tblock_code_path()) {
    case KS_TBP_HOPPER: return "sm_90 code: vector path, cp.async, split mbarrier waits (try_wait)";
    case KS_TBP_CP_ASYNC: return "sm_80 code: vector path, cp.async, split mbarrier waits (test_wait)";
    default: return "sm_75 code: scalar shared-memory path (no cp.async or mbarrier before sm_80)";
    }
}

extern "C" const char *ks_lvariant_code_path(int id)
{
    const ks_lvariant_info *v = ks_lvariant_get(id);
    return v && v->steps_per_launch > 1 ? tblock_code_path_text() : NULL;
}

static int tblock_vec_shape(const int b[3], int T, const cudaDeviceProp *p)
{
    return b[0] == 32 && b[1] >= 1 && b[2] == 1 && 32 * b[1] <= KS_TBV_MAX_THREADS &&
           b[1] * KS_TBV_ROWS > 2 * T && tblock_vec_smem(b[1], T) + 256 <= p->sharedMemPerBlockOptin;
}

/* The launch's chunks (ks_tb_plan_make), with sw->edges on a slab of several
 * GPUs: the plan's signal count goes back to the caller. *gz: the blocks along z. */
static ks_status tb_make_chunks(const ks_lsweep *sw, long long tiles, long long resident, int T,
                                tb_chunks *c, unsigned *gz)
{
    ks_ledges *e = sw->edges;
    ks_tb_plan_desc d;
    memset(&d, 0, sizeof d);
    d.nz = sw->grid->nz;
    d.steps = T;
    d.tiles = tiles;
    d.resident = resident;
    if (e) {
        d.lo = e->lo;
        d.hi = e->hi;
        d.edge_lo = e->edge_lo;
        d.edge_hi = e->edge_hi;
        d.low_end = e->low_end;
    }
    ks_tb_plan p;
    KS_TRY(ks_tb_plan_make(&d, &p));
    memset(c, 0, sizeof *c);
    c->lo = p.lo;
    c->hi = p.hi;
    c->first_len = p.first_len;
    c->len = p.len;
    c->edges = p.edges;
    c->edge_lo = p.edge_lo;
    c->edge_hi = p.edge_hi;
    c->low_end = p.low_end;
    if (e) {
        c->signal = e->signal;
        if (p.signals > 0 && !c->signal) return ks_fail(KS_ERR_INVALID, "tblock: edges without a signal");
        e->signals = p.signals;
    }
    *gz = p.gz;
    return KS_OK;
}

static ks_status launch_tblock_vec(const ks_lsweep *sw)
{
    const int T = sw->steps, W = sw->block[1], threads = 32 * W;
    const size_t smem = tblock_vec_smem(W, T);
    KS_TRY(ks_lcheck_block_limits(sw, threads, smem)); /* before asking for smem */
    const void *fn = ks_tblock_vec_fn(T);
    /* always: the kernel's static shared memory (its mbarriers) counts
     * against the 48 KiB default too (T = 1 at 32x12 needs 48 KiB + 96 B) */
    KS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    KS_TRY(ks_lcheck_kernel(sw, fn, "tblock", threads, smem));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    const int xs = 128 - 8 * ((T + 3) / 4), rows = W * KS_TBV_ROWS, ys = rows - 2 * T;
    /* tile origins b xs / b ys; the last tile reaches the far boundary plane */
    const unsigned gx = g->nx <= 128 ? 1u : 1u + ks_fdiv_up(g->nx - 128, xs);
    const unsigned gy = g->ny <= rows ? 1u : 1u + ks_fdiv_up(g->ny - rows, ys);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    tb_chunks chunks;
    unsigned gz = 0;
    KS_TRY(tb_make_chunks(sw, (long long)gx * gy, ks_resident_blocks(fn, threads, smem, sw->prop), T, &chunks, &gz));
    dim3 block(32, W), grid(gx, gy, gz);
    void *args[] = {(void *)&sw->in, (void *)&sw->out, (void *)&g->nx, (void *)&g->ny,
                    (void *)&g->nz, (void *)&chunks};
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, smem, sw->stream));
    KS_CUDA_TRY_LAUNCH("jacobi3d_tblock_vec_kernel");
    return KS_OK;
}

ks_status ks_llaunch_tblock(const ks_lsweep *sw)
{
    const int T = sw->steps;
    char txt[64];
    ks_lblock_text(sw->block, txt, sizeof txt);
    if (T < 1 || T > KS_TBLOCK_MAX_STEPS)
        return ks_fail(KS_ERR_UNSUPPORTED, "tblock: %d steps per launch; 1..%d are built", T,
                       KS_TBLOCK_MAX_STEPS);
    int b[3] = {sw->block[0], sw->block[1], sw->block[2]};
    if (tblock_vec_shape(b, T, sw->prop) && tblock_code_path() != KS_TBP_SCALAR) {
        /* 32-bit offsets within a plane. (Run 5's 16-row tile failure is
         * gone with the shared-memory planes: run 6 passed 16-row tiles,
         * several blocks per SM.) */
        if (sw->grid->nx % 4 == 0 && (long long)sw->grid->nx * sw->grid->ny < (1ll << 31))
            return launch_tblock_vec(sw);
        b[1] = min(b[1] * KS_TBV_ROWS, 32); /* scalar kernel, same tile height up to 32 */
    }
    KS_TRY(ks_lneed_2d_block(sw, "tblock"));
    const int threads = b[0] * b[1];
    const size_t smem = (size_t)T * 2 * (size_t)(b[0] > 0 ? b[0] : 0) *
                        (size_t)(b[1] > 0 ? b[1] : 0) * sizeof(float);
    KS_TRY(ks_lcheck_block_limits(sw, threads, smem)); /* before asking for smem */
    if (b[0] <= 2 * T || b[1] <= 2 * T)
        return ks_fail(KS_ERR_UNSUPPORTED,
                       "block %s: tblock needs bx and by > %d (a halo of %d on each side for %d "
                       "steps per launch)",
                       txt, 2 * T, T, T);
    const void *fn = tblock_fn(T);
    if (smem > 48 * 1024)
        KS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    KS_TRY(ks_lcheck_kernel(sw, fn, "tblock", threads, smem));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    const unsigned gx = ks_fdiv_up(g->nx - 1, b[0] - 2 * T);
    const unsigned gy = ks_fdiv_up(g->ny - 1, b[1] - 2 * T);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    /* each chunk recomputes about 2T planes of halo in k */
    tb_chunks chunks;
    unsigned gz = 0;
    KS_TRY(tb_make_chunks(sw, (long long)gx * gy, ks_resident_blocks(fn, threads, smem, sw->prop), T, &chunks, &gz));
    dim3 block(b[0], b[1]), grid(gx, gy, gz);
    void *args[] = {(void *)&sw->in, (void *)&sw->out, (void *)&g->nx, (void *)&g->ny,
                    (void *)&g->nz, (void *)&chunks};
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, smem, sw->stream));
    KS_CUDA_TRY_LAUNCH("jacobi3d_tblock_kernel");
    return KS_OK;
}
