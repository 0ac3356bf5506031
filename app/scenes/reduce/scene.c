/* The reduce scene's registry row (app/scenes.h), the course's reductions and
 * scans: what it is called, its flags (options.c), its live view (live.c), its
 * bench (bench.c) and the contract of a user's kernel
 * (kernels/reduce/reduce_contract.h, checked by check.c). */
#include "app/scenes.h"
#include "app/scenes/reduce/bench.h"
#include "app/scenes/reduce/check.h"
#include "app/scenes/reduce/live.h"
#include "app/scenes/reduce/options.h"
#include "kernels/reduce/reduce_contract.h"

/* kernels/reduce/starters/NAME.cu, embedded at build time. sum_tree and sum_shuffle
 * are two launches (partials, then their sum) and sum_onepass needs a ticket counter
 * and a partials array; CUB's are a library; the scans have no contract: only
 * sum_atomic is one kernel of the contract as it is, and sum_shuffle's first launch
 * is, once its partial goes to *out by atomicAdd. */
extern const char ks_reduce_starter_sum_atomic[], ks_reduce_starter_sum_shuffle[];
static const ks_kernel_from ks_reduce_from[] = {
    {"sum_atomic", ks_reduce_starter_sum_atomic}, {"sum_shuffle", ks_reduce_starter_sum_shuffle}, {NULL, NULL}};

static ks_status bench(const ks_bench_env *e) { return ks_bench_reduce(e); }

const ks_scene_def ks_scene_reduce = {
    .name = "reduce",
    .rank = 60,
    .sample_args = "--size 1000003 --kernel scan_lookback",
    .summary = "sum and prefix sum (scan): atomics, shared-memory tree, warp shuffles, one pass, look-back, CUB",
    .options = &ks_reduce_options,
    .takes_live = "--kernel --block --seed --colormap",
    .takes_bench = "--kernel --block --seed --size --cache --counters --counters-ncu",
    .finish_options = ks_reduce_finish_options,
    .live = &ks_scene_reduce_api,
    .bench = bench,
    .solver_stage = "reduce",
    .kernel_contract = KS_REDUCE_CONTRACT,
    .kernel_starter = KS_REDUCE_STARTER,
    .kernel_from = ks_reduce_from,
    .kernel_file = ks_reduce_kernel_file,
    .kernel_check = ks_reduce_kernel_check,
};
