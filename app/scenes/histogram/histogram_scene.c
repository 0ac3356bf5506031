/* The histogram scene's registry row: its flags and checks. */
#include "app/scenes/histogram/histogram_options.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "app/scenes/histogram/bench_histogram.h"
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
    {"--seed", "S", "generated text seed (default 1)", 0, NULL},
};
const ks_option_group ks_histogram_options = {
    "Histogram scene", sizeof(ks_histogram_opts), ks_histogram_flags,
    (int)(sizeof ks_histogram_flags / sizeof ks_histogram_flags[0]), NULL,
};

/* Sizes in bytes, bins, input. */
static ks_status finish(ks_options *o)
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
    return KS_OK;
}

static ks_status bench(const ks_bench_env *e) { return ks_bench_histogram(e->opt, e->device, e->use_cuda); }

extern const ks_scene_api ks_scene_histogram_api;

const ks_scene_def ks_scene_histogram = {
    .name = "histogram",
    .rank = 50,
    .sample_args = "--size 100003",
    .summary = "byte / pair / word histogram: global, shared and per-warp atomics, CUB",
    .options = &ks_histogram_options,
    .takes_live = "--kernel --dump-field --seed",
    .takes_bench = "--kernel --seed --size",
    .finish_options = finish,
    .live = &ks_scene_histogram_api,
    .bench = bench,
    .solver_stage = "histogram",
};
