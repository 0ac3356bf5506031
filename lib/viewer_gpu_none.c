/* The library's device path in a build without CUDA: fields in device memory are refused. */
#include "lib/viewer_gpu.h"

ks_status ks_vgpu_create(ks_vgpu **out)
{
    *out = NULL;
    return ks_fail(KS_ERR_UNSUPPORTED, "ks_viewer_show: a field in CUDA device memory, and this library was built "
                                       "without CUDA");
}

ks_status ks_vgpu_enqueue(ks_vgpu *g, const ks_vgpu_job *job, int *slot)
{
    (void)g;
    (void)job;
    *slot = -1;
    return ks_fail(KS_ERR_UNSUPPORTED, "ks_viewer_show: built without CUDA");
}

ks_status ks_vgpu_wait(ks_vgpu *g, int slot, const float **host)
{
    (void)g;
    (void)slot;
    *host = NULL;
    return ks_fail(KS_ERR_UNSUPPORTED, "ks_viewer_show: built without CUDA");
}

void ks_vgpu_release(ks_vgpu *g, int slot)
{
    (void)g;
    (void)slot;
}

void ks_vgpu_destroy(ks_vgpu *g) { (void)g; }

ks_status ks_vgpu_event_ms(void *start, void *end, int *ready, double *ms)
{
    (void)start;
    (void)end;
    *ready = 0;
    *ms = 0.0;
    return ks_fail(KS_ERR_UNSUPPORTED, "ks_viewer_stage: CUDA events, and this library was built without CUDA");
}
