// Our "shared" variant (bytes mode), written to the histogram contract: each
// block counts its bytes into its own 256 bins in shared memory, where atomics
// are cheap and the hot bins of one block do not queue on global memory, then
// adds its bins to the global ones with at most 256 atomics. Each thread
// counts kernelscope_bytes_per_thread bytes, strided by the block so that a
// warp's loads stay side by side.
extern "C" __constant__ int kernelscope_bytes_per_thread = 16;

extern "C" __global__ void histogram(const unsigned char *data, unsigned long long n,
                                     unsigned int *bins)
{
    __shared__ unsigned int local[256];
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    const unsigned long long span = (unsigned long long)blockDim.x * kernelscope_bytes_per_thread;
    const unsigned long long start = (unsigned long long)blockIdx.x * span;
    for (unsigned long long i = start + threadIdx.x; i < start + span && i < n; i += blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}
