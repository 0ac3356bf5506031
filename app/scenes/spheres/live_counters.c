/* The spheres scene's part of the Hardware panel (ks_scene_api.counters): one
 * render by the memory variant that runs, against the roofline's byte model. */
#include <stdio.h>

#include "app/scenes/spheres/live_state.h"

/* The Hardware panel: one render by the memory variant that runs, into the renderer's own
 * picture (binned: its binning too), untracked (its time under replay is no frame's). */
static ks_status counters_launch(void *self, void *stream)
{
    (void)stream; /* the renderer's own */
    ks_spheres_scene *s = self;
    KS_TRY(ks_spheres_scene_upload(s, NULL));
    ks_spheres_gpu_track(s->gpu, 0);
    const ks_status st = ks_spheres_gpu_render(s->gpu, s->mem, s->block, s->w, s->h, NULL);
    ks_spheres_gpu_track(s->gpu, 1);
    return st;
}

int ks_spheres_scene_counters(void *self, ks_scene_counters *out)
{
    ks_spheres_scene *s = self;
    if (!s->gpu || file_active(s) >= 0) return 0; /* a user's file: timed and checked, not measured here */
    out->launch = counters_launch;
    /* the roofline's model: the picture written once, the packed spheres read once */
    out->model_bytes = 4.0 * (double)s->w * s->h + (double)s->count * sizeof(ks_sphere_packed);
    if (!s->attrs_valid && ks_spheres_gpu_kernel_attrs(s->gpu, s->mem, s->block, &s->attrs) == KS_OK) s->attrs_valid = 1;
    ks_error_clear();
    out->occupancy = s->attrs_valid ? s->attrs.occupancy : 0.0;
    out->store_bytes = 4; /* a pixel's RGBA8 */
    snprintf(out->what, sizeof out->what, "one render of %d spheres (%dx%d) from %s memory, block %dx%d", s->count,
             s->w, s->h, ks_spheres_mem_name(s->mem), s->block[0], s->block[1]);
    snprintf(out->config, sizeof out->config, "%s block %dx%d spheres %d picture %dx%d", ks_spheres_mem_name(s->mem),
             s->block[0], s->block[1], s->count, s->w, s->h);
    return 1;
}
