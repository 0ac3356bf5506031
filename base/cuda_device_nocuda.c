/* The device probe of a build without CUDA (the twin of cuda_device.cu). */
#include <string.h>

#include "base/cuda_device.h"
#include "base/ks_nocuda.h"

ks_status ks_cuda_probe(ks_device_info *info)
{
    memset(info, 0, sizeof *info); /* present = 0 */
    ks_cuda_probe_facts f;
    memset(&f, 0, sizeof f); /* built_with_cuda = 0 */
    char why[64];
    ks_fail(KS_ERR_NO_DEVICE, "%s", ks_cuda_probe_reason(&f, why, sizeof why));
    return KS_OK;
}

ks_status ks_cuda_upload(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)dst, (void)src, (void)bytes, (void)stream;
    return KS_NO_CUDA("upload");
}

ks_status ks_cuda_measure_copy_gbs(size_t bytes, int reps, double *gbs)
{
    (void)bytes, (void)reps, (void)gbs;
    return KS_NO_CUDA("copy bandwidth");
}

ks_status ks_cuda_free_memory(size_t *free_bytes, size_t *total_bytes)
{
    (void)free_bytes, (void)total_bytes;
    return KS_NO_CUDA("device memory");
}

ks_status ks_cuda_kernel_attrs(const void *fn, int threads, size_t dyn_smem, int max_threads_per_sm,
                               ks_kernel_attrs *out)
{
    (void)fn, (void)threads, (void)dyn_smem, (void)max_threads_per_sm, (void)out;
    return KS_NO_CUDA("kernel attributes");
}

ks_status ks_cuda_sync(void) { return KS_NO_CUDA("device sync"); }
ks_status ks_cuda_profiler(int on)
{
    (void)on;
    return KS_NO_CUDA("profiler range");
}
ks_status ks_cuda_use_device(int ordinal)
{
    (void)ordinal;
    return KS_NO_CUDA("choosing a GPU");
}
int ks_cuda_stalled(void) { return 0; }
int ks_cuda_spare_device(void) { return -1; }
