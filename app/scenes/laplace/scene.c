/* The Laplace scenes' registry rows (laplace3d, laplace2d; app/scenes.h): what
 * they are called, their flags (options.c), their live view (live.c), their
 * benches (bench.c, bench_scaling.c), their part in bench live and bench serve
 * (live_bench.c), their start-up report and the contract of a user's kernel
 * (kernels/laplace/laplace_contract.h, checked by check.c). */
#include <stdio.h>

#include "app/scenes.h"
#include "app/scenes/laplace/bench.h"
#include "app/scenes/laplace/bench_scaling.h"
#include "app/scenes/laplace/check.h"
#include "app/scenes/laplace/live.h"
#include "app/scenes/laplace/live_bench.h"
#include "app/scenes/laplace/options.h"
#include "kernels/laplace/mpi_job.h"
#include "kernels/laplace/laplace_contract.h"

static const int ks_rank3 = 3, ks_rank2 = 2;

/* The variants whose code differs by GPU generation: the path this binary runs on it. */
static void report(const ks_device_info *d, void (*line)(const char *text))
{
    (void)d;
    for (int id = 0; id < ks_lvariant_count(); ++id) {
        const char *path = ks_lvariant_code_path(id);
        if (!path) continue;
        char text[256];
        snprintf(text, sizeof text, "%s: %s", ks_lvariant_get(id)->name, path);
        line(text);
    }
}

static size_t field_bytes(const ks_options *o)
{
    const ks_grid g = ks_laplace_grid(o, 0);
    return ks_grid_bytes(&g);
}

static int has_kernel(const ks_scene_def *d, const char *name)
{
    return ks_lvariant_find(*(const int *)d->data, name) >= 0;
}
static void kernel_list(const ks_scene_def *d, char *buf, size_t len)
{
    ks_lvariant_list(*(const int *)d->data, buf, len);
}

static ks_status bench(const ks_bench_env *e)
{
    if (ks_laplace_opts_get(e->opt)->gpus_count || ks_mpi_active()) {
        if (!e->use_cuda) return ks_fail(KS_ERR_INVALID, "--gpus: several GPUs need the cuda backend");
        return ks_bench_laplace_scaling(e->opt, e->device);
    }
    return ks_bench_laplace(e->opt, e->device, e->use_cuda, e->best, e->best_path);
}

extern const char ks_laplace_starter_regq[]; /* kernels/laplace/starters/regq.cu, embedded at build time */
static const ks_kernel_from ks_laplace3d_from[] = {{"regq", ks_laplace_starter_regq}, {NULL, NULL}};

#define KS_LAPLACE_ROW(rank_, name_, summary_, data_, sample_, contract_, starter_, from_)                                                            \
    {                                                                                                          \
        .name = name_, .rank = rank_, .summary = summary_, .options = &ks_laplace_options,                     \
        .takes_live = "--kernel --block --colormap --range --dump-field", .takes_bench = "--kernel --block --cache --counters --counters-ncu",  \
        .size_is_picture = 1, .finish_options = ks_laplace_finish_options,                                     \
        .backend_defaults = ks_laplace_backend_defaults, .backend_check = ks_laplace_backend_check, .mpi_follow = ks_laplace_mpi_follow, .live = &ks_scene_laplace_api, .bench = bench,            \
        .report = report, .field_bytes = field_bytes, .solver_stage = "jacobi",                                \
          .live_bench = ks_laplace_live_bench, .runner_finish = ks_laplace_runner_finish, .serve_case = ks_laplace_serve_case, .has_kernel = has_kernel, \
        .kernel_list = kernel_list, .data = data_, .sample_args = sample_, .kernel_contract = contract_,       \
        .kernel_starter = starter_, .kernel_from = from_, .kernel_file = ks_laplace_kernel_file, .kernel_check = ks_laplace_kernel_check,       \
    }

const ks_scene_def ks_scene_laplace3d =
    KS_LAPLACE_ROW(10, "laplace3d", "3D Laplace equation, Jacobi iterations; a slice shown live (default)", &ks_rank3,
                   "--grid 64 --kernel regq --iters 9", KS_LAPLACE3D_CONTRACT, KS_LAPLACE3D_STARTER,
                   ks_laplace3d_from);
const ks_scene_def ks_scene_laplace2d =
    KS_LAPLACE_ROW(20, "laplace2d", "2D Laplace equation, Jacobi iterations", &ks_rank2,
                   "--grid 301x199 --iters 9", KS_LAPLACE2D_CONTRACT, KS_LAPLACE2D_STARTER, NULL);
