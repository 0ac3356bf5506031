/* The registry rows of the two benches that run other scenes' live loops
 * (bench live, bench serve): their own flags and checks. Which scenes take part
 * and how is each scene's business (its live_bench / serve_case hooks). */
#include "app/bench/bench_live_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/bench/bench_live.h"
#include "app/bench/bench_serve.h"
#include "app/options_parse.h"
#include "app/scenes.h"

static ks_status add_mode(void *ctx, const char *name, const char *item)
{
    ks_live_bench_opts *lo = ctx;
    unsigned m = 0;
    if (strcmp(item, "headless") == 0) m = KS_LIVE_MODE_HEADLESS;
    else if (strcmp(item, "window") == 0) m = KS_LIVE_MODE_WINDOW;
    else return ks_fail(KS_ERR_INVALID, "%s: unknown mode '%s' (headless, window)", name, quoted(item));
    if (lo->modes & m) return ks_fail(KS_ERR_INVALID, "%s: '%s' given twice", name, item);
    lo->modes |= m;
    lo->order[lo->modes_n++] = m;
    return KS_OK;
}
static ks_status set_modes(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ks_live_bench_opts *lo = own;
    lo->modes = 0;
    lo->modes_n = 0;
    return for_each_item(lo, name, v, add_mode);
}

static const ks_flag_row ks_live_flags[] = {
    {"--modes", "LIST", "headless, window (default headless, and window when a display exists)", KS_IN_BENCH,
     set_modes},
};
const ks_option_group ks_bench_live_group = {
    "kernelscope bench live (the live loop of each Laplace kernel and spheres, against the kernel time)",
    sizeof(ks_live_bench_opts), ks_live_flags, 1,
    "  --grid LIST             N (both N^3 and N^2), NXxNYxNZ (3D) or NXxNY (2D); default\n"
    "                          512^3, 1024^3, 1024^2, 4096^2, 8192^2, 16384^2 (CPU: 64^3, 256^2)\n"
    "  --kernel LIST           only these Laplace kernels / sphere memory variants (default all)\n"
    "  --spheres LIST          sphere counts (default 2048; CPU 64)\n"
    "  --frames N              timed frames per run, after 48 warm-up frames (default 120)\n"
    "  --iters K, --size WxH   iterations per frame, window (and spheres picture) size\n"
    "  --fps-target N          --iters auto (the CUDA default) runs each Laplace row twice:\n"
    "                          sized for N fps (default 60; column sizing fpsN) and the\n"
    "                          fastest (sizing fastest); 0: the fastest alone\n",
};

static int has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

ks_status ks_runner_finish_options(ks_options *o, const char *bench)
{
    (void)bench;
    if (!o->frames) o->frames = 120;
    for (int i = 0; i < ks_scene_def_count(); ++i) /* the flags borrowed from the scenes */
        if (ks_scene_def_at(i)->runner_finish) KS_TRY(ks_scene_def_at(i)->runner_finish(o));
    for (int k = 0; k < o->kernel_count; ++k) {
        int known = 0;
        for (int i = 0; i < ks_scene_def_count() && !known; ++i) {
            const ks_scene_def *d = ks_scene_def_at(i);
            known = d->has_kernel && (d->live_bench || d->serve_case) && d->has_kernel(d, o->kernels[k]);
        }
        if (known) continue;
        char list[1024];
        size_t used = 0;
        list[0] = '\0';
        for (int i = 0; i < ks_scene_def_count() && used < sizeof list; ++i) {
            const ks_scene_def *d = ks_scene_def_at(i);
            if (!d->kernel_list || !(d->live_bench || d->serve_case)) continue;
            char names[256];
            d->kernel_list(d, names, sizeof names);
            const int n = snprintf(list + used, sizeof list - used, "%s%s: %s", used ? "; " : "", d->name, names);
            if (n < 0) break;
            used += (size_t)n;
        }
        return ks_fail(KS_ERR_INVALID, "--kernel: unknown kernel '%s' (%s)", quoted(o->kernels[k]), list);
    }
    return KS_OK;
}

static ks_status finish_live(ks_options *o)
{
    const ks_live_bench_opts *lo = ks_options_own_const(o, &ks_bench_live_group);
    if ((lo->modes & KS_LIVE_MODE_WINDOW) && !has_display())
        return ks_fail(KS_ERR_NO_DEVICE, "--modes window: no display (set DISPLAY, or leave window out)");
    return ks_runner_finish_options(o, "live");
}

static ks_status bench_live(const ks_bench_env *e) { return ks_bench_live(e->opt, e->device, e->use_cuda, e->best); }

/* no view of its own (live == NULL): it runs the others' live loops and times them */
const ks_scene_def ks_scene_bench_live = {
    .name = "live",
    .rank = 900,
    .summary = "bench only: the live loop of every Laplace kernel and spheres, against the kernel time",
    .options = &ks_bench_live_group,
    .takes_bench = "--frames --size --interop --grid --kernel --iters --fps-target --spheres",
    .size_is_picture = 1,
    .finish_options = finish_live,
    .bench = bench_live,
};

/* ---- bench serve ---- */

typedef struct ks_serve_bench_opts {
    const char *browser; /* --browser PATH: a Chromium to open the page with, or NULL */
    const char *replot;  /* --replot CSV: an earlier run's rows drawn again, or NULL */
} ks_serve_bench_opts;

static ks_status set_browser(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    struct stat st; /* a folder is "executable" too: found here, not after the run */
    if (!*v || stat(v, &st) != 0 || !S_ISREG(st.st_mode) || access(v, X_OK) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a program that can be run", name, quoted(v));
    ((ks_serve_bench_opts *)own)->browser = v;
    return KS_OK;
}

static ks_status set_replot(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: an empty path", name);
    ((ks_serve_bench_opts *)own)->replot = v;
    return KS_OK;
}

static const ks_flag_row ks_serve_flags[] = {
    {"--browser", "PATH", "also rows from a headless Chromium on the page (its own fps)", KS_IN_BENCH, set_browser},
    {"--replot", "CSV", "nothing run: an earlier run's bench_serve.csv drawn again into --out (table, .txt, .csv, .png)",
     KS_IN_BENCH, set_replot},
};
static const ks_option_group ks_bench_serve_group = {
    "kernelscope bench serve (the live loop with the viewer's server: none, jpeg, h264, record)",
    sizeof(ks_serve_bench_opts), ks_serve_flags, 2,
    "  --kernel LIST           the cases: Laplace kernels / sphere memory variants (default\n"
    "                          spheres binned and laplace3d regq; CPU: laplace2d and spheres)\n"
    "  --grid N, --spheres N   the Laplace grid (default 512^3; CPU 256^2), the sphere count\n"
    "                          (default 2048; CPU 64)\n"
    "  --size WxH              the picture (default 1920x1080; CPU 1280x800)\n"
    "  --frames N, --iters K   timed frames per row after 48 warm-up (default 120), iterations\n"
    "  --fps-target N          the frame rate --iters auto sizes for (default 60; 0: the fastest)\n",
};

const char *ks_bench_serve_browser(const ks_options *o)
{
    const ks_serve_bench_opts *so = ks_options_own_const(o, &ks_bench_serve_group);
    return so ? so->browser : NULL;
}

const char *ks_bench_serve_replot_path(const ks_options *o)
{
    const ks_serve_bench_opts *so = ks_options_own_const(o, &ks_bench_serve_group);
    return so ? so->replot : NULL;
}

static ks_status finish_serve(ks_options *o)
{
    /* a bad file is the user's error: said before the device is looked at, and alone */
    if (ks_bench_serve_replot_path(o)) KS_TRY(ks_bench_serve_replot_check(ks_bench_serve_replot_path(o)));
    return ks_runner_finish_options(o, "serve");
}

/* the picture: 1920x1080 on the CUDA backend, 1280x800 on the CPU one */
static void serve_backend_defaults(ks_options *o, int use_cuda)
{
    if (o->size_set) return;
    o->width = use_cuda ? 1920 : 1280;
    o->height = use_cuda ? 1080 : 800;
}

static ks_status bench_serve(const ks_bench_env *e) { return ks_bench_serve(e->opt, e->device, e->use_cuda, e->best); }

const ks_scene_def ks_scene_bench_serve = {
    .name = "serve",
    .rank = 910,
    .summary = "bench only: the live loop with the browser viewer's server: no viewer, JPEG and H.264 viewers, --record",
    .options = &ks_bench_serve_group,
    .takes_bench = "--frames --size --grid --kernel --iters --fps-target --spheres",
    .size_is_picture = 1,
    .finish_options = finish_serve,
    .backend_defaults = serve_backend_defaults,
    .bench = bench_serve,
};
