// CUDA <-> OpenGL picture hand-over: a registered pixel buffer (pbo) or a
// device -> pinned host copy ring (copy). See interop.h.
#include <GL/gl.h>
#include <cuda_gl_interop.h>

#include <cstdlib>
#include <cstring>

#include "base/cuda_check.h"
#include "interop.h"

struct ks_interop {
    cudaGraphicsResource_t resource;
    int mapped;
};

// The one place that reads the test switch (README, "Display path").
static int forced_registration_failure(void)
{
    const char *v = std::getenv("KERNELSCOPE_FORCE_INTEROP_FAIL");
    return v && *v && std::strcmp(v, "0") != 0;
}

extern "C" ks_status ks_interop_register(unsigned int gl_pbo, ks_interop **out)
{
    *out = nullptr;
    if (forced_registration_failure())
        return ks_fail(KS_ERR_CUDA, "cudaGraphicsGLRegisterBuffer refused by KERNELSCOPE_FORCE_INTEROP_FAIL");
    ks_interop *io = static_cast<ks_interop *>(std::calloc(1, sizeof *io));
    if (!io) return ks_fail(KS_ERR_OUT_OF_MEMORY, "interop: out of host memory");
    // Write-discard: CUDA overwrites the whole picture every frame.
    cudaError_t err = cudaGraphicsGLRegisterBuffer(&io->resource, (GLuint)gl_pbo,
                                                   cudaGraphicsRegisterFlagsWriteDiscard);
    if (err != cudaSuccess) {
        std::free(io);
        (void)cudaGetLastError(); // not sticky: later launch checks must not see it
        return ks_fail(KS_ERR_CUDA, "cudaGraphicsGLRegisterBuffer failed: %s", cudaGetErrorString(err));
    }
    *out = io;
    return KS_OK;
}

extern "C" void ks_interop_unregister(ks_interop *io)
{
    if (!io) return;
    if (io->mapped) cudaGraphicsUnmapResources(1, &io->resource, 0);
    cudaGraphicsUnregisterResource(io->resource);
    std::free(io);
}

extern "C" ks_status ks_interop_map(ks_interop *io, void *stream, void **dev_ptr, size_t *bytes)
{
    if (io->mapped) return ks_fail(KS_ERR_INVALID, "interop: buffer is already mapped");
    KS_CUDA_TRY(cudaGraphicsMapResources(1, &io->resource, static_cast<cudaStream_t>(stream)));
    io->mapped = 1;
    KS_CUDA_TRY(cudaGraphicsResourceGetMappedPointer(dev_ptr, bytes, io->resource));
    return KS_OK;
}

extern "C" ks_status ks_interop_unmap(ks_interop *io, void *stream)
{
    if (!io->mapped) return KS_OK;
    io->mapped = 0;
    KS_CUDA_TRY(cudaGraphicsUnmapResources(1, &io->resource, static_cast<cudaStream_t>(stream)));
    return KS_OK;
}

// ---- copy ring ---------------------------------------------------------------

enum { KS_COPY_RING_MAX = 8, KS_COPY_RING_DEFAULT_SLOTS = 2 };

struct ks_copy_ring {
    int slots;
    size_t bytes;                        // per slot
    void *dev[KS_COPY_RING_MAX];         // the scene draws here
    void *host[KS_COPY_RING_MAX];        // pinned (cudaHostAlloc): the copy is truly asynchronous
    cudaEvent_t done[KS_COPY_RING_MAX];  // recorded after the slot's copy
    int submitted[KS_COPY_RING_MAX];     // 1 once an event was recorded
};

extern "C" void ks_copy_ring_destroy(ks_copy_ring *cr)
{
    if (!cr) return;
    for (int s = 0; s < cr->slots; ++s) {
        // a copy in flight must end before its buffers go
        if (cr->done[s] && ks_cuda_wait_event(cr->done[s], "ending the copy ring") != KS_OK) return; /* stalled */
        if (cr->done[s]) cudaEventDestroy(cr->done[s]);
        cudaFree(cr->dev[s]);
        cudaFreeHost(cr->host[s]);
    }
    std::free(cr);
}

// The one place zero fields become defaults (bytes has none).
static ks_copy_ring_desc copy_ring_desc_defaults(const ks_copy_ring_desc &desc)
{
    ks_copy_ring_desc d = desc;
    if (d.slots == 0) d.slots = KS_COPY_RING_DEFAULT_SLOTS;
    return d;
}

extern "C" ks_status ks_copy_ring_create(const ks_copy_ring_desc *desc, ks_copy_ring **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "copy ring: no output pointer");
    *out = nullptr;
    if (!desc) return ks_fail(KS_ERR_INVALID, "copy ring: no desc");
    const ks_copy_ring_desc d = copy_ring_desc_defaults(*desc);
    const int slots = d.slots;
    const size_t bytes = d.bytes;
    if (slots < 1 || slots > KS_COPY_RING_MAX || bytes == 0)
        return ks_fail(KS_ERR_INVALID, "copy ring: %d slots of %zu bytes", slots, bytes);
    ks_copy_ring *cr = static_cast<ks_copy_ring *>(std::calloc(1, sizeof *cr));
    if (!cr) return ks_fail(KS_ERR_OUT_OF_MEMORY, "copy ring: out of host memory");
    cr->slots = slots;
    cr->bytes = bytes;
    for (int s = 0; s < slots; ++s) {
        cudaError_t err = cudaMalloc(&cr->dev[s], bytes);
        if (err == cudaSuccess) err = cudaHostAlloc(&cr->host[s], bytes, cudaHostAllocDefault);
        if (err == cudaSuccess) err = cudaEventCreateWithFlags(&cr->done[s], cudaEventDisableTiming);
        if (err != cudaSuccess) {
            ks_copy_ring_destroy(cr);
            (void)cudaGetLastError();
            const ks_status code = err == cudaErrorMemoryAllocation ? KS_ERR_OUT_OF_MEMORY : KS_ERR_CUDA;
            return ks_fail(code, "copy path: %d picture buffers of %.1f MiB (device and pinned host): %s", slots,
                           (double)bytes / (1024.0 * 1024.0), cudaGetErrorString(err));
        }
    }
    *out = cr;
    return KS_OK;
}

static ks_status check_slot(const ks_copy_ring *cr, int slot)
{
    if (!cr || slot < 0 || slot >= cr->slots)
        return ks_fail(KS_ERR_INVALID, "copy ring: slot %d out of range", slot);
    return KS_OK;
}

extern "C" ks_status ks_copy_ring_acquire(ks_copy_ring *cr, int slot, void *stream, void **dev_ptr)
{
    KS_TRY(check_slot(cr, slot));
    if (cr->submitted[slot])
        KS_CUDA_TRY(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), cr->done[slot], 0));
    *dev_ptr = cr->dev[slot];
    return KS_OK;
}

extern "C" ks_status ks_copy_ring_submit(ks_copy_ring *cr, int slot, size_t bytes, void *stream)
{
    KS_TRY(check_slot(cr, slot));
    if (bytes > cr->bytes)
        return ks_fail(KS_ERR_INVALID, "copy ring: %zu bytes do not fit a %zu-byte slot", bytes, cr->bytes);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (bytes) KS_CUDA_TRY(cudaMemcpyAsync(cr->host[slot], cr->dev[slot], bytes, cudaMemcpyDeviceToHost, s));
    KS_CUDA_TRY(cudaEventRecord(cr->done[slot], s));
    cr->submitted[slot] = 1;
    return KS_OK;
}

extern "C" ks_status ks_copy_ring_host(ks_copy_ring *cr, int slot, const void **host)
{
    KS_TRY(check_slot(cr, slot));
    if (!cr->submitted[slot]) return ks_fail(KS_ERR_INVALID, "copy ring: slot %d has no picture yet", slot);
    KS_TRY(ks_cuda_wait_event(cr->done[slot], "waiting for a picture's copy"));
    *host = cr->host[slot];
    return KS_OK;
}
