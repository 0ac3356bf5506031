/* The Laplace scene's part of the Hardware panel (ks_scene_api.counters): one
 * launch of the variant that runs, at the block it runs with, on the live
 * field, against the byte model T_eff and the roofline use. */
#include <stdio.h>
#include <string.h>

#include "app/scenes/laplace/counters.h"
#include "app/scenes/laplace/live_state.h"

static const int *measured_block(const ks_laplace_scene *s)
{
    return s->run_block[0] > 0 ? s->run_block : s->block;
}

/* One launch, as a frame would make it; the field moves on by its iterations. */
static ks_status launch_once(void *self, void *stream)
{
    (void)stream; /* the solver's own, which the panel was given */
    ks_laplace_scene *s = self;
    KS_TRY(ks_lsolver_launch_once(s->solver, s->variant, measured_block(s)));
    s->total_iters += ks_lvariant_get(s->variant)->steps_per_launch;
    return KS_OK;
}

int ks_laplace_scene_counters(void *self, ks_scene_counters *out)
{
    ks_laplace_scene *s = self;
    if (s->multi) {
        snprintf(out->what, sizeof out->what,
                 "the field is on %d GPUs (--gpus): the counters measure a run on one GPU; run without --gpus", s->gpus);
        return 0;
    }
    const ks_lvariant_info *info = ks_lvariant_get(s->variant);
    const int *b = measured_block(s);
    const int steps = info->steps_per_launch > 1 ? info->steps_per_launch : 1;
    char block[40], grid[48];
    if (info->block_rank == 3) snprintf(block, sizeof block, "%dx%dx%d", b[0], b[1], b[2]);
    else snprintf(block, sizeof block, "%dx%d", b[0], b[1]);
    if (s->grid.dims == 3) snprintf(grid, sizeof grid, "%dx%dx%d", s->grid.nx, s->grid.ny, s->grid.nz);
    else snprintf(grid, sizeof grid, "%dx%d", s->grid.nx, s->grid.ny);
    out->launch = launch_once;
    /* the model: the field read once and written once per launch (T_eff's bytes, a time block's too) */
    out->model_bytes = 2.0 * (double)ks_grid_bytes(&s->grid);
    out->occupancy = s->have_attrs ? s->attrs.occupancy : 0.0;
    out->load_bytes = out->store_bytes = ks_laplace_access_bytes(s->variant, s->grid.nx);
    snprintf(out->what, sizeof out->what, "one launch of %s (%d Jacobi %s), block %s, grid %s", info->name, steps,
             steps == 1 ? "iteration" : "iterations", block, grid);
    snprintf(out->config, sizeof out->config, "%s %s %s code %lld", info->name, block, grid,
             ks_luser_generation(s->variant));
    return 1;
}
