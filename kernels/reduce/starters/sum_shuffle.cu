// Our "sum_shuffle" variant, written to the reduce contract: each thread adds
// kernelscope_items_per_thread floats read as float4 (eight 16-byte loads in
// flight, strided by the block so that a warp reads 512 bytes side by side),
// each warp sums by __shfl_xor_sync, one shared word a warp, and the block's
// total goes to *out with one atomicAdd (ours writes partials and sums them
// in a second launch; the contract's zeroed *out lets one launch do it).
// The count is a compile-time constant here too, so that the loads unroll
// and all of a thread's loads are in flight at once. 32 floats a thread ran
// fastest at 2^28 floats on an H200 (16: 6 % slower, 64 and 128: 0-1 %).
constexpr int items = 32; // a multiple of 4
extern "C" __constant__ int kernelscope_items_per_thread = items;

__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void reduce(const float *x, long long n, float *out)
{
    __shared__ float warp_total[32];
    constexpr int loads = items / 4;
    const long long n4 = n / 4, first4 = (long long)blockIdx.x * blockDim.x * loads;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float a = 0.0f;
    if (first4 + (long long)loads * blockDim.x <= n4) { // the whole block reads float4 within x
        float4 v[loads];
#pragma unroll
        for (int k = 0; k < loads; ++k) v[k] = __ldg(x4 + first4 + threadIdx.x + (long long)k * blockDim.x);
#pragma unroll
        for (int k = 0; k < loads; ++k) a += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    } else { // the last blocks: each load checked, and the n % 4 tail
#pragma unroll 1
        for (int k = 0; k < loads; ++k) {
            const long long q = first4 + threadIdx.x + (long long)k * blockDim.x; // float4 number q
            if (q < n4) {
                const float4 v = __ldg(x4 + q);
                a += (v.x + v.y) + (v.z + v.w);
            } else {
                for (long long i = 4 * q; i < 4 * q + 4 && i < n; ++i) a += x[i];
            }
        }
    }
    a = warp_sum(a);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_total[warp] = a;
    __syncthreads();
    if (warp == 0) {
        a = lane < (int)(blockDim.x >> 5) ? warp_total[lane] : 0.0f;
        a = warp_sum(a);
        if (lane == 0) atomicAdd(out, a);
    }
}
