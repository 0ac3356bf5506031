/* histogram_kernels.cu in a build without CUDA: the variant names stay (for validation
 * and the help text), nothing can be created or launched. */
#include <string.h>

#include "histogram.h"
#include "histogram_user.h"
#include "base/ks_nocuda.h"

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
ks_status ks_hist_choose(ks_hist_ctx *ctx, const ks_hist_input *in, void *stream)
{
    (void)ctx, (void)in, (void)stream;
    return KS_NO_CUDA("histogram");
}
void ks_hist_choice_text(const ks_hist_ctx *ctx, char *buf, size_t len)
{
    (void)ctx;
    if (len) buf[0] = '\0';
}
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
