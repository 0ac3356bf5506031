/* Command line of kernelscope (app/options.h): every flag numbered (the common
 * ones, app/options_common.c, then each scene's option group in registry
 * order), parsed where it applies and refused elsewhere, then the common
 * defaults and the scene's own checks. --help is app/options_help.c. */
#include "app/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/options_common.h"
#include "app/options_parse.h"
#include "app/scenes.h"

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

/* The flags' numbers and where each applies (app/options_common.h). */
int ks_flags_count(void)
{
    int n = ks_common_flag_count;
    for (int g = 0; g < ks_option_group_count(); ++g) n += ks_option_group_at(g)->flag_count;
    return n;
}

ks_flag_ref ks_flags_at(int k)
{
    ks_flag_ref r = {NULL, NULL};
    if (k < ks_common_flag_count) {
        r.row = &ks_common_flags[k];
        return r;
    }
    k -= ks_common_flag_count;
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

int ks_flag_applies(const ks_flag_ref *f, const ks_scene_def *d, ks_mode mode)
{
    const unsigned in = f->row->in;
    if (mode == KS_MODE_LIVE ? (in & KS_IN_EVERY_LIVE) && d->live : (in & KS_IN_EVERY_BENCH)) return 1;
    if (f->group && f->group == d->options && (in & (mode == KS_MODE_LIVE ? KS_IN_LIVE : KS_IN_BENCH)))
        return mode == KS_MODE_BENCH || d->live;
    return ks_flag_named(mode == KS_MODE_LIVE ? d->takes_live : d->takes_bench, f->row->name);
}

int ks_flag_applies_by_name(const ks_flag_ref *f, const ks_scene_def *d, ks_mode mode)
{
    for (int k = 0; k < ks_flags_count(); ++k) {
        const ks_flag_ref g = ks_flags_at(k);
        if (g.row->set && strcmp(g.row->name, f->row->name) == 0 && ks_flag_applies(&g, d, mode)) return 1;
    }
    return ks_flag_applies(f, d, mode);
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
    for (int k = 0; k < ks_flags_count(); ++k)
        if (o->flags_given[k] && strcmp(ks_flags_at(k).row->name, name) == 0) return 1;
    return 0;
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
        const int l = d->live && ks_flag_applies_by_name(f, d, KS_MODE_LIVE), be = ks_flag_applies_by_name(f, d, KS_MODE_BENCH);
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
    const int nflags = ks_flags_count();
    /* Two scenes' groups may each have a flag of one name (--kernel-file): the
       scene word may come after it, so every such row takes the value into its
       own storage, and the check afterwards asks only that one of them applies. */
    int taken = 0;
    const char *v = NULL;
    for (int k = 0; k < nflags; ++k) {
        const ks_flag_ref f = ks_flags_at(k);
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
    for (int k = 0; k < ks_flags_count(); ++k) {
        const ks_flag_ref f = ks_flags_at(k);
        if (!o->flags_given[k] || ks_flag_applies(&f, d, o->mode)) continue;
        int elsewhere = 0; /* another group's row of the same name that applies (parse_flag) */
        for (int j = 0; j < ks_flags_count() && !elsewhere; ++j) {
            const ks_flag_ref g = ks_flags_at(j);
            elsewhere = j != k && o->flags_given[j] && strcmp(g.row->name, f.row->name) == 0 && ks_flag_applies(&g, d, o->mode);
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
    o->scene_given = 1;
    return KS_OK;
}

ks_status ks_options_parse(int argc, char **argv, ks_options *o)
{
    memset(o, 0, sizeof *o);
    if (ks_flags_count() > KS_FLAGS_MAX || ks_option_group_count() > KS_OPTION_GROUPS_MAX)
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
    if (o->timeline_us && !o->timeline) return ks_fail(KS_ERR_INVALID, "--timeline-interval goes with --timeline");
    if (o->counters && o->counters_ncu)
        return ks_fail(KS_ERR_INVALID, "--counters and --counters-ncu exclude each other (ncu profiles what "
                                       "--counters-ncu launches)");
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
    const int nflags = ks_flags_count();
    for (; *cursor < nflags; ++*cursor) {
        const int k = *cursor;
        const ks_flag_ref f = ks_flags_at(k);
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

