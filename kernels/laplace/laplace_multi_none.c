/* The multi-GPU solver (laplace_multi.h; laplace_multi*.cu where NCCL is) in a
 * build without NCCL (or without CUDA): every entry point says in one line
 * what is missing. */
#include "laplace_multi.h"

#include <stdlib.h>
#include <string.h>

static const char *missing(void)
{
#if KS_HAVE_CUDA
    return "several GPUs need NCCL, which this kernelscope was built without (install NCCL, e.g. Debian's "
           "libnccl-dev, and rebuild)";
#else
    return "several GPUs need CUDA and NCCL; this kernelscope was built without CUDA";
#endif
}

int ks_lmulti_supported(const char **why)
{
    if (why) *why = missing();
    return 0;
}

void ks_lmulti_set_nccl_env(void)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    setenv("NCCL_MAX_P2P_NCHANNELS", "4", 0);
}

ks_status ks_lmulti_create(const ks_lmulti_desc *d, ks_lmulti **out)
{
    (void)d;
    *out = NULL;
    return ks_fail(KS_ERR_UNSUPPORTED, "%s", missing());
}

void ks_lmulti_destroy(ks_lmulti *m) { (void)m; }
int ks_lmulti_domains(const ks_lmulti *m) { (void)m; return 0; }
int ks_lmulti_local(const ks_lmulti *m) { (void)m; return 0; }
int ks_lmulti_first_domain(const ks_lmulti *m) { (void)m; return 0; }
const ks_slab *ks_lmulti_slab(const ks_lmulti *m, int domain) { (void)m; (void)domain; return NULL; }
int ks_lmulti_device(const ks_lmulti *m, int local) { (void)m; (void)local; return -1; }
const char *ks_lmulti_device_name(const ks_lmulti *m) { (void)m; return ""; }
void ks_lmulti_cc(const ks_lmulti *m, char *buf, size_t len) { (void)m; if (len) buf[0] = '\0'; }

static ks_status none(void) { return ks_fail(KS_ERR_UNSUPPORTED, "%s", missing()); }

ks_status ks_lmulti_upload(ks_lmulti *m, const float *field) { (void)m; (void)field; return none(); }
ks_status ks_lmulti_download(ks_lmulti *m, float *field) { (void)m; (void)field; return none(); }
ks_status ks_lmulti_check_block(ks_lmulti *m, int variant, const int block[3])
{
    (void)m; (void)variant; (void)block;
    return none();
}
ks_status ks_lmulti_run(ks_lmulti *m, int variant, const int block[3], int iters, ks_lprev prev)
{
    (void)m; (void)variant; (void)block; (void)iters; (void)prev;
    return none();
}
ks_status ks_lmulti_residual(ks_lmulti *m, double *rms) { (void)m; *rms = 0.0; return none(); }
ks_status ks_lmulti_time(ks_lmulti *m, int variant, const int block[3], int iters, int reps, ks_lmulti_timing *out)
{
    (void)m; (void)variant; (void)block; (void)iters; (void)reps; (void)out;
    return none();
}

ks_grid ks_lmulti_slice_grid(const ks_lmulti *m, ks_axis axis)
{
    (void)m;
    (void)axis;
    const ks_grid g = {3, 3, 3, 3};
    return g;
}
int ks_lmulti_slice_index(const ks_lmulti *m, ks_axis axis, int index) { (void)m; (void)axis; return index; }
void ks_lmulti_slice_point(const ks_lmulti *m, ks_axis axis, const int p[3], int out[3])
{
    (void)m;
    (void)axis;
    for (int k = 0; k < 3; ++k) out[k] = p[k];
}
ks_status ks_lmulti_slice_into(ks_lmulti *m, ks_axis axis, int index, ks_lsolver *view)
{
    (void)m; (void)axis; (void)index; (void)view;
    return none();
}
int ks_lmulti_owner(const ks_lmulti *m, int plane) { (void)m; (void)plane; return 0; }
void ks_lmulti_last(const ks_lmulti *m, ks_lmulti_timing *out)
{
    (void)m;
    memset(out, 0, sizeof *out);
}

ks_status ks_lmulti_follow(ks_lmulti *m)
{
    (void)m;
    return none();
}
