/* The Laplace scene's field and the variant that runs: what its creation,
 * frames (live.c), keys (live_keys.c) and view (live_view.c) share. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/scenes/laplace/live_state.h"
#include "base/ks_util.h"
#include "kernels/laplace/laplace_multi.h"

/* Fails unless `fields` fields of the grid fit in the host memory available
 * now (SIZE_MAX: report that an allocation failed). */
ks_status ks_laplace_scene_check_host_memory(const ks_laplace_scene *s, size_t fields)
{
    const double need = (double)ks_grid_bytes(&s->grid) * (fields == SIZE_MAX ? 2.0 : (double)fields);
    char what[96];
    snprintf(what, sizeof what, "grid %dx%dx%d", s->grid.nx, s->grid.ny, s->grid.nz);
    if (fields != SIZE_MAX) return ks_host_memory_check(need, what);
    return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s needs %.2f GiB of host memory, %.2f GiB available",
                   what, need / 1073741824.0, ks_host_memory_available() / 1073741824.0);
}

/* The initial field: built in a temporary buffer (CUDA) or in place (CPU). */
ks_status ks_laplace_scene_upload_initial(ks_laplace_scene *s)
{
    s->total_iters = 0;
    s->residual = -1.0;
    s->residual_iter = 0;
    s->hist_n = 0;
    s->hist_stride = 1;
    s->have_minmax = 0;
    ks_cadence_restart(&s->res_cad); /* the new field's first residual and histogram at once */
    ks_cadence_restart(&s->hist_cad);
    const size_t bytes = ks_grid_bytes(&s->grid);
    if (!s->use_cuda) {
        ks_laplace_fill_initial(&s->grid, s->bc, s->u);
        memcpy(s->u_prev, s->u, bytes);
        return KS_OK;
    }
    float *initial = malloc(bytes);
    if (!initial) return ks_laplace_scene_check_host_memory(s, SIZE_MAX);
    ks_laplace_fill_initial(&s->grid, s->bc, initial);
    ks_status st = s->multi ? ks_lmulti_upload(s->multi, initial) : ks_lsolver_upload(s->solver, initial);
    free(initial);
    return st;
}

int ks_laplace_scene_view_index(const ks_laplace_scene *s)
{
    return s->multi ? ks_lmulti_slice_index(s->multi, s->axis, s->index) : s->index;
}

void ks_laplace_scene_apply_minmax(ks_laplace_scene *s, float mn, float mx)
{
    s->slice_min = mn;
    s->slice_max = mx;
    s->have_minmax = 1;
    if (s->auto_range) {
        s->lo = mn;
        s->hi = mx > mn ? mx : mn + 1e-6f;
    }
}

/* 1 when this frame shows the difference view's values: they are of the
 * slice shown (a new slice's are on their way meanwhile: the field). */
int ks_laplace_scene_diff_shown(const ks_laplace_scene *s)
{
    const ks_slice_diff *d = &s->diff;
    return ks_variant_set_diff_on(s->set) && d->state == KS_SDIFF_READY && (int)s->axis == d->axis && s->index == d->index &&
           d->w == s->view.x.cells && d->h == s->view.y.cells;
}

ks_status ks_laplace_scene_check_block(ks_laplace_scene *s, int variant, const int block[3])
{
    KS_TRY(ks_lvariant_check_shape(variant, block));
    if (!s->use_cuda) return KS_OK; /* the CPU backend has no blocks */
    if (s->multi) return ks_lmulti_check_block(s->multi, variant, block); /* on every GPU's slab */
    return ks_lsolver_check_block(s->solver, variant, block);
}

void ks_laplace_scene_refresh_attrs(ks_laplace_scene *s)
{
    s->have_attrs = s->use_cuda &&
                    ks_lsolver_kernel_attrs(s->solver, s->variant, s->block, &s->attrs) == KS_OK;
}

/* The block to use for a variant when the user gave none: the best measured
 * for this device and grid (bench store), else the variant's own default
 * (measured on the GPU ks_lvariant_blocks_measured_on names); s->block_from
 * says which. */
void ks_laplace_scene_default_block(ks_laplace_scene *s, int variant, int block[3])
{
    const ks_lvariant_info *info = ks_lvariant_get(variant);
    memcpy(block, info->default_block, 3 * sizeof(int));
    const ks_device_info *dev = s->use_cuda ? s->env->device : NULL;
    const char *on = dev ? ks_lvariant_blocks_measured_on(10 * dev->cc_major + dev->cc_minor, dev->sm_count) : NULL;
    if (on) snprintf(s->block_from, sizeof s->block_from, "measured fastest on an %s (built in)", on);
    else snprintf(s->block_from, sizeof s->block_from, "default (bench %s measures this GPU's best)",
                  s->env->opt->scene->name);
    if (!s->use_cuda || !s->env->best) return;
    const int grid[3] = {s->grid.nx, s->grid.ny, s->grid.nz};
    const ks_best_entry *e = ks_best_find(s->env->best, s->env->device->name, s->env->opt->scene->name,
                                          info->name, grid);
    if (e && ks_laplace_scene_check_block(s, variant, e->block) == KS_OK) {
        memcpy(block, e->block, 3 * sizeof(int));
        snprintf(s->block_from, sizeof s->block_from, "best measured on this GPU (bench %s)", s->env->opt->scene->name);
    }
}

/* The block the run starts with: --block's, else the default block above. */
void ks_laplace_scene_first_block(ks_laplace_scene *s)
{
    const ks_options *opt = s->env->opt;
    if (opt->block_count) {
        memcpy(s->block, opt->blocks[0], sizeof s->block);
        snprintf(s->block_from, sizeof s->block_from, "--block");
    } else {
        ks_laplace_scene_default_block(s, s->variant, s->block);
    }
}

/* The variant id of the k-th in the set's Tab order: ours (their ids for the
 * scene's rank), then the files (their rows, registered with the options). */
int ks_laplace_scene_variant_at(const ks_laplace_scene *s, int k)
{
    const int ours = s->ours;
    if (k < ours) return s->our_ids[k];
    return ks_lvariant_find(s->grid.dims, ks_variant_set_file_name(s->set, k - ours));
}
