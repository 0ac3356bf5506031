/* The Laplace scene's view model: controls, fields, the convergence plot, the
 * colour bar with the field's histogram, and its roofline point. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/scene_peak.h"
#include "app/scenes/laplace/live_state.h"
#include "base/ks_util.h"
#include "kernels/laplace/laplace_multi.h"

static const char ks_axis_names[KS_AXIS_NUM] = {'x', 'y', 'z'};

/* Kernel and block as mouse controls (CUDA backend: the CPU gold has neither). */
static void view_kernel(const ks_laplace_scene *s, ks_view *v)
{
    const ks_lvariant_info *info = ks_lvariant_get(s->variant);
    if (!s->use_cuda) {
        ks_view_text(v, KS_VGROUP_KERNEL, "kernel", "CPU gold routine%s",
#ifdef _OPENMP
                     " (OpenMP)"
#else
                     ""
#endif
        );
        return;
    }
    ks_vcontrol *c = ks_view_control(v, "kernel", 0, KS_KEY_TAB);
    if (c) {
        /* the Tab order, from the current variant round to it again */
        int id = s->variant;
        do {
            if (c->nchoices < KS_VIEW_CHOICES)
                snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s", ks_lvariant_get(id)->name);
            id = ks_lvariant_next(id);
        } while (id != s->variant);
        c->current = 0;
        snprintf(c->value, sizeof c->value, "%s", info->name);
    }
    c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
    if (c) {
        if (info->block_rank == 3)
            snprintf(c->value, sizeof c->value, "%dx%dx%d", s->block[0], s->block[1], s->block[2]);
        else
            snprintf(c->value, sizeof c->value, "%dx%d", s->block[0], s->block[1]);
        /* your kernel at a new block runs at the block it passed with until the check of the new one ends */
        const int *r = s->run_block;
        if (s->use_cuda && r[0] > 0 && memcmp(r, s->block, sizeof s->run_block) != 0) {
            const size_t used = strlen(c->value);
            if (info->block_rank == 3)
                snprintf(c->value + used, sizeof c->value - used, " (checking; %dx%dx%d runs)", r[0], r[1], r[2]);
            else
                snprintf(c->value + used, sizeof c->value - used, " (checking; %dx%d runs)", r[0], r[1]);
        }
    }
    ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", info->summary);
    ks_view_text(v, KS_VGROUP_KERNEL, "block", "%s", c ? c->value : "");
    if (s->use_cuda && s->block_from[0]) ks_view_text(v, KS_VGROUP_KERNEL, "block from", "%s", s->block_from);
    if (info->steps_per_launch > 1)
        ks_view_num(v, KS_VGROUP_KERNEL, "iterations/launch", info->steps_per_launch, "", KS_VFMT_INT);
    /* a frame without a residual; one with adds a single step for a temporally blocked variant */
    ks_view_num(v, KS_VGROUP_KERNEL, "launches/frame", ks_lvariant_launches(s->variant, scene_frame_iters(s), 0),
                "", KS_VFMT_INT);
    if (s->use_graph) {
        ks_lgraph_stats gs;
        ks_lsolver_graph_stats(s->solver, &gs);
        ks_view_text(v, KS_VGROUP_KERNEL, "launch", "one CUDA graph a frame");
        ks_view_num(v, KS_VGROUP_KERNEL, "graphs captured", (double)gs.captures, "", KS_VFMT_INT);
    } else {
        ks_view_text(v, KS_VGROUP_KERNEL, "launch", "direct (--no-graph)");
    }
    if (s->have_attrs) {
        ks_view_num(v, KS_VGROUP_KERNEL, "registers", s->attrs.registers, "/thread", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "shared memory",
                    (double)(s->attrs.static_smem + s->attrs.dynamic_smem) / 1024.0, "KiB", KS_VFMT_F1);
        ks_view_num(v, KS_VGROUP_KERNEL, "occupancy", s->attrs.occupancy, "", KS_VFMT_PCT);
        ks_view_num(v, KS_VGROUP_KERNEL, "blocks/SM", s->attrs.blocks_per_sm, "", KS_VFMT_INT);
    }
}

/* The roofline's name for the kernel in use. */
static const char *roof_name(const ks_laplace_scene *s)
{
    return s->use_cuda ? ks_lvariant_get(s->variant)->name : "cpu";
}

/* --gpus: which GPU holds which slab, and each one's last run: its update
 * per iteration, its halo exchange and how much of it the update hid. */
static void multi_lines(const ks_laplace_scene *s, ks_view *v)
{
    const char axis = s->grid.dims == 3 ? 'z' : 'y';
    ks_lmulti_timing t;
    ks_lmulti_last(s->multi, &t);
    ks_view_text(v, KS_VGROUP_SCENE, "GPUs", "%d, slabs along %c (white lines), halos by NCCL", ks_lmulti_domains(s->multi),
                 axis);
    const int owner = ks_lmulti_owner(s->multi, s->index);
    if (s->grid.dims == 3 && s->axis == KS_AXIS_Z && owner < ks_lmulti_local(s->multi))
        ks_view_text(v, KS_VGROUP_SCENE, "slice held by", "GPU %d", ks_lmulti_device(s->multi, owner));
    else if (s->grid.dims == 3 && s->axis == KS_AXIS_Z)
        ks_view_text(v, KS_VGROUP_SCENE, "slice held by", "rank %d", owner);
    for (int i = 0; i < t.gpus; ++i) {
        const ks_slab *b = ks_lmulti_slab(s->multi, ks_lmulti_first_domain(s->multi) + i);
        char label[32];
        if (i < ks_lmulti_local(s->multi)) snprintf(label, sizeof label, "GPU %d", ks_lmulti_device(s->multi, i));
        else snprintf(label, sizeof label, "rank %d", i); /* mpirun: another rank's GPU */
        ks_view_text(v, KS_VGROUP_SCENE, label, "%c %d-%d: jacobi %.3f ms/it, halo %.3f ms, %.0f%% hidden", axis, b->first,
                     b->first + b->count - 1, t.jacobi_ms[i], t.gpu_halo_ms[i], 100.0 * t.gpu_hidden[i]);
    }
}

/* D: what the difference view shows, or why it shows nothing; when it
 * shows the values, the colour bar is theirs. */
static void view_diff(const ks_laplace_scene *s, ks_view *v)
{
    const ks_slice_diff *d = &s->diff;
    const int on = ks_variant_set_diff_on(s->set);
    if (ks_variant_set_files(s->set)) ks_view_toggle(v, "difference", 'D', on ? "on" : "off", on ? "off" : "on");
    if (!v->message[0] && s->notice[0] && ks_now_seconds() < s->notice_until) {
        snprintf(v->message, sizeof v->message, "%s", s->notice);
        v->message_kind = KS_VMSG_NOTICE;
    }
    if (!on) return;
    const char *what = "";
    char line[KS_VIEW_TEXT];
    size_t used = 0; /* a long reason is cut to the line (the panel's and the banner's size) */
    switch (d->state) {
    case KS_SDIFF_NO_KERNEL: what = "no user kernel (--kernel-file)"; break;
    case KS_SDIFF_UNCHECKED: what = "no kernel file checked yet"; break;
    case KS_SDIFF_WAITING: what = "asking the check process for this slice; the field meanwhile"; break;
    case KS_SDIFF_NONE:
        ks_text_append(line, sizeof line, &used, "no difference picture of %s: %s", d->kernel, d->why);
        what = line;
        break;
    case KS_SDIFF_READY:
        if (d->stats.nonzero == 0)
            ks_text_append(line, sizeof line, &used, "%s equals %s on this slice, cell for cell", d->kernel,
                           d->reference);
        else
            ks_text_append(line, sizeof line, &used, "%s against %s: %lld of %lld cells differ%s, max %.2e%s; grey: exactly 0, a "
                     "pixel shows its cells' largest", d->kernel, d->reference, d->stats.nonzero,
                     (long long)d->w * d->h, d->stats.unwritten ? " (inf: left unwritten)" : "", d->stats.max,
                     d->passed ? " (within the check's tolerance)" : "");
        what = line;
        break;
    }
    ks_view_text(v, KS_VGROUP_SCENE, "difference view", "%s", what);
    /* no picture for a reason the learner must know: said where it is seen */
    if (!v->message[0] && (d->state == KS_SDIFF_NONE || d->state == KS_SDIFF_UNCHECKED)) {
        size_t n = 0;
        ks_text_append(v->message, sizeof v->message, &n, "D: %s", what);
        v->message_kind = KS_VMSG_NOTICE;
    }
    if (!ks_laplace_scene_diff_shown(s)) return;
    v->colorbar.cmap = KS_DIFF_CMAP;
    v->colorbar.lo = 0.0;
    v->colorbar.hi = scene_diff_range(d);
    v->colorbar.hist_n = 0; /* the field's histogram says nothing of the difference */
    if (d->stats.nonzero == 0)
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "|yours - %s| = 0 (grey)", d->reference);
    else if (d->stats.max > 0.0f)
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "|yours - %s|, max %.1e (grey: 0)", d->reference,
                 d->stats.max);
    else
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "|yours - %s|, max inf (unwritten)", d->reference);
    if (s->probe_valid && s->probe_cell[0] < d->w && s->probe_cell[1] < d->h) {
        const size_t n = strlen(v->hover);
        snprintf(v->hover + n, sizeof v->hover - n, "%s|yours - %s| = %.6g", n ? "\n" : "", d->reference,
                 d->values[(size_t)s->probe_cell[1] * (size_t)d->w + (size_t)s->probe_cell[0]]);
    }
}

void ks_laplace_scene_view(void *self, ks_view *v)
{
    ks_laplace_scene *s = self;
    const double field_bytes = (double)ks_grid_bytes(&s->grid);
    snprintf(v->scene, sizeof v->scene, "%s", scene_name(s));
    snprintf(v->image_name, sizeof v->image_name, "%s", scene_name(s));

    view_kernel(s, v);
    ks_variant_set_view(s->set, v);
    const int frame_iters = scene_frame_iters(s);
    const int tsteps = ks_lvariant_get(s->variant)->steps_per_launch;
    const int blocked = s->use_cuda && tsteps > 1;
    ks_vcontrol *c = ks_view_control(v, "iterations/frame", KS_KEY_MINUS, KS_KEY_PLUS);
    const char *sized = s->iters_auto.on ? ", auto" : "";
    if (c && blocked)
        snprintf(c->value, sizeof c->value, "%d (whole time blocks of %d%s)", frame_iters, tsteps, sized);
    else if (c)
        snprintf(c->value, sizeof c->value, "%d%s", frame_iters, s->iters_auto.on ? " (auto)" : "");
    if (s->grid.dims == 3) {
        c = ks_view_control(v, "slice axis", 0, 0);
        if (c) {
            for (int a = 0; a < KS_AXIS_NUM; ++a) {
                snprintf(c->choices[a], sizeof c->choices[a], "%c", ks_axis_names[a]);
                c->choice_key[a] = 'X' + a;
            }
            c->nchoices = KS_AXIS_NUM;
            c->current = (int)s->axis;
            snprintf(c->value, sizeof c->value, "%c", ks_axis_names[s->axis]);
        }
        c = ks_view_control(v, "slice index", KS_KEY_LEFT, KS_KEY_RIGHT);
        if (c) snprintf(c->value, sizeof c->value, "%d of 0..%d", s->index, ks_slice_max_index(&s->grid, s->axis));
    }
    c = ks_view_control(v, "colormap", 0, 'C');
    if (c) {
        /* C order from the current map round to it again */
        ks_colormap m = s->cmap == KS_CMAP_DEFAULT ? KS_CMAP_VIRIDIS : s->cmap;
        for (int i = 0; i < KS_CMAP_NUM - 1; ++i, m = ks_colormap_next(m))
            snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s", ks_colormap_name(m));
        snprintf(c->value, sizeof c->value, "%s", ks_colormap_name(s->cmap));
    }
    ks_view_toggle(v, "range", 'A', s->auto_range ? "auto" : "fixed", s->auto_range ? "fixed" : "auto");

    if (s->grid.dims == 3)
        ks_view_text(v, KS_VGROUP_SCENE, "grid", "%dx%dx%d", s->grid.nx, s->grid.ny, s->grid.nz);
    else
        ks_view_text(v, KS_VGROUP_SCENE, "grid", "%dx%d", s->grid.nx, s->grid.ny);
    ks_view_text(v, KS_VGROUP_SCENE, "boundary", "%s", ks_bc_name(s->bc));
    if (s->multi) multi_lines(s, v);
    ks_view_num(v, KS_VGROUP_SCENE, "points", (double)scene_points(s) / 1e6, "M", KS_VFMT_G4);
    ks_view_num(v, KS_VGROUP_SCENE, "field size", field_bytes / 1048576.0, "MiB", KS_VFMT_G4);
    ks_view_num(v, KS_VGROUP_SCENE, "iterations/frame", frame_iters, "", KS_VFMT_INT);
    const ks_iters_auto *ia = &s->iters_auto;
    if (!ia->on)
        ks_view_text(v, KS_VGROUP_SCENE, "iterations sized", "fixed (--iters, + / -; I: auto)");
    else if (!(ia->fps_target > 0.0))
        ks_view_text(v, KS_VGROUP_SCENE, "iterations sized", "auto, fastest: solver >= 97 %% of a frame (I)");
    else if (ia->aim_fps > 0.0 && ia->aim_fps < ia->fps_target - 0.5) /* the display's cost lowered it */
        ks_view_text(v, KS_VGROUP_SCENE, "iterations sized", "auto: %.0f fps (target %.0f; display > 5 %% of solver) (I)",
                     ia->aim_fps, ia->fps_target);
    else
        ks_view_text(v, KS_VGROUP_SCENE, "iterations sized", "auto: %.0f fps target (I)", ia->fps_target);
    if (blocked)
        ks_view_text(v, KS_VGROUP_SCENE, "time blocks", "whole, %d iterations each (asked %d/frame)", tsteps,
                     s->iters);
    ks_view_num(v, KS_VGROUP_SCENE, "residual every", s->res_cad.every, s->res_cad.fixed ? "frames, fixed" : "frames, auto",
                KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, "histogram every", s->hist_cad.every, "frames, auto", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, "iterations", (double)s->total_iters, "", KS_VFMT_INT);
    if (s->residual >= 0) {
        ks_view_num(v, KS_VGROUP_SCENE, "residual", s->residual, "RMS", KS_VFMT_SCI);
        ks_view_num(v, KS_VGROUP_SCENE, "residual at", (double)s->residual_iter, "it", KS_VFMT_INT);
    }
    if (s->timer) {
        ks_stage_stats st;
        ks_stage_timer_stats(s->timer, s->stage_jacobi, &st);
        if (st.samples > 0 && s->last_iters > 0) {
            const double t_iter = st.median_ms * 1e-3 / s->last_iters;
            const double t_eff = 2.0 * field_bytes / t_iter / 1e9;
            ks_view_num(v, KS_VGROUP_KERNEL, "Jacobi", t_iter * 1e3, "ms/it", KS_VFMT_F4);
            ks_view_num(v, KS_VGROUP_KERNEL, "T_eff", t_eff, "GB/s", t_eff < 100.0 ? KS_VFMT_G4 : KS_VFMT_INT);
            ks_scene_peak_ratio(v, s->env, KS_VGROUP_KERNEL, "T_eff/T_peak", t_eff);
            /* Roofline, one iteration: 6 (3D) or 4 (2D) adds and a multiply per
             * point; the field read and written once per launch (a temporally
             * blocked launch does steps_per_launch iterations). */
            const ks_lvariant_info *info = ks_lvariant_get(s->variant);
            const int steps = s->use_cuda && info->steps_per_launch > 1 ? info->steps_per_launch : 1;
            const double flops = (s->grid.dims == 3 ? 7.0 : 5.0) * (double)scene_points(s);
            ks_roof_log_put(&s->roof, roof_name(s), flops, 2.0 * field_bytes / steps, t_iter * 1e3);
        }
    }
    ks_view_roof(v, &s->roof, roof_name(s), "one Jacobi iteration", s->env->t_peak_gbs,
                 s->use_cuda ? s->env->fma_gflops : 0.0);
    ks_scene_peak_rows(v, s->env, KS_VGROUP_KERNEL, "T_peak");
    if (s->grid.dims == 3)
        ks_view_text(v, KS_VGROUP_SCENE, "slice", "%c = %d", ks_axis_names[s->axis], s->index);
    ks_view_num(v, KS_VGROUP_SCENE, "range lo", s->lo, "", KS_VFMT_G4);
    ks_view_num(v, KS_VGROUP_SCENE, "range hi", s->hi, "", KS_VFMT_G4);

    if (s->probe_valid) {
        int n;
        if (s->grid.dims == 3)
            n = snprintf(v->hover, sizeof v->hover, "u(%d, %d, %d) = %.6g", s->probe[0], s->probe[1],
                         s->probe[2], s->probe_value);
        else
            n = snprintf(v->hover, sizeof v->hover, "u(%d, %d) = %.6g", s->probe[0], s->probe[1],
                         s->probe_value);
        /* zoomed out, the pixel's colour is the mean of a block of cells */
        if ((s->probe_span[0] > 1 || s->probe_span[1] > 1) && n > 0 && (size_t)n < sizeof v->hover)
            snprintf(v->hover + n, sizeof v->hover - (size_t)n, "\npixel: mean of %d x %d cells",
                     s->probe_span[0], s->probe_span[1]);
    }
    snprintf(v->viewport.rule, sizeof v->viewport.rule, "mean of the covered cells");
    v->colorbar.on = 1;
    v->colorbar.cmap = s->cmap;
    v->colorbar.lo = s->lo;
    v->colorbar.hi = s->hi;
    snprintf(v->colorbar.label, sizeof v->colorbar.label, "u (%s, %s range)", ks_colormap_name(s->cmap),
             s->auto_range ? "auto" : "fixed");
    if (s->vhist.bins > 0) {
        v->colorbar.hist_n = s->vhist.bins;
        v->colorbar.hist_lo = s->vhist.lo;
        v->colorbar.hist_hi = s->vhist.hi;
        for (int b = 0; b < s->vhist.bins && b < KS_VIEW_HIST; ++b) v->colorbar.hist[b] = s->vhist.counts[b];
        if (s->multi && s->grid.dims == 3) /* several GPUs: the display GPU holds the slice alone */
            snprintf(v->colorbar.hist_what, sizeof v->colorbar.hist_what, "the slice, display GPU");
        else
            snprintf(v->colorbar.hist_what, sizeof v->colorbar.hist_what, "whole field, %s",
                     s->use_cuda ? "GPU" : "CPU gold");
    }
    memcpy(v->plot.x, s->hist_x, (size_t)s->hist_n * sizeof(float));
    memcpy(v->plot.y, s->hist_y, (size_t)s->hist_n * sizeof(float));
    v->plot.n = s->hist_n;
    snprintf(v->plot.title, sizeof v->plot.title, "log10 residual vs iterations");
    view_diff(s, v);
}

