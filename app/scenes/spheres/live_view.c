/* The spheres scene's view model (ks_scene_api.view): controls, fields, the
 * render and upload times, the roofline, the A/B table of every variant at the
 * sphere count, the probed pixel. */
#include <math.h>
#include <stdio.h>

#include "app/scenes/spheres/live_state.h"

void ks_spheres_scene_view(void *self, ks_view *v)
{
    ks_spheres_scene *s = self;
    ks_spheres_scene_collect(s);
    snprintf(v->scene, sizeof v->scene, "%s", s->opt->scene->name);
    const int file = file_active(s);
    snprintf(v->image_name, sizeof v->image_name, "%s_%s", s->opt->scene->name,
             !s->gpu ? "cpu" : file >= 0 ? ks_variant_set_name(s->set) : ks_spheres_mem_name(s->mem));
    const int col = active_col(s);

    ks_vcontrol *c;
    if (s->gpu) {
        c = ks_view_control(v, "memory", 0, 'M');
        if (c) ks_variant_set_choices(s->set, c); /* M order from the current variant round to it again */
        c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
        if (c) snprintf(c->value, sizeof c->value, "%dx%d", s->block[0], s->block[1]);
    }
    if (!s->scene_file) {
        c = ks_view_control(v, "spheres", KS_KEY_MINUS, KS_KEY_PLUS);
        if (c) snprintf(c->value, sizeof c->value, "%d", s->count);
    }
    ks_view_toggle(v, "animation", 'V', s->animate ? "on" : "off", s->animate ? "off" : "on");

    ks_view_num(v, KS_VGROUP_SCENE, "spheres", s->count, "", KS_VFMT_INT);
    if (s->scene_file) ks_view_text(v, KS_VGROUP_SCENE, "scene file", "%s", s->scene_file);
    else ks_view_num(v, KS_VGROUP_SCENE, "seed", (double)s->seed, "", KS_VFMT_INT);
    ks_view_text(v, KS_VGROUP_SCENE, "image", "%dx%d", s->w, s->h);
    ks_view_text(v, KS_VGROUP_SCENE, "animation", "%s", s->animate ? "on" : "off");
    if (s->gpu && file >= 0) {
        const ks_spheres_user *u = ks_variant_set_code(s->set);
        const int *rb = ks_variant_set_run_block(s->set);
        const int block[2] = {rb[0], rb[1]};
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", ks_variant_set_name(s->set));
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "your kernel (--kernel-file)");
        if (ks_spheres_user_constant(u))
            ks_view_text(v, KS_VGROUP_KERNEL, "memory", "its __constant__ kernelscope_spheres (%d spheres)",
                         ks_spheres_user_capacity(u));
        else
            ks_view_text(v, KS_VGROUP_KERNEL, "memory", "through the pointer (global)");
        ks_view_text(v, KS_VGROUP_KERNEL, "block", "%dx%d", block[0], block[1]);
        if (!s->user_attrs_valid && ks_spheres_user_attrs(s->gpu, u, block, &s->user_attrs) == KS_OK)
            s->user_attrs_valid = 1;
        ks_error_clear();
        if (s->user_attrs_valid) {
            ks_view_num(v, KS_VGROUP_KERNEL, "registers", s->user_attrs.registers, "/thread", KS_VFMT_INT);
            ks_view_num(v, KS_VGROUP_KERNEL, "shared memory", s->user_attrs.static_smem, "B", KS_VFMT_INT);
            ks_view_num(v, KS_VGROUP_KERNEL, "blocks/SM", s->user_attrs.blocks_per_sm, "", KS_VFMT_INT);
            ks_view_num(v, KS_VGROUP_KERNEL, "occupancy", s->user_attrs.occupancy, "", KS_VFMT_PCT);
        }
    } else if (s->gpu) {
        ks_view_text(v, KS_VGROUP_KERNEL, "memory", "%s", ks_spheres_mem_name(s->mem));
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", ks_spheres_mem_summary(s->mem));
        ks_view_text(v, KS_VGROUP_KERNEL, "block", "%dx%d", s->block[0], s->block[1]);
        if (!s->attrs_valid && ks_spheres_gpu_kernel_attrs(s->gpu, s->mem, s->block, &s->attrs) == KS_OK)
            s->attrs_valid = 1;
        if (s->attrs_valid) {
            ks_view_text(v, KS_VGROUP_KERNEL, "kernel", "%s", ks_spheres_mem_kernel(s->mem));
            ks_view_num(v, KS_VGROUP_KERNEL, "registers", s->attrs.registers, "/thread", KS_VFMT_INT);
            ks_view_num(v, KS_VGROUP_KERNEL, "shared memory", s->attrs.static_smem + s->attrs.dynamic_smem, "B",
                        KS_VFMT_INT);
            ks_view_num(v, KS_VGROUP_KERNEL, "blocks/SM", s->attrs.blocks_per_sm, "", KS_VFMT_INT);
            ks_view_num(v, KS_VGROUP_KERNEL, "occupancy", s->attrs.occupancy, "", KS_VFMT_PCT);
        }
    } else {
        ks_view_text(v, KS_VGROUP_KERNEL, "kernel", "CPU gold (row-culled brute force, OpenMP)");
    }
    const ks_spheres_count_row *row = ks_spheres_scene_row(s, s->count);
    ks_timing_stats st;
    if (ks_timing_window_stats(&row->render[col], &st)) {
        ks_view_num(v, KS_VGROUP_KERNEL, "render median", st.median_ms, "ms", KS_VFMT_F3);
        ks_view_num(v, KS_VGROUP_KERNEL, "render min", st.min_ms, "ms", KS_VFMT_F3);
    }
    if (s->gpu && ks_timing_window_stats(&row->upload[col], &st)) {
        ks_view_num(v, KS_VGROUP_KERNEL, "upload median", st.median_ms, "ms", KS_VFMT_F3);
        ks_view_num(v, KS_VGROUP_KERNEL, "upload min", st.min_ms, "ms", KS_VFMT_F3);
    }
    /* Roofline, one render: the brute-force model, every pixel tests every
     * sphere (2 subs, 2 muls, an add and a compare: 6 flops); bytes: the
     * picture written once and the packed spheres read once. */
    {
        const double pix = (double)s->w * s->h;
        const double flops = 6.0 * pix * s->count;
        const double bytes = 4.0 * pix + (double)s->count * sizeof(ks_sphere_packed);
        ks_roof_log roof = {0};
        const int files = s->gpu ? ks_variant_set_files(s->set) : 0;
        for (int m = s->gpu ? KS_SPHERES_MEM_GLOBAL : 0; m <= (s->gpu ? KS_SPHERES_MEM_NUM - 1 + files : 0); ++m) {
            const char *name = !s->gpu                    ? "cpu"
                               : m >= KS_SPHERES_MEM_NUM ? ks_variant_set_file_name(s->set, m - KS_SPHERES_MEM_NUM)
                                                         : ks_spheres_mem_name((ks_spheres_mem)m);
            if (ks_timing_window_stats(&row->render[m], &st)) ks_roof_log_put(&roof, name, flops, bytes, st.median_ms);
        }
        ks_view_roof(v, &roof,
                     !s->gpu ? "cpu" : file >= 0 ? ks_variant_set_name(s->set) : ks_spheres_mem_name(s->mem),
                     "one render", s->t_peak_gbs, s->gpu ? s->fma_gflops : 0.0);
    }
    if (s->notice[0]) {
        snprintf(v->message, sizeof v->message, "%s", s->notice);
        v->message_kind = KS_VMSG_NOTICE; /* a hint (an option ignored, a variant skipped), not a failure */
    }

    /* A/B table: every variant's last times at this count */
    ks_vtable *t = &v->table;
    snprintf(t->title, sizeof t->title, "every variant at %d spheres (medians)", s->count);
    t->ncols = 3;
    snprintf(t->cols[0], sizeof t->cols[0], "render");
    snprintf(t->units[0], sizeof t->units[0], "ms");
    t->fmts[0] = KS_VFMT_F3;
    snprintf(t->cols[1], sizeof t->cols[1], "upload");
    snprintf(t->units[1], sizeof t->units[1], "ms");
    t->fmts[1] = KS_VFMT_F3;
    snprintf(t->cols[2], sizeof t->cols[2], "vs global");
    /* a speed-up ratio: no unit */
    t->fmts[2] = KS_VFMT_F2;
    const int have_global = s->gpu && ks_timing_window_stats(&row->render[KS_SPHERES_MEM_GLOBAL], &st);
    const double global_med = have_global ? st.median_ms : 0.0;
    const int first = s->gpu ? KS_SPHERES_MEM_GLOBAL : 0, last = s->gpu ? KS_SPHERES_MEM_NUM - 1 : 0;
    for (int m = first; m <= last && t->nrows < KS_VIEW_ROWS; ++m) {
        ks_vrow *r = &t->rows[t->nrows++];
        snprintf(r->label, sizeof r->label, "%s", s->gpu ? ks_spheres_mem_name((ks_spheres_mem)m) : "cpu gold");
        r->selected = m == col;
        r->cell[0] = r->cell[1] = r->cell[2] = NAN;
        if (s->gpu && ks_spheres_mem_check((ks_spheres_mem)m, s->count) != KS_OK) {
            ks_error_clear();
            snprintf(r->note, sizeof r->note, "n/a: holds at most %d spheres", KS_SPHERES_CONST_MAX);
            continue;
        }
        if (ks_timing_window_stats(&row->upload[m], &st)) r->cell[1] = st.median_ms;
        if (ks_timing_window_stats(&row->render[m], &st)) r->cell[0] = st.median_ms;
        if (isfinite(r->cell[0]) && have_global && st.median_ms > 0) r->cell[2] = global_med / st.median_ms;
    }
    for (int i = 0; s->gpu && i < ks_variant_set_files(s->set) && t->nrows < KS_VIEW_ROWS; ++i) { /* the files */
        const int m = KS_SPHERES_MEM_NUM + i;
        ks_vrow *r = &t->rows[t->nrows++];
        snprintf(r->label, sizeof r->label, "%s", ks_variant_set_file_name(s->set, i));
        r->selected = m == col;
        r->cell[0] = r->cell[1] = r->cell[2] = NAN;
        if (ks_timing_window_stats(&row->render[m], &st)) r->cell[0] = st.median_ms;
        if (isfinite(r->cell[0]) && have_global && st.median_ms > 0) r->cell[2] = global_med / st.median_ms;
    }
    if (s->gpu) ks_variant_set_view(s->set, v); /* the files' lines, the difference view's */

    if (s->probe_valid && s->probe_a >= 0 && s->probe_b >= 0 && s->probe_a < s->w && s->probe_b < s->h) {
        unsigned char px[4];
        const int k = ks_spheres_gold_pixel(s->packed, s->count, s->w, s->h, s->probe_a, s->probe_b, px);
        if (k < 0)
            snprintf(v->hover, sizeof v->hover, "pixel (%d,%d): no sphere", s->probe_a, s->probe_b);
        else
            snprintf(v->hover, sizeof v->hover, "pixel (%d,%d): sphere #%d at (%.1f, %.1f, %.1f) r %.1f -> %d %d %d",
                     s->probe_a, s->probe_b, k, s->now[k].x, s->now[k].y, s->now[k].z, s->now[k].radius,
                     px[0], px[1], px[2]);
    }
}
