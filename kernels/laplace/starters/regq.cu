// regq, kernelscope's fastest kernel that does one iteration a launch, as a
// user's kernel (kernelscope new-kernel laplace3d --from regq). Each thread
// owns 4 consecutive x points of one row and walks 4 planes of k, keeping the
// planes k-1, k and k+1 in registers (a register queue), so every value of u
// is read from memory about once. Rows whose width is a multiple of 4 are read
// as float4, and the x neighbours at the ends of a thread's 4 points come from
// the threads beside it by warp shuffle; other widths, and blocks whose rows of
// threads do not fill whole warps, take a plain path.
//
// It asks kernelscope for that launch: 4 points a thread along x, 1 along y,
// 4 along z (the grid shrinks by those factors, see the contract above).
//
// kernelscope's own regq caps its registers at 32 (__launch_bounds__(256, 8) on
// an H200: every thread of a full SM resident, 0.98 / 0.95 of T_peak at 512^3 /
// 1024^3 instead of 0.95 / 0.93). This copy takes any block of the contract,
// z layers too, and under that cap its bookkeeping spills 50-80 bytes to local
// memory, so it runs uncapped at 40 registers: try the cap yourself with
// __launch_bounds__(1024, 2) and --block 32x8x1, and time both.
extern "C" __constant__ int kernelscope_points_per_thread[3] = {4, 1, 4};

#define PLANES 4 // = kernelscope_points_per_thread[2]

// The sum in kernelscope's order, rounded like the CPU gold (no fused
// multiply-add), so the result matches it bit for bit.
static __device__ __forceinline__ float stencil6(float xm, float xp, float ym, float yp, float zm, float zp)
{
    float s = __fadd_rn(xm, xp);
    s = __fadd_rn(s, ym);
    s = __fadd_rn(s, yp);
    s = __fadd_rn(s, zm);
    s = __fadd_rn(s, zp);
    return __fmul_rn(s, 1.0f / 6.0f);
}

extern "C" __global__ void jacobi(const float *__restrict__ u, float *__restrict__ v, int nx, int ny, int nz)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4; // first of this thread's x points
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int kbeg = 1 + (blockIdx.z * blockDim.z + threadIdx.z) * PLANES;
    const int kend = min(kbeg + PLANES, nz - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * ny;

    // The plain path: rows not 16-byte aligned, or a block whose warps would
    // span two z layers (bx*by not a multiple of 32), where lanes of one warp
    // could leave the plane loop at different times. The 4 points one by one.
    // "unroll 1": unrolled, these loops cost the float4 path 16 registers.
    if (nx % 4 != 0 || (blockDim.x * blockDim.y) % 32 != 0) {
        if (j > ny - 2) return;
#pragma unroll 1
        for (int k = kbeg; k < kend; ++k)
#pragma unroll 1
            for (int i = max(i0, 1); i < min(i0 + 4, nx - 1); ++i) {
                const size_t p = i + j * sy + k * sz;
                v[p] = stencil6(u[p - 1], u[p + 1], u[p - sy], u[p + sy], u[p - sz], u[p + sz]);
            }
        return;
    }

    // float4 rows. A warp lies in one z layer of the block, so all its lanes
    // march the same planes and the shuffles find their partners; a lane past
    // the grid's x or y end reads a clamped row and stores nothing.
    const unsigned mask = __activemask();
    const int lane = (int)(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u);
    const bool left_is_lane = lane > 0 && threadIdx.x > 0; // x neighbour in the lane below
    const bool right_is_lane = lane < 31 && threadIdx.x + 1 < blockDim.x && (mask >> (lane + 1) & 1u);
    const bool row_live = i0 < nx && j <= ny - 2;
    const bool first = i0 == 0, last = i0 + 4 >= nx; // holding the x boundary: kept as it is
    const size_t row = (size_t)min(i0, nx - 4) + (size_t)min(j, ny - 2) * sy;
    size_t at = row + (size_t)min(kbeg, nz - 2) * sz; // = kbeg's plane whenever the loop runs
    float4 zm = *(const float4 *)(u + at - sz);
    float4 c = *(const float4 *)(u + at);
    // "unroll 1": unrolled, the loads of all planes are hoisted and the kernel
    // needs 64 registers instead of 40 (fewer warps resident, measured slower).
#pragma unroll 1
    for (int k = kbeg; k < kend; ++k, at += sz) {
        const float4 zp = *(const float4 *)(u + at + sz);
        const float4 ym = *(const float4 *)(u + at - sy);
        const float4 yp = *(const float4 *)(u + at + sy);
        float xl = __shfl_up_sync(mask, c.w, 1);
        float xr = __shfl_down_sync(mask, c.x, 1);
        if (!left_is_lane && !first) xl = u[at - 1];
        if (!right_is_lane && !last) xr = u[at + 4];
        float4 r;
        r.x = first ? c.x : stencil6(xl, c.y, ym.x, yp.x, zm.x, zp.x);
        r.y = stencil6(c.x, c.z, ym.y, yp.y, zm.y, zp.y);
        r.z = stencil6(c.y, c.w, ym.z, yp.z, zm.z, zp.z);
        r.w = last ? c.w : stencil6(c.z, xr, ym.w, yp.w, zm.w, zp.w);
        if (row_live) *(float4 *)(v + at) = r;
        zm = c;
        c = zp;
    }
}
