/* The matmul scene's registry row: its flags and checks. */
#include "app/scenes/matmul/matmul_options.h"

#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "app/scenes/matmul/bench_matmul.h"
#include "kernels/matmul/matmul.h"

static ks_status add_tile(void *ctx, const char *name, const char *item)
{
    ks_matmul_opts *mo = ctx;
    long long v;
    if (parse_int(item, 1, 1024, &v) != 0 || (v != 8 && v != 16 && v != 32))
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a tile size (8, 16 or 32)", name, quoted(item));
    if (mo->tile_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d tiles", name, KS_MAX_LIST);
    mo->tiles[mo->tile_n++] = (int)v;
    return KS_OK;
}
static ks_status set_tile(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return for_each_item(own, name, v, add_tile);
}
static ks_status add_size(void *ctx, const char *name, const char *item)
{
    ks_matmul_opts *mo = ctx;
    ks_matmul_size s;
    if (ks_matmul_size_parse(item, &s) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a matmul size (M or MxNxK, each 1..%d)", name, quoted(item),
                       KS_MATMUL_MAX_DIM);
    KS_TRY(ks_matmul_size_check(&s));
    if (mo->size_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    mo->sizes[mo->size_n][0] = s.m;
    mo->sizes[mo->size_n][1] = s.n;
    mo->sizes[mo->size_n][2] = s.k;
    ++mo->size_n;
    return KS_OK;
}
static ks_status set_picture(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ks_matmul_opts *mo = own;
    static const char *const names[KS_MATMUL_PIC_NUM] = {"values", "sm", "time"};
    for (int p = 0; p < KS_MATMUL_PIC_NUM; ++p)
        if (strcmp(v, names[p]) == 0) {
            mo->picture = p;
            return KS_OK;
        }
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a picture (values, sm, time)", name, quoted(v));
}
static void variants(char *buf, size_t len) { ks_matmul_variant_list(buf, len); }
static void colormaps(char *buf, size_t len) { ks_colormap_list(buf, len); }

static const ks_flag_row ks_matmul_flags[] = {
    {"--size", "M | MxNxK",
     "C = A*B with A MxK, B KxN (M alone: square; default 2048;\nbench: a list, default 1024,2048,4096,8192)", 0, NULL},
    {"--kernel", "NAME", "%s (bench: a list; default all)", 0, NULL, NULL, variants},
    {"--tile", "T", "tiled's tile: 8, 16 or 32 (default 16; bench: a list, default all)", KS_IN_LIVE | KS_IN_BENCH,
     set_tile, "the CPU gold routine runs"},
    {"--colormap", "NAME", "%s (default viridis)", 0, NULL, NULL, colormaps},
    {"--picture", "values | sm | time",
     "what the picture shows (V cycles it): C's values (default), each tile of C\nby the SM "
     "(CPU: the thread) that computed it, or by when it finished", KS_IN_LIVE, set_picture},
    {"--dump-field", "FILE.npy", "write C (float32, shape (M, N))", 0, NULL},
};
const ks_option_group ks_matmul_options = {
    "Matmul scene", sizeof(ks_matmul_opts), ks_matmul_flags,
    (int)(sizeof ks_matmul_flags / sizeof ks_matmul_flags[0]), NULL,
};

/* Sizes, tiles, variant names. */
static ks_status finish(ks_options *o)
{
    ks_matmul_opts *mo = ks_options_own(o, &ks_matmul_options);
    if (o->size_text) {
        mo->size_n = 0;
        KS_TRY(for_each_item(mo, "--size", o->size_text, add_size));
    }
    if (o->mode == KS_MODE_LIVE && (mo->size_n > 1 || mo->tile_n > 1 || o->kernel_count > 1))
        return ks_fail(KS_ERR_INVALID, "--size/--tile/--kernel: one value each for the live view (lists are for bench)");
    for (int k = 0; k < o->kernel_count; ++k) {
        ks_matmul_variant v;
        if (ks_matmul_variant_parse(o->kernels[k], &v) != 0) {
            char names[128];
            ks_matmul_variant_list(names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown matmul kernel '%s' (%s)", quoted(o->kernels[k]), names);
        }
    }
    return KS_OK;
}

static ks_status bench(const ks_bench_env *e) { return ks_bench_matmul(e->opt, e->device, e->use_cuda); }

extern const ks_scene_api ks_scene_matmul_api;

const ks_scene_def ks_scene_matmul = {
    .name = "matmul",
    .rank = 40,
    .sample_args = "--size 67x45x33",
    .summary = "float32 matrix multiply: naive, shared-memory tiles, register tiles, cuBLAS",
    .options = &ks_matmul_options,
    .takes_live = "--kernel --colormap --range --dump-field",
    .takes_bench = "--kernel --size",
    .finish_options = finish,
    .live = &ks_scene_matmul_api,
    .bench = bench,
    .solver_stage = "matmul",
};
