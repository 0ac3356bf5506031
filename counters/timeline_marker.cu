/* The timeline's clock marker (timeline_marker.h). */
#include <cuda_runtime.h>

#include "base/cuda_check.h"
#include "timeline_marker.h"

__device__ static unsigned long long global_timer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The name carries KS_TL_MARKER_NAME: the timeline finds its activity record by it. */
__global__ void ks_timeline_marker(unsigned long long *out, unsigned long long spin_ns)
{
    const unsigned long long t0 = global_timer();
    unsigned long long t1 = t0;
    while (t1 - t0 < spin_ns) t1 = global_timer();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = t0;
        out[1] = t1;
    }
}

extern "C" ks_status ks_tl_marker_run(unsigned long long gpu_ns[2], unsigned long long spin_ns, int blocks)
{
    if (blocks < 1) blocks = 1;
    unsigned long long *d = nullptr;
    KS_CUDA_TRY(cudaMalloc(&d, 2 * sizeof *d));
    ks_timeline_marker<<<blocks, blocks > 1 ? 32 : 1>>>(d, spin_ns);
    cudaError_t e = cudaPeekAtLastError();
    if (e == cudaSuccess) e = cudaMemcpy(gpu_ns, d, 2 * sizeof *d, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess)
        return ks_fail(KS_ERR_CUDA, "timeline: the clock marker failed: %s", cudaGetErrorString(e));
    return KS_OK;
}
