/* The histogram scene's flags, their storage and checks (options.h). */
#include "app/scenes/histogram/options.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "base/ks_util.h"
#include "kernels/histogram/histogram.h"

static ks_status add_bins(void *ctx, const char *name, const char *item)
{
    ks_histogram_opts *h = ctx;
    long long v;
    if (parse_int(item, 1, 65536, &v) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a bin count of 1..65536", name, quoted(item));
    if (h->bins_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d bin counts", name, KS_MAX_LIST);
    h->bins_list[h->bins_n++] = (int)v;
    h->bins = h->bins_list[0];
    return KS_OK;
}
static ks_status set_bins(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return for_each_item(own, name, v, add_bins);
}
static ks_status set_input(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty file name", name);
    ((ks_histogram_opts *)own)->input = v;
    return KS_OK;
}
KS_FLAG_SETS(set_words, ((ks_histogram_opts *)own)->words)

/* One --size item in bytes: a count with an optional K, M or G (binary) suffix. */
static ks_status add_size(void *ctx, const char *name, const char *item)
{
    ks_histogram_opts *h = ctx;
    char buf[64];
    size_t len = strlen(item);
    if (len == 0 || len >= sizeof buf) goto bad;
    strcpy(buf, item);
    unsigned long long mult = 1;
    const char last = (char)toupper((unsigned char)buf[len - 1]);
    if (last == 'K' || last == 'M' || last == 'G') {
        mult = last == 'K' ? 1ull << 10 : last == 'M' ? 1ull << 20 : 1ull << 30;
        buf[--len] = '\0';
    }
    long long v;
    if (parse_int(buf, 1, 4294967295ll, &v) != 0 || (unsigned long long)v > 4294967295ull / mult) goto bad;
    if (h->size_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    h->sizes[h->size_n++] = (unsigned long long)v * mult;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a byte count of 1..4294967295 (suffix K, M, G allowed)", name,
                   quoted(item));
}
static ks_status set_kernel_file(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return ks_kernel_files_add(&((ks_histogram_opts *)own)->kernel_files, name, v);
}

/* 1 when name is one of ours (a --kernel-file may not take it). */
static int is_ours(const char *name) { return ks_hist_variant_find(name) >= 0; }

int ks_hist_kernel_file_named(const ks_options *o, const char *name)
{
    return ks_kernel_files_named(&KS_HIST_OPTS(o)->kernel_files, name);
}

static void variants(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int v = 0, used = 0; v < KS_HIST_VARIANT_NUM && used >= 0 && (size_t)used < len; ++v)
        used += snprintf(buf + used, len - (size_t)used, "%s%s", v ? ", " : "", ks_hist_variant_get(v)->name);
}

static const ks_flag_row ks_histogram_flags[] = {
    {"--input", "FILE", "count the bytes of FILE (default: generated text)", KS_IN_LIVE, set_input},
    {"--size", "BYTES", "generated text size, K/M/G suffixes (default 100M; bench: a list)", 0, NULL},
    {"--bins", "B",
     "16-bit view of byte pairs in B bins (1..65536); with --words: word bins (bench: a list)",
     KS_IN_LIVE | KS_IN_BENCH, set_bins},
    {"--words", NULL, "histogram of words (ASCII letter runs, FNV-1a into B bins, default 1024)",
     KS_IN_LIVE | KS_IN_BENCH, set_words},
    {"--kernel", "NAME", "%s (bench: a list)", 0, NULL, NULL, variants},
    {"--kernel-file", "FILE",
     "your own byte-counting kernel, one more variant named after the file\n(the contract below; kernelscope "
     "new-kernel histogram writes a\nstarter); compiled with NVRTC, checked in a child process,\nreloaded on every "
     "save; repeatable; not with --bins or --words",
     KS_IN_LIVE | KS_IN_BENCH, set_kernel_file, NULL, NULL, 1},
    {"--block", "BXx1", "your kernels' block (default 256x1; [ ] change it live)", 0, NULL},
    {"--seed", "S", "generated text seed (default 1)", 0, NULL},
};
const ks_option_group ks_histogram_options = {
    "Histogram scene", sizeof(ks_histogram_opts), ks_histogram_flags,
    (int)(sizeof ks_histogram_flags / sizeof ks_histogram_flags[0]), NULL,
};

/* Sizes in bytes, bins, input. */
ks_status ks_hist_finish_options(ks_options *o)
{
    ks_histogram_opts *h = ks_options_own(o, &ks_histogram_options);
    if (o->size_text) KS_TRY(for_each_item(h, "--size", o->size_text, add_size));
    if (h->size_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--size: one size for the live view (lists are for bench)");
    if (h->bins_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--bins: one count for the live view (lists are for bench)");
    if (o->kernel_count > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--kernel: one value for the live view (lists are for bench)");
    if (h->input && o->size_text)
        return ks_fail(KS_ERR_INVALID, "--size and --input exclude each other (the file sets the size)");
    if (!h->size_n) h->sizes[h->size_n++] = 100ull << 20;
    if (o->mode == KS_MODE_LIVE && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: one value for the live view (lists are for bench)");
    for (int b = 0; b < o->block_count; ++b)
        if (o->blocks[b][1] != 1 || o->blocks[b][2] != 1)
            return ks_fail(KS_ERR_INVALID, "--block: histogram kernels take a 1-part block (BXx1), got %dx%dx%d",
                           o->blocks[b][0], o->blocks[b][1], o->blocks[b][2]);
    if (o->block_count && !h->kernel_files.count)
        return ks_fail(KS_ERR_INVALID, "--block: only your kernels (--kernel-file) take a block here");
    KS_TRY(ks_kernel_files_check(&h->kernel_files, 64, is_ours));
    if (h->kernel_files.count && (h->words || h->bins_n))
        return ks_fail(KS_ERR_INVALID, "--kernel-file: your kernels count bytes (256 bins); --bins and --words are "
                       "for kernelscope's variants");
    for (int k = 0; k < o->kernel_count; ++k)
        if (ks_hist_variant_find(o->kernels[k]) < 0 && !ks_hist_kernel_file_named(o, o->kernels[k])) {
            char names[128];
            variants(names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown histogram kernel '%s' (%s%s)", quoted(o->kernels[k]),
                           names, h->kernel_files.count ? ", or a --kernel-file's name" : "");
        }
    return KS_OK;
}

const char *ks_hist_kernel_file(const ks_options *o, int i)
{
    return ks_kernel_files_at(&KS_HIST_OPTS(o)->kernel_files, i);
}
