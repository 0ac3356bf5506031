/* laplace_slice.cu in a build without CUDA: the slices and the readback; nothing runs. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "laplace.h"

#define KS_LNO (void)s; return KS_NO_CUDA("laplace solver")

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
