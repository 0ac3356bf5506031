/* The Laplace scenes' part in bench live: for each grid and kernel, the kernel
 * alone (as bench laplace3d/2d times it) and then the live loop in each mode. */
#include <stdio.h>
#include <string.h>

#include "app/bench/bench_live.h"
#include "app/bench/bench_serve.h"
#include "app/scenes.h"
#include "app/scenes/laplace/bench.h"
#include "app/scenes/laplace/live_bench.h"
#include "app/scenes/laplace/options.h"
#include "app/signals.h"

/* The block for a variant: the best measured on this device and grid, else its own default. */
static void best_block(const ks_live_bench *b, const char *scene, int variant, const int grid[3], int block[3],
                       char from[8])
{
    const ks_lvariant_info *info = ks_lvariant_get(variant);
    memcpy(block, info->default_block, 3 * sizeof(int));
    snprintf(from, 8, "default");
    const ks_best_store *best = ks_live_bench_best(b);
    if (!ks_live_bench_use_cuda(b) || !best) return;
    const ks_best_entry *e = ks_best_find(best, ks_live_bench_device(b)->name, scene, info->name, grid);
    if (!e || ks_lvariant_check_shape(variant, e->block) != KS_OK) return;
    memcpy(block, e->block, 3 * sizeof(int));
    snprintf(from, 8, "best");
}

/* The grids of one Laplace scene: --grid items of its rank (N counts for both), or the defaults. */
static int laplace_grids(const ks_laplace_opts *lp, int use_cuda, int dims, int out[][3])
{
    int n = 0;
    if (lp->grid_count) {
        for (int g = 0; g < lp->grid_count; ++g) {
            const int parts = lp->grid_parts[g];
            if (parts != 1 && parts != dims) continue;
            out[n][0] = lp->grids[g][0];
            out[n][1] = lp->grids[g][1];
            out[n][2] = dims == 3 ? lp->grids[g][2] : 1;
            ++n;
        }
        return n;
    }
    static const int cuda3[] = {512, 1024}, cuda2[] = {1024, 4096, 8192, 16384};
    static const int cpu3[] = {64}, cpu2[] = {256};
    const int *sizes = use_cuda ? (dims == 3 ? cuda3 : cuda2) : (dims == 3 ? cpu3 : cpu2);
    const int count = use_cuda ? (dims == 3 ? 2 : 4) : 1;
    for (int i = 0; i < count; ++i) {
        out[n][0] = out[n][1] = sizes[i];
        out[n][2] = dims == 3 ? sizes[i] : 1;
        ++n;
    }
    return n;
}

/* A default grid that does not fit is skipped with a line; a grid the user asked for is an error. */
static int skip_for_memory(const ks_laplace_opts *lp, ks_status st, const char *scene, const char *grid)
{
    if (st != KS_ERR_OUT_OF_MEMORY || lp->grid_count) return 0;
    printf("skipping %s %s: %s\n", scene, grid, ks_error_message());
    ks_error_clear();
    return 1;
}

/* The run's Laplace options: --iters as given (or the scene's default), one grid. */
static ks_status run_options(const ks_options *opt, const ks_scene_def *d, const int grid[3], int use_cuda,
                             ks_options *run)
{
    ks_bench_live_run_options(opt, d, run);
    const ks_laplace_opts *given = ks_laplace_opts_get(opt);
    ks_laplace_opts *lp = ks_laplace_opts_of(run);
    memset(lp, 0, sizeof *lp);
    lp->iters = given->iters;
    lp->iters_set = given->iters_set;
    lp->iters_auto = given->iters_auto;
    lp->fps_target = given->fps_target;
    lp->fps_target_set = given->fps_target_set;
    lp->grid_count = 1;
    memcpy(lp->grids[0], grid, sizeof lp->grids[0]);
    lp->grid_parts[0] = ks_laplace_dims(run);
    KS_TRY(ks_laplace_finish_options(run));
    ks_laplace_backend_defaults(run, use_cuda);
    return KS_OK;
}

/* A fixed count runs once; --iters auto runs at its frame-rate target
 * (--fps-target, default 60) and then at the fastest sizing, so that the
 * rows show what the smooth picture costs (--fps-target 0: the fastest alone). */
static ks_status run_sizings(ks_live_bench *b, ks_options *run, ks_live_row *proto)
{
    ks_laplace_opts *lp = ks_laplace_opts_of(run);
    if (!lp->iters_auto) {
        snprintf(proto->sizing, sizeof proto->sizing, "fixed");
        return ks_live_bench_run_modes(b, run, proto);
    }
    if (lp->fps_target > 0) {
        snprintf(proto->sizing, sizeof proto->sizing, "fps%d", lp->fps_target);
        KS_TRY(ks_live_bench_run_modes(b, run, proto));
        if (ks_signals_stop_requested()) return KS_OK;
    }
    lp->fps_target = 0;
    snprintf(proto->sizing, sizeof proto->sizing, "fastest");
    return ks_live_bench_run_modes(b, run, proto);
}

static ks_status live_bench_scene(ks_live_bench *b, const ks_scene_def *d)
{
    const ks_options *opt = ks_live_bench_options(b);
    const int use_cuda = ks_live_bench_use_cuda(b);
    const ks_laplace_opts *lp = ks_laplace_opts_get(opt);
    const char *scene = d->name;
    const int dims = *(const int *)d->data;
    int grids[KS_MAX_LIST * 2][3];
    const int ngrids = laplace_grids(lp, use_cuda, dims, grids);
    for (int gi = 0; gi < ngrids && !ks_signals_stop_requested(); ++gi) {
        const ks_grid g = {dims, grids[gi][0], grids[gi][1], grids[gi][2]};
        char grid_text[48];
        if (dims == 3) snprintf(grid_text, sizeof grid_text, "%dx%dx%d", g.nx, g.ny, g.nz);
        else snprintf(grid_text, sizeof grid_text, "%dx%d", g.nx, g.ny);
        for (int id_v = 0; id_v < ks_lvariant_count() && !ks_signals_stop_requested(); ++id_v) {
            const ks_lvariant_info *info = ks_lvariant_get(id_v);
            if (info->dims != dims) continue;
            /* the CPU backend runs the gold routine whatever the kernel: one row */
            if (use_cuda ? !ks_live_bench_wanted(b, info->name) : id_v != ks_lvariant_default(dims)) continue;
            ks_live_row proto;
            KS_TRY(ks_live_bench_proto(b, scene, use_cuda ? info->name : "gold", &proto));
            snprintf(proto.grid, sizeof proto.grid, "%s", grid_text);
            proto.points = (double)g.nx * g.ny * g.nz;
            int block[3];
            best_block(b, scene, id_v, grids[gi], block, proto.block_from);
            if (use_cuda) snprintf(proto.block, sizeof proto.block, "%dx%dx%d", block[0], block[1], block[2]);
            else snprintf(proto.block, sizeof proto.block, "-");

            ks_status st = ks_bench_laplace_time_one(&g, use_cuda, id_v, block, opt->reps, &proto.bench_ms_per_iter);
            if (skip_for_memory(lp, st, scene, grid_text)) break; /* the next grid */
            KS_TRY(st);
            ks_options run;
            KS_TRY(run_options(opt, d, grids[gi], use_cuda, &run));
            run.kernel_count = 1;
            run.kernels[0] = info->name;
            if (use_cuda) {
                run.block_count = 1;
                memcpy(run.blocks[0], block, sizeof run.blocks[0]);
            }
            st = run_sizings(b, &run, &proto);
            if (skip_for_memory(lp, st, scene, grid_text)) break;
            KS_TRY(st);
        }
    }
    return KS_OK;
}

/* The registry's hook for laplace3d and laplace2d: each row runs its own rank. */
ks_status ks_laplace_live_bench(const ks_scene_def *d, ks_live_bench *b) { return live_bench_scene(b, d); }

/* ---- bench serve ---- */

/* The grid of a case: the first --grid of the scene's rank (N counts for both), or the default. */
static void serve_grid(const ks_laplace_opts *lp, int use_cuda, int dims, int out[3])
{
    for (int g = 0; g < lp->grid_count; ++g) {
        const int parts = lp->grid_parts[g];
        if (parts != 1 && parts != dims) continue;
        out[0] = lp->grids[g][0];
        out[1] = parts == 1 ? out[0] : lp->grids[g][1];
        out[2] = dims == 3 ? (parts == 1 ? out[0] : lp->grids[g][2]) : 1;
        return;
    }
    const int n = use_cuda ? (dims == 3 ? 512 : 4096) : (dims == 3 ? 64 : 256);
    out[0] = out[1] = n;
    out[2] = dims == 3 ? n : 1;
}

/* Default cases: laplace3d regq on the CUDA backend, laplace2d's gold routine on the CPU one. */
ks_status ks_laplace_serve_case(const ks_scene_def *d, ks_serve_bench *b, const char *variant)
{
    const int use_cuda = ks_serve_bench_use_cuda(b);
    const int dims = *(const int *)d->data;
    if (!variant) {
        if (dims != (use_cuda ? 3 : 2)) return KS_OK;
        variant = use_cuda ? "regq" : "gold";
    }
    const ks_options *opt = ks_serve_bench_options(b);
    const int lvariant = use_cuda ? ks_lvariant_find(dims, variant) : ks_lvariant_default(dims);
    if (lvariant < 0) return ks_fail(KS_ERR_INVALID, "--kernel: unknown %s kernel '%s'", d->name, variant);
    int grid[3];
    serve_grid(ks_laplace_opts_get(opt), use_cuda, dims, grid);
    ks_options run;
    KS_TRY(run_options(opt, d, grid, use_cuda, &run));
    const ks_lvariant_info *info = ks_lvariant_get(lvariant);
    run.kernel_count = 1;
    run.kernels[0] = info->name;
    if (use_cuda) {
        int block[3];
        memcpy(block, info->default_block, sizeof block);
        const ks_best_store *best = ks_serve_bench_best(b);
        const ks_best_entry *e = best ? ks_best_find(best, ks_serve_bench_device(b)->name, d->name, info->name, grid) : NULL;
        if (e && ks_lvariant_check_shape(lvariant, e->block) == KS_OK) memcpy(block, e->block, sizeof block);
        run.block_count = 1;
        memcpy(run.blocks[0], block, sizeof run.blocks[0]);
    }
    return ks_serve_bench_add_case(b, variant, "c" /* the next colormap */, NULL, &run);
}
