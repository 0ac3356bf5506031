/* `bench live`'s own flags (--modes) and the checks bench live and bench serve
 * share (bench_live_options.h). */
#include "app/bench/bench_live_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int ks_bench_live_has_display(void)
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
