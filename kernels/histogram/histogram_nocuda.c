/* The histogram GPU side in a build without CUDA: the variant names stay (for
 * validation and the help text), nothing can be created or launched. */
#include <string.h>

#include "histogram.h"
#include "histogram_user.h"
#include "kernels/common/ks_nocuda.h"

#define KS_HIST_ROW(name, summary, words, overwrites) {#name, summary, words, overwrites, NULL},
static const ks_hist_variant ks_hist_variants[KS_HIST_VARIANT_NUM] = {KS_HIST_VARIANT_ROWS(KS_HIST_ROW)};
#undef KS_HIST_ROW

const ks_hist_variant *ks_hist_variant_get(int i)
{
    return (i >= 0 && i < KS_HIST_VARIANT_NUM) ? &ks_hist_variants[i] : NULL;
}

int ks_hist_variant_find(const char *name)
{
    for (int i = 0; i < KS_HIST_VARIANT_NUM; ++i)
        if (strcmp(name, ks_hist_variants[i].name) == 0) return i;
    return -1;
}

void ks_hist_atomics_model(ks_hist_ctx *ctx, int variant, const ks_hist_input *in, size_t bytes,
                           double items_per_byte, double *global, double *shared)
{
    (void)ctx, (void)variant, (void)in, (void)bytes, (void)items_per_byte;
    *global = *shared = -1.0; /* not modelled: nothing runs */
}

ks_status ks_hist_ctx_create(ks_hist_ctx **ctx)
{
    *ctx = NULL;
    return KS_NO_CUDA("histogram");
}
void ks_hist_ctx_destroy(ks_hist_ctx *ctx) { (void)ctx; }
ks_status ks_hist_run(ks_hist_ctx *ctx, int variant, const ks_hist_input *in, size_t begin, size_t end,
                      unsigned *d_hist, void *stream)
{
    (void)ctx, (void)variant, (void)in, (void)begin, (void)end, (void)d_hist, (void)stream;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_add(unsigned *d_dst, const unsigned *d_src, unsigned bins, void *stream)
{
    (void)d_dst, (void)d_src, (void)bins, (void)stream;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_draw_bars(const unsigned *d_hist, unsigned bins, int log_scale, const ks_hist_axes *ax,
                            const unsigned char *d_mask, unsigned char *rgba, int w, int h, void *stream)
{
    (void)d_hist, (void)bins, (void)log_scale, (void)ax, (void)d_mask, (void)rgba, (void)w, (void)h, (void)stream;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_create(const ks_hist_gpu_desc *desc, ks_hist_gpu **out)
{
    (void)desc;
    *out = NULL;
    return KS_NO_CUDA("histogram");
}
void ks_hist_gpu_destroy(ks_hist_gpu *g) { (void)g; }
void *ks_hist_gpu_stream(ks_hist_gpu *g) { (void)g; return NULL; }
const ks_hist_input *ks_hist_gpu_input(ks_hist_gpu *g) { (void)g; return NULL; }
ks_hist_ctx *ks_hist_gpu_ctx(ks_hist_gpu *g) { (void)g; return NULL; }
ks_status ks_hist_gpu_fill(ks_hist_gpu *g, unsigned value)
{
    (void)g, (void)value;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_chunk(ks_hist_gpu *g, int variant, size_t begin, size_t end, double *ms)
{
    (void)g, (void)variant, (void)begin, (void)end, (void)ms;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_counts(ks_hist_gpu *g, uint64_t *out)
{
    (void)g, (void)out;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_whole(ks_hist_gpu *g, int variant)
{
    (void)g, (void)variant;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_time(ks_hist_gpu *g, int variant, int warmup, int reps, double *median_ms, double *min_ms)
{
    (void)g, (void)variant, (void)warmup, (void)reps, (void)median_ms, (void)min_ms;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_draw(ks_hist_gpu *g, int log_scale, const ks_hist_axes *ax, const unsigned char *mask,
                           unsigned char *rgba, int w, int h)
{
    (void)g, (void)log_scale, (void)ax, (void)mask, (void)rgba, (void)w, (void)h;
    return KS_NO_CUDA("histogram");
}

/* A user's kernel (histogram_user.h): nothing loads without CUDA. */
ks_status ks_hist_user_load(const char *name, const void *code, size_t size, ks_hist_user **out)
{
    (void)name, (void)code, (void)size;
    *out = NULL;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_user_check_block(const ks_hist_user *u, size_t n, const int block[3])
{
    (void)u, (void)n, (void)block;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_chunk_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], size_t begin, size_t end,
                                 double *ms)
{
    (void)g, (void)u, (void)block, (void)begin, (void)end, (void)ms;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_whole_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3])
{
    (void)g, (void)u, (void)block;
    return KS_NO_CUDA("histogram");
}
ks_status ks_hist_gpu_time_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], int warmup, int reps,
                                double *median_ms, double *min_ms)
{
    (void)g, (void)u, (void)block, (void)warmup, (void)reps, (void)median_ms, (void)min_ms;
    return KS_NO_CUDA("histogram");
}
