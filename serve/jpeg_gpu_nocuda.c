/* The GPU JPEG encoder of a build without CUDA: every call refuses with one line
 * (the caller shows it and encodes on the CPU, jpeg_cpu.h). */
#include "jpeg_gpu.h"
#include "base/ks_nocuda.h"

int ks_jpeg_gpu_built(void) { return 0; }

ks_status ks_jpeg_gpu_create(const ks_jpeg_desc *desc, ks_jpeg_gpu **out)
{
    (void)desc;
    *out = NULL;
    return KS_NO_CUDA("GPU JPEG encoder (nvJPEG)");
}

void ks_jpeg_gpu_destroy(ks_jpeg_gpu *e) { (void)e; }

ks_status ks_jpeg_gpu_encode(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg, size_t *bytes)
{
    (void)e, (void)rgba, (void)w, (void)h;
    *jpeg = NULL;
    *bytes = 0;
    return KS_NO_CUDA("GPU JPEG encoder (nvJPEG)");
}

ks_status ks_jpeg_gpu_convert(ks_jpeg_gpu *e, const void *rgba, int w, int h, uint8_t *out)
{
    (void)e, (void)rgba, (void)w, (void)h, (void)out;
    return KS_NO_CUDA("GPU JPEG encoder (nvJPEG)");
}

ks_status ks_jpeg_gpu_encode_host(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg, size_t *bytes)
{
    (void)e, (void)rgba, (void)w, (void)h;
    *jpeg = NULL;
    *bytes = 0;
    return KS_NO_CUDA("GPU JPEG encoder (nvJPEG)");
}
