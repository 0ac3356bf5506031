/* reduce_picture.cu in a build without CUDA: the levels and the picture; nothing runs. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "reduce.h"
#include "reduce_user.h"

#define KS_RNO (void)g; return KS_NO_CUDA("reduce")

ks_status ks_reduce_gpu_levels(ks_reduce_gpu *g, ks_reduce_op op, ks_reduce_levels *lv) { (void)op, (void)lv; KS_RNO; }
ks_status ks_reduce_gpu_levels_download(ks_reduce_gpu *g, float *data) { (void)data; KS_RNO; }
ks_status ks_reduce_gpu_draw(ks_reduce_gpu *g, int w, int h, const unsigned char lut[256][4], float lo, float hi,
                             void *rgba)
{
    (void)w, (void)h, (void)lut, (void)lo, (void)hi, (void)rgba;
    KS_RNO;
}
