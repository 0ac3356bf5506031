/* The matmul scene's flags, their storage and checks (options.h). */
#include "app/scenes/matmul/options.h"

#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "base/ks_util.h"
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
            mo->picture_set = 1;
            return KS_OK;
        }
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a picture (values, sm, time)", name, quoted(v));
}
static ks_status set_kernel_file(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return ks_kernel_files_add(&((ks_matmul_opts *)own)->kernel_files, name, v);
}

/* 1 when name is one of ours (a --kernel-file may not take it). */
static int is_ours(const char *name)
{
    ks_matmul_variant v;
    return ks_matmul_variant_parse(name, &v) == 0;
}

int ks_matmul_kernel_known(const ks_options *o, const char *name)
{
    ks_matmul_variant v;
    if (ks_matmul_variant_parse(name, &v) == 0) return 1;
    return ks_kernel_files_named(&KS_MATMUL_OPTS(o)->kernel_files, name);
}

static void variants(char *buf, size_t len) { ks_matmul_variant_list(buf, len); }
static void colormaps(char *buf, size_t len) { ks_colormap_list(buf, len); }

static const ks_flag_row ks_matmul_flags[] = {
    {"--size", "M | MxNxK",
     "C = A*B with A MxK, B KxN (M alone: square; default 2048;\nbench: a list, default 1024,2048,4096,8192)", 0, NULL},
    {"--kernel", "NAME", "%s (bench: a list; default all)", 0, NULL, NULL, variants},
    {"--kernel-file", "FILE",
     "your own kernel, one more variant named after the file\n(the contract below; kernelscope new-kernel matmul "
     "writes a\nstarter); compiled with NVRTC, checked in a child process,\nreloaded on every save; repeatable",
     KS_IN_LIVE | KS_IN_BENCH, set_kernel_file, NULL, NULL, 1},
    {"--block", "BXxBY", "your kernels' block (default 16x16; [ ] change it live)", 0, NULL},
    {"--tile", "T", "tiled's tile: 8, 16 or 32 (default 16; bench: a list, default all)", KS_IN_LIVE | KS_IN_BENCH,
     set_tile, "the CPU gold routine runs"},
    {"--colormap", "NAME", "%s (default viridis)", 0, NULL, NULL, colormaps},
    {"--picture", "time | sm | values",
     "what the picture shows (V cycles it): each tile of C by when it finished\n(default), by the SM "
     "(CPU: the thread) that computed it, or C's values", KS_IN_LIVE, set_picture},
    {"--dump-field", "FILE.npy", "write C (float32, shape (M, N))", 0, NULL},
};
const ks_option_group ks_matmul_options = {
    "Matmul scene", sizeof(ks_matmul_opts), ks_matmul_flags,
    (int)(sizeof ks_matmul_flags / sizeof ks_matmul_flags[0]), NULL,
};

/* Sizes, tiles, variant names. */
ks_status ks_matmul_finish_options(ks_options *o)
{
    ks_matmul_opts *mo = ks_options_own(o, &ks_matmul_options);
    if (o->size_text) {
        mo->size_n = 0;
        KS_TRY(for_each_item(mo, "--size", o->size_text, add_size));
    }
    if (o->mode == KS_MODE_LIVE && (mo->size_n > 1 || mo->tile_n > 1 || o->kernel_count > 1))
        return ks_fail(KS_ERR_INVALID, "--size/--tile/--kernel: one value each for the live view (lists are for bench)");
    if (o->mode == KS_MODE_LIVE && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: one value for the live view (lists are for bench)");
    for (int b = 0; b < o->block_count; ++b)
        if (o->blocks[b][2] != 1)
            return ks_fail(KS_ERR_INVALID, "--block: matmul kernels take a 2-part block (BXxBY), got %dx%dx%d",
                           o->blocks[b][0], o->blocks[b][1], o->blocks[b][2]);
    KS_TRY(ks_kernel_files_check(&mo->kernel_files, 64, is_ours));
    for (int k = 0; k < o->kernel_count; ++k) {
        if (!ks_matmul_kernel_known(o, o->kernels[k])) {
            char names[128];
            ks_matmul_variant_list(names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown matmul kernel '%s' (%s%s)", quoted(o->kernels[k]), names,
                           mo->kernel_files.count ? ", or a --kernel-file's name" : "");
        }
    }
    return KS_OK;
}

const char *ks_matmul_kernel_file(const ks_options *o, int i)
{
    return ks_kernel_files_at(&KS_MATMUL_OPTS(o)->kernel_files, i);
}
