/* The spheres scene's registry row (app/scenes.h): what it is called, its
 * flags (options.c), its live view (live.c), its bench (bench.c), its part
 * in bench live and bench serve (live_bench.c) and the contract of a user's
 * kernel (kernels/spheres/spheres_contract.h, checked by check.c). */
#include "app/scenes.h"
#include "app/scenes/spheres/bench.h"
#include "app/scenes/spheres/check.h"
#include "app/scenes/spheres/live.h"
#include "app/scenes/spheres/live_bench.h"
#include "app/scenes/spheres/options.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_contract.h"

/* kernels/spheres/starters/NAME.cu, embedded at build time */
extern const char ks_spheres_starter_readonly[], ks_spheres_starter_constant[];
/* global is the starter itself; shared stages lists in dynamic shared memory and binned takes
 * several launches: neither keeps the contract's launch */
static const ks_kernel_from ks_spheres_from[] = {
    {"readonly", ks_spheres_starter_readonly}, {"constant", ks_spheres_starter_constant}, {NULL, NULL}};

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
    .takes_bench = "--block --seed --size --cache --counters --counters-ncu",
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
    .kernel_contract = KS_SPHERES_CONTRACT,
    .kernel_starter = KS_SPHERES_STARTER,
    .kernel_from = ks_spheres_from,
    .kernel_file = ks_spheres_kernel_file,
    .kernel_check = ks_spheres_kernel_check,
};
