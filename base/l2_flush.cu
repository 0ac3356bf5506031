/* Cold-cache timing's L2 flush (l2_flush.h). */
#include "l2_flush.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>

#include "cuda_check.h"

struct ks_l2_flush {
    uint4 *buf;     /* 2 x L2 */
    size_t words;   /* 16-byte words in buf */
    unsigned *sink; /* the read's XOR lands here (almost never) */
    int device;
};

/* Reads every word (so the L2 ends up holding clean lines); keeps the loads alive with an XOR. */
__global__ void ks_l2_flush_read_kernel(const uint4 *__restrict__ buf, size_t words, unsigned *sink)
{
    unsigned x = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = buf[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x9e3779b9u) *sink = x; /* the memset writes another pattern: never taken */
}

extern "C" ks_status ks_cuda_l2_bytes(double *bytes)
{
    int dev = 0, l2 = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    *bytes = (double)l2;
    return KS_OK;
}

static ks_status flush_make(ks_l2_flush **out)
{
    ks_l2_flush *f = (ks_l2_flush *)calloc(1, sizeof *f);
    if (!f) return ks_fail(KS_ERR_OUT_OF_MEMORY, "L2 flush: no host memory");
    *out = f;
    double l2 = 0.0;
    KS_TRY(ks_cuda_l2_bytes(&l2));
    KS_CUDA_TRY(cudaGetDevice(&f->device));
    const size_t bytes = 2 * (size_t)(l2 > 0.0 ? l2 : 64.0 * 1048576.0); /* no figure: 128 MiB */
    f->words = (bytes + 15) / 16;
    const cudaError_t e = cudaMalloc((void **)&f->buf, f->words * 16);
    if (e != cudaSuccess) {
        cudaGetLastError();
        f->buf = NULL;
        return ks_fail(e == cudaErrorMemoryAllocation ? KS_ERR_OUT_OF_MEMORY : KS_ERR_CUDA,
                       "L2 flush: cannot allocate %.0f MiB (twice the L2) for cold-cache timing: %s "
                       "(--cache warm needs none)", f->words * 16 / 1048576.0, cudaGetErrorString(e));
    }
    KS_CUDA_TRY(cudaMalloc((void **)&f->sink, sizeof *f->sink));
    return KS_OK;
}

extern "C" ks_status ks_l2_flush_run(ks_l2_flush **f, void *stream)
{
    if (!*f) {
        const ks_status st = flush_make(f);
        if (st != KS_OK) {
            ks_l2_flush_destroy(*f);
            *f = NULL;
            return st;
        }
    }
    const cudaStream_t s = (cudaStream_t)stream;
    KS_CUDA_TRY(cudaMemsetAsync((*f)->buf, 0x5a, (*f)->words * 16, s));
    int sms = 0;
    KS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, (*f)->device));
    ks_l2_flush_read_kernel<<<(unsigned)(sms > 0 ? 4 * sms : 256), 512, 0, s>>>((*f)->buf, (*f)->words, (*f)->sink);
    KS_CUDA_TRY_LAUNCH("L2 flush");
    return KS_OK;
}

extern "C" void ks_l2_flush_destroy(ks_l2_flush *f)
{
    if (!f) return;
    cudaFree(f->buf);
    cudaFree(f->sink);
    free(f);
}
