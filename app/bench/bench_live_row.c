/* The registry rows of the two benches that run other scenes' live loops
 * (bench live, bench serve): built as a scene is, their flags in
 * bench_live_options.c and bench_serve_options.c, the benches in bench_live.c
 * and bench_serve.c. Which scenes take part and how is each scene's business
 * (its live_bench / serve_case hooks). */
#include "app/bench/bench_live.h"
#include "app/bench/bench_live_options.h"
#include "app/bench/bench_serve.h"
#include "app/bench/bench_serve_options.h"
#include "app/scenes.h"

static ks_status finish_live(ks_options *o)
{
    const ks_live_bench_opts *lo = ks_options_own_const(o, &ks_bench_live_group);
    if ((lo->modes & KS_LIVE_MODE_WINDOW) && !ks_bench_live_has_display())
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
    .takes_bench = "--frames --size --interop --grid --kernel --iters --fps-target --spheres --timeline --timeline-interval",
    .size_is_picture = 1,
    .finish_options = finish_live,
    .bench = bench_live,
};

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
