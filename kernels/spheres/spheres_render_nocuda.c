/* spheres_render.cu in a build without CUDA: the variants' kernels; nothing runs. */

#include "base/ks_nocuda.h"
#include "spheres.h"

#define KS_SNO (void)g; return KS_NO_CUDA("spheres renderer")

ks_status ks_spheres_gpu_kernel_attrs(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2], ks_kernel_attrs *out)
{
    (void)m, (void)block, (void)out;
    KS_SNO;
}
