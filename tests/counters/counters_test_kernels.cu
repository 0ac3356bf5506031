/* Kernels with known counters (counters_test_kernels.h). */
#include <cuda_runtime.h>

#include <cstring>

#include "counters_test_kernels.h"
#include "base/cuda_check.h"

static cudaStream_t as_stream(void *s) { return static_cast<cudaStream_t>(s); }

static unsigned blocks_for(size_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

extern "C" float kst_expected(size_t i) { return (float)(i % 1000003u) * 0.5f; }

__global__ void kst_fill_kernel(float *out, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)(i % 1000003u) * 0.5f;
}

extern "C" ks_status kst_fill(float *out, size_t n, void *stream)
{
    kst_fill_kernel<<<blocks_for(n, 256), 256, 0, as_stream(stream)>>>(out, n);
    KS_CUDA_TRY_LAUNCH("fill");
    return KS_OK;
}

__global__ void kst_copy_kernel(const float4 *in, float4 *out, size_t n4)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i];
}

extern "C" ks_status kst_copy(const float *in, float *out, size_t n, void *stream)
{
    if (n % 4 != 0) return ks_fail(KS_ERR_INVALID, "copy: %zu floats is not a multiple of 4", n);
    kst_copy_kernel<<<blocks_for(n / 4, 256), 256, 0, as_stream(stream)>>>(reinterpret_cast<const float4 *>(in),
                                                                          reinterpret_cast<float4 *>(out), n / 4);
    KS_CUDA_TRY_LAUNCH("copy");
    return KS_OK;
}

/* Plain pointers (no __restrict__, no const on the data): plain global loads, one a thread. */
__global__ void kst_read_coalesced_kernel(float *in, float *out, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void kst_read_strided_kernel(float *in, float *out, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[32 * i];
}

extern "C" ks_status kst_read_coalesced(const float *in, float *out, size_t n, void *stream)
{
    kst_read_coalesced_kernel<<<blocks_for(n, 256), 256, 0, as_stream(stream)>>>(const_cast<float *>(in), out, n);
    KS_CUDA_TRY_LAUNCH("read_coalesced");
    return KS_OK;
}

extern "C" ks_status kst_read_strided(const float *in, float *out, size_t n, void *stream)
{
    kst_read_strided_kernel<<<blocks_for(n, 256), 256, 0, as_stream(stream)>>>(const_cast<float *>(in), out, n);
    KS_CUDA_TRY_LAUNCH("read_strided");
    return KS_OK;
}

/* volatile: every shared load and store is issued, none hoisted out of the loops */
template <int STRIDE>
__global__ void kst_shared_kernel(float *out, int reps)
{
    __shared__ float tile[4][1024];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    volatile float *mine = tile[warp];
    for (int r = 0; r < 32; ++r) {
        const int idx = (lane * STRIDE + r) & 1023;
        mine[idx] = (float)(lane + r); /* with STRIDE 1, threads meeting at idx write the same value */
    }
    __syncwarp();
    float acc = 0.0f;
    for (int k = 0; k < reps; ++k)
        for (int r = 0; r < 32; ++r) acc += mine[(lane * STRIDE + r) & 1023];
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" float kst_shared_expected(int lane, int reps) { return (float)reps * (float)(32 * lane + 496); }

extern "C" ks_status kst_shared(float *out, int blocks, int stride, int reps, void *stream)
{
    if (stride == 32)
        kst_shared_kernel<32><<<blocks, 128, 0, as_stream(stream)>>>(out, reps);
    else if (stride == 1)
        kst_shared_kernel<1><<<blocks, 128, 0, as_stream(stream)>>>(out, reps);
    else
        return ks_fail(KS_ERR_INVALID, "shared: stride %d is neither 1 nor 32", stride);
    KS_CUDA_TRY_LAUNCH("shared");
    return KS_OK;
}

__global__ void kst_spin_kernel(unsigned long long ns)
{
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while (t1 - t0 < ns);
}

extern "C" ks_status kst_spin(unsigned long long ns, int blocks, void *stream)
{
    kst_spin_kernel<<<blocks, 256, 0, as_stream(stream)>>>(ns);
    KS_CUDA_TRY_LAUNCH("spin");
    return KS_OK;
}

/* ---- The probe's set ---- */

extern "C" ks_status kst_set_alloc(kst_set *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->nr = (size_t)1 << 20;
    s->shared_blocks = 264;
    if (n % 4 != 0 || n < 32 * s->nr) return ks_fail(KS_ERR_INVALID, "kernel set: %zu floats", n);
    const size_t shared_out = (size_t)s->shared_blocks * 128;
    cudaError_t e = cudaMalloc((void **)&s->in, n * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&s->out, n * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&s->out_coalesced, s->nr * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&s->out_strided, s->nr * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&s->shared_free, shared_out * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&s->shared_conflict, shared_out * sizeof(float));
    if (e != cudaSuccess) {
        kst_set_free(s);
        return ks_fail(KS_ERR_CUDA, "kernel set: cudaMalloc: %s", cudaGetErrorString(e));
    }
    return KS_OK;
}

extern "C" void kst_set_free(kst_set *s)
{
    cudaFree(s->in);
    cudaFree(s->out);
    cudaFree(s->out_coalesced);
    cudaFree(s->out_strided);
    cudaFree(s->shared_free);
    cudaFree(s->shared_conflict);
    memset(s, 0, sizeof *s);
}

extern "C" ks_status kst_set_run(const kst_set *s, void *stream)
{
    KS_TRY(kst_fill(s->in, s->n, stream));
    KS_TRY(kst_copy(s->in, s->out, s->n, stream));
    KS_TRY(kst_read_coalesced(s->in, s->out_coalesced, s->nr, stream));
    KS_TRY(kst_read_strided(s->in, s->out_strided, s->nr, stream));
    KS_TRY(kst_shared(s->shared_free, s->shared_blocks, 1, 16, stream));
    return kst_shared(s->shared_conflict, s->shared_blocks, 32, 16, stream);
}

static ks_status occupancy_of(const void *fn, int threads, double *out)
{
    int dev = 0, max_threads = 0, blocks = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, 0));
    *out = max_threads > 0 ? (double)blocks * threads / max_threads : 0.0;
    return KS_OK;
}

extern "C" ks_status kst_set_info(const kst_set *s, int i, kst_launch_info *out)
{
    memset(out, 0, sizeof *out);
    const void *fn = nullptr;
    switch (i) {
    case 0:
        *out = {"kst_fill_kernel", blocks_for(s->n, 256), 256, 0, 0, 4, 4.0 * (double)s->n};
        fn = (const void *)kst_fill_kernel;
        break;
    case 1:
        *out = {"kst_copy_kernel", blocks_for(s->n / 4, 256), 256, 0, 16, 16, 8.0 * (double)s->n};
        fn = (const void *)kst_copy_kernel;
        break;
    case 2:
        *out = {"kst_read_coalesced_kernel", blocks_for(s->nr, 256), 256, 0, 4, 4, 8.0 * (double)s->nr};
        fn = (const void *)kst_read_coalesced_kernel;
        break;
    case 3: /* no byte model: DRAM moves whole sectors (or more) of which one float is used */
        *out = {"kst_read_strided_kernel", blocks_for(s->nr, 256), 256, 0, 4, 4, 0.0};
        fn = (const void *)kst_read_strided_kernel;
        break;
    case 4:
    case 5:
        *out = {i == 4 ? "kst_shared_kernel<1>" : "kst_shared_kernel<32>", (unsigned)s->shared_blocks, 128, 0, 0, 4,
                0.0};
        fn = i == 4 ? (const void *)kst_shared_kernel<1> : (const void *)kst_shared_kernel<32>;
        break;
    default:
        return ks_fail(KS_ERR_INVALID, "kernel set: no launch %d", i);
    }
    return occupancy_of(fn, (int)out->block, &out->occupancy);
}
