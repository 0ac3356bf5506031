/* The matmul scene's registry row (app/scenes.h): what it is called, its
 * flags (options.c), its live view (live.c), its bench (bench.c) and the
 * contract of a user's kernel (kernels/matmul/matmul_contract.h, checked by
 * check.c). */
#include "app/scenes.h"
#include "app/scenes/matmul/bench.h"
#include "app/scenes/matmul/check.h"
#include "app/scenes/matmul/live.h"
#include "app/scenes/matmul/options.h"
#include "kernels/matmul/matmul_contract.h"

extern const char ks_matmul_starter_regtile[]; /* kernels/matmul/starters/regtile.cu, embedded at build time */
/* naive is the starter itself; tiled takes its tile as a template (8, 16, 32) and cublas is closed */
static const ks_kernel_from ks_matmul_from[] = {{"regtile", ks_matmul_starter_regtile}, {NULL, NULL}};

static ks_status bench(const ks_bench_env *e) { return ks_bench_matmul(e->opt, e->device, e->use_cuda); }

const ks_scene_def ks_scene_matmul = {
    .name = "matmul",
    .rank = 40,
    .sample_args = "--size 67x45x33",
    .summary = "float32 matrix multiply: naive, shared-memory tiles, register tiles, cuBLAS",
    .options = &ks_matmul_options,
    .takes_live = "--kernel --block --colormap --range --dump-field",
    .takes_bench = "--kernel --block --size --cache --counters --counters-ncu",
    .finish_options = ks_matmul_finish_options,
    .live = &ks_scene_matmul_api,
    .bench = bench,
    .solver_stage = "matmul",
    .kernel_contract = KS_MATMUL_CONTRACT,
    .kernel_starter = KS_MATMUL_STARTER,
    .kernel_from = ks_matmul_from,
    .kernel_file = ks_matmul_kernel_file,
    .kernel_check = ks_matmul_kernel_check,
};
