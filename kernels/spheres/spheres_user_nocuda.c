/* spheres_user.cu in a build without CUDA: a user's kernel; nothing loads. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "spheres_user.h"

ks_status ks_spheres_user_load(const char *name, const void *code, size_t size, ks_spheres_user **out)
{
    (void)name, (void)code, (void)size;
    *out = NULL;
    return KS_NO_CUDA("spheres");
}
int ks_spheres_user_capacity(const ks_spheres_user *u)
{
    (void)u;
    return 0;
}
int ks_spheres_user_constant(const ks_spheres_user *u)
{
    (void)u;
    return 0;
}
ks_status ks_spheres_user_check(const ks_spheres_user *u, int count, const int block[2])
{
    (void)u, (void)count, (void)block;
    return KS_NO_CUDA("spheres");
}
ks_status ks_spheres_gpu_render_user(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], int w, int h,
                                     void *dst, int tag)
{
    (void)g, (void)u, (void)block, (void)w, (void)h, (void)dst, (void)tag;
    return KS_NO_CUDA("spheres");
}
ks_status ks_spheres_gpu_time_user(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], int w, int h,
                                   const ks_timing_opts *o, ks_timing *out)
{
    (void)g, (void)u, (void)block, (void)w, (void)h, (void)o, (void)out;
    return KS_NO_CUDA("spheres");
}
ks_status ks_spheres_user_attrs(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], ks_kernel_attrs *out)
{
    (void)g, (void)u, (void)block;
    memset(out, 0, sizeof *out);
    return KS_NO_CUDA("spheres");
}
