/* The library's device path (lib/viewer_gpu.h). */
#include <cstring>
#include <new>

#include "base/cuda_check.h"
#include "lib/viewer_gpu.h"

namespace {

/* One thread a pixel (lib/viewer_sample.h). */
__global__ void sample_kernel(ks_vgpu_job j, float *out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= j.pw || py >= j.ph) return;
    out[(size_t)py * j.pw + px] = ks_vslice_pixel(j.slice, j.pw, j.ph, px, py);
}

struct slot {
    float *dev = nullptr, *host = nullptr; /* the picture on the device, and pinned on the host */
    size_t cap = 0;                         /* floats each holds */
    cudaEvent_t done = nullptr;             /* recorded on the caller's stream after the copy */
    int device = 0;
    int busy = 0;                           /* enqueued and not yet released */
};

} // namespace

struct ks_vgpu {
    slot s[KS_VGPU_SLOTS];
};

extern "C" ks_status ks_vgpu_create(ks_vgpu **out)
{
    *out = new (std::nothrow) ks_vgpu();
    return *out ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_show: out of host memory");
}

static void slot_free(slot &s)
{
    if (s.done) cudaEventDestroy(s.done);
    cudaFree(s.dev);
    cudaFreeHost(s.host);
    s = slot();
}

extern "C" ks_status ks_vgpu_enqueue(ks_vgpu *g, const ks_vgpu_job *job, int *slot_out)
{
    *slot_out = -1;
    int k = 0;
    while (k < KS_VGPU_SLOTS && g->s[k].busy) ++k;
    if (k == KS_VGPU_SLOTS) return KS_OK; /* both in use: this field is dropped */
    slot &s = g->s[k];
    int device = 0;
    KS_CUDA_TRY(cudaGetDevice(&device));
    const size_t n = (size_t)job->pw * (size_t)job->ph;
    if (n > s.cap || device != s.device) { /* grown (rarely: the picture's size is fixed by the field) */
        slot_free(s);
        s.device = device;
        KS_CUDA_TRY(cudaMalloc(&s.dev, n * sizeof(float)));
        KS_CUDA_TRY(cudaMallocHost(&s.host, n * sizeof(float)));
        KS_CUDA_TRY(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming | cudaEventBlockingSync));
        s.cap = n;
    }
    cudaStream_t stream = (cudaStream_t)job->stream;
    const dim3 block(32, 8), grid((job->pw + 31) / 32, (job->ph + 7) / 8);
    sample_kernel<<<grid, block, 0, stream>>>(*job, s.dev);
    KS_CUDA_TRY(cudaPeekAtLastError());
    KS_CUDA_TRY(cudaMemcpyAsync(s.host, s.dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    KS_CUDA_TRY(cudaEventRecord(s.done, stream));
    s.busy = 1;
    *slot_out = k;
    return KS_OK;
}

extern "C" ks_status ks_vgpu_wait(ks_vgpu *g, int k, const float **host)
{
    slot &s = g->s[k];
    KS_CUDA_TRY(cudaSetDevice(s.device)); /* the viewer's thread: the caller's device */
    KS_TRY(ks_cuda_wait_event(s.done, "the viewer waiting for a field's copy"));
    *host = s.host;
    return KS_OK;
}

extern "C" void ks_vgpu_release(ks_vgpu *g, int k) { g->s[k].busy = 0; }

extern "C" void ks_vgpu_destroy(ks_vgpu *g)
{
    if (!g) return;
    for (slot &s : g->s) {
        if (s.done) ks_cuda_wait_event(s.done, "ending the viewer"); /* a copy in flight ends first */
        slot_free(s);
    }
    delete g;
}

extern "C" ks_status ks_vgpu_event_ms(void *start, void *end, int *ready, double *ms)
{
    *ready = 0;
    *ms = 0.0;
    cudaError_t e = cudaEventQuery((cudaEvent_t)end);
    if (e == cudaErrorNotReady) return KS_OK;
    float t = 0.0f;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&t, (cudaEvent_t)start, (cudaEvent_t)end);
    if (e == cudaErrorNotReady) return KS_OK; /* the start, on another stream, has not happened yet */
    if (e != cudaSuccess) {
        cudaGetLastError();
        return ks_fail(KS_ERR_CUDA, "ks_viewer_stage: %s (events made with cudaEventDisableTiming cannot be timed)",
                       cudaGetErrorString(e));
    }
    *ready = 1;
    *ms = t;
    return KS_OK;
}
