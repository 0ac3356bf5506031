/* The histogram scene's registry row (app/scenes.h): what it is called, its
 * flags (options.c), its live view (live.c), its bench (bench.c) and the
 * contract of a user's kernel (kernels/histogram/histogram_contract.h, checked
 * by check.c). */
#include "app/scenes.h"
#include "app/scenes/histogram/bench.h"
#include "app/scenes/histogram/check.h"
#include "app/scenes/histogram/live.h"
#include "app/scenes/histogram/options.h"
#include "kernels/histogram/histogram_contract.h"

extern const char ks_histogram_starter_shared[]; /* kernels/histogram/starters/shared.cu, embedded at build time */
/* global is the starter itself; strided sizes its grid by the SM count, warp needs 64 KiB of dynamic
 * shared memory, and cub is a library: none of them keeps the contract's launch */
static const ks_kernel_from ks_hist_from[] = {{"shared", ks_histogram_starter_shared}, {NULL, NULL}};

static ks_status bench(const ks_bench_env *e) { return ks_bench_histogram(e->opt, e->device, e->use_cuda); }

const ks_scene_def ks_scene_histogram = {
    .name = "histogram",
    .rank = 50,
    .sample_args = "--size 100003",
    .summary = "byte / pair / word histogram: global, shared and per-warp atomics, CUB",
    .options = &ks_histogram_options,
    .takes_live = "--kernel --block --dump-field --seed",
    .takes_bench = "--kernel --block --seed --size --cache --counters --counters-ncu",
    .finish_options = ks_hist_finish_options,
    .live = &ks_scene_histogram_api,
    .bench = bench,
    .solver_stage = "histogram",
    .kernel_contract = KS_HIST_CONTRACT,
    .kernel_starter = KS_HIST_STARTER,
    .kernel_from = ks_hist_from,
    .kernel_file = ks_hist_kernel_file,
    .kernel_check = ks_hist_kernel_check,
};
