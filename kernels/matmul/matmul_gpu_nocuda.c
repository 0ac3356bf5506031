/* matmul_gpu.cu in a build without CUDA: the GPU context; no device, nothing can be created. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "matmul.h"
#include "matmul_tiles.h"
#include "matmul_user.h"

#define KS_MNO (void)g; return KS_NO_CUDA("matmul")

ks_status ks_matmul_gpu_create(ks_matmul_gpu **out)
{
    *out = NULL;
    return KS_NO_CUDA("matmul");
}
void ks_matmul_gpu_destroy(ks_matmul_gpu *g) { (void)g; }
void *ks_matmul_gpu_stream(ks_matmul_gpu *g) { (void)g; return NULL; }
ks_status ks_matmul_gpu_setup(ks_matmul_gpu *g, const ks_matmul_size *s) { (void)s; KS_MNO; }
ks_status ks_matmul_gpu_poison(ks_matmul_gpu *g) { KS_MNO; }
ks_status ks_matmul_gpu_upload(ks_matmul_gpu *g, const float *a, const float *b) { (void)a, (void)b; KS_MNO; }
ks_status ks_matmul_gpu_run(ks_matmul_gpu *g, ks_matmul_variant v, int tile) { (void)v, (void)tile; KS_MNO; }
ks_status ks_matmul_gpu_run_timed(ks_matmul_gpu *g, ks_matmul_variant v, int tile, double *ms)
{
    (void)v, (void)tile, (void)ms;
    KS_MNO;
}
ks_status ks_matmul_gpu_time(ks_matmul_gpu *g, ks_matmul_variant v, int tile, const ks_timing_opts *o,
                             ks_timing *out)
{
    (void)v, (void)tile, (void)o, (void)out;
    KS_MNO;
}
ks_status ks_matmul_gpu_download(ks_matmul_gpu *g, float *c) { (void)c; KS_MNO; }
ks_status ks_matmul_gpu_draw(ks_matmul_gpu *g, int w, int h, const unsigned char lut[256][4], float lo, float hi,
                             ks_matmul_tile grid, void *rgba)
{
    (void)w, (void)h, (void)lut, (void)lo, (void)hi, (void)grid, (void)rgba;
    KS_MNO;
}
ks_status ks_matmul_gpu_read(ks_matmul_gpu *g, int i, int j, float *value)
{
    (void)i, (void)j, (void)value;
    KS_MNO;
}
ks_status ks_matmul_gpu_set_record(ks_matmul_gpu *g, int on) { (void)on; KS_MNO; }
ks_status ks_matmul_gpu_records(ks_matmul_gpu *g, ks_matmul_tile_rec *rec, int n, int *count)
{
    (void)rec, (void)n;
    *count = 0;
    KS_MNO;
}
ks_status ks_matmul_gpu_clock(ks_matmul_gpu *g, unsigned long long *ns) { (void)ns; KS_MNO; }
ks_matmul_tile ks_matmul_gpu_block_tile(ks_matmul_gpu *g, ks_matmul_variant v, int tile)
{
    (void)g, (void)v, (void)tile;
    return (ks_matmul_tile){0, 0};
}
ks_status ks_matmul_gpu_set_regtile(ks_matmul_gpu *g, int i)
{
    (void)i;
    KS_MNO;
}
ks_status ks_matmul_gpu_regtile(ks_matmul_gpu *g, ks_matmul_rt_choice *out)
{
    memset(out, 0, sizeof *out);
    KS_MNO;
}
ks_status ks_matmul_gpu_draw_tiles(ks_matmul_gpu *g, ks_matmul_tile bt, ks_matmul_picture pic, const unsigned char pal[256][4],
                                   const unsigned char lut[256][4], unsigned long long first,
                                   unsigned long long last, int w, int h, void *rgba)
{
    (void)bt, (void)pic, (void)pal, (void)lut, (void)first, (void)last, (void)w, (void)h, (void)rgba;
    KS_MNO;
}
ks_status ks_matmul_gpu_shade_bands(ks_matmul_gpu *g, const ks_matmul_band *b, int w, int h, void *rgba)
{
    (void)b, (void)w, (void)h, (void)rgba;
    KS_MNO;
}
ks_status ks_matmul_gpu_run_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3])
{
    (void)u, (void)block;
    KS_MNO;
}
ks_status ks_matmul_gpu_run_user_timed(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3], double *ms)
{
    (void)u, (void)block, (void)ms;
    KS_MNO;
}
ks_status ks_matmul_gpu_time_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3],
                                  const ks_timing_opts *o, ks_timing *out)
{
    (void)u, (void)block, (void)o, (void)out;
    KS_MNO;
}
