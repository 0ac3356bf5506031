/* The common flags (app/options_common.h): their rows and setters. The scenes' own are
 * in their folders (app/scenes/<scene>/options.c). */
#include "app/options_common.h"

#include "app/options_parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "video/recorder.h"
#include "serve/serve_auth.h"

enum { KS_MAX_IMAGE = 16384 /* --size per axis */ };

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

static ks_status add_block(void *ctx, const char *name, const char *item)
{
    ks_options *o = ctx;
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

/* Kernel names must outlive the temporary copy that for_each_item splits:
 * each gets a slot in a static pool. */
static char ks_kernel_pool[KS_MAX_LIST][64];

static ks_status add_kernel(void *ctx, const char *name, const char *item)
{
    ks_options *o = ctx;
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

/* ---- The common flags (the scenes' own are in their folders) ---- */

KS_FLAG_SETS(set_help, o->help)
KS_FLAG_SETS(set_version, o->version)
KS_FLAG_SETS(set_list_scenes, o->list_scenes)
KS_FLAG_SETS(set_headless, o->headless)
KS_FLAG_SETS(set_window, o->window)
KS_FLAG_SETS(set_edit, o->edit)
KS_FLAG_SETS(set_no_overlay, o->no_overlay)
KS_FLAG_SETS(set_progress, o->progress)

static ks_status set_block(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return for_each_item(o, name, v, add_block);
}
static ks_status set_kernel(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return for_each_item(o, name, v, add_kernel);
}
static ks_status set_frames(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return set_count(name, v, 1, INT_MAX, &o->frames);
}
static ks_status set_save_every(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return set_count(name, v, 1, INT_MAX, &o->save_every);
}
static ks_status set_reps(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return set_count(name, v, 1, 100000, &o->reps);
}
static ks_status set_cache(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if (ks_cache_policy_parse(v, &o->cache) != 0 || o->cache == KS_CACHE_AUTO)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not cold or warm", name, quoted(v));
    return KS_OK;
}
static ks_status set_backend(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if (strcmp(v, "cuda") == 0) o->backend = KS_BACKEND_CUDA;
    else if (strcmp(v, "cpu") == 0) o->backend = KS_BACKEND_CPU;
    else return ks_fail(KS_ERR_INVALID, "%s: unknown backend '%s' (cuda, cpu)", name, quoted(v));
    return KS_OK;
}
static ks_status set_interop(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if (ks_interop_mode_parse(v, &o->interop) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: unknown display path '%s' (auto, pbo, copy)", name, quoted(v));
    return KS_OK;
}
static ks_status set_out(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty directory name", name);
    o->out_dir = v;
    o->out_set = 1;
    return KS_OK;
}
static ks_status set_format(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if ((strcmp(v, "png") != 0 && strcmp(v, "ppm") != 0) || ks_image_format_parse(v, &o->format) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: unknown image format '%s' (png, ppm)", name, quoted(v));
    return KS_OK;
}
/* --size means WxH pixels for the pictures and the scene's own sizes for others
 * (matmul, histogram): the text is kept and read once the scene is known. */
static ks_status set_size(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own, (void)name;
    o->size_text = v;
    return KS_OK;
}
ks_status ks_options_size_wh(ks_options *o)
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
static ks_status set_colormap(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if (ks_colormap_parse(v, &o->colormap) != 0) {
        char names[128];
        ks_colormap_list(names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "%s: unknown colormap '%s' (%s)", name, quoted(v), names);
    }
    return KS_OK;
}
static ks_status set_range(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own, (void)name;
    return parse_range(o, v);
}
static ks_status set_dump_field(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    size_t len = strlen(v);
    if (len < 5 || strcmp(v + len - 4, ".npy") != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' must name a .npy file", name, quoted(v));
    o->dump_field = v;
    return KS_OK;
}
static ks_status set_record(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    if (ks_recorder_check_name(v) != KS_OK) {
        ks_error_prefix("%s", name);
        return KS_ERR_INVALID;
    }
    o->record = v;
    return KS_OK;
}
static ks_status set_fps(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return set_count(name, v, 1, 240, &o->fps);
}
static ks_status set_seed(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
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
static ks_status set_serve(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own, (void)name;
    KS_TRY(ks_serve_parse_listen(v, o->serve_addr, &o->serve_port));
    o->serve = 1;
    return KS_OK;
}
static ks_status set_token(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own, (void)name;
    KS_TRY(ks_serve_check_token_text(v));
    o->token = v;
    return KS_OK;
}
static ks_status set_counters_every(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    float s = 0.0f;
    if (parse_float(v, &s) != 0 || !(s >= 0.1f && s <= 3600.0f))
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a number of seconds in 0.1..3600", name, quoted(v));
    o->counters_every = s;
    return KS_OK;
}
static ks_status set_timeline_interval(ks_options *o, void *own, const char *name, const char *v)
{
    (void)own;
    return set_count(name, v, 20, 100, &o->timeline_us);
}
KS_FLAG_SETS(set_timeline, o->timeline)
KS_FLAG_SETS(set_counters, o->counters)
KS_FLAG_SETS(set_counters_ncu, o->counters_ncu)
static void colormap_names(char *buf, size_t len) { ks_colormap_list(buf, len); }

enum { KS_EVERYWHERE = KS_IN_EVERY_LIVE | KS_IN_EVERY_BENCH };
/* The common flags. One with `in` 0 applies only where a scene row names it in
 * takes_live / takes_bench. A flag given where it means nothing is refused
 * (check_applicable), never silently ignored. */
const ks_flag_row ks_common_flags[] = {
    {"--backend", "cuda|cpu", "default cuda when a device exists, else cpu", KS_EVERYWHERE, set_backend},
    {"--interop", "auto|pbo|copy",
     "how CUDA pictures reach the window: pbo (CUDA writes a GL\nbuffer), copy (device -> pinned host -> GL "
     "upload, for a GL\ncontext not on the CUDA device); auto (default): pbo, else copy",
     KS_IN_EVERY_LIVE, set_interop, "its pictures are uploaded from host memory"},
    {"--headless", NULL, "render through EGL without a window (default without a display)", KS_IN_EVERY_LIVE,
     set_headless},
    {"--window", NULL, "insist on a window (error when there is no display)", KS_IN_EVERY_LIVE, set_window},
    {"--frames", "N", "stop after N frames (headless default 60; with --serve: until stopped)", KS_IN_EVERY_LIVE,
     set_frames},
    {"--serve", "[ADDR:]PORT",
     "watch and steer the run from a browser: http://ADDR:PORT/ (default\naddress 127.0.0.1; port 0 picks a free "
     "one); also /stream.mjpg,\n/state.json, POST /key?k=NAME, WebSocket /ws",
     KS_IN_EVERY_LIVE, set_serve},
    {"--token", "T",
     "with --serve: require ?token=T (any address but loopback gets a\nrandom one when not given; the URL printed "
     "at start holds it)",
     KS_IN_EVERY_LIVE, set_token},
    {"--edit", NULL,
     "with --serve and --kernel-file: the page edits the first file\n(Compile saves it; always behind the token, made "
     "when\nnot given)",
     KS_IN_EVERY_LIVE, set_edit},
    {"--progress", NULL,
     "headless: a progress line every second even when stderr\nis not a terminal (it is shown on a terminal "
     "anyway)",
     KS_IN_EVERY_LIVE, set_progress},
    {"--out", "DIR", "where frames and CSVs go (default .; bench: results/<scene>-<time>/)", KS_EVERYWHERE, set_out},
    {"--save-every", "K", "save every K-th frame and a CSV of stage timings", KS_IN_EVERY_LIVE, set_save_every},
    {"--format", "png|ppm", "saved frame format (default png)", KS_IN_EVERY_LIVE, set_format},
    {"--size", "WxH", "window / picture size (default 1280x800; spheres 1024x768)", KS_IN_EVERY_LIVE, set_size},
    {"--no-overlay", NULL, "start with the overlay hidden (saved frames hold the bare picture)", KS_IN_EVERY_LIVE,
     set_no_overlay},
    {"--record", "FILE.mp4|.mkv",
     "record what is shown as H.264 video (NVENC, else libx264);\nthe E key starts / stops a recording under --out",
     KS_IN_EVERY_LIVE, set_record},
    {"--fps", "N",
     "video frame rate (default 60; headless: one video frame per frame);\nalso the most pictures a second --serve "
     "sends",
     KS_IN_EVERY_LIVE, set_fps},
    {"--block", "BXxBY[xBZ]", "thread block (default: best measured, else the kernel's own)", 0, set_block,
     "the CPU gold routine runs", NULL, 1},
    {"--kernel", "NAME", "the kernel variant (the scene's names; bench: a list, default all)", 0, set_kernel,
     "the CPU gold routine runs", NULL, 1},
    {"--colormap", "NAME", "%s (default viridis)", 0, set_colormap, NULL, colormap_names},
    {"--range", "LO:HI", "fixed colour range (default: auto)", 0, set_range},
    {"--dump-field", "FILE.npy", "write the final field / result as float32 .npy", 0, set_dump_field},
    {"--seed", "S", "random seed of the generated input (default 1)", 0, set_seed},
    {"--reps", "N",
     "bench: exactly N timed repetitions per configuration (default: until\nthe median's standard error is under 1 %, "
     "10 to 1000 of them)",
     KS_IN_EVERY_BENCH, set_reps},
    {"--cache", "cold|warm",
     "bench: cold flushes the L2 (a write of twice its size) before every\ntimed run, warm runs back to back "
     "(default: cold when the working\nset is under 4x the L2, else warm)",
     0 /* the scenes' benches name it (takes_bench): bench live and serve time back to back */, set_cache,
     "no L2 flush: its rows are timed back to back, warm"},
    {"--counters-every", "SECONDS",
     "measure the running kernel's hardware counters this often (the\nHardware panel; default: on K only); never "
     "more than 5 % of\nthe solver's time: a costly measurement stretches the interval",
     KS_IN_EVERY_LIVE, set_counters_every},
    {"--timeline", NULL,
     "sample DRAM throughput and SM activity while the view runs, drawn\nas a strip under the picture with each "
     "kernel marked (T toggles it)",
     KS_IN_EVERY_LIVE, set_timeline},
    {"--timeline-interval", "US", "with --timeline: the sampling interval, 20..100 microseconds (default 50)",
     KS_IN_EVERY_LIVE, set_timeline_interval},
    {"--counters", NULL,
     "bench: the hardware-counter columns, each row's kernel measured once\nmore after its timing (kernel replay)",
     0, set_counters},
    {"--counters-ncu", NULL,
     "bench: each row's kernel launched once more after its timing between\ncudaProfilerStart and Stop, without "
     "counters: the launches\n--counters measures, for ncu --profile-from-start off",
     0, set_counters_ncu},
    {"--list-scenes", NULL, "one line per scene: NAME view|bench-only [a short run's arguments] (for scripts)", KS_EVERYWHERE,
     set_list_scenes},
    {"--help", NULL, NULL, KS_EVERYWHERE, set_help},
    {"--version", NULL, NULL, KS_EVERYWHERE, set_version},
};
const int ks_common_flag_count = (int)(sizeof ks_common_flags / sizeof ks_common_flags[0]);
