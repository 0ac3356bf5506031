/* The spheres scene's part in bench live and bench serve: its runs
 * (each memory variant, timed alone as bench spheres times it, then live) and
 * its serve cases (binned, or the variant asked for). */
#include "app/scenes/spheres/live_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_live.h"
#include "app/bench/bench_serve.h"
#include "app/scenes/spheres/options.h"
#include "app/signals.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_bench.h"

/* The sphere counts of bench live and bench serve: as given, or 2048 (CPU 64). */
static int runner_count(const ks_spheres_opts *sp, int use_cuda, int i)
{
    return sp->count_n ? sp->counts[i] : use_cuda ? 2048 : 64;
}

/* bench live: each memory variant alone (as bench spheres times it), then live in each mode. */
ks_status ks_spheres_live_bench(const ks_scene_def *d, ks_live_bench *b)
{
    const ks_options *opt = ks_live_bench_options(b);
    const int use_cuda = ks_live_bench_use_cuda(b);
    const ks_spheres_opts *given = KS_SPHERES_OPTS(opt);
    int any = !use_cuda;
    for (int m = 1; m < KS_SPHERES_MEM_NUM; ++m) any |= ks_live_bench_wanted(b, ks_spheres_mem_name((ks_spheres_mem)m));
    if (!any) return KS_OK;
    ks_options run;
    ks_bench_live_run_options(opt, d, &run);
    ks_spheres_opts *sp = ks_options_own(&run, &ks_spheres_options);
    memset(sp, 0, sizeof *sp);
    KS_TRY(ks_spheres_finish_options(&run)); /* the live picture size */
    ks_spheres_bench_result *res = malloc(sizeof *res);
    if (!res) return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench live: out of host memory");
    ks_status st = KS_OK;
    const int ncounts = given->count_n ? given->count_n : 1;
    for (int c = 0; c < ncounts && st == KS_OK && !ks_signals_stop_requested(); ++c) {
        const int count = runner_count(given, use_cuda, c);
        ks_spheres_bench_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.use_cuda = use_cuda;
        bd.width = run.width;
        bd.height = run.height;
        bd.counts = &count;
        bd.count_n = 1;
        bd.timing = (ks_timing_opts){.cache = KS_CACHE_WARM, .reps = opt->reps}; /* as the frames run: back to back */
        bd.seed = opt->seed;
        bd.stop = ks_signals_stop_requested;
        st = ks_spheres_bench_run(&bd, res);
        for (int col = 0; col < res->col_n && st == KS_OK && res->count_n == 1; ++col) {
            const ks_spheres_mem mem = (ks_spheres_mem)res->cols[col];
            const char *name = use_cuda ? ks_spheres_mem_name(mem) : "gold";
            if (use_cuda && !ks_live_bench_wanted(b, name)) continue;
            if (!res->cell[0][col].available) {
                printf("skipping spheres %s at %d spheres: the variant cannot hold them\n", name, count);
                continue;
            }
            ks_live_row proto;
            st = ks_live_bench_proto(b, d->name, name, &proto);
            if (st != KS_OK) break;
            snprintf(proto.grid, sizeof proto.grid, "%dx%d/%d", run.width, run.height, count);
            proto.points = (double)run.width * run.height;
            int block[3] = {0, 0, 1};
            ks_spheres_block_default(block);
            if (use_cuda) snprintf(proto.block, sizeof proto.block, "%dx%d", block[0], block[1]);
            else snprintf(proto.block, sizeof proto.block, "-");
            snprintf(proto.block_from, sizeof proto.block_from, "default");
            proto.bench_ms_per_iter = res->cell[0][col].ms;
            ks_options one = run;
            ks_spheres_opts *osp = ks_options_own(&one, &ks_spheres_options);
            osp->count = count;
            osp->mem = use_cuda ? name : NULL;
            st = ks_live_bench_run_modes(b, &one, &proto);
        }
    }
    free(res);
    return st;
}

/* bench serve: binned (the default case), or the memory variant asked for. */
ks_status ks_spheres_serve_case(const ks_scene_def *d, ks_serve_bench *b, const char *variant)
{
    const int use_cuda = ks_serve_bench_use_cuda(b);
    if (!variant) variant = use_cuda ? "binned" : "gold";
    const ks_options *opt = ks_serve_bench_options(b);
    ks_options run;
    ks_bench_live_run_options(opt, d, &run);
    ks_spheres_opts *sp = ks_options_own(&run, &ks_spheres_options);
    memset(sp, 0, sizeof *sp);
    KS_TRY(ks_spheres_finish_options(&run));
    sp->count = runner_count(KS_SPHERES_OPTS(opt), use_cuda, 0);
    sp->mem = use_cuda ? variant : NULL;
    /* half the spheres, then back: a different picture each time */
    return ks_serve_bench_add_case(b, variant, "minus", "plus", &run);
}
