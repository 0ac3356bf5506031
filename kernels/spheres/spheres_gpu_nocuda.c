/* spheres_gpu.cu in a build without CUDA: the renderer; no device, nothing can be created. */

#include "base/ks_nocuda.h"
#include "spheres.h"

#define KS_SNO (void)g; return KS_NO_CUDA("spheres renderer")

ks_status ks_spheres_gpu_create(ks_spheres_gpu **out)
{
    *out = NULL;
    return KS_NO_CUDA("spheres renderer");
}
void ks_spheres_gpu_destroy(ks_spheres_gpu *g) { (void)g; }
void *ks_spheres_gpu_stream(ks_spheres_gpu *g) { (void)g; return NULL; }
ks_status ks_spheres_gpu_upload(ks_spheres_gpu *g, ks_spheres_mem m, const ks_sphere_packed *s, int count)
{
    (void)m, (void)s, (void)count;
    KS_SNO;
}
ks_status ks_spheres_gpu_poison(ks_spheres_gpu *g, int w, int h, unsigned char byte)
{
    (void)w, (void)h, (void)byte;
    KS_SNO;
}
ks_status ks_spheres_gpu_download(ks_spheres_gpu *g, int w, int h, unsigned char *rgba)
{
    (void)w, (void)h, (void)rgba;
    KS_SNO;
}
ks_status ks_spheres_gpu_time(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2], int w, int h,
                              const ks_timing_opts *o, ks_timing *out)
{
    (void)m, (void)block, (void)w, (void)h, (void)o, (void)out;
    KS_SNO;
}
void ks_spheres_gpu_track(ks_spheres_gpu *g, int on) { (void)g, (void)on; }
int ks_spheres_gpu_collect(ks_spheres_gpu *g, ks_spheres_sample *out, int max)
{
    (void)g, (void)out, (void)max;
    return 0;
}
ks_status ks_spheres_gpu_render(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2], int w, int h, void *dst)
{
    (void)m, (void)block, (void)w, (void)h, (void)dst;
    KS_SNO;
}
