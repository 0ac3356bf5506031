#include "options.h"

#include "options_parse.h"
#include "scenes.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/histogram/histogram.h"
#include "kernels/matmul/matmul.h"
#include "kernels/spheres/spheres.h"
#include "video/recorder.h"
#include "serve/serve_auth.h"

enum {
    KS_MAX_DIM = 1 << 16,        /* points per axis */
    KS_MAX_IMAGE = 16384,        /* --size per axis */
    KS_MAX_ITERS = 1000000,
};

static int parse_float(const char *text, float *out)
{
    if (!text || !*text || isspace((unsigned char)*text)) return -1;
    if (text[strspn(text, "0123456789.eE-")]) return -1; /* decimal only: no '+', hex, inf or nan */
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
    const char *cpu_why; /* that note's reason; NULL: "the CPU gold routine runs" */
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
    o->laplace.iters_auto = v && strcmp(v, "auto") == 0;
    if (o->laplace.iters_auto) {
        o->laplace.iters = 0; /* the finish picks the starting count */
        o->laplace.iters_set = 1;
        return KS_OK;
    }
    o->laplace.iters_set = 1;
    return set_count(name, v, 1, KS_MAX_ITERS, &o->laplace.iters);
}
static ks_status set_residual_every(ks_options *o, const char *name, const char *v)
{
    return set_count(name, v, 1, 100000, &o->laplace.residual_every);
}
static ks_status set_no_graph(ks_options *o, const char *name, const char *v)
{
    (void)name, (void)v;
    o->laplace.no_graph = 1;
    return KS_OK;
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
static ks_status set_interop(ks_options *o, const char *name, const char *v)
{
    if (ks_interop_mode_parse(v, &o->interop) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: unknown display path '%s' (auto, pbo, copy)", name, quoted(v));
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
    if ((strcmp(v, "png") != 0 && strcmp(v, "ppm") != 0) || ks_image_format_parse(v, &o->format) != 0)
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

static ks_status add_mode(ks_options *o, const char *name, const char *item)
{
    unsigned m = 0;
    if (strcmp(item, "headless") == 0) m = KS_LIVE_MODE_HEADLESS;
    else if (strcmp(item, "window") == 0) m = KS_LIVE_MODE_WINDOW;
    else return ks_fail(KS_ERR_INVALID, "%s: unknown mode '%s' (headless, window)", name, quoted(item));
    if (o->live.modes & m) return ks_fail(KS_ERR_INVALID, "%s: '%s' given twice", name, item);
    o->live.modes |= m;
    o->live.order[o->live.modes_n++] = m;
    return KS_OK;
}
static ks_status set_modes(ks_options *o, const char *name, const char *v)
{
    o->live.modes = 0;
    o->live.modes_n = 0;
    return for_each_item(o, name, v, add_mode);
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
static ks_status set_browser(ks_options *o, const char *name, const char *v)
{
    struct stat st; /* a folder is "executable" too: found here, not after the run */
    if (!*v || stat(v, &st) != 0 || !S_ISREG(st.st_mode) || access(v, X_OK) != 0) return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a program that can be run", name, quoted(v));
    o->browser = v;
    return KS_OK;
}
static ks_status set_record(ks_options *o, const char *name, const char *v)
{
    if (ks_recorder_check_name(v) != KS_OK) {
        ks_error_prefix("%s", name);
        return KS_ERR_INVALID;
    }
    o->record = v;
    return KS_OK;
}
static ks_status set_fps(ks_options *o, const char *name, const char *v)
{
    return set_count(name, v, 1, 240, &o->fps);
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
static ks_status set_serve(ks_options *o, const char *name, const char *v)
{
    (void)name;
    KS_TRY(ks_serve_parse_listen(v, o->serve_addr, &o->serve_port));
    o->serve = 1;
    return KS_OK;
}
static ks_status set_token(ks_options *o, const char *name, const char *v)
{
    (void)name;
    KS_TRY(ks_serve_check_token_text(v));
    o->token = v;
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
    {"--frames", 1, KS_AT_LIVE | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE, "the live views and bench live and serve",
     set_frames},
    {"--serve", 1, KS_AT_LIVE, "the live views", set_serve},
    {"--token", 1, KS_AT_LIVE, "the live views", set_token},
    {"--save-every", 1, KS_AT_LIVE, "the live views", set_save_every},
    {"--format", 1, KS_AT_LIVE, "the live views", set_format},
    {"--size", 1, KS_AT_LIVE | KS_AT_BENCH_SPH | KS_AT_BENCH_MM | KS_AT_BENCH_HIST | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE,
     "the live views and bench spheres, matmul, histogram, live and serve", set_size},
    {"--input", 1, KS_AT_LIVE_HIST, "the live histogram scene", set_input},
    {"--words", 0, KS_AT_HISTOGRAM, "the histogram scene", set_words},
    {"--bins", 1, KS_AT_HISTOGRAM, "the histogram scene", set_bins},
    {"--backend", 1, KS_AT_ALL, "everywhere", set_backend},
    {"--interop", 1, KS_AT_LIVE | KS_AT_BENCH_LIVE, "the live views and bench live", set_interop, KS_GPU_ONLY,
     "its pictures are uploaded from host memory"},
    {"--out", 1, KS_AT_ALL, "everywhere", set_out},
    {"--block", 1, KS_AT_ALL & ~(KS_AT_MATMUL | KS_AT_HISTOGRAM | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE), "the Laplace and spheres scenes",
     set_block, KS_GPU_ONLY},
    {"--grid", 1, KS_AT_LAPLACE | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE, "the Laplace scenes and bench live and serve",
     set_grid},
    {"--kernel", 1, KS_AT_LAPLACE | KS_AT_MATMUL | KS_AT_HISTOGRAM | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE,
     "the Laplace, matmul and histogram scenes and bench live and serve", set_kernel, KS_GPU_ONLY},
    {"--tile", 1, KS_AT_MATMUL, "the matmul scene", set_tile, KS_GPU_ONLY},
    {"--bc", 1, KS_AT_LAPLACE_LIVE, "the live Laplace scenes", set_bc},
    {"--iters", 1, KS_AT_LAPLACE_LIVE | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE,
     "the live Laplace scenes and bench live and serve", set_iters},
    {"--residual-every", 1, KS_AT_LAPLACE_LIVE, "the live Laplace scenes", set_residual_every},
    {"--no-graph", 0, KS_AT_LAPLACE_LIVE, "the live Laplace scenes", set_no_graph, KS_GPU_ONLY},
    {"--colormap", 1, KS_AT_LAPLACE_LIVE | KS_AT_LIVE_MM, "the live Laplace and matmul scenes", set_colormap},
    {"--range", 1, KS_AT_LAPLACE_LIVE | KS_AT_LIVE_MM, "the live Laplace and matmul scenes", set_range},
    {"--dump-field", 1, KS_AT_LAPLACE_LIVE | KS_AT_LIVE_MM | KS_AT_LIVE_HIST,
     "the live Laplace, matmul and histogram scenes", set_dump_field},
    {"--record", 1, KS_AT_LIVE, "the live views", set_record},
    {"--fps", 1, KS_AT_LIVE, "the live views", set_fps},
    {"--spheres", 1, KS_AT_SPHERES | KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE, "the spheres scene and bench live and serve",
     set_spheres},
    {"--seed", 1, KS_AT_SPHERES | KS_AT_HISTOGRAM, "the spheres and histogram scenes", set_seed},
    {"--scene", 1, KS_AT_SPHERES, "the spheres scene", set_scene},
    {"--mem", 1, KS_AT_SPHERES, "the spheres scene", set_mem, KS_GPU_ONLY},
    {"--reps", 1, KS_AT_BENCH, "bench", set_reps},
    {"--modes", 1, KS_AT_BENCH_LIVE, "bench live", set_modes},
    {"--browser", 1, KS_AT_BENCH_SERVE, "bench serve", set_browser},
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
        /* a second value would silently win: an error, but for the list flags, which add up */
        const int list = f->set == set_grid || f->set == set_block || f->set == set_kernel || f->set == set_spheres;
        if ((o->flags_given & (1ull << k)) && !list) return ks_fail(KS_ERR_INVALID, "%s given twice", f->name);
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
    if (o->mode == KS_MODE_LIVE && !d->live) /* a bench-only row */
        return ks_fail(KS_ERR_INVALID, "%s is a bench, not a view: run kernelscope bench %s", d->name, d->name);
    KS_TRY(check_applicable(o, d));
    if (d->size_is_picture) KS_TRY(finish_size_wh(o));
    if (o->colormap == KS_CMAP_DEFAULT) o->colormap = KS_CMAP_VIRIDIS;
    if (o->format == KS_FMT_DEFAULT) o->format = KS_FMT_PNG;
    if (!o->out_dir) o->out_dir = ".";
    if (!o->reps) o->reps = 20;
    if (!o->fps) o->fps = 60;
    if (!o->seed_set) o->seed = 1;
    if (!o->size_set) {
        o->width = 1280;
        o->height = 800;
    }
    if (o->headless && o->window)
        return ks_fail(KS_ERR_INVALID, "--headless and --window exclude each other");
    if (o->token && !o->serve) return ks_fail(KS_ERR_INVALID, "--token goes with --serve");
    /* served: run until stopped (Ctrl-C, SIGTERM, Q from the page) unless --frames says otherwise */
    if (!o->frames && o->headless && !o->serve) o->frames = 60;
    return d->finish_options(o);
}

int ks_options_cpu_notice(const ks_options *o, int *cursor, char *buf, size_t len)
{
    for (; *cursor < KS_FLAG_NUM; ++*cursor) {
        const int k = *cursor;
        if (!ks_flags[k].gpu_only || !(o->flags_given & (1ull << k))) continue;
        snprintf(buf, len, "%s has no effect on the cpu backend (%s)", ks_flags[k].name,
                 ks_flags[k].cpu_why ? ks_flags[k].cpu_why : "the CPU gold routine runs");
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
