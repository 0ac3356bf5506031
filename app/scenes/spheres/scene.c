/* The spheres scene's registry row (app/scenes.h): what it is called, its
 * flags (options.c), its live view (live.c), its bench (bench.c) and its part
 * in bench live and bench serve (live_bench.c). */
#include "app/scenes.h"
#include "app/scenes/spheres/bench.h"
#include "app/scenes/spheres/live.h"
#include "app/scenes/spheres/live_bench.h"
#include "app/scenes/spheres/options.h"
#include "kernels/spheres/spheres.h"

static int has_kernel(const ks_scene_def *d, const char *name)
{
    (void)d;
    ks_spheres_mem m;
    return ks_spheres_mem_parse(name, &m) == 0;
}
static void kernel_list(const ks_scene_def *d, char *buf, size_t len)
{
    (void)d;
    ks_spheres_mem_list(buf, len);
}

static ks_status bench(const ks_bench_env *e) { return ks_bench_spheres(e->opt, e->device, e->use_cuda); }

const ks_scene_def ks_scene_spheres = {
    .name = "spheres",
    .rank = 30,
    .sample_args = "--spheres 300 --mem binned",
    .summary = "sphere ray caster: global, read-only, constant, shared, binned memory",
    .options = &ks_spheres_options,
    .takes_live = "--block --seed",
    .takes_bench = "--block --seed --size --cache",
    .size_is_picture = 1,
    .finish_options = ks_spheres_finish_options,
    .live = &ks_scene_spheres_api,
    .bench = bench,
    .cpu_notice = ks_spheres_cpu_notice,
    .solver_stage = "render",
    .live_bench = ks_spheres_live_bench,
    .serve_case = ks_spheres_serve_case,
    .has_kernel = has_kernel,
    .kernel_list = kernel_list,
};
