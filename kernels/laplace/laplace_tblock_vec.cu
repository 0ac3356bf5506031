/* Laplace on CUDA, the temporally blocked variant's vector path (tblock 3D,
 * nx % 4 == 0, block 32 x W threads, sm_80 and up); the launcher and the
 * scalar kernel are laplace_tblock.cu, the chunks laplace_tblock_internal.h.
 * All arithmetic goes through ks_stencil6 (gold order, no contraction). */
#include <stdint.h>

#include "laplace_tblock_internal.h"

/* ---- the vector path (nx % 4 == 0, block = 32 x W threads) ----
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

const void *ks_tblock_vec_fn(int steps)
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
