/* The Laplace scene's picture (ks_scene_api.draw, full_picture): the view of
 * the slice, or the difference view (D); the lines between GPUs' slabs; and,
 * on its cadence, the field's histogram for the colour bar. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/scenes/laplace/live_state.h"
#include "kernels/laplace/field_histogram.h"
#include "kernels/laplace/laplace_multi.h"

/* The whole field's values in bins over the colour range, on the frames the
 * picture is drawn: on the GPU (the solver's stream, read back a frame or so
 * later without a stall), on the CPU backend with the gold. */
static ks_status histogram_values(ks_laplace_scene *s, ks_frame_ctx *ctx)
{
    if (s->use_cuda) {
        ks_lhist got;
        if (ks_lsolver_poll_histogram(s->solver, &got)) s->vhist = got;
    }
    /* on its cadence, and on the last frame of a --frames run (what the run ends with) */
    const int frames = s->env->opt->frames;
    const int due = ks_cadence_due(&s->hist_cad) || (frames > 0 && ctx->frame + 1 == frames);
    if (!(s->lo < s->hi) || !due) return KS_OK;
    if (s->use_cuda && ks_lsolver_histogram_pending(s->solver)) {
        /* the last one is still on its way: count this one next frame (and
         * time no request that would be skipped) */
        ks_cadence_restart(&s->hist_cad);
        return KS_OK;
    }
    KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_hist));
    if (s->use_cuda) {
        KS_TRY(ks_lsolver_request_histogram(s->solver, s->lo, s->hi, KS_LAPLACE_HIST_BINS,
                                            s->total_iters));
    } else {
        uint64_t counts[KS_LAPLACE_HIST_BINS] = {0};
        ks_field_hist_gold(s->u, scene_points(s), s->lo, s->hi, KS_LAPLACE_HIST_BINS, counts);
        s->vhist.bins = KS_LAPLACE_HIST_BINS;
        s->vhist.lo = s->lo;
        s->vhist.hi = s->hi;
        s->vhist.iteration = s->total_iters;
        for (int b = 0; b < KS_LAPLACE_HIST_BINS; ++b) s->vhist.counts[b] = (unsigned)counts[b];
    }
    return ks_stage_timer_end(ctx->timer, s->stage_hist);
}

/* --gpus: a white line across the picture where one GPU's slab meets the
 * next (the slow axis runs up the picture in every slice but a 3D z slice,
 * which one GPU holds whole). */
static ks_status draw_decomposition(ks_laplace_scene *s, void *rgba)
{
    if (s->grid.dims == 3 && s->axis == KS_AXIS_Z) return KS_OK;
    unsigned char *pic = rgba;
    const size_t row = (size_t)s->view.x.pixels * 4;
    for (int r = 1; r < ks_lmulti_domains(s->multi); ++r) {
        const int plane = ks_lmulti_slab(s->multi, r)->first;
        for (int q = 0; q < s->view.y.pixels; ++q) {
            int y0, y1;
            ks_cellmap_range(&s->view.y, q, &y0, &y1);
            if (y0 <= plane && plane < y1) { /* the lowest pixel row showing the slab's first plane */
                KS_TRY(ks_lsolver_fill_bytes(s->solver, pic + (size_t)q * row, 0xff, row));
                break;
            }
        }
    }
    return KS_OK;
}

/* The difference picture: made on the host (the values came from the check
 * process, and a picture the size of the screen is milliseconds of work) only
 * when the values or the view change, then copied into the frame's picture. */
static ks_status draw_diff(ks_laplace_scene *s, void *rgba)
{
    const size_t bytes = (size_t)s->view.x.pixels * (size_t)s->view.y.pixels * 4;
    if (bytes > s->diff_cap) {
        unsigned char *p = realloc(s->diff_rgba, bytes);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the difference picture");
        s->diff_rgba = p;
        s->diff_cap = bytes;
        s->diff_serial = 0;
    }
    const ks_slice_diff *d = &s->diff;
    if (s->diff_serial != d->serial || memcmp(&s->diff_map, &s->view, sizeof s->view) != 0) {
        KS_TRY(ks_laplace_diff_render_view(d->values, d->w, d->h, &s->view, scene_diff_range(d), s->diff_rgba));
        s->diff_serial = d->serial;
        s->diff_map = s->view;
    }
    if (s->use_cuda) return ks_lsolver_upload_bytes(s->solver, rgba, s->diff_rgba, bytes);
    memcpy(rgba, s->diff_rgba, bytes);
    return KS_OK;
}

ks_status ks_laplace_scene_draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    ks_laplace_scene *s = self;
    /* the picture of the view: its cost follows the screen, not the grid */
    *w = s->view.x.pixels;
    *h = s->view.y.pixels;
    KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_slice));
    s->diff_drawn = ks_laplace_scene_diff_shown(s);
    if (s->diff_drawn) {
        KS_TRY(draw_diff(s, rgba));
    } else if (s->use_cuda) {
        KS_TRY(ks_lsolver_render_view(s->solver, s->axis, ks_laplace_scene_view_index(s), &s->view, s->cmap, s->lo,
                                      s->hi, rgba));
        if (s->multi) KS_TRY(draw_decomposition(s, rgba));
    } else
        KS_TRY(ks_laplace_cpu_render_view(&s->grid, s->u, s->axis, s->index, &s->view, s->cmap, s->lo,
                                          s->hi, rgba));
    KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_slice));
    return histogram_values(s, ctx);
}

/* F: the slice at one pixel per cell (not the view), rows top-down. */
ks_status ks_laplace_scene_full_picture(void *self, unsigned char **rgba, int *w, int *h)
{
    ks_laplace_scene *s = self;
    *rgba = NULL;
    ks_slice_dims(&s->grid, s->axis, w, h);
    const size_t row = (size_t)*w * 4;
    unsigned char *p = malloc(row * (size_t)*h);
    if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the %d x %d picture", *w, *h);
    ks_status st = KS_OK;
    if (s->diff_drawn && ks_laplace_scene_diff_shown(s)) { /* what is shown: the difference, one pixel a cell */
        const ks_cellmap one = {{KS_CELLMAP_ONE, 0, *w, *w}, {KS_CELLMAP_ONE, 0, *h, *h}};
        st = ks_laplace_diff_render_view(s->diff.values, s->diff.w, s->diff.h, &one, scene_diff_range(&s->diff), p);
    } else if (s->use_cuda)
        st = ks_lsolver_read_slice_rgba(s->solver, s->axis, ks_laplace_scene_view_index(s), s->cmap, s->lo, s->hi, p);
    else
        ks_laplace_cpu_render_slice(&s->grid, s->u, s->axis, s->index, s->cmap, s->lo, s->hi, p);
    if (st != KS_OK) {
        free(p);
        return st;
    }
    /* the picture's rows are bottom-up; a saved file's top-down */
    for (int y = 0; y < *h / 2; ++y) {
        unsigned char *a = p + (size_t)y * row, *b = p + (size_t)(*h - 1 - y) * row;
        for (size_t i = 0; i < row; ++i) {
            const unsigned char t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
    *rgba = p;
    return KS_OK;
}
