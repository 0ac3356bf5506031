/* The Laplace CUDA solver in a build without CUDA: nothing can be created. */
#include <string.h>

#include "kernels/common/ks_nocuda.h"
#include "laplace.h"

#define KS_LNO (void)s; return KS_NO_CUDA("laplace solver")

ks_status ks_lsolver_create(const ks_grid *g, ks_lsolver **out)
{
    (void)g;
    *out = NULL;
    return KS_NO_CUDA("laplace solver");
}
void ks_lsolver_destroy(ks_lsolver *s) { (void)s; }
void *ks_lsolver_stream(ks_lsolver *s) { (void)s; return NULL; }
ks_status ks_lsolver_use_stream(ks_lsolver *s, void *stream) { (void)stream; KS_LNO; }
ks_status ks_lsolver_fill_bytes(ks_lsolver *s, void *dst, int value, size_t bytes)
{
    (void)dst, (void)value, (void)bytes;
    KS_LNO;
}
ks_status ks_lsolver_upload_bytes(ks_lsolver *s, void *dst, const void *src, size_t bytes)
{
    (void)dst, (void)src, (void)bytes;
    KS_LNO;
}
ks_status ks_lsolver_wait(ks_lsolver *s) { KS_LNO; }
ks_status ks_lsolver_upload(ks_lsolver *s, const float *host) { (void)host; KS_LNO; }
ks_status ks_lsolver_upload_previous(ks_lsolver *s, const float *host) { (void)host; KS_LNO; }
ks_status ks_lsolver_download(ks_lsolver *s, float *host) { (void)host; KS_LNO; }
ks_status ks_lsolver_download_previous(ks_lsolver *s, float *host) { (void)host; KS_LNO; }
ks_status ks_lsolver_check_block(const ks_lsolver *s, int variant, const int block[3])
{
    (void)variant, (void)block;
    KS_LNO;
}
ks_status ks_lsolver_kernel_attrs(const ks_lsolver *s, int variant, const int block[3], ks_kernel_attrs *out)
{
    (void)variant, (void)block, (void)out;
    KS_LNO;
}
ks_status ks_lsolver_iterate(ks_lsolver *s, int variant, const int block[3], int iters)
{
    (void)variant, (void)block, (void)iters;
    KS_LNO;
}
ks_status ks_lsolver_run(ks_lsolver *s, int variant, const int block[3], int iters, ks_lprev prev)
{
    (void)variant, (void)block, (void)iters, (void)prev;
    KS_LNO;
}
ks_status ks_lsolver_use_graphs(ks_lsolver *s, int on)
{
    (void)on;
    KS_LNO;
}
void ks_lsolver_graph_stats(const ks_lsolver *s, ks_lgraph_stats *out)
{
    (void)s;
    *out = (ks_lgraph_stats){0};
}
ks_status ks_lsolver_residual(ks_lsolver *s) { KS_LNO; }
ks_status ks_lsolver_render_slice(ks_lsolver *s, ks_axis axis, int index, ks_colormap map, float lo, float hi,
                                  void *dst_rgba)
{
    (void)axis, (void)index, (void)map, (void)lo, (void)hi, (void)dst_rgba;
    KS_LNO;
}
ks_status ks_lsolver_render_view(ks_lsolver *s, ks_axis axis, int index, const ks_cellmap *m, ks_colormap map,
                                 float lo, float hi, void *dst_rgba)
{
    (void)axis, (void)index, (void)m, (void)map, (void)lo, (void)hi, (void)dst_rgba;
    KS_LNO;
}
ks_status ks_lsolver_read_slice_rgba(ks_lsolver *s, ks_axis axis, int index, ks_colormap map, float lo, float hi,
                                     unsigned char *host_rgba)
{
    (void)axis, (void)index, (void)map, (void)lo, (void)hi, (void)host_rgba;
    KS_LNO;
}
ks_status ks_lsolver_request_readback(ks_lsolver *s, ks_axis axis, int index, const int probe[3],
                                      long long iteration)
{
    (void)axis, (void)index, (void)probe, (void)iteration;
    KS_LNO;
}
int ks_lsolver_poll_readback(ks_lsolver *s, ks_lreadback *out)
{
    (void)s, (void)out;
    return 0;
}
ks_status ks_lsolver_request_histogram(ks_lsolver *s, float lo, float hi, int bins, long long iteration)
{
    (void)lo, (void)hi, (void)bins, (void)iteration;
    KS_LNO;
}
int ks_lsolver_histogram_pending(const ks_lsolver *s)
{
    (void)s;
    return 0;
}
int ks_lsolver_poll_histogram(ks_lsolver *s, ks_lhist *out)
{
    (void)s, (void)out;
    return 0;
}
ks_status ks_lsolver_time(ks_lsolver *s, int variant, const int block[3], int iters, int reps, double *ms_per_iter)
{
    (void)variant, (void)block, (void)iters, (void)reps, (void)ms_per_iter;
    KS_LNO;
}

/* Nothing runs without CUDA, so no variant has a code path to name. */
const char *ks_lvariant_code_path(int id)
{
    (void)id;
    return NULL;
}

ks_status ks_luser_load(int id, const void *code, size_t size)
{
    (void)id, (void)code, (void)size;
    return KS_NO_CUDA("running a user's kernel");
}
int ks_luser_ready(int id) { (void)id; return 0; }
long long ks_luser_generation(int id) { (void)id; return 0; }
ks_status ks_lsolver_fill_random(ks_lsolver *s, unsigned long long seed)
{
    (void)seed;
    KS_LNO;
}
ks_status ks_lsolver_diff(ks_lsolver *a, ks_lsolver *b, float tol, ks_ldiff *out)
{
    (void)a, (void)b, (void)tol;
    memset(out, 0, sizeof *out);
    return KS_NO_CUDA("laplace solver");
}
ks_status ks_lsolver_diff_slice(ks_lsolver *a, ks_lsolver *b, ks_axis axis, int index, float *host)
{
    (void)a, (void)b, (void)axis, (void)index, (void)host;
    return KS_NO_CUDA("laplace solver");
}
void ks_lsolver_drop_graphs(ks_lsolver *s) { (void)s; }
