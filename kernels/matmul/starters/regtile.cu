// regtile, kernelscope's fastest matmul of its own, as a user's kernel
// (kernelscope new-kernel matmul --from regtile): the warp-tiled kernel of
// kernels/matmul/matmul_regtile.cu in its 128x128x16 shape. A block of 16x16
// threads computes a 128x128 tile of C: 8 warps, each a 64x32 part of it,
// each thread 8x8 elements in registers as 2x2 pieces of 4x4 spread over the
// warp's part, so that at each k a warp reads whole 128-byte rows of the two
// shared slices (no bank conflicts). K goes in slices of 16: A's slice stored
// transposed (k-major) with a skew that keeps its stores and 16-byte reads
// free of bank conflicts, B's copied by cp.async where the GPU has it (sm_80
// on); two buffers, so the next slice loads while this one is multiplied, one
// __syncthreads a slice. Where K and N are multiples of 4, rows are read and
// written 16 bytes at a time; other shapes element by element.
//
// kernelscope runs the 128x256 shape of the same kernel at large sizes on an
// H200: its 52 KiB of shared memory are more than the 48 KiB a kernel may
// declare statically, and this contract has no dynamic shared memory.
//
// It asks kernelscope for that launch: 8 elements a thread along a row, 8
// down a column (the grid shrinks by those factors, see the contract above).
// Run it with the default --block 16x16: it is written for 256 threads.
extern "C" __constant__ int kernelscope_points_per_thread[3] = {8, 8, 1};

#define BM 128     // tile of C a block computes: BM rows ...
#define BN 128     // ... by BN columns
#define BK 16      // K slice
#define WM 64      // a warp's part: WM rows ...
#define WN 32      // ... by WN columns
#define TR 8       // a warp's lanes: TR rows by 32 / TR columns
#define THREADS 256
#define KQ (BK / 4)                // float4 per row of A's slice
#define A_LOADS (BM * KQ / THREADS) // float4 of A a thread loads per slice
#define A_RSTEP (THREADS / KQ)      // rows between them
#define BQ (BN / 4)                // float4 per row of B's slice
#define B_LOADS (BK * BQ / THREADS)
#define B_KSTEP (THREADS / BQ)     // k rows between a thread's B loads
#define SKEW (32 / KQ)             // row k of As starts (k / 4) SKEW floats late
#define BMP (BM + 32)              // As row pitch

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HAVE_CP_ASYNC 1
#else
#define HAVE_CP_ASYNC 0
#endif

// 16 bytes global -> shared, zeros when !valid (src then not read).
static __device__ __forceinline__ void cp_async16(float *dst, const float *src, bool valid)
{
#if HAVE_CP_ASYNC
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0) : "memory");
#else
    (void)dst, (void)src, (void)valid;
#endif
}

static __device__ __forceinline__ void cp_async_wait_all()
{
#if HAVE_CP_ASYNC
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// Four consecutive floats of a row from p (element e0 of the row at p), those at or
// past limit as 0: one 16-byte load (VEC), else one by one.
template <bool VEC>
static __device__ __forceinline__ float4 load4(const float *p, int e0, int limit, bool row_ok)
{
    if (VEC) return row_ok && e0 < limit ? __ldg(reinterpret_cast<const float4 *>(p)) : make_float4(0.f, 0.f, 0.f, 0.f);
    float4 v;
    v.x = row_ok && e0 < limit ? __ldg(p) : 0.0f;
    v.y = row_ok && e0 + 1 < limit ? __ldg(p + 1) : 0.0f;
    v.z = row_ok && e0 + 2 < limit ? __ldg(p + 2) : 0.0f;
    v.w = row_ok && e0 + 3 < limit ? __ldg(p + 3) : 0.0f;
    return v;
}

template <bool VEC>
static __device__ __forceinline__ void regtile(const float *__restrict__ A, const float *__restrict__ B,
                                               float *__restrict__ C, int M, int N, int K, float *As, float *Bs)
{
    constexpr bool kAsync = VEC && HAVE_CP_ASYNC; // cp.async needs 16-byte aligned rows
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    // This thread's loads: A float4 l is row a_m + l A_RSTEP, k 4 a_kq of the slice;
    // B float4 l is k row b_k + l B_KSTEP, columns 4 b_q..
    const int a_kq = t % KQ, a_m = t / KQ;
    const float *a_src = A + (size_t)(row0 + a_m < M ? row0 + a_m : 0) * K + a_kq * 4;
    const size_t a_lstep = (size_t)A_RSTEP * K;
    const int a_st = a_kq * (4 * BMP + SKEW) + a_m;
    const int b_q = t % BQ, b_k = t / BQ;
    const int b_col = col0 + b_q * 4;
    const float *b_src = B + (size_t)b_k * N + (b_col < N ? b_col : 0);
    const size_t b_lstep = (size_t)B_KSTEP * N;
    const int b_st = b_k * BN + b_q * 4;

    float4 ra[A_LOADS], rb[B_LOADS];
    auto load = [&](int k0, int buf) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l)
            ra[l] = load4<VEC>(a_src + l * a_lstep + k0, k0 + a_kq * 4, K, row0 + a_m + l * A_RSTEP < M);
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const bool k_ok = k0 + b_k + l * B_KSTEP < K;
            const float *src = k_ok ? b_src + l * b_lstep + (size_t)k0 * N : B;
            if (kAsync) cp_async16(Bs + buf * BK * BN + b_st + l * B_KSTEP * BN, src, k_ok && b_col < N);
            else rb[l] = load4<VEC>(src, b_col, N, k_ok);
        }
    };
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
            cp_async_wait_all();
        } else {
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) *reinterpret_cast<float4 *>(Bs + buf * BK * BN + b_st + l * B_KSTEP * BN) = rb[l];
        }
    };

    // This thread's place: warp (wr, wc) of 2 x 4, lane (tr, tc) of 8 x 4.
    const int warp = t >> 5, lane = t & 31;
    const int wr = warp / (BN / WN), wc = warp % (BN / WN);
    const int tr = lane / (32 / TR), tc = lane % (32 / TR);
    const int a_rd = wr * WM + tr * 4; // + i WM / 2: row piece i
    const int b_rd = wc * WN + tc * 4; // + j WN / 2: column piece j

    float acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = 0.0f;

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
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const float4 v = *reinterpret_cast<const float4 *>(as + kk * BMP + (kk / 4) * SKEW + i * (WM / 2));
                a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const float4 v = *reinterpret_cast<const float4 *>(bs + kk * BN + j * (WN / 2));
                b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
            }
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }
        if (more) store(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int row = row0 + a_rd + i * (WM / 2) + r;
            if (row >= M) continue;
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const int col = col0 + b_rd + j * (WN / 2);
                float *dst = C + (size_t)row * N + col;
                const float *v = &acc[4 * i + r][4 * j];
                if (VEC) {
                    if (col < N) *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
                } else {
#pragma unroll
                    for (int q = 0; q < 4; ++q)
                        if (col + q < N) dst[q] = v[q];
                }
            }
        }
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    // one pair of double buffers for both paths (declared in each, they would be two)
    __shared__ __align__(16) float As[2 * BK * BMP];
    __shared__ __align__(16) float Bs[2 * BK * BN];
    if (K % 4 == 0 && N % 4 == 0) regtile<true>(A, B, C, M, N, K, As, Bs); // 16-byte aligned rows
    else regtile<false>(A, B, C, M, N, K, As, Bs);
}
