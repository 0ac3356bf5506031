// regtile, kernelscope's fastest matmul of its own, as a user's kernel
// (kernelscope new-kernel matmul --from regtile). A block of 16x16 threads
// computes a 128x128 tile of C, each thread 8x8 elements held in registers:
// rows ty*4+{0..3} and 64+ty*4+{0..3}, and the same pattern of columns, so its
// reads of a shared row are two float4 each (no bank conflicts). Each K step of
// 8, every thread loads 4 floats of A and 4 of B into registers for the next
// step while computing this one, then stores them into the other shared
// buffer (double buffering: one __syncthreads a step). As holds the A tile
// transposed, so that its rows are contiguous for those reads. Where K and N
// are multiples of 4, rows are read and written as float4.
//
// It asks kernelscope for that launch: 8 elements a thread along a row, 8
// down a column (the grid shrinks by those factors, see the contract above).
// Run it with the default --block 16x16: it is written for 256 threads.
extern "C" __constant__ int kernelscope_points_per_thread[3] = {8, 8, 1};

#define BM 128 // tile of C a block computes: BM rows ...
#define BN 128 // ... by BN columns
#define BK 8   // K step
#define APAD 4 // As rows of 132: the transposed stores of a warp hit 32 banks

// This thread's next 4 floats of A (row t/2, k (t%2)*4..+3) and of B (k row
// t/32, columns (t%32)*4..+3); zeros past the edges.
template <bool VEC>
static __device__ __forceinline__ void load(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
                                            int K, int row0, int col0, int k0, int t, float ra[4], float rb[4])
{
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

static __device__ __forceinline__ void store(float (*As)[BM + APAD], float (*Bs)[BN], int t, const float ra[4],
                                             const float rb[4])
{
    const int ar = t >> 1, ak = (t & 1) << 2;
#pragma unroll
    for (int q = 0; q < 4; ++q) As[ak + q][ar] = ra[q];
    *reinterpret_cast<float4 *>(&Bs[t >> 5][(t & 31) << 2]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
}

template <bool VEC>
static __device__ __forceinline__ void regtile(const float *__restrict__ A, const float *__restrict__ B,
                                               float *__restrict__ C, int M, int N, int K,
                                               float (*As)[BK][BM + APAD], float (*Bs)[BK][BN])
{
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = 0.0f;

    float ra[4], rb[4];
    load<VEC>(A, B, M, N, K, row0, col0, 0, t, ra, rb);
    store(As[0], Bs[0], t, ra, rb);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const int more = k0 + BK < K;
        if (more) load<VEC>(A, B, M, N, K, row0, col0, k0 + BK, t, ra, rb);
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
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
            store(As[buf ^ 1], Bs[buf ^ 1], t, ra, rb);
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
}

extern "C" __global__ void __launch_bounds__(256, 2)
    matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    // one pair of double buffers for both paths (declared in each, they would be two)
    __shared__ __align__(16) float As[2][BK][BM + APAD];
    __shared__ __align__(16) float Bs[2][BK][BN];
    if (K % 4 == 0 && N % 4 == 0) regtile<true>(A, B, C, M, N, K, As, Bs); // 16-byte aligned rows
    else regtile<false>(A, B, C, M, N, K, As, Bs);
}
