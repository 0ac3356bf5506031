/* Laplace on CUDA, the temporally blocked variant:
 *   tblock 3D: T Jacobi steps per launch. A block is an xy tile including a
 *          halo of T points; it marches in k and computes time level t of
 *          plane s-t at step s, each level's newest plane kept in shared
 *          memory (double-buffered) and its k-1, k, k+1 column in registers.
 *          Only the tile's inner (bx-2T) x (by-2T) points are written.
 * All arithmetic goes through ks_stencil6 (gold order, no contraction). */
#include <stdint.h>
#include <string.h>

#include "laplace_launch.h"

/* ================= tblock (3D, T steps per launch) ================= */

enum { KS_TBLOCK_MAX_STEPS = 6 };

/* Where a block's chunk of output planes lies: blockIdx.z < edges is the
 * edge range, the others cut [lo, hi) in order (the first chunk first_len
 * planes, the rest len). One GPU: no edge, [1, nz - 1) in equal chunks. On a
 * slab of several GPUs (ks_ledges) the edge and the first chunk signal. */
typedef struct tb_chunks {
    int lo, hi, first_len, len;
    int edges, edge_lo, edge_hi;
    int low_end;      /* the first chunk's blocks signal once planes < low_end are written; 0: never */
    unsigned *signal; /* what the signalling blocks add 1 to */
} tb_chunks;

static __device__ __forceinline__ void tb_chunk(const tb_chunks &c, int *k0, int *k1)
{
    const int z = (int)blockIdx.z - c.edges;
    if (z < 0) {
        *k0 = c.edge_lo;
        *k1 = c.edge_hi;
        return;
    }
    *k0 = z == 0 ? c.lo : c.lo + c.first_len + (z - 1) * c.len;
    *k1 = min(z == 0 ? c.lo + c.first_len : *k0 + c.len, c.hi);
}

/* The step that writes the first chunk's last plane below low_end (step s
 * writes plane s - T); -1: this block never signals mid-way. */
static __device__ __forceinline__ int tb_low_signal_step(const tb_chunks &c, int T)
{
    return c.low_end > 0 && (int)blockIdx.z == c.edges ? c.low_end - 1 + T : -1;
}

/* One add for the whole block once every thread's writes are done (a grid
 * barrier's pattern); system scope, as the planes may be read from a peer. */
static __device__ __forceinline__ void tb_signal(unsigned *signal)
{
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        __threadfence_system();
        atomicAdd(signal, 1u);
    }
}

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

/* ---- tblock, vector path (nx % 4 == 0, block = 32 x W threads) ----
 * A warp spans 128 consecutive x (a float4 per lane); each thread owns R
 * consecutive rows, so a block tile is 128 x (W R) points with a halo of
 * HL = ceil(T/4) lanes in x and T rows in y. Per time level a thread gets its
 * x-neighbours by two shuffles per row and its y-neighbours from its own rows,
 * except at the first/last row (the neighbouring warp's edge row).
 * The k direction keeps, per level t, the partial sum A (x, y and k-1 terms
 * of the plane waiting for its k+1 neighbour) in registers; the gold order
 * (((((xm+xp)+ym)+yp)+zm)+zp)/6 is kept exactly. Each level's last two planes
 * live in shared memory (by plane parity): the own rows of plane p give the
 * centre C (zm of plane p+1, and the value of fixed points), the neighbouring
 * warps' edge rows of plane p+1 give the y-neighbours. So C needs neither
 * registers nor moves and there is no separate edge buffer; at T = 4, R = 4
 * the kernel fits 168 registers (221 with C in registers), so 12 warps of a
 * 48-row tile are resident (8 warps of 32 rows before).
 * Level t at step s produces plane s-t once level t-1 delivered plane s-t+1. */
#ifndef KS_TBLOCK_ROWS
#define KS_TBLOCK_ROWS 4 /* rows per thread of the vector tblock path */
#endif
#ifndef KS_TBLOCK_MAXT
#define KS_TBLOCK_MAXT 384 /* threads per block, register cap (65536 / MAXT per thread) */
#endif
enum { KS_TBV_ROWS = KS_TBLOCK_ROWS, KS_TBV_MAX_THREADS = KS_TBLOCK_MAXT };

/* Each level's barrier is split: an mbarrier per level, every thread arrives
 * once its rows of the level are stored and waits only before it reads the
 * neighbours' edge rows, so the next level's own-row work overlaps the wait
 * for the slowest warp (one __syncthreads per level instead: 1.69 against
 * 2.03 x T_peak at 512^3 on an H200, run 6b). KS_TBLOCK_EARLY_ARRIVE: arrive
 * before the own-row loads that follow (they need no ordering), not after
 * them (2.07 against 2.04). */
#ifndef KS_TBLOCK_EARLY_ARRIVE
#define KS_TBLOCK_EARLY_ARRIVE 1
#endif

/* The vector path needs cp.async and mbarrier (sm_80 and up). Hopper waits
 * with mbarrier.try_wait (the tuned path); sm_80..89 poll mbarrier.test_wait;
 * code compiled for sm_75 has neither, and the launcher sends every tblock
 * launch there to the scalar kernel (tblock_code_path). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define KS_TBV_DEVICE 1
#else
#define KS_TBV_DEVICE 0
#endif

#if KS_TBV_DEVICE
static __device__ __forceinline__ void mbar_arrive(unsigned long long *bar)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(a) : "memory");
}

static __device__ __forceinline__ void mbar_wait(unsigned long long *bar, unsigned parity)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    unsigned ok = 0;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    while (!ok)
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(ok)
                     : "r"(a), "r"(parity)
                     : "memory");
#else
    while (!ok)
        asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(ok)
                     : "r"(a), "r"(parity)
                     : "memory");
#endif
}

/* 16 bytes global -> shared, through L2 only (cp.async.cg) */
static __device__ __forceinline__ void cp_async16(float4 *smem, const float *gmem)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gmem) : "memory");
}

static __device__ __forceinline__ void cp_async_wait_all(void)
{
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}

static __device__ __forceinline__ float4 f4_add(float4 a, float4 b)
{
    return make_float4(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y), __fadd_rn(a.z, b.z),
                       __fadd_rn(a.w, b.w));
}

/* Tiles: tile b covers x [b XS, b XS + 128) and rows [b YS, b YS + W R). Its
 * outer HL lanes / T rows are halo, except where the tile touches the grid's
 * boundary plane (i or j = 0 or n-1): that plane is fixed, so the points next
 * to it are exact at every level and are written too. Tile 0 thus writes
 * [1, YS + T), the last tile up to n-2: one tile row fewer than a halo on
 * every side (512 rows: 21 tiles of 32 rows, not 22). Offsets are 32-bit
 * within a plane (the launcher checks nx ny < 2^31).
 * Shared memory: float4 [2][W R][T][32] (plane parity, tile row, level, lane),
 * so a thread's own slots sit at compile-time offsets from one pointer. */
template <int T, int R, bool XE>
static __device__ __forceinline__ void jacobi3d_tblock_vec_body(const float *__restrict__ u1,
                                                               float *__restrict__ u2, int nx, int ny,
                                                               int nz, const tb_chunks &chunks)
{
    constexpr int HL = (T + 3) / 4;
    constexpr int XS = 128 - 8 * HL; /* x points between tile origins */
    constexpr int RS = T * 32;       /* float4s per tile row (all levels) */
    extern __shared__ float4 ks_tbv_planes[];
    const int lane = threadIdx.x, w = threadIdx.y, W = blockDim.y;
    const int YS = W * R - 2 * T; /* rows between tile origins */
    const int tx0 = blockIdx.x * XS, ty0 = blockIdx.y * YS;
    const int i0 = tx0 + 4 * lane;
    const int jt = ty0 + w * R; /* row of r = 0 */
    const bool lane_writer = i0 < nx && (lane >= HL || tx0 == 0) && (lane < 32 - HL || tx0 + 128 >= nx);
    const bool xfirst = XE && i0 == 0, xlast = XE && i0 + 4 == nx;
    const int ic = min(i0, nx - 4);
    const bool ytop = ty0 + W * R >= ny; /* tile reaches row ny - 1 */
    /* per row: copies (grid boundary row) / writes (inside the tile's output rows) */
    unsigned rcopy = 0, rwrite = 0;
    int col[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int j = jt + r, rho = w * R + r;
        if (j <= 0 || j >= ny - 1) rcopy |= 1u << r;
        if (lane_writer && j >= 1 && j <= ny - 2 && (rho >= T || ty0 == 0) && (rho < W * R - T || ytop))
            rwrite |= 1u << r;
        col[r] = ic + min(j, ny - 1) * nx;
    }
    /* The chunk [k0, k1) and the step of the mid-way signal sit in shared
     * memory, read where used: the kernel has no registers to spare for
     * them (held in registers, T = 4 spilled). */
    __shared__ int ks_tbv_chunk[3];
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        tb_chunk(chunks, &ks_tbv_chunk[0], &ks_tbv_chunk[1]);
        ks_tbv_chunk[2] = tb_low_signal_step(chunks, T);
    }
    __syncthreads();
    const int lo0 = max(0, ks_tbv_chunk[0] - T);
    const int s_end = min(nz - 1, ks_tbv_chunk[1] - 1) + T;
    const size_t sz = (size_t)nx * (size_t)ny;

    /* own row r, level L: own[r RS + L 32]; the other parity Q float4s on */
    const int Q = W * R * RS;
    float4 *const own = ks_tbv_planes + w * R * RS + lane;
    /* the neighbouring warps' edge rows; the block's outer rows read their own
     * (halo: any defined value does) */
    const int below = w > 0 ? -RS : 0, above = w < W - 1 ? R * RS : (R - 1) * RS;
    /* defined values in every slot: idle levels read stale planes (never used
     * for a written point, but finite and initialised) */
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int L = 0; L < T; ++L)
            own[r * RS + L * 32] = own[Q + r * RS + L * 32] = make_float4(0.f, 0.f, 0.f, 0.f);

    float4 A[T][R];
#pragma unroll
    for (int t = 0; t < T; ++t)
#pragma unroll
        for (int r = 0; r < R; ++r) A[t][r] = make_float4(0.f, 0.f, 0.f, 0.f);
    /* level 0 goes from global straight into shared memory (cp.async, no
     * registers held for the loads in flight): plane s + 1 is requested during
     * step s, into the slot of plane s - 1 once level 1 has read it */
    const float *src = u1 + (size_t)lo0 * sz;
    __shared__ unsigned long long ks_tbv_bars[KS_TBLOCK_MAX_STEPS]; /* level L's rows stored */
    if (lane == 0 && w == 0)
        for (int L = 0; L < T; ++L) {
            const unsigned a = (unsigned)__cvta_generic_to_shared(&ks_tbv_bars[L]);
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(a), "r"(32 * W) : "memory");
        }
    __syncthreads(); /* the zero fill (and barrier setup) is done before the copies land */
#pragma unroll
    for (int r = 0; r < R; ++r) cp_async16(own + ((lo0 & 1) ? Q : 0) + r * RS, src + col[r]);

    for (int s = lo0; s <= s_end; ++s) {
        /* plane s - L of level L sits in the parity half of s - L */
        float4 *const b0 = own + ((s & 1) ? Q : 0), *const b1 = own + ((s & 1) ? 0 : Q);
        const int k0 = ks_tbv_chunk[0], k1 = ks_tbv_chunk[1];
        /* steps where every level is active and off the k boundary planes */
        const bool fast = s >= k0 + T && s <= min(nz - 1, k1 - 1 + T) && rcopy == 0; /* warp-uniform */
        const unsigned ph = (unsigned)(s - lo0) & 1u; /* each level's barrier completes once per step */
        cp_async_wait_all(); /* plane s (past the last plane loaded: stale, unused) */
        if (KS_TBLOCK_EARLY_ARRIVE) mbar_arrive(&ks_tbv_bars[0]);
        /* own rows need no barrier */
        float4 cur[R], c[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            cur[r] = b0[r * RS];
            c[r] = b1[r * RS];
        }
        if (!KS_TBLOCK_EARLY_ARRIVE) mbar_arrive(&ks_tbv_bars[0]);
#pragma unroll
        for (int t = 1; t <= T; ++t) {
            const int p = s - t;
            /* plane p (level t-1's centre, level t's output) and plane p + 1 */
            float4 *const bp = (t & 1) ? b1 : b0;
            const float4 *const bq = (t & 1) ? b0 : b1;
            /* the neighbouring warps' edge rows of plane p + 1 (read after the wait) */
            float4 ym0 = make_float4(0.f, 0.f, 0.f, 0.f), ypl = ym0;
            float4 out[R]; /* c[r]: level t-1's centre of plane p, own row r */
            if (fast) { /* the common case: only x edges copy */
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const float4 a = A[t - 1][r], z = cur[r];
                    float4 v;
                    v.x = xfirst ? c[r].x : __fmul_rn(__fadd_rn(a.x, z.x), 1.0f / 6.0f);
                    v.y = __fmul_rn(__fadd_rn(a.y, z.y), 1.0f / 6.0f);
                    v.z = __fmul_rn(__fadd_rn(a.z, z.z), 1.0f / 6.0f);
                    v.w = xlast ? c[r].w : __fmul_rn(__fadd_rn(a.w, z.w), 1.0f / 6.0f);
                    out[r] = v;
                }
            } else {
                /* branch-free: the new value is computed everywhere and a
                 * select keeps the old centre where the level is idle or the
                 * point fixed */
                const bool act = p >= max(0, k0 - T + t) && p <= min(nz - 1, k1 - 1 + T - t);
                const bool keep = !act || p == 0 || p == nz - 1;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const float4 a = A[t - 1][r], z = cur[r];
                    const bool kr = keep || (rcopy >> r & 1u);
                    float4 v;
                    v.x = (kr || xfirst) ? c[r].x : __fmul_rn(__fadd_rn(a.x, z.x), 1.0f / 6.0f);
                    v.y = kr ? c[r].y : __fmul_rn(__fadd_rn(a.y, z.y), 1.0f / 6.0f);
                    v.z = kr ? c[r].z : __fmul_rn(__fadd_rn(a.z, z.z), 1.0f / 6.0f);
                    v.w = (kr || xlast) ? c[r].w : __fmul_rn(__fadd_rn(a.w, z.w), 1.0f / 6.0f);
                    out[r] = v;
                }
            }
            /* start the partial sums of plane p + 1 (level t-1 gave it). Done
             * unconditionally: when level t-1 delivered nothing this step, the
             * stale sums are never used (level t is idle until level t-1 has
             * delivered two planes, and after its last one). The inner rows
             * first, the edge rows once the neighbours stored theirs. */
#pragma unroll
            for (int pass = 0; pass < 2; ++pass) {
                if (pass == 1) {
                    mbar_wait(&ks_tbv_bars[t - 1], ph);
                    ym0 = bq[below + (t - 1) * 32];
                    ypl = bq[above + (t - 1) * 32];
                }
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if ((r == 0 || r == R - 1) != (pass == 1)) continue;
                    const float4 z = cur[r];
                    const float xl = __shfl_up_sync(0xffffffffu, z.w, 1);
                    const float xr = __shfl_down_sync(0xffffffffu, z.x, 1);
                    const float4 ym = r > 0 ? cur[r - 1] : ym0;
                    const float4 yp = r < R - 1 ? cur[r + 1] : ypl;
                    float4 x;
                    x.x = __fadd_rn(xl, z.y);
                    x.y = __fadd_rn(z.x, z.z);
                    x.z = __fadd_rn(z.y, z.w);
                    x.w = __fadd_rn(z.z, xr);
                    A[t - 1][r] = f4_add(f4_add(f4_add(x, ym), yp), c[r]);
                }
            }
            if (t < T) {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    bp[r * RS + t * 32] = out[r]; /* stale when idle; read only as stale */
                    cur[r] = out[r];
                }
                if (KS_TBLOCK_EARLY_ARRIVE) mbar_arrive(&ks_tbv_bars[t]);
#pragma unroll
                for (int r = 0; r < R; ++r) c[r] = bq[r * RS + t * 32]; /* level t, plane p-1 */
                if (!KS_TBLOCK_EARLY_ARRIVE) mbar_arrive(&ks_tbv_bars[t]);
                if (t == 1 && s < min(nz - 1, k1 - 1 + T)) { /* level 0 delivers plane s up to there */
                    src += sz;
#pragma unroll
                    for (int r = 0; r < R; ++r) cp_async16(b1 + r * RS, src + col[r]);
                }
            } else if (p >= k0 && p < k1) { /* level T is active exactly there */
                float *dst = u2 + (size_t)p * sz;
#pragma unroll
                for (int r = 0; r < R; ++r)
                    if (rwrite >> r & 1u) *(float4 *)(dst + col[r]) = out[r];
            }
        }
        if (T == 1) { /* no barrier after level 1: one before the next copy */
            __syncthreads();
            if (s < min(nz - 1, k1 - 1 + T)) {
                src += sz;
#pragma unroll
                for (int r = 0; r < R; ++r) cp_async16(own + ((s & 1) ? 0 : Q) + r * RS, src + col[r]);
            }
        }
        if (s == ks_tbv_chunk[2]) tb_signal(chunks.signal);
    }
}

#endif /* KS_TBV_DEVICE */

/* Tiles off the x boundary planes (3 of 5 at nx = 512) need no x-edge selects. */
template <int T, int R>
__global__ void __launch_bounds__(KS_TBV_MAX_THREADS, 1)
    jacobi3d_tblock_vec_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                               int ny, int nz, tb_chunks chunks)
{
#if KS_TBV_DEVICE
    const int tx0 = blockIdx.x * (128 - 8 * ((T + 3) / 4));
    if (tx0 == 0 || tx0 + 128 >= nx)
        jacobi3d_tblock_vec_body<T, R, true>(u1, u2, nx, ny, nz, chunks);
    else
        jacobi3d_tblock_vec_body<T, R, false>(u1, u2, nx, ny, nz, chunks);
    if ((int)blockIdx.z < chunks.edges) tb_signal(chunks.signal);
#else
    (void)u1, (void)u2, (void)nx, (void)ny, (void)nz, (void)chunks;
    __trap(); /* never launched: tblock_code_path() sends sm_75 code to the scalar kernel */
#endif
}

static const void *tblock_vec_fn(int steps)
{
    switch (steps) {
    case 1: return (const void *)jacobi3d_tblock_vec_kernel<1, KS_TBV_ROWS>;
    case 2: return (const void *)jacobi3d_tblock_vec_kernel<2, KS_TBV_ROWS>;
    case 3: return (const void *)jacobi3d_tblock_vec_kernel<3, KS_TBV_ROWS>;
    case 4: return (const void *)jacobi3d_tblock_vec_kernel<4, KS_TBV_ROWS>;
    case 5: return (const void *)jacobi3d_tblock_vec_kernel<5, KS_TBV_ROWS>;
    case 6: return (const void *)jacobi3d_tblock_vec_kernel<6, KS_TBV_ROWS>;
    default: return NULL;
    }
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
        if (cudaFuncGetAttributes(&a, (const void *)jacobi3d_tblock_vec_kernel<4, KS_TBV_ROWS>) != cudaSuccess) {
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
    const void *fn = tblock_vec_fn(T);
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
