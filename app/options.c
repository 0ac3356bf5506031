#include "options.h"

#include "scenes.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/histogram/histogram.h"
#include "kernels/matmul/matmul.h"
#include "kernels/spheres/spheres.h"

enum {
    KS_MAX_DIM = 1 << 16,        /* points per axis */
    KS_MAX_IMAGE = 16384,        /* --size per axis */
    KS_MAX_ITERS = 1000000,
};

static const char *quoted(const char *text)
{
    /* The parser runs once, on one thread: a few rotating buffers are enough. */
    static char bufs[4][KS_QUOTE_MAX];
    static int next;
    next = (next + 1) % 4;
    return ks_quote(text, bufs[next], sizeof bufs[next]);
}

/* Strict integer: the whole string, in [lo, hi]. */
static int parse_int(const char *text, long long lo, long long hi, long long *out)
{
    if (!text || !*text || isspace((unsigned char)*text)) return -1;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_float(const char *text, float *out)
{
    if (!text || !*text || isspace((unsigned char)*text)) return -1;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno || *end != '\0' || !isfinite(v) || fabs(v) > 3.0e38) return -1;
    *out = (float)v;
    return 0;
}

/* "AxB[xC]" with each part in [lo, hi]; returns parts parsed (1..max_parts) or -1. */
static int parse_dims(const char *text, int max_parts, long long lo, long long hi, int out[3])
{
    char buf[128];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    int parts = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "xX", &save); tok; tok = strtok_r(NULL, "xX", &save)) {
        long long v;
        if (parts == max_parts || parse_int(tok, lo, hi, &v) != 0) return -1;
        out[parts++] = (int)v;
    }
    /* "64x" or "x64" leave an empty part that strtok skips: reject them. */
    size_t len = strlen(text);
    if (parts == 0 || text[0] == 'x' || text[0] == 'X' || text[len - 1] == 'x' ||
        text[len - 1] == 'X' || strstr(text, "xx") || strstr(text, "XX"))
        return -1;
    for (int i = parts; i < 3; ++i) out[i] = 1;
    return parts;
}

typedef struct ks_arg_cursor {
    int argc;
    char **argv;
    int i;
} ks_arg_cursor;

/* Value of the option at argv[i]: "--opt=value" or "--opt value". */
static ks_status take_value(ks_arg_cursor *c, const char *name, const char **value)
{
    const char *arg = c->argv[c->i];
    const char *eq = strchr(arg, '=');
    if (eq) {
        *value = eq + 1;
        return KS_OK;
    }
    if (c->i + 1 >= c->argc)
        return ks_fail(KS_ERR_INVALID, "option %s needs a value (see --help)", name);
    *value = c->argv[++c->i];
    return KS_OK;
}

static int option_is(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* Splits a comma list and calls parse_one for each item. */
typedef ks_status (*ks_item_fn)(ks_options *o, const char *name, const char *item);

static ks_status for_each_item(ks_options *o, const char *name, const char *value, ks_item_fn fn)
{
    char buf[512];
    if (strlen(value) >= sizeof buf)
        return ks_fail(KS_ERR_INVALID, "value of %s is too long", name);
    strcpy(buf, value);
    if (buf[0] == '\0' || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        return ks_fail(KS_ERR_INVALID, "%s: empty item in '%s'", name, quoted(value));
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        KS_TRY(fn(o, name, tok));
    return KS_OK;
}

static ks_status add_grid(ks_options *o, const char *name, const char *item)
{
    if (o->laplace.grid_count == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d grids", name, KS_MAX_LIST);
    int dims[3];
    int parts = parse_dims(item, 3, 3, KS_MAX_DIM, dims);
    if (parts < 0)
        return ks_fail(KS_ERR_INVALID,
                       "%s: '%s' is not a grid size (N or NXxNY[xNZ], each 3..%d points)", name,
                       quoted(item), KS_MAX_DIM);
    memcpy(o->laplace.grids[o->laplace.grid_count], dims, sizeof dims);
    o->laplace.grid_parts[o->laplace.grid_count++] = parts;
    return KS_OK;
}

static ks_status add_block(ks_options *o, const char *name, const char *item)
{
    if (o->block_count == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d block sizes", name, KS_MAX_LIST);
    int dims[3];
    int parts = parse_dims(item, 3, 1, 1024, dims);
    if (parts < 2)
        return ks_fail(KS_ERR_INVALID,
                       "%s: '%s' is not a block size (BXxBY[xBZ], each 1..1024 threads)", name,
                       quoted(item));
    memcpy(o->blocks[o->block_count++], dims, sizeof dims);
    return KS_OK;
}

static ks_status add_spheres(ks_options *o, const char *name, const char *item)
{
    long long v;
    if (parse_int(item, 1, KS_SPHERES_MAX, &v) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a sphere count (1..%d)", name, quoted(item),
                       KS_SPHERES_MAX);
    if (o->spheres.count_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d counts", name, KS_MAX_LIST);
    o->spheres.counts[o->spheres.count_n++] = (int)v;
    return KS_OK;
}

/* Kernel names must outlive the temporary copy that for_each_item splits:
 * each gets a slot in a static pool. */
static char ks_kernel_pool[KS_MAX_LIST][64];

static ks_status add_kernel(ks_options *o, const char *name, const char *item)
{
    if (o->kernel_count == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d kernels", name, KS_MAX_LIST);
    if (strlen(item) >= sizeof ks_kernel_pool[0])
        return ks_fail(KS_ERR_INVALID, "%s: kernel name '%s' is too long", name, quoted(item));
    strcpy(ks_kernel_pool[o->kernel_count], item);
    o->kernels[o->kernel_count] = ks_kernel_pool[o->kernel_count];
    ++o->kernel_count;
    return KS_OK;
}

static ks_status parse_range(ks_options *o, const char *value)
{
    char buf[128];
    const char *colon = strchr(value, ':');
    if (!colon || strlen(value) >= sizeof buf) goto bad;
    memcpy(buf, value, (size_t)(colon - value));
    buf[colon - value] = '\0';
    if (parse_float(buf, &o->range_lo) != 0 || parse_float(colon + 1, &o->range_hi) != 0) goto bad;
    if (!(o->range_lo < o->range_hi))
        return ks_fail(KS_ERR_INVALID, "--range: LO must be below HI (got '%s')", quoted(value));
    o->range_set = 1;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "--range: '%s' is not LO:HI (two finite numbers)", quoted(value));
}

static ks_status parse_scene_word(ks_options *o, const char *word, int *have_scene)
{
    const ks_scene_def *d = ks_scene_def_find(word);
    if (!d) {
        char names[128];
        ks_scene_def_names(", ", names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "unknown scene or argument '%s' (scenes: %s)", quoted(word), names);
    }
    if (*have_scene) return ks_fail(KS_ERR_INVALID, "more than one scene given ('%s')", word);
    o->scene = d->id;
    *have_scene = 1;
    return KS_OK;
}

/* ---- The flag table: one row per flag, saying where it means something ---- */


typedef ks_status (*ks_flag_fn)(ks_options *o, const char *name, const char *v);

typedef struct ks_flag {
    const char *name;
    int takes_value;
    unsigned applies; /* KS_AT_* bits */
    const char *where; /* the same in words, for the refusal */
    ks_flag_fn set;
    int gpu_only; /* KS_GPU_ONLY: chooses GPU work; the cpu backend notes it has no effect */
} ks_flag;
enum { KS_GPU_ONLY = 1 };


static ks_status set_help(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->help = 1;
    return KS_OK;
}
static ks_status set_version(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->version = 1;
    return KS_OK;
}
static ks_status set_headless(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->headless = 1;
    return KS_OK;
}
static ks_status set_window(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->window = 1;
    return KS_OK;
}
static ks_status set_no_overlay(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->no_overlay = 1;
    return KS_OK;
}
static ks_status set_grid(ks_options *o, const char *name, const char *v)
{
    return for_each_item(o, name, v, add_grid);
}
static ks_status set_block(ks_options *o, const char *name, const char *v)
{
    return for_each_item(o, name, v, add_block);
}
static ks_status set_kernel(ks_options *o, const char *name, const char *v)
{
    return for_each_item(o, name, v, add_kernel);
}
static ks_status set_spheres(ks_options *o, const char *name, const char *v)
{
    return for_each_item(o, name, v, add_spheres);
}
static ks_status set_bc(ks_options *o, const char *name, const char *v)
{
    if (ks_bc_parse(v, &o->laplace.bc) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: unknown boundary preset '%s' (seed, hot-top, sine)", name,
                       quoted(v));
    return KS_OK;
}
/* A count in lo..hi into *out. */
static ks_status set_count(const char *name, const char *v, long long lo, long long hi, int *out)
{
    long long n;
    if (parse_int(v, lo, hi, &n) != 0 && hi == INT_MAX)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a positive count", name, quoted(v));
    if (parse_int(v, lo, hi, &n) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a count of %lld..%lld", name, quoted(v), lo, hi);
    *out = (int)n;
    return KS_OK;
}
static ks_status set_iters(ks_options *o, const char *name, const char *v)
{
    return set_count(name, v, 1, KS_MAX_ITERS, &o->laplace.iters);
}
static ks_status set_frames(ks_options *o, const char *name, const char *v)
{
    return set_count(name, v, 1, INT_MAX, &o->frames);
}
static ks_status set_save_every(ks_options *o, const char *name, const char *v)
{
    return set_count(name, v, 1, INT_MAX, &o->save_every);
}
static ks_status set_reps(ks_options *o, const char *name, const char *v)
{
    return set_count(name, v, 1, 100000, &o->reps);
}
static ks_status set_backend(ks_options *o, const char *name, const char *v)
{
    if (strcmp(v, "cuda") == 0) o->backend = KS_BACKEND_CUDA;
    else if (strcmp(v, "cpu") == 0) o->backend = KS_BACKEND_CPU;
    else return ks_fail(KS_ERR_INVALID, "%s: unknown backend '%s' (cuda, cpu)", name, quoted(v));
    return KS_OK;
}
static ks_status set_progress(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->progress = 1;
    return KS_OK;
}
static ks_status set_out(ks_options *o, const char *name, const char *v)
{
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty directory name", name);
    o->out_dir = v;
    o->out_set = 1;
    return KS_OK;
}
static ks_status set_format(ks_options *o, const char *name, const char *v)
{
    if (ks_image_format_parse(v, &o->format) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: unknown image format '%s' (png, ppm)", name, quoted(v));
    return KS_OK;
}
/* --size means WxH pixels for the pictures and M[xNxK] for matmul: the text is
 * kept and read once the scene is known (ks_options_finish). */
static ks_status set_size(ks_options *o, const char *name, const char *v)
{
    (void)name;
    o->size_text = v;
    return KS_OK;
}
static ks_status finish_size_wh(ks_options *o)
{
    int dims[3];
    if (!o->size_text) return KS_OK;
    if (parse_dims(o->size_text, 2, 16, KS_MAX_IMAGE, dims) != 2)
        return ks_fail(KS_ERR_INVALID, "--size: '%s' is not WxH (each 16..%d pixels)",
                       quoted(o->size_text), KS_MAX_IMAGE);
    o->width = dims[0];
    o->height = dims[1];
    o->size_set = 1;
    return KS_OK;
}
static ks_status add_tile(ks_options *o, const char *name, const char *item)
{
    long long v;
    if (parse_int(item, 1, 1024, &v) != 0 || (v != 8 && v != 16 && v != 32))
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a tile size (8, 16 or 32)", name, quoted(item));
    if (o->matmul.tile_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d tiles", name, KS_MAX_LIST);
    o->matmul.tiles[o->matmul.tile_n++] = (int)v;
    return KS_OK;
}
static ks_status set_tile(ks_options *o, const char *name, const char *v)
{
    return for_each_item(o, name, v, add_tile);
}
static ks_status add_mm_size(ks_options *o, const char *name, const char *item)
{
    ks_matmul_size s;
    if (ks_matmul_size_parse(item, &s) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a matmul size (M or MxNxK, each 1..%d)", name,
                       quoted(item), KS_MATMUL_MAX_DIM);
    KS_TRY(ks_matmul_size_check(&s));
    if (o->matmul.size_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    o->matmul.sizes[o->matmul.size_n][0] = s.m;
    o->matmul.sizes[o->matmul.size_n][1] = s.n;
    o->matmul.sizes[o->matmul.size_n][2] = s.k;
    ++o->matmul.size_n;
    return KS_OK;
}
static ks_status add_bins(ks_options *o, const char *name, const char *item)
{
    long long v;
    if (parse_int(item, 1, 65536, &v) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a bin count of 1..65536", name, quoted(item));
    if (o->histogram.bins_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d bin counts", name, KS_MAX_LIST);
    o->histogram.bins_list[o->histogram.bins_n++] = (int)v;
    o->histogram.bins = o->histogram.bins_list[0];
    return KS_OK;
}
static ks_status set_bins(ks_options *o, const char *name, const char *v)
{
    return for_each_item(o, name, v, add_bins);
}
static ks_status set_input(ks_options *o, const char *name, const char *v)
{
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty file name", name);
    o->histogram.input = v;
    return KS_OK;
}
static ks_status set_words(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->histogram.words = 1;
    return KS_OK;
}
/* One --size item in bytes: a count with an optional K, M or G (binary) suffix. */
static ks_status add_hist_size(ks_options *o, const char *name, const char *item)
{
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
    if (parse_int(buf, 1, 4294967295ll, &v) != 0 || (unsigned long long)v > 4294967295ull / mult)
        goto bad;
    if (o->histogram.size_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    o->histogram.sizes[o->histogram.size_n++] = (unsigned long long)v * mult;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a byte count of 1..4294967295 (suffix K, M, G allowed)",
                   name, quoted(item));
}
/* The histogram scene's checks (sizes in bytes, bins, input). */
ks_status ks_options_finish_histogram(ks_options *o)
{
    if (o->size_text) KS_TRY(for_each_item(o, "--size", o->size_text, add_hist_size));
    if (o->histogram.size_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--size: one size for the live view (lists are for bench)");
    if (o->histogram.bins_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--bins: one count for the live view (lists are for bench)");
    if (o->kernel_count > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--kernel: one value for the live view (lists are for bench)");
    if (o->histogram.input && o->size_text)
        return ks_fail(KS_ERR_INVALID, "--size and --input exclude each other (the file sets the size)");
    if (!o->histogram.size_n) o->histogram.sizes[o->histogram.size_n++] = 100ull << 20;
    return KS_OK;
}

/* The matmul scene's checks (sizes, tiles, variant names). */
ks_status ks_options_finish_matmul(ks_options *o)
{
    if (o->size_text) {
        o->matmul.size_n = 0;
        KS_TRY(for_each_item(o, "--size", o->size_text, add_mm_size));
    }
    if (o->mode == KS_MODE_LIVE && (o->matmul.size_n > 1 || o->matmul.tile_n > 1 || o->kernel_count > 1))
        return ks_fail(KS_ERR_INVALID,
                       "--size/--tile/--kernel: one value each for the live view (lists are for bench)");
    for (int k = 0; k < o->kernel_count; ++k) {
        ks_matmul_variant v;
        if (ks_matmul_variant_parse(o->kernels[k], &v) != 0) {
            char names[128];
            ks_matmul_variant_list(names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown matmul kernel '%s' (%s)",
                           quoted(o->kernels[k]), names);
        }
    }
    return KS_OK;
}
static ks_status set_colormap(ks_options *o, const char *name, const char *v)
{
    if (ks_colormap_parse(v, &o->colormap) != 0) {
        char names[128];
        ks_colormap_list(names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "%s: unknown colormap '%s' (%s)", name, quoted(v), names);
    }
    return KS_OK;
}
static ks_status set_range(ks_options *o, const char *name, const char *v)
{
    (void)name;
    return parse_range(o, v);
}
static ks_status set_dump_field(ks_options *o, const char *name, const char *v)
{
    size_t len = strlen(v);
    if (len < 5 || strcmp(v + len - 4, ".npy") != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' must name a .npy file", name, quoted(v));
    o->dump_field = v;
    return KS_OK;
}
static ks_status set_seed(ks_options *o, const char *name, const char *v)
{
    errno = 0;
    char *end = NULL;
    /* digits only: strtoull would take leading spaces, a sign and wrap "-1" */
    const unsigned long long s = (*v >= '0' && *v <= '9') ? strtoull(v, &end, 10) : 0;
    if (!(*v >= '0' && *v <= '9') || errno || *end)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a non-negative integer", name, quoted(v));
    o->seed = s;
    o->seed_set = 1;
    return KS_OK;
}
static ks_status set_scene(ks_options *o, const char *name, const char *v)
{
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty file name", name);
    o->spheres.file = v;
    return KS_OK;
}
static ks_status set_mem(ks_options *o, const char *name, const char *v)
{
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty variant name", name);
    o->spheres.mem = v;
    return KS_OK;
}

/* Every flag, and where it means something. A flag given where it means
 * nothing is refused (ks_options_finish), never silently ignored. */
static const ks_flag ks_flags[] = {
    {"--help", 0, KS_AT_ALL, "everywhere", set_help},
    {"--version", 0, KS_AT_ALL, "everywhere", set_version},
    {"--headless", 0, KS_AT_LIVE, "the live views", set_headless},
    {"--window", 0, KS_AT_LIVE, "the live views", set_window},
    {"--no-overlay", 0, KS_AT_LIVE, "the live views", set_no_overlay},
    {"--progress", 0, KS_AT_LIVE, "the live views", set_progress},
    {"--frames", 1, KS_AT_LIVE, "the live views", set_frames},
    {"--save-every", 1, KS_AT_LIVE, "the live views", set_save_every},
    {"--format", 1, KS_AT_LIVE, "the live views", set_format},
    {"--size", 1, KS_AT_LIVE | KS_AT_BENCH_SPH | KS_AT_BENCH_MM | KS_AT_BENCH_HIST,
     "the live views and bench spheres, matmul and histogram", set_size},
    {"--input", 1, KS_AT_LIVE_HIST, "the live histogram scene", set_input},
    {"--words", 0, KS_AT_HISTOGRAM, "the histogram scene", set_words},
    {"--bins", 1, KS_AT_HISTOGRAM, "the histogram scene", set_bins},
    {"--backend", 1, KS_AT_ALL, "everywhere", set_backend},
    {"--out", 1, KS_AT_ALL, "everywhere", set_out},
    {"--block", 1, KS_AT_ALL & ~(KS_AT_MATMUL | KS_AT_HISTOGRAM), "the Laplace and spheres scenes", set_block,
     KS_GPU_ONLY},
    {"--grid", 1, KS_AT_LAPLACE, "the Laplace scenes", set_grid},
    {"--kernel", 1, KS_AT_LAPLACE | KS_AT_MATMUL | KS_AT_HISTOGRAM, "the Laplace, matmul and histogram scenes",
     set_kernel, KS_GPU_ONLY},
    {"--tile", 1, KS_AT_MATMUL, "the matmul scene", set_tile, KS_GPU_ONLY},
    {"--bc", 1, KS_AT_LAPLACE_LIVE, "the live Laplace scenes", set_bc},
    {"--iters", 1, KS_AT_LAPLACE_LIVE, "the live Laplace scenes", set_iters},
    {"--colormap", 1, KS_AT_LAPLACE_LIVE | KS_AT_LIVE_MM, "the live Laplace and matmul scenes", set_colormap},
    {"--range", 1, KS_AT_LAPLACE_LIVE | KS_AT_LIVE_MM, "the live Laplace and matmul scenes", set_range},
    {"--dump-field", 1, KS_AT_LAPLACE_LIVE | KS_AT_LIVE_MM | KS_AT_LIVE_HIST,
     "the live Laplace, matmul and histogram scenes", set_dump_field},
    {"--spheres", 1, KS_AT_SPHERES, "the spheres scene", set_spheres},
    {"--seed", 1, KS_AT_SPHERES | KS_AT_HISTOGRAM, "the spheres and histogram scenes", set_seed},
    {"--scene", 1, KS_AT_SPHERES, "the spheres scene", set_scene},
    {"--mem", 1, KS_AT_SPHERES, "the spheres scene", set_mem, KS_GPU_ONLY},
    {"--reps", 1, KS_AT_BENCH, "bench", set_reps},
};
enum { KS_FLAG_NUM = sizeof ks_flags / sizeof ks_flags[0] };
_Static_assert(KS_FLAG_NUM <= 64, "ks_options.flags_given has 64 bits");

static ks_status parse_flag(ks_options *o, ks_arg_cursor *c)
{
    const char *arg = c->argv[c->i];
    if (strcmp(arg, "-h") == 0) arg = "--help";
    for (int k = 0; k < KS_FLAG_NUM; ++k) {
        const ks_flag *f = &ks_flags[k];
        if (!option_is(arg, f->name)) continue;
        const char *v = NULL;
        if (f->takes_value) KS_TRY(take_value(c, f->name, &v));
        else if (strchr(arg, '=')) return ks_fail(KS_ERR_INVALID, "option %s takes no value", f->name);
        o->flags_given |= 1ull << k;
        return f->set(o, f->name, v);
    }
    return ks_fail(KS_ERR_INVALID, "unknown option '%s' (see --help)", quoted(arg));
}

/* The first flag given where it means nothing, refused in one line. */
static ks_status check_applicable(const ks_options *o, const ks_scene_def *d)
{
    const unsigned here = o->mode == KS_MODE_BENCH ? d->bench_at : d->live_at;
    for (int k = 0; k < KS_FLAG_NUM; ++k) {
        if (!(o->flags_given & (1ull << k)) || (ks_flags[k].applies & here)) continue;
        return ks_fail(KS_ERR_INVALID, "%s does not apply to %s%s%s (only to %s)", ks_flags[k].name,
                       o->mode == KS_MODE_BENCH ? "bench " : "the ", d->name,
                       o->mode == KS_MODE_BENCH ? "" : " view", ks_flags[k].where);
    }
    return KS_OK;
}

ks_status ks_options_parse(int argc, char **argv, ks_options *o)
{
    memset(o, 0, sizeof *o);
    ks_arg_cursor c = {argc, argv, 1};
    int have_scene = 0;
    for (; c.i < argc; ++c.i) {
        const char *arg = argv[c.i];
        if (arg[0] == '-' && arg[1] != '\0') {
            KS_TRY(parse_flag(o, &c));
        } else if (strcmp(arg, "bench") == 0 && c.i == 1) {
            o->mode = KS_MODE_BENCH;
        } else {
            KS_TRY(parse_scene_word(o, arg, &have_scene));
        }
    }
    if (o->help || o->version) return KS_OK;
    if (o->mode == KS_MODE_BENCH && !have_scene)
    {
        char names[128];
        ks_scene_def_names("|", names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "bench needs a scene: kernelscope bench %s", names);
    }
    return ks_options_finish(o);
}

ks_status ks_options_finish(ks_options *o)
{
    const ks_scene_def *d = ks_scene_def_get(o->scene);
    o->scene = d->id;
    KS_TRY(check_applicable(o, d));
    if (d->size_is_picture) KS_TRY(finish_size_wh(o));
    if (o->colormap == KS_CMAP_DEFAULT) o->colormap = KS_CMAP_VIRIDIS;
    if (o->format == KS_FMT_DEFAULT) o->format = KS_FMT_PNG;
    if (!o->out_dir) o->out_dir = ".";
    if (!o->reps) o->reps = 20;
    if (!o->seed_set) o->seed = 1;
    if (!o->size_set) {
        o->width = 1280;
        o->height = 800;
    }
    if (o->headless && o->window)
        return ks_fail(KS_ERR_INVALID, "--headless and --window exclude each other");
    if (!o->frames && o->headless) o->frames = 60;
    return d->finish_options(o);
}

/* ---- Each scene's own options: checks and defaults, in one place per scene
 * (called through the scene registry, app/scenes.c) ---- */

ks_status ks_options_finish_spheres(ks_options *o)
{
    ks_spheres_opts *sp = &o->spheres;
    if (!o->size_set) { /* the picture: the bench's is larger */
        o->width = o->mode == KS_MODE_BENCH ? 2048 : 1024;
        o->height = o->mode == KS_MODE_BENCH ? 2048 : 768;
    }
    if (sp->count_n && o->mode == KS_MODE_LIVE) sp->count = sp->counts[0];
    if (sp->count_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--spheres: one count for the live view (lists are for bench)");
    if (!sp->count) sp->count = 256;
    if (sp->file && sp->count_n)
        return ks_fail(KS_ERR_INVALID, "--scene and --spheres exclude each other (the file fixes the spheres)");
    for (int b = 0; b < o->block_count; ++b)
        if (o->blocks[b][2] != 1)
            return ks_fail(KS_ERR_INVALID, "--block: %dx%dx%d: spheres blocks are 2D (BXxBY)", o->blocks[b][0],
                           o->blocks[b][1], o->blocks[b][2]);
    if (o->mode == KS_MODE_LIVE && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: one value for the live view");
    if (o->mode == KS_MODE_BENCH && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: bench spheres takes one block size");
    ks_spheres_mem m;
    if (sp->mem && ks_spheres_mem_parse(sp->mem, &m) != 0) { /* here, before any notice or folder */
        char list[128];
        ks_spheres_mem_list(list, sizeof list);
        return ks_fail(KS_ERR_INVALID, "%sspheres: unknown --mem '%s' (one of: %s)",
                       o->mode == KS_MODE_BENCH ? "bench " : "", quoted(sp->mem), list);
    }
    return KS_OK;
}

ks_status ks_options_finish_laplace(ks_options *o)
{
    ks_laplace_opts *lp = &o->laplace;
    const int dims = ks_scene_dims(o->scene);
    if (lp->bc == KS_BC_DEFAULT) lp->bc = KS_BC_HOT_TOP;
    if (o->mode == KS_MODE_LIVE && lp->grid_count > 1)
        return ks_fail(KS_ERR_INVALID, "--grid: one grid for the live view (lists are for bench)");
    if (o->mode == KS_MODE_LIVE && (o->kernel_count > 1 || o->block_count > 1))
        return ks_fail(KS_ERR_INVALID, "--kernel/--block: one value each for the live view");
    for (int g = 0; g < lp->grid_count; ++g) {
        int parts = lp->grid_parts[g];
        if (parts == 1) {
            lp->grids[g][1] = lp->grids[g][0];
            lp->grids[g][2] = dims == 3 ? lp->grids[g][0] : 1;
        } else if (parts != dims) {
            return ks_fail(KS_ERR_INVALID, "--grid: %s needs %s, got %d sizes", ks_scene_name(o->scene),
                           dims == 3 ? "N or NXxNYxNZ" : "N or NXxNY", parts);
        }
        const double points = (double)lp->grids[g][0] * lp->grids[g][1] * lp->grids[g][2];
        if (points > 68719476736.0) /* 2^36 points = 256 GiB per field */
            return ks_fail(KS_ERR_INVALID, "--grid: %dx%dx%d is far too large (%.3g points)", lp->grids[g][0],
                           lp->grids[g][1], lp->grids[g][2], points);
    }
    for (int k = 0; k < o->kernel_count; ++k) {
        if (ks_lvariant_find(dims, o->kernels[k]) < 0) {
            char names[256];
            ks_lvariant_list(dims, names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown %s kernel '%s' (%s)", ks_scene_name(o->scene),
                           quoted(o->kernels[k]), names);
        }
        for (int b = 0; b < o->block_count; ++b) { /* a block the named kernel cannot take */
            if (ks_lvariant_check_shape(ks_lvariant_find(dims, o->kernels[k]), o->blocks[b]) != KS_OK) {
                ks_error_prefix("--block %dx%dx%d", o->blocks[b][0], o->blocks[b][1], o->blocks[b][2]);
                return KS_ERR_INVALID;
            }
        }
    }
    return KS_OK;
}

void ks_options_laplace_backend_defaults(ks_options *o, int use_cuda)
{
    const int dims = ks_scene_dims(o->scene);
    ks_laplace_opts *lp = &o->laplace;
    if (!lp->grid_count && o->mode == KS_MODE_LIVE) {
        const int n = dims == 3 ? (use_cuda ? 256 : 64) : (use_cuda ? 1024 : 256);
        lp->grids[0][0] = lp->grids[0][1] = n;
        lp->grids[0][2] = dims == 3 ? n : 1;
        lp->grid_parts[0] = 1;
        lp->grid_count = 1;
    }
    if (!lp->iters) lp->iters = use_cuda ? 20 : 2;
}

int ks_options_cpu_notice(const ks_options *o, int *cursor, char *buf, size_t len)
{
    for (; *cursor < KS_FLAG_NUM; ++*cursor) {
        const int k = *cursor;
        if (!ks_flags[k].gpu_only || !(o->flags_given & (1ull << k))) continue;
        snprintf(buf, len, "%s has no effect on the cpu backend (the CPU gold routine runs)", ks_flags[k].name);
        ++*cursor;
        return 1;
    }
    if (*cursor == KS_FLAG_NUM) { /* last: a count that constant memory could not hold on a GPU */
        ++*cursor;
        ks_spheres_mem m = KS_SPHERES_MEM_GLOBAL;
        int most = o->spheres.count;
        for (int i = 0; i < o->spheres.count_n; ++i)
            if (o->spheres.counts[i] > most) most = o->spheres.counts[i];
        if (o->spheres.mem && ks_spheres_mem_parse(o->spheres.mem, &m) == 0 && m == KS_SPHERES_MEM_CONSTANT &&
            most > KS_SPHERES_CONST_MAX) {
            snprintf(buf, len,
                     "--spheres %d with --mem constant runs on the cpu backend only "
                     "(a GPU holds at most %d spheres in constant memory)",
                     most, (int)KS_SPHERES_CONST_MAX);
            return 1;
        }
    }
    return 0;
}

void ks_options_backend_defaults(ks_options *o, int use_cuda)
{
    const ks_scene_def *d = ks_scene_def_get(o->scene);
    if (d->backend_defaults) d->backend_defaults(o, use_cuda);
}

ks_grid ks_options_grid(const ks_options *o, int idx)
{
    ks_grid g;
    g.dims = ks_scene_dims(o->scene);
    g.nx = o->laplace.grids[idx][0];
    g.ny = o->laplace.grids[idx][1];
    g.nz = g.dims == 3 ? o->laplace.grids[idx][2] : 1;
    return g;
}

void ks_options_print_help(void)
{
    char k3[256], k2[256], names[128], cmaps[128], mems[128], mm[128], hist[128];
    ks_lvariant_list(3, k3, sizeof k3);
    ks_lvariant_list(2, k2, sizeof k2);
    ks_colormap_list(cmaps, sizeof cmaps);
    ks_spheres_mem_list(mems, sizeof mems);
    ks_matmul_variant_list(mm, sizeof mm);
    hist[0] = '\0';
    for (int v = 0, used = 0; v < KS_HIST_VARIANT_NUM && used >= 0 && (size_t)used < sizeof hist; ++v)
        used += snprintf(hist + used, sizeof hist - (size_t)used, "%s%s", v ? ", " : "", ks_hist_variant_get(v)->name);
    ks_scene_def_names("|", names, sizeof names);
    printf("kernelscope %s: watch GPU kernels work\n\n"
           "usage: kernelscope [%s] [options]\n"
           "       kernelscope bench %s [options]\n\nScenes:\n",
           KS_VERSION, names, names);
    for (int i = 0; i < ks_scene_def_count(); ++i)
        printf("  %-22s  %s\n", ks_scene_def_at(i)->name, ks_scene_def_at(i)->summary);
    printf("\nLaplace scenes:\n"
           "  --grid N | NXxNY[xNZ]   grid points (default 256^3 / 1024^2 on CUDA, 64^3 / 256^2 on CPU)\n"
           "  --bc seed|hot-top|sine  boundary preset (default hot-top)\n"
           "  --kernel NAME           3D: %s; 2D: %s\n"
           "  --block BXxBY[xBZ]      thread block (default: best measured, else the kernel's own)\n"
           "  --iters K               Jacobi iterations per frame (default 20 CUDA, 2 CPU)\n"
           "  --colormap NAME         %s (default viridis)\n"
           "  --range LO:HI           fixed colour range (default: auto)\n"
           "  --dump-field FILE.npy   write the final field (float32, shape (NZ,NY,NX) or (NY,NX))\n"
           "Spheres scene:\n"
           "  --spheres N             sphere count, 1..%d (bench: a list, e.g. 16,64,256)\n"
           "  --seed S                random placement seed (default 1)\n"
           "  --scene FILE            spheres from a file: 'x y z radius r g b' per line\n"
           "  --mem NAME              %s\n"
           "Matmul scene:\n"
           "  --size M | MxNxK        C = A*B with A MxK, B KxN (M alone: square; default 2048;\n"
           "                          bench: a list, default 1024,2048,4096,8192)\n"
           "  --kernel NAME           %s (bench: a list; default all)\n"
           "  --tile T                tiled's tile: 8, 16 or 32 (default 16; bench: a list, default all)\n"
           "  --dump-field FILE.npy   write C (float32, shape (M, N))\n"
           "Histogram scene:\n"
           "  --input FILE            count the bytes of FILE (default: generated text)\n"
           "  --size BYTES            generated text size, K/M/G suffixes (default 100M; bench: a list)\n"
           "  --bins B                16-bit view of byte pairs in B bins (1..65536); with --words: word bins (bench: a list)\n"
           "  --words                 histogram of words (ASCII letter runs, FNV-1a into B bins, default 1024)\n"
           "  --kernel NAME           %s (bench: a list)\n"
           "  --seed S                generated text seed (default 1)\n"
           "All scenes:\n"
           "  --backend cuda|cpu      default cuda when a device exists, else cpu\n"
           "  --headless              render through EGL without a window (default without a display)\n"
           "  --window                insist on a window (error when there is no display)\n"
           "  --frames N              stop after N frames (headless default 60)\n"
           "  --progress              headless: a progress line every second even when stderr\n"
           "                          is not a terminal (it is shown on a terminal anyway)\n"
           "  --out DIR               where frames and CSVs go (default .; bench: results/<scene>-<time>/)\n"
           "  --save-every K          save every K-th frame and a CSV of stage timings\n"
           "  --format png|ppm        saved frame format (default png)\n"
           "  --size WxH              window / picture size (default 1280x800; spheres 1024x768)\n"
           "  --no-overlay            start with the overlay hidden (saved frames hold the bare picture)\n"
           "  --reps N                bench: timed repetitions per configuration (default 20)\n"
           "  --help, --version\n\n"
           "A flag given where it means nothing (e.g. --window to bench, --grid to spheres) is refused.\n"
           "Keys: H shows them all in the window. Ctrl-C stops after the frame (again: at once).\n"
           "Exit status: 0 ok, 1 runtime failure, 2 bad input, 130 / 143 stopped by SIGINT / SIGTERM.\n",
           k3, k2, cmaps, KS_SPHERES_MAX, mems, mm, hist);
}
