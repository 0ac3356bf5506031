#include "app/options.h"

#include "app/options_parse.h"
#include "app/scenes.h"

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
static void colormap_names(char *buf, size_t len) { ks_colormap_list(buf, len); }

enum { KS_EVERYWHERE = KS_IN_EVERY_LIVE | KS_IN_EVERY_BENCH };
/* The common flags. One with `in` 0 applies only where a scene row names it in
 * takes_live / takes_bench. A flag given where it means nothing is refused
 * (check_applicable), never silently ignored. */
static const ks_flag_row ks_common_flags[] = {
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
    {"--reps", "N", "bench: timed repetitions per configuration (default 20)", KS_IN_EVERY_BENCH, set_reps},
    {"--list-scenes", NULL, "one line per scene: NAME view|bench-only [a short run's arguments] (for scripts)", KS_EVERYWHERE,
     set_list_scenes},
    {"--help", NULL, NULL, KS_EVERYWHERE, set_help},
    {"--version", NULL, NULL, KS_EVERYWHERE, set_version},
};
enum { KS_COMMON_FLAGS = (int)(sizeof ks_common_flags / sizeof ks_common_flags[0]) };

/* Every flag gets a number: the common ones first, then each option group's in
 * registry order. */
typedef struct ks_flag_ref {
    const ks_flag_row *row;
    const ks_option_group *group; /* NULL: a common flag */
} ks_flag_ref;

static int flag_count(void)
{
    int n = KS_COMMON_FLAGS;
    for (int g = 0; g < ks_option_group_count(); ++g) n += ks_option_group_at(g)->flag_count;
    return n;
}

static ks_flag_ref flag_at(int k)
{
    ks_flag_ref r = {NULL, NULL};
    if (k < KS_COMMON_FLAGS) {
        r.row = &ks_common_flags[k];
        return r;
    }
    k -= KS_COMMON_FLAGS;
    for (int g = 0; g < ks_option_group_count(); ++g) {
        const ks_option_group *grp = ks_option_group_at(g);
        if (k < grp->flag_count) {
            r.row = &grp->flags[k];
            r.group = grp;
            return r;
        }
        k -= grp->flag_count;
    }
    return r;
}

void *ks_options_own(ks_options *o, const ks_option_group *g)
{
    const int i = ks_option_group_index(g);
    return i >= 0 ? o->own[i] : NULL;
}

const void *ks_options_own_const(const ks_options *o, const ks_option_group *g)
{
    const int i = ks_option_group_index(g);
    return i >= 0 ? o->own[i] : NULL;
}

int ks_options_given(const ks_options *o, const char *name)
{
    for (int k = 0; k < flag_count(); ++k)
        if (o->flags_given[k] && strcmp(flag_at(k).row->name, name) == 0) return 1;
    return 0;
}

/* 1 when flag k means something in this mode of scene d. */
static int applies(const ks_flag_ref *f, const ks_scene_def *d, ks_mode mode)
{
    const unsigned in = f->row->in;
    if (mode == KS_MODE_LIVE ? (in & KS_IN_EVERY_LIVE) && d->live : (in & KS_IN_EVERY_BENCH)) return 1;
    if (f->group && f->group == d->options && (in & (mode == KS_MODE_LIVE ? KS_IN_LIVE : KS_IN_BENCH)))
        return mode == KS_MODE_BENCH || d->live;
    return ks_flag_named(mode == KS_MODE_LIVE ? d->takes_live : d->takes_bench, f->row->name);
}

/* 1 when a flag of f's name means something in this mode of scene d (rows of
 * several groups may share the name). */
static int applies_by_name(const ks_flag_ref *f, const ks_scene_def *d, ks_mode mode)
{
    for (int k = 0; k < flag_count(); ++k) {
        const ks_flag_ref g = flag_at(k);
        if (g.row->set && strcmp(g.row->name, f->row->name) == 0 && applies(&g, d, mode)) return 1;
    }
    return applies(f, d, mode);
}

/* Appends "a", "a and b", "a, b and c" of the names picked, after a lead-in. */
static void name_list(char *buf, size_t len, size_t *used, const char *lead, const ks_scene_def **d, int n,
                      const char *one, const char *many)
{
    if (n == 0 || *used >= len) return;
    int w = snprintf(buf + *used, len - *used, "%s%s", *used ? " and " : "", lead);
    for (int i = 0; i < n && w >= 0; ++i) {
        *used += (size_t)w;
        if (*used >= len) return;
        w = snprintf(buf + *used, len - *used, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", d[i]->name);
    }
    if (w >= 0) *used += (size_t)w;
    if (*used < len && (one || many)) {
        w = snprintf(buf + *used, len - *used, "%s", n > 1 ? many : one);
        if (w > 0) *used += (size_t)w;
    }
}

/* Where a flag applies, in words: "the histogram scene", "the laplace3d and
 * laplace2d scenes and bench live and serve", "the spheres view". */
static void where_text(const ks_flag_ref *f, char *buf, size_t len)
{
    const ks_scene_def *both[64], *live[64], *bench[64];
    int nb = 0, nl = 0, nbe = 0;
    for (int i = 0; i < ks_scene_def_count() && i < 64; ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        const int l = d->live && applies_by_name(f, d, KS_MODE_LIVE), be = applies_by_name(f, d, KS_MODE_BENCH);
        if (l && be) both[nb++] = d;
        else if (l) live[nl++] = d;
        else if (be) bench[nbe++] = d;
    }
    size_t used = 0;
    buf[0] = '\0';
    name_list(buf, len, &used, "the ", both, nb, " scene", " scenes");
    name_list(buf, len, &used, "the ", live, nl, " view", " views");
    name_list(buf, len, &used, "bench ", bench, nbe, NULL, NULL);
}

static ks_status parse_flag(ks_options *o, ks_arg_cursor *c)
{
    const char *arg = c->argv[c->i];
    if (strcmp(arg, "-h") == 0) arg = "--help";
    const int nflags = flag_count();
    /* Two scenes' groups may each have a flag of one name (--kernel-file): the
       scene word may come after it, so every such row takes the value into its
       own storage, and the check afterwards asks only that one of them applies. */
    int taken = 0;
    const char *v = NULL;
    for (int k = 0; k < nflags; ++k) {
        const ks_flag_ref f = flag_at(k);
        if (!f.row->set || !option_is(arg, f.row->name)) continue; /* help-only rows describe a common flag */
        if (!taken && f.row->arg) KS_TRY(take_value(c, f.row->name, &v));
        else if (!taken && strchr(arg, '=')) return ks_fail(KS_ERR_INVALID, "option %s takes no value", f.row->name);
        /* a second value would silently win: an error, but for the list flags, which add up */
        if (o->flags_given[k] && !f.row->repeatable) return ks_fail(KS_ERR_INVALID, "%s given twice", f.row->name);
        o->flags_given[k] = 1;
        KS_TRY(f.row->set(o, f.group ? ks_options_own(o, f.group) : NULL, f.row->name, v));
        taken = 1;
    }
    return taken ? KS_OK : ks_fail(KS_ERR_INVALID, "unknown option '%s' (see --help)", quoted(arg));
}

/* The first flag given where it means nothing, refused in one line. */
static ks_status check_applicable(const ks_options *o, const ks_scene_def *d)
{
    for (int k = 0; k < flag_count(); ++k) {
        const ks_flag_ref f = flag_at(k);
        if (!o->flags_given[k] || applies(&f, d, o->mode)) continue;
        int elsewhere = 0; /* another group's row of the same name that applies (parse_flag) */
        for (int j = 0; j < flag_count() && !elsewhere; ++j) {
            const ks_flag_ref g = flag_at(j);
            elsewhere = j != k && o->flags_given[j] && strcmp(g.row->name, f.row->name) == 0 && applies(&g, d, o->mode);
        }
        if (elsewhere) continue;
        char where[256];
        where_text(&f, where, sizeof where);
        return ks_fail(KS_ERR_INVALID, "%s does not apply to %s%s%s (only to %s)", f.row->name,
                       o->mode == KS_MODE_BENCH ? "bench " : "the ", d->name,
                       o->mode == KS_MODE_BENCH ? "" : " view", where);
    }
    return KS_OK;
}

static ks_status parse_scene_word(ks_options *o, const char *word, int *have_scene)
{
    const ks_scene_def *d = ks_scene_def_find(word);
    if (!d) {
        char names[160];
        ks_scene_def_names(", ", o->mode == KS_MODE_LIVE, names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "unknown scene or argument '%s' (%s: %s)", quoted(word),
                       o->mode == KS_MODE_LIVE ? "scenes" : "benches", names);
    }
    if (*have_scene) return ks_fail(KS_ERR_INVALID, "more than one scene given ('%s')", word);
    o->scene = d;
    *have_scene = 1;
    return KS_OK;
}

ks_status ks_options_parse(int argc, char **argv, ks_options *o)
{
    memset(o, 0, sizeof *o);
    if (flag_count() > KS_FLAGS_MAX || ks_option_group_count() > KS_OPTION_GROUPS_MAX)
        return ks_fail(KS_ERR_INVALID, "internal: more flags or option groups than ks_options holds");
    for (int g = 0; g < ks_option_group_count(); ++g)
        if (ks_option_group_at(g)->size > KS_OPTION_GROUP_BYTES)
            return ks_fail(KS_ERR_INVALID, "internal: an option group is larger than KS_OPTION_GROUP_BYTES");
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
    if (!o->scene) o->scene = ks_scene_def_default();
    if (o->help || o->version || o->list_scenes) return KS_OK;
    if (o->mode == KS_MODE_BENCH && !have_scene) {
        char names[160];
        ks_scene_def_names("|", 0, names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "bench needs a scene: kernelscope bench %s", names);
    }
    return ks_options_finish(o);
}

ks_status ks_options_finish(ks_options *o)
{
    const ks_scene_def *d = o->scene ? o->scene : ks_scene_def_default();
    o->scene = d;
    if (o->mode == KS_MODE_LIVE && !d->live) /* a bench-only row */
        return ks_fail(KS_ERR_INVALID, "%s is a bench, not a view: run kernelscope bench %s", d->name, d->name);
    KS_TRY(check_applicable(o, d));
    if (d->size_is_picture) KS_TRY(ks_options_size_wh(o));
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
    if (o->edit && !o->serve) return ks_fail(KS_ERR_INVALID, "--edit goes with --serve (the page is the editor)");
    if (o->edit && !d->kernel_file)
        return ks_fail(KS_ERR_INVALID, "--edit: %s takes no --kernel-file, so there is nothing to edit", d->name);
    if (o->edit && !d->kernel_file(o, 0))
        return ks_fail(KS_ERR_INVALID, "--edit needs a --kernel-file to edit (kernelscope new-kernel %s writes one)",
                       d->name);
    /* served: run until stopped (Ctrl-C, SIGTERM, Q from the page) unless --frames says otherwise */
    if (!o->frames && o->headless && !o->serve) o->frames = 60;
    return d->finish_options ? d->finish_options(o) : KS_OK;
}

int ks_options_cpu_notice(const ks_options *o, int *cursor, char *buf, size_t len)
{
    const int nflags = flag_count();
    for (; *cursor < nflags; ++*cursor) {
        const int k = *cursor;
        const ks_flag_ref f = flag_at(k);
        if (!f.row->gpu_only || !o->flags_given[k]) continue;
        snprintf(buf, len, "%s has no effect on the cpu backend (%s)", f.row->name, f.row->gpu_only);
        ++*cursor;
        return 1;
    }
    if (*cursor == nflags) { /* last: the scene's own (e.g. a count a GPU could not hold) */
        ++*cursor;
        if (o->scene && o->scene->cpu_notice) return o->scene->cpu_notice(o, buf, len);
    }
    return 0;
}

void ks_options_backend_defaults(ks_options *o, int use_cuda)
{
    if (o->scene->backend_defaults) o->scene->backend_defaults(o, use_cuda);
}

/* ---- --help, from the rows ---- */

static void print_rows(const ks_flag_row *rows, int n)
{
    for (int k = 0; k < n; ++k) {
        const ks_flag_row *r = &rows[k];
        if (!r->help) continue; /* --help, --version: listed at the end */
        char head[64], text[1024], list[512] = "";
        snprintf(head, sizeof head, "%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
        if (r->help_list) r->help_list(list, sizeof list);
        if (r->help_list) snprintf(text, sizeof text, r->help, list);
        else snprintf(text, sizeof text, "%s", r->help);
        /* continuation lines line up under the text */
        char *line = text, *nl;
        printf("  %-22s  ", head);
        while ((nl = strchr(line, '\n'))) {
            printf("%.*s\n  %-22s  ", (int)(nl - line), line, "");
            line = nl + 1;
        }
        printf("%s\n", line);
    }
}

void ks_options_print_help(void)
{
    char views[160], names[160];
    ks_scene_def_names("|", 1, views, sizeof views);
    ks_scene_def_names("|", 0, names, sizeof names);
    printf("kernelscope %s: watch GPU kernels work\n\n"
           "usage: kernelscope [%s] [options]\n"
           "       kernelscope bench %s [options]\n"
           "       kernelscope new-kernel SCENE [-o FILE]   (a starter for your own kernel)\n\nScenes:\n",
           KS_VERSION, views, names);
    for (int i = 0; i < ks_scene_def_count(); ++i)
        printf("  %-22s  %s\n", ks_scene_def_at(i)->name, ks_scene_def_at(i)->summary);
    for (int g = 0; g < ks_option_group_count(); ++g) {
        const ks_option_group *grp = ks_option_group_at(g);
        printf("\n%s:\n", grp->title);
        print_rows(grp->flags, grp->flag_count);
        if (grp->help_notes) fputs(grp->help_notes, stdout);
    }
    for (int i = 0; i < ks_scene_def_count(); ++i) { /* the contract of a user's kernel (--kernel-file) */
        const ks_scene_def *d = ks_scene_def_at(i);
        if (!d->kernel_contract) continue;
        printf("\n%s kernel contract (your own kernel):\n", d->name);
        for (const char *p = d->kernel_contract; *p;) {
            const size_t n = strcspn(p, "\n");
            printf("  %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    printf("\nAll scenes (flags the scenes above describe apply only where they do):\n");
    for (int k = 0; k < KS_COMMON_FLAGS; ++k)
        if (ks_common_flags[k].in) print_rows(&ks_common_flags[k], 1);
    printf("  --help, --version\n\n"
           "A flag given where it means nothing (e.g. --window to bench, --grid to spheres) is refused.\n"
           "Keys: H shows them all in the window. Ctrl-C stops after the frame (again: at once).\n"
           "Exit status: 0 ok, 1 runtime failure, 2 bad input, 130 / 143 stopped by SIGINT / SIGTERM.\n");
}

void ks_options_print_scenes(void)
{
    for (int i = 0; i < ks_scene_def_count(); ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        printf("%s %s%s%s\n", d->name, d->live ? "view" : "bench-only", d->sample_args ? " " : "",
               d->sample_args ? d->sample_args : "");
    }
}
