#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    KS_MAX_DIM = 1 << 16,        /* points per axis */
    KS_MAX_IMAGE = 16384,        /* --size per axis */
    KS_MAX_ITERS = 1000000,
    KS_MAX_SPHERES = 1 << 22,
};

static const char *const ks_scene_names[KS_SCENE_NUM] = {"laplace3d", "laplace3d", "laplace2d",
                                                         "spheres", "histogram"};

const char *ks_scene_name(ks_scene_id s)
{
    return (s >= 0 && s < KS_SCENE_NUM) ? ks_scene_names[s] : "?";
}

int ks_scene_dims(ks_scene_id s)
{
    if (s == KS_SCENE_LAPLACE2D) return 2;
    if (s == KS_SCENE_SPHERES || s == KS_SCENE_HISTOGRAM) return 0;
    return 3;
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
        return ks_fail(KS_ERR_INVALID, "%s: empty item in '%s'", name, value);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        KS_TRY(fn(o, name, tok));
    return KS_OK;
}

static ks_status add_grid(ks_options *o, const char *name, const char *item)
{
    if (o->grid_count == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d grids", name, KS_MAX_LIST);
    int dims[3];
    int parts = parse_dims(item, 3, 3, KS_MAX_DIM, dims);
    if (parts < 0)
        return ks_fail(KS_ERR_INVALID,
                       "%s: '%s' is not a grid size (N or NXxNY[xNZ], each 3..%d points)", name,
                       item, KS_MAX_DIM);
    memcpy(o->grids[o->grid_count], dims, sizeof dims);
    o->grid_parts[o->grid_count++] = parts;
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
                       item);
    memcpy(o->blocks[o->block_count++], dims, sizeof dims);
    return KS_OK;
}

static ks_status add_spheres(ks_options *o, const char *name, const char *item)
{
    long long v;
    if (parse_int(item, 1, KS_MAX_SPHERES, &v) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a sphere count (1..%d)", name, item,
                       KS_MAX_SPHERES);
    if (o->sphere_count_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d counts", name, KS_MAX_LIST);
    o->sphere_counts[o->sphere_count_n++] = (int)v;
    return KS_OK;
}

static ks_status add_bins(ks_options *o, const char *name, const char *item)
{
    long long v;
    if (parse_int(item, 1, 65536, &v) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a bin count of 1..65536", name, item);
    if (o->bins_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d bin counts", name, KS_MAX_LIST);
    o->bins_list[o->bins_n++] = (int)v;
    o->bins = o->bins_list[0];
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
        return ks_fail(KS_ERR_INVALID, "%s: kernel name '%s' is too long", name, item);
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
        return ks_fail(KS_ERR_INVALID, "--range: LO must be below HI (got '%s')", value);
    o->range_set = 1;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "--range: '%s' is not LO:HI (two finite numbers)", value);
}

static ks_status parse_scene_word(ks_options *o, const char *word, int *have_scene)
{
    for (int s = KS_SCENE_LAPLACE3D; s < KS_SCENE_NUM; ++s) {
        if (strcmp(word, ks_scene_names[s]) == 0) {
            if (*have_scene)
                return ks_fail(KS_ERR_INVALID, "more than one scene given ('%s')", word);
            o->scene = (ks_scene_id)s;
            *have_scene = 1;
            return KS_OK;
        }
    }
    return ks_fail(KS_ERR_INVALID,
                   "unknown scene or argument '%s' (scenes: laplace3d, laplace2d, spheres, histogram)", word);
}

static ks_status parse_flag(ks_options *o, ks_arg_cursor *c)
{
    const char *arg = c->argv[c->i];
    const char *v = NULL;
    long long n;

#define KS_FLAG(name) option_is(arg, name)
#define KS_VALUE(name) KS_TRY(take_value(c, name, &v))
#define KS_NOVALUE(name)                                                                           \
    if (strchr(arg, '=')) return ks_fail(KS_ERR_INVALID, "option %s takes no value", name)

    if (KS_FLAG("--help") || strcmp(arg, "-h") == 0) {
        o->help = 1;
    } else if (KS_FLAG("--version")) {
        o->version = 1;
    } else if (KS_FLAG("--headless")) {
        KS_NOVALUE("--headless");
        o->headless = 1;
    } else if (KS_FLAG("--window")) {
        KS_NOVALUE("--window");
        o->window = 1;
    } else if (KS_FLAG("--no-overlay")) {
        KS_NOVALUE("--no-overlay");
        o->no_overlay = 1;
    } else if (KS_FLAG("--grid")) {
        KS_VALUE("--grid");
        KS_TRY(for_each_item(o, "--grid", v, add_grid));
    } else if (KS_FLAG("--block")) {
        KS_VALUE("--block");
        KS_TRY(for_each_item(o, "--block", v, add_block));
    } else if (KS_FLAG("--kernel")) {
        KS_VALUE("--kernel");
        KS_TRY(for_each_item(o, "--kernel", v, add_kernel));
    } else if (KS_FLAG("--bc")) {
        KS_VALUE("--bc");
        if (ks_bc_parse(v, &o->bc) != 0)
            return ks_fail(KS_ERR_INVALID, "--bc: unknown boundary preset '%s' (seed, hot-top, sine)", v);
    } else if (KS_FLAG("--iters")) {
        KS_VALUE("--iters");
        if (parse_int(v, 1, KS_MAX_ITERS, &n) != 0)
            return ks_fail(KS_ERR_INVALID, "--iters: '%s' is not a count of 1..%d", v, KS_MAX_ITERS);
        o->iters = (int)n;
    } else if (KS_FLAG("--backend")) {
        KS_VALUE("--backend");
        if (strcmp(v, "cuda") == 0) o->backend = KS_BACKEND_CUDA;
        else if (strcmp(v, "cpu") == 0) o->backend = KS_BACKEND_CPU;
        else return ks_fail(KS_ERR_INVALID, "--backend: unknown backend '%s' (cuda, cpu)", v);
    } else if (KS_FLAG("--frames")) {
        KS_VALUE("--frames");
        if (parse_int(v, 1, INT_MAX, &n) != 0)
            return ks_fail(KS_ERR_INVALID, "--frames: '%s' is not a positive count", v);
        o->frames = (int)n;
    } else if (KS_FLAG("--out")) {
        KS_VALUE("--out");
        if (!*v) return ks_fail(KS_ERR_INVALID, "--out: empty directory name");
        o->out_dir = v;
    } else if (KS_FLAG("--save-every")) {
        KS_VALUE("--save-every");
        if (parse_int(v, 1, INT_MAX, &n) != 0)
            return ks_fail(KS_ERR_INVALID, "--save-every: '%s' is not a positive count", v);
        o->save_every = (int)n;
    } else if (KS_FLAG("--format")) {
        KS_VALUE("--format");
        if (ks_image_format_parse(v, &o->format) != 0)
            return ks_fail(KS_ERR_INVALID, "--format: unknown image format '%s' (png, ppm)", v);
    } else if (KS_FLAG("--size")) {
        KS_VALUE("--size");
        o->size_text = v; /* WxH, or bytes for the histogram: parsed in ks_options_finish */
        o->size_set = 1;
    } else if (KS_FLAG("--colormap")) {
        KS_VALUE("--colormap");
        if (ks_colormap_parse(v, &o->colormap) != 0)
            return ks_fail(KS_ERR_INVALID,
                           "--colormap: unknown colormap '%s' (viridis, inferno, turbo, gray)", v);
    } else if (KS_FLAG("--range")) {
        KS_VALUE("--range");
        KS_TRY(parse_range(o, v));
    } else if (KS_FLAG("--dump-field")) {
        KS_VALUE("--dump-field");
        size_t len = strlen(v);
        if (len < 5 || strcmp(v + len - 4, ".npy") != 0)
            return ks_fail(KS_ERR_INVALID, "--dump-field: '%s' must name a .npy file", v);
        o->dump_field = v;
    } else if (KS_FLAG("--spheres")) {
        KS_VALUE("--spheres");
        KS_TRY(for_each_item(o, "--spheres", v, add_spheres));
    } else if (KS_FLAG("--seed")) {
        KS_VALUE("--seed");
        errno = 0;
        char *end = NULL;
        unsigned long long s = strtoull(v, &end, 10);
        if (!*v || *v == '-' || errno || *end)
            return ks_fail(KS_ERR_INVALID, "--seed: '%s' is not a non-negative integer", v);
        o->seed = s;
        o->seed_set = 1;
    } else if (KS_FLAG("--scene")) {
        KS_VALUE("--scene");
        if (!*v) return ks_fail(KS_ERR_INVALID, "--scene: empty file name");
        o->scene_file = v;
    } else if (KS_FLAG("--mem")) {
        KS_VALUE("--mem");
        if (!*v) return ks_fail(KS_ERR_INVALID, "--mem: empty variant name");
        o->mem = v;
    } else if (KS_FLAG("--input")) {
        KS_VALUE("--input");
        if (!*v) return ks_fail(KS_ERR_INVALID, "--input: empty file name");
        o->input = v;
    } else if (KS_FLAG("--words")) {
        KS_NOVALUE("--words");
        o->words = 1;
    } else if (KS_FLAG("--bins")) {
        KS_VALUE("--bins");
        KS_TRY(for_each_item(o, "--bins", v, add_bins));
    } else if (KS_FLAG("--reps")) {
        KS_VALUE("--reps");
        if (parse_int(v, 1, 100000, &n) != 0)
            return ks_fail(KS_ERR_INVALID, "--reps: '%s' is not a count of 1..100000", v);
        o->reps = (int)n;
    } else {
        return ks_fail(KS_ERR_INVALID, "unknown option '%s' (see --help)", arg);
    }
    return KS_OK;
#undef KS_FLAG
#undef KS_VALUE
#undef KS_NOVALUE
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
        return ks_fail(KS_ERR_INVALID, "bench needs a scene: kernelscope bench laplace3d|laplace2d|spheres|histogram");
    return ks_options_finish(o);
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
    if (o->hist_size_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    o->hist_sizes[o->hist_size_n++] = (unsigned long long)v * mult;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a byte count of 1..4294967295 (suffix K, M, G allowed)",
                   name, item);
}

static ks_status finish_histogram(ks_options *o)
{
    if (o->size_text) KS_TRY(for_each_item(o, "--size", o->size_text, add_hist_size));
    if (o->hist_size_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--size: one size for the live view (lists are for bench)");
    if (o->bins_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--bins: one count for the live view (lists are for bench)");
    if (o->input && o->size_text)
        return ks_fail(KS_ERR_INVALID, "--size and --input exclude each other (the file sets the size)");
    if (o->input && o->mode == KS_MODE_BENCH)
        return ks_fail(KS_ERR_INVALID, "--input: bench histogram uses its own inputs (text, uniform, equal)");
    if (!o->hist_size_n) o->hist_sizes[o->hist_size_n++] = 100ull << 20;
    o->size_set = 0; /* the picture keeps its default size */
    o->width = 1280;
    o->height = 800;
    if (o->scene_file || o->mem || o->sphere_count_n || o->grid_count || o->block_count)
        return ks_fail(KS_ERR_INVALID, "--grid/--block/--scene/--mem/--spheres do not apply to the histogram scene");
    return KS_OK;
}

ks_status ks_options_finish(ks_options *o)
{
    if (o->scene == KS_SCENE_DEFAULT) o->scene = KS_SCENE_LAPLACE3D;
    const int dims = ks_scene_dims(o->scene);
    if (o->bc == KS_BC_DEFAULT) o->bc = KS_BC_HOT_TOP;
    if (o->colormap == KS_CMAP_DEFAULT) o->colormap = KS_CMAP_VIRIDIS;
    if (o->format == KS_FMT_DEFAULT) o->format = KS_FMT_PNG;
    if (!o->out_dir) o->out_dir = ".";
    if (!o->reps) o->reps = 20;
    if (!o->seed_set) o->seed = 1;
    if (!o->size_set) {
        const int bench_spheres = o->mode == KS_MODE_BENCH && o->scene == KS_SCENE_SPHERES;
        o->width = bench_spheres ? 2048 : o->scene == KS_SCENE_SPHERES ? 1024 : 1280;
        o->height = bench_spheres ? 2048 : o->scene == KS_SCENE_SPHERES ? 768 : 800;
    }
    if (o->scene == KS_SCENE_HISTOGRAM) {
        KS_TRY(finish_histogram(o));
    } else if (o->size_text) {
        int wh[3];
        if (parse_dims(o->size_text, 2, 16, KS_MAX_IMAGE, wh) != 2)
            return ks_fail(KS_ERR_INVALID, "--size: '%s' is not WxH (each 16..%d pixels)",
                           o->size_text, KS_MAX_IMAGE);
        o->width = wh[0];
        o->height = wh[1];
    }
    if (o->scene != KS_SCENE_HISTOGRAM && (o->input || o->words || o->bins))
        return ks_fail(KS_ERR_INVALID, "--input/--words/--bins apply to the histogram scene only");
    if (o->headless && o->window)
        return ks_fail(KS_ERR_INVALID, "--headless and --window exclude each other");
    if (!o->frames && o->headless) o->frames = 60;
    if (o->sphere_count_n && o->mode == KS_MODE_LIVE) o->sphere_count = o->sphere_counts[0];
    if (o->sphere_count_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--spheres: one count for the live view (lists are for bench)");
    if (!o->sphere_count) o->sphere_count = 256;

    if (dims == 0) {
        if (o->grid_count)
            return ks_fail(KS_ERR_INVALID, "--grid does not apply to the %s scene", ks_scene_name(o->scene));
        return KS_OK;
    }
    if (o->scene_file || o->mem || o->sphere_count_n)
        return ks_fail(KS_ERR_INVALID, "--scene/--mem/--spheres apply to the spheres scene only");
    if (o->mode == KS_MODE_LIVE && o->grid_count > 1)
        return ks_fail(KS_ERR_INVALID, "--grid: one grid for the live view (lists are for bench)");
    if (o->mode == KS_MODE_LIVE && (o->kernel_count > 1 || o->block_count > 1))
        return ks_fail(KS_ERR_INVALID, "--kernel/--block: one value each for the live view");
    for (int g = 0; g < o->grid_count; ++g) {
        int parts = o->grid_parts[g];
        if (parts == 1) {
            o->grids[g][1] = o->grids[g][0];
            o->grids[g][2] = dims == 3 ? o->grids[g][0] : 1;
        } else if (parts != dims) {
            return ks_fail(KS_ERR_INVALID, "--grid: %s needs %s, got %d sizes",
                           ks_scene_name(o->scene), dims == 3 ? "N or NXxNYxNZ" : "N or NXxNY", parts);
        }
        const double points = (double)o->grids[g][0] * o->grids[g][1] * o->grids[g][2];
        if (points > 68719476736.0) /* 2^36 points = 256 GiB per field */
            return ks_fail(KS_ERR_INVALID, "--grid: %dx%dx%d is far too large (%.3g points)",
                           o->grids[g][0], o->grids[g][1], o->grids[g][2], points);
    }
    for (int k = 0; k < o->kernel_count; ++k) {
        if (ks_lvariant_find(dims, o->kernels[k]) < 0) {
            char names[256];
            ks_lvariant_list(dims, names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown %s kernel '%s' (%s)",
                           ks_scene_name(o->scene), o->kernels[k], names);
        }
    }
    return KS_OK;
}

void ks_options_backend_defaults(ks_options *o, int use_cuda)
{
    const int dims = ks_scene_dims(o->scene);
    if (dims && !o->grid_count && o->mode == KS_MODE_LIVE) {
        const int n = dims == 3 ? (use_cuda ? 256 : 64) : (use_cuda ? 1024 : 256);
        o->grids[0][0] = o->grids[0][1] = n;
        o->grids[0][2] = dims == 3 ? n : 1;
        o->grid_parts[0] = 1;
        o->grid_count = 1;
    }
    if (!o->iters) o->iters = use_cuda ? 20 : 2;
}

ks_grid ks_options_grid(const ks_options *o, int idx)
{
    ks_grid g;
    g.dims = ks_scene_dims(o->scene);
    g.nx = o->grids[idx][0];
    g.ny = o->grids[idx][1];
    g.nz = g.dims == 3 ? o->grids[idx][2] : 1;
    return g;
}

void ks_options_print_help(void)
{
    char k3[256], k2[256];
    ks_lvariant_list(3, k3, sizeof k3);
    ks_lvariant_list(2, k2, sizeof k2);
    printf("kernelscope %s: watch GPU kernels work\n\n"
           "usage: kernelscope [laplace3d|laplace2d|spheres|histogram] [options]\n"
           "       kernelscope bench laplace3d|laplace2d|spheres|histogram [options]\n\n"
           "Laplace scenes:\n"
           "  --grid N | NXxNY[xNZ]   grid points (default 256^3 / 1024^2 on CUDA, 64^3 / 256^2 on CPU)\n"
           "  --bc seed|hot-top|sine  boundary preset (default hot-top)\n"
           "  --kernel NAME           3D: %s; 2D: %s\n"
           "  --block BXxBY[xBZ]      thread block (default: best measured, else the kernel's own)\n"
           "  --iters K               Jacobi iterations per frame (default 20 CUDA, 2 CPU)\n"
           "  --colormap NAME         viridis, inferno, turbo, gray (default viridis)\n"
           "  --range LO:HI           fixed colour range (default: auto)\n"
           "  --dump-field FILE.npy   write the final field (float32, shape (NZ,NY,NX) or (NY,NX))\n"
           "Spheres scene:\n"
           "  --spheres N             sphere count (bench: a list, e.g. 16,64,256)\n"
           "  --seed S                random placement seed (default 1)\n"
           "  --scene FILE            spheres from a file: 'x y z radius r g b' per line\n"
           "  --mem NAME              global, readonly, constant, shared, binned\n"
           "Histogram scene:\n"
           "  --input FILE            count the bytes of FILE (default: generated text)\n"
           "  --size BYTES            generated text size, K/M/G suffixes (default 100M; bench: a list)\n"
           "  --bins B                16-bit view of byte pairs in B bins (1..65536); with --words: word bins (bench: a list)\n"
           "  --words                 histogram of words (ASCII letter runs, FNV-1a into B bins, default 1024)\n"
           "  --kernel NAME           global, strided, shared, warp, cub (bench: a list)\n"
           "All scenes:\n"
           "  --backend cuda|cpu      default cuda when a device exists, else cpu\n"
           "  --headless              render through EGL without a window (default without a display)\n"
           "  --window                insist on a window (error when there is no display)\n"
           "  --frames N              stop after N frames (headless default 60)\n"
           "  --out DIR               where frames, CSVs and bench results go (default .)\n"
           "  --save-every K          save every K-th frame and a CSV of stage timings\n"
           "  --format png|ppm        saved frame format (default png)\n"
           "  --size WxH              window / picture size (default 1280x800; spheres 1024x768)\n"
           "  --no-overlay            start with the overlay hidden (saved frames hold the bare picture)\n"
           "  --reps N                bench: timed repetitions per configuration (default 20)\n"
           "  --help, --version\n\n"
           "Keys: H shows them all in the window. Exit status: 0 ok, 1 runtime failure, 2 bad input.\n",
           KS_VERSION, k3, k2);
}
