// CUDA <-> OpenGL pixel buffer interop: register once, map/unmap each frame.
#include <GL/gl.h>
#include <cuda_gl_interop.h>

#include <cstdlib>

#include "cuda_check.h"
#include "interop.h"

struct ks_interop {
    cudaGraphicsResource_t resource;
    int mapped;
};

extern "C" ks_status ks_interop_register(unsigned int gl_pbo, ks_interop **out)
{
    *out = nullptr;
    ks_interop *io = static_cast<ks_interop *>(std::calloc(1, sizeof *io));
    if (!io) return ks_fail(KS_ERR_OUT_OF_MEMORY, "interop: out of host memory");
    // Write-discard: CUDA overwrites the whole picture every frame.
    cudaError_t err = cudaGraphicsGLRegisterBuffer(&io->resource, (GLuint)gl_pbo,
                                                   cudaGraphicsRegisterFlagsWriteDiscard);
    if (err != cudaSuccess) {
        std::free(io);
        return ks_fail(KS_ERR_CUDA,
                       "cudaGraphicsGLRegisterBuffer(pixel buffer %u) failed: %s (is the GL "
                       "context on the CUDA device?)",
                       gl_pbo, cudaGetErrorString(err));
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
