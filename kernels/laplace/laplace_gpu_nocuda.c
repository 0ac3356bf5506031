/* laplace_gpu.cu in a build without CUDA: the solver; nothing can be created. */
#include <string.h>

#include "base/ks_nocuda.h"
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
ks_status ks_lsolver_launch_once(ks_lsolver *s, int variant, const int block[3])
{
    (void)variant, (void)block;
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
ks_status ks_lsolver_time(ks_lsolver *s, int variant, const int block[3], int iters, const ks_timing_opts *o,
                          ks_timing *out)
{
    (void)variant, (void)block, (void)iters, (void)o, (void)out;
    KS_LNO;
}
void ks_lsolver_drop_graphs(ks_lsolver *s) { (void)s; }
