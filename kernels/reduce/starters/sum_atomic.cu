// Our "sum_atomic" variant, written to the reduce contract: each thread adds
// its kernelscope_items_per_thread floats in a register, then adds that to
// *out with one atomicAdd. The simplest kernel there is, and the longest
// chain of atomics on one address (n / p of them): the time shows it.
extern "C" __constant__ int kernelscope_items_per_thread = 64;

extern "C" __global__ void reduce(const float *x, long long n, float *out)
{
    const long long span = (long long)blockDim.x * kernelscope_items_per_thread;
    const long long end = (long long)blockIdx.x * span + span; // this block's floats end here
    float a = 0.0f;
    for (long long i = (long long)blockIdx.x * span + threadIdx.x; i < end && i < n; i += blockDim.x)
        a += x[i]; // strided by the block: a warp's loads stay side by side
    atomicAdd(out, a);
}
