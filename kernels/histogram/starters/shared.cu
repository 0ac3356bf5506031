// Our "shared" variant (bytes mode), written to the histogram contract: each
// block counts its bytes into its own 256 bins in shared memory, where atomics
// are cheap and the hot bins of one block do not queue on global memory, then
// adds its bins to the global ones with at most 256 atomics. Each thread
// counts kernelscope_bytes_per_thread bytes, strided by the block so that a
// warp's loads stay side by side. Unlike ours, the count is a compile-time
// constant, so the loop unrolls and eight loads are in flight at once; and
// more bytes a thread mean fewer blocks, so fewer flushes of 256 bins into
// the global ones. On an H200 at 100 MB that made this copy some 3x faster
// than our shared (0.054 against 0.167 ms on text; 16 bytes a thread: 0.165,
// 64: 0.061, 256: 0.057, 1024: 0.074).
constexpr int bytes_per_thread = 128;
extern "C" __constant__ int kernelscope_bytes_per_thread = bytes_per_thread;

extern "C" __global__ void histogram(const unsigned char *data, unsigned long long n,
                                     unsigned int *bins)
{
    __shared__ unsigned int local[256];
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    const unsigned long long span = (unsigned long long)blockDim.x * bytes_per_thread;
    const unsigned long long start = (unsigned long long)blockIdx.x * span;
    if (start + span <= n) { // the whole block's bytes lie within data
#pragma unroll 8
        for (int k = 0; k < bytes_per_thread; ++k) atomicAdd(&local[data[start + threadIdx.x + (unsigned long long)k * blockDim.x]], 1u);
    } else {
        for (unsigned long long i = start + threadIdx.x; i < n; i += blockDim.x) atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}
