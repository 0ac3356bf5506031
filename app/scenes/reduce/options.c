/* The reduce scene's flags, their storage and checks (options.h). */
#include "app/scenes/reduce/options.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "base/ks_util.h"
#include "kernels/reduce/reduce.h"

/* One --size item: an element count with an optional K, M or G (binary) suffix. */
static ks_status add_size(void *ctx, const char *name, const char *item)
{
    ks_reduce_opts *r = ctx;
    char buf[64];
    size_t len = strlen(item);
    if (len == 0 || len >= sizeof buf) goto bad;
    strcpy(buf, item);
    long long mult = 1;
    const char last = (char)toupper((unsigned char)buf[len - 1]);
    if (last == 'K' || last == 'M' || last == 'G') {
        mult = last == 'K' ? 1ll << 10 : last == 'M' ? 1ll << 20 : 1ll << 30;
        buf[--len] = '\0';
    }
    long long v;
    if (parse_int(buf, 1, KS_REDUCE_MAX_N, &v) != 0 || v > KS_REDUCE_MAX_N / mult) goto bad;
    if (r->size_n == (int)(sizeof r->sizes / sizeof r->sizes[0]))
        return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, (int)(sizeof r->sizes / sizeof r->sizes[0]));
    r->sizes[r->size_n++] = v * mult;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not an element count of 1..%lld (suffix K, M, G allowed)", name,
                   quoted(item), (long long)KS_REDUCE_MAX_N);
}
static ks_status set_values(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ks_reduce_opts *r = own;
    if (strcmp(v, "random") == 0) r->integer = 0;
    else if (strcmp(v, "integer") == 0) r->integer = 1;
    else return ks_fail(KS_ERR_INVALID, "%s: unknown values '%s' (random, integer)", name, quoted(v));
    return KS_OK;
}
static ks_status set_kernel_file(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return ks_kernel_files_add(&((ks_reduce_opts *)own)->kernel_files, name, v);
}

/* 1 when name is one of ours (a --kernel-file may not take it). */
static int is_ours(const char *name)
{
    ks_reduce_variant v;
    return ks_reduce_variant_parse(name, &v) == 0;
}

int ks_reduce_kernel_file_named(const ks_options *o, const char *name)
{
    return ks_kernel_files_named(&KS_REDUCE_OPTS(o)->kernel_files, name);
}

static void variants(char *buf, size_t len) { ks_reduce_variant_list(KS_REDUCE_OP_NUM, buf, len); }
static void colormaps(char *buf, size_t len) { ks_colormap_list(buf, len); }

static const ks_flag_row ks_reduce_flags[] = {
    {"--size", "N", "elements (K/M/G suffixes; default 16M on CUDA, 1M on CPU; bench: a list,\n"
                    "default 256M on CUDA, 16M on CPU)", 0, NULL},
    {"--kernel", "NAME", "%s (bench: a list; default all)", 0, NULL, NULL, variants},
    {"--kernel-file", "FILE",
     "your own sum kernel, one more variant named after the file (the\ncontract below; kernelscope new-kernel reduce "
     "writes a starter);\ncompiled with NVRTC, checked in a child process, reloaded on every\nsave; repeatable; "
     "sums only, not with a scan_* --kernel",
     KS_IN_LIVE | KS_IN_BENCH, set_kernel_file, NULL, NULL, 1},
    {"--block", "Bx1", "threads per block B, a power of two in 32..1024 (default 256; your\nkernels' too)", 0, NULL},
    {"--values", "random|integer", "the input: random floats in (-1, 1) or small integers (exact scans)",
     KS_IN_LIVE | KS_IN_BENCH, set_values},
    {"--seed", "S", "input seed (default 1)", 0, NULL},
    {"--colormap", "NAME", "%s (default viridis)", 0, NULL, NULL, colormaps},
};
const ks_option_group ks_reduce_options = {
    "Reduce scene", sizeof(ks_reduce_opts), ks_reduce_flags,
    (int)(sizeof ks_reduce_flags / sizeof ks_reduce_flags[0]), NULL,
};

ks_status ks_reduce_finish_options(ks_options *o)
{
    ks_reduce_opts *r = ks_options_own(o, &ks_reduce_options);
    if (o->size_text) KS_TRY(for_each_item(r, "--size", o->size_text, add_size));
    if (o->mode == KS_MODE_LIVE && (r->size_n > 1 || o->kernel_count > 1 || o->block_count > 1))
        return ks_fail(KS_ERR_INVALID, "--size/--kernel/--block: one value each for the live view (lists are for bench)");
    KS_TRY(ks_kernel_files_check(&r->kernel_files, 64, is_ours));
    for (int k = 0; k < o->kernel_count; ++k) {
        ks_reduce_variant v;
        if (ks_reduce_variant_parse(o->kernels[k], &v) != 0 && !ks_reduce_kernel_file_named(o, o->kernels[k])) {
            char names[256];
            variants(names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown reduce kernel '%s' (%s%s)", quoted(o->kernels[k]), names,
                           r->kernel_files.count ? ", or a --kernel-file's name" : "");
        }
        if (r->kernel_files.count && ks_reduce_variant_parse(o->kernels[k], &v) == 0 &&
            ks_reduce_variant_get(v)->op == KS_REDUCE_OP_SCAN)
            return ks_fail(KS_ERR_INVALID, "--kernel-file: your kernels sum; the scan (--kernel %s) stays with "
                           "kernelscope's variants", o->kernels[k]);
    }
    for (int b = 0; b < o->block_count; ++b) {
        const int t = o->blocks[b][0];
        if (o->blocks[b][1] != 1 || o->blocks[b][2] != 1 || t < KS_REDUCE_MIN_BLOCK || t > KS_REDUCE_MAX_BLOCK ||
            (t & (t - 1)))
            return ks_fail(KS_ERR_INVALID, "--block %dx%dx%d: reduce blocks are B threads, a power of two in %d..%d",
                           o->blocks[b][0], o->blocks[b][1], o->blocks[b][2], KS_REDUCE_MIN_BLOCK, KS_REDUCE_MAX_BLOCK);
    }
    return KS_OK;
}

const char *ks_reduce_kernel_file(const ks_options *o, int i)
{
    return ks_kernel_files_at(&KS_REDUCE_OPTS(o)->kernel_files, i);
}
