/* The matmul scene's panel (ks_scene_api.view): the kernel, its times against
 * cuBLAS and the FP32 peak, the DRAM model, the roofline, the tile picture's
 * numbers and the hover (live_state.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/scene.h"
#include "app/scenes/matmul/live_state.h"
#include "base/ks_util.h"

static void cat(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void cat(char *buf, size_t len, const char *fmt, ...)
{
    const size_t used = strnlen(buf, len);
    if (used + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* Hover: C[i][j] and the tiles of A and B its block read (the picture lights their bands). */
static void hover(matmul_scene *s, char *buf, size_t len)
{
    int i, j;
    if (!mm_probe_cell(s, &i, &j)) return;
    float v = NAN;
    if (s->gpu) {
        if (ks_matmul_gpu_read(s->gpu, i, j, &v) != KS_OK) ks_error_clear();
    } else {
        v = s->c[(size_t)i * s->size.n + j];
    }
    snprintf(buf, len, "C[%d][%d] = %g", i, j, (double)v);
    const ks_user_files_diff *d = ks_variant_set_diff_shown(s->set);
    if (d) cat(buf, len, "  |yours - regtile| = %g", (double)d->values[(size_t)i + (size_t)j * s->size.m]);
    const int K = s->size.k;
    if (s->pic != KS_MATMUL_PIC_VALUE && s->rec_n > 0) {
        /* the tile under the cursor: who computed it, when, and what fed it */
        const ks_matmul_tile bt = s->rec_bt;
        const int ti = i / bt.m, tj = j / bt.n, tx = (s->size.n + bt.n - 1) / bt.n;
        const ks_matmul_tile_rec *r = &s->rec[(size_t)ti * tx + tj];
        if (r->done)
            cat(buf, len, "  tile (%d,%d): %s %u, done %.3f ms after the first tile (last %.3f ms)", ti, tj,
                s->gpu ? "SM" : "thread", r->unit, (double)(r->t_ns - s->first) * 1e-6,
                (double)(s->last - s->first) * 1e-6);
    }
    if (!s->gpu) {
        ks_matmul_band b;
        if (mm_hovered_band(s, &b))
            cat(buf, len, "  fed by A rows %d..%d (all %d columns) and B columns %d..%d (all %d rows): the lit bands",
                b.i0, b.i1 - 1, K, b.j0, b.j1 - 1, K);
        return;
    }
    if (mm_active(s) >= 0) {
        cat(buf, len, "  (your kernel: its tiles are its own)");
        return;
    }
    switch (s->variant) {
    case KS_MATMUL_NAIVE:
        cat(buf, len,
            "  block (%d,%d) of 16x16 reads A rows %d..%d and B columns %d..%d whole, from global: the lit bands",
            i / 16, j / 16, i / 16 * 16, i / 16 * 16 + 15 < s->size.m ? i / 16 * 16 + 15 : s->size.m - 1,
            j / 16 * 16, j / 16 * 16 + 15 < s->size.n ? j / 16 * 16 + 15 : s->size.n - 1);
        break;
    case KS_MATMUL_TILED: {
        const int T = s->tile, kt = (K + T - 1) / T;
        cat(buf, len, "  block (%d,%d) reads %dx%d tiles A(%d, 0..%d) and B(0..%d, %d): the lit bands", i / T, j / T,
            T, T, i / T, kt - 1, kt - 1, j / T);
        break;
    }
    case KS_MATMUL_REGTILE: {
        ks_matmul_rt_choice rt;
        if (ks_matmul_gpu_regtile(s->gpu, &rt) != KS_OK) {
            ks_error_clear();
            break;
        }
        const ks_matmul_rt_config *cf = ks_matmul_rt_get(rt.config);
        const int kt = (K + cf->bk - 1) / cf->bk;
        cat(buf, len, "  block (%d,%d) reads %dx%d tiles A(%d, 0..%d) and %dx%d tiles B(0..%d, %d): the lit bands",
            i / cf->bm, j / cf->bn, cf->bm, cf->bk, i / cf->bm, kt - 1, cf->bk, cf->bn, kt - 1, j / cf->bn);
        break;
    }
    default: cat(buf, len, "  (cuBLAS picks its own tiles)"); break;
    }
}

/* The tile picture's numbers: how many tiles (blocks), over how many SMs or threads, over what time. */
static void tiles_view(const matmul_scene *s, ks_view *v)
{
    if (s->rec_n == 0) {
        /* the value picture stays; said in the panel, not the banner (nothing went wrong) */
        ks_view_text(v, KS_VGROUP_SCENE, "picture", "%s",
                     s->gpu && mm_active(s) >= 0 ? "your kernel keeps no per-block record: C's values shown"
                     : s->gpu && s->variant == KS_MATMUL_CUBLAS
                         ? "cuBLAS keeps no per-block record (closed kernels): C's values shown"
                         : "no tile records yet: the next run makes them (N when paused)");
        return;
    }
    ks_view_text(v, KS_VGROUP_SCENE, "picture", "tile of C (%dx%d) by %s", s->rec_bt.m, s->rec_bt.n,
                 s->pic == KS_MATMUL_PIC_UNIT ? (s->gpu ? "the SM that ran its block" : "the thread that computed it")
                                              : "when it finished");
    ks_view_num(v, KS_VGROUP_SCENE, s->gpu ? "tiles (blocks)" : "tiles", s->rec_n, "", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, s->gpu ? "SMs used" : "threads used", s->units, "", KS_VFMT_INT);
    if (s->units > 0)
        ks_view_text(v, KS_VGROUP_SCENE, s->gpu ? "tiles per SM (waves)" : "tiles per thread",
                     "%d .. %d (mean %.2f)", s->unit_min, s->unit_max, (double)s->rec_n / s->units);
    ks_view_num(v, KS_VGROUP_SCENE, "first to last tile", (double)(s->last - s->first) * 1e-6, "ms", KS_VFMT_F3);
    if (s->gpu)
        ks_view_num(v, KS_VGROUP_SCENE, "record cost (bytes stored)", 16.0 * s->rec_n, "B", KS_VFMT_G4);
    if (s->pic == KS_MATMUL_PIC_TIME) {
        v->colorbar.lo = 0.0f;
        v->colorbar.hi = (float)((double)(s->last - s->first) * 1e-6);
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "tile done (ms after the first)");
    } else {
        v->colorbar.on = 0; /* categorical: one colour per SM or thread, no scale */
    }
}

void ks_matmul_live_view(void *self, ks_view *v)
{
    matmul_scene *s = self;
    const ks_matmul_size *z = &s->size;
    snprintf(v->scene, sizeof v->scene, "%s", s->name);
    static const char *const pic_suffix[KS_MATMUL_PIC_NUM] = {"", "_sm", "_time"};
    snprintf(v->image_name, sizeof v->image_name, "%s_%.40s%s", s->name, mm_variant_name(s), pic_suffix[s->pic]);
    ks_vcontrol *c;
    if (s->gpu) {
        c = ks_view_control(v, "kernel", 0, KS_KEY_TAB);
        if (c) ks_variant_set_choices(s->set, c);
        if (mm_active(s) >= 0) {
            const int *rb = ks_variant_set_run_block(s->set);
            c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
            if (c) snprintf(c->value, sizeof c->value, "%dx%d", rb[0], rb[1]);
        } else if (s->variant == KS_MATMUL_TILED) {
            c = ks_view_control(v, "tile", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
            if (c) snprintf(c->value, sizeof c->value, "%dx%d", s->tile, s->tile);
        }
    }
    c = ks_view_control(v, "picture", 0, 'V');
    if (c) {
        for (int i = 0; i < KS_MATMUL_PIC_NUM && c->nchoices < KS_VIEW_CHOICES; ++i)
            snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s",
                     ks_matmul_picture_name((ks_matmul_picture)((s->pic + i) % KS_MATMUL_PIC_NUM)));
        snprintf(c->value, sizeof c->value, "%s", ks_matmul_picture_name(s->pic));
    }
    ks_view_text(v, KS_VGROUP_SCENE, "C = A*B", "%dx%d = %dx%d * %dx%d", z->m, z->n, z->m, z->k, z->k, z->n);
    ks_view_text(v, KS_VGROUP_SCENE, "data", "float32, every element exact");
    if (s->gpu && mm_active(s) >= 0) {
        ks_user_code_attrs a;
        ks_user_code_get_attrs(ks_variant_set_code(s->set), &a);
        const int *rb = ks_variant_set_run_block(s->set);
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", mm_variant_name(s));
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "your kernel (--kernel-file)");
        ks_view_text(v, KS_VGROUP_KERNEL, "block", "%dx%d, %dx%d elements a thread", rb[0], rb[1], a.per_thread[0],
                     a.per_thread[1]);
        ks_view_num(v, KS_VGROUP_KERNEL, "registers / thread", a.registers, "", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "static shared / block", a.static_smem, "B", KS_VFMT_INT);
    } else if (s->gpu) {
        const ks_matmul_variant_info *vi = ks_matmul_variant_get(s->variant);
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", vi->name);
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "%s", vi->summary);
        if (s->variant == KS_MATMUL_TILED) ks_view_text(v, KS_VGROUP_KERNEL, "tile", "%dx%d", s->tile, s->tile);
        ks_matmul_rt_choice rt;
        if (s->variant == KS_MATMUL_REGTILE && ks_matmul_gpu_regtile(s->gpu, &rt) == KS_OK) {
            char text[96];
            ks_matmul_rt_choice_text(&rt, text, sizeof text);
            ks_view_text(v, KS_VGROUP_KERNEL, "tile", "%s", text);
            ks_view_text(v, KS_VGROUP_KERNEL, "shape", "%s", ks_matmul_rt_get(rt.config)->name);
        }
    } else {
        ks_view_text(v, KS_VGROUP_KERNEL, "kernel", "CPU gold (i-k-j loops, OpenMP)");
    }
    ks_timing_stats t;
    ks_timing_window_stats(&s->times, &t); /* zeroes t while empty */
    const double ms = t.median_ms, flops = ks_matmul_flops(z);
    if (ms > 0) {
        const double gf = flops / (ms * 1e6);
        ks_view_num(v, KS_VGROUP_KERNEL, "time", ms, "ms", KS_VFMT_F3);
        ks_view_num(v, KS_VGROUP_KERNEL, "runs", t.n, "", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "throughput", gf, "GFLOP/s", KS_VFMT_G4);
        if (s->gpu && s->cublas_ms > 0) {
            ks_view_num(v, KS_VGROUP_KERNEL, "of cuBLAS", s->cublas_ms / ms, "", KS_VFMT_PCT);
            ks_view_num(v, KS_VGROUP_KERNEL, "cuBLAS time", s->cublas_ms, "ms", KS_VFMT_F3);
        }
        if (s->gpu && s->peak_gflops > 0) {
            ks_view_num(v, KS_VGROUP_KERNEL, "of FP32 peak", gf / s->peak_gflops, "", KS_VFMT_PCT);
            ks_view_num(v, KS_VGROUP_KERNEL, "FP32 peak (FMA kernel)", s->peak_gflops, "GFLOP/s", KS_VFMT_INT);
        }
    }
    /* a user's kernel: the least any kernel moves (A, B and C once each); its own traffic is unknown */
    const double least_bytes = 4.0 * ((double)z->m * z->k + (double)z->k * z->n + (double)z->m * z->n);
    if (s->gpu && mm_active(s) >= 0) {
        ks_view_num(v, KS_VGROUP_KERNEL, "DRAM bytes (least possible)", least_bytes, "B", KS_VFMT_G4);
        if (ms > 0) ks_view_num(v, KS_VGROUP_KERNEL, "DRAM rate (least)", least_bytes / (ms * 1e6), "GB/s", KS_VFMT_INT);
    } else if (s->gpu) {
        const double bytes = ks_matmul_model_bytes(s->variant, mm_block_tile(s), z);
        ks_view_num(v, KS_VGROUP_KERNEL, "DRAM bytes (model count)", bytes, "B", KS_VFMT_G4);
        if (ms > 0) ks_view_num(v, KS_VGROUP_KERNEL, "DRAM rate (model)", bytes / (ms * 1e6), "GB/s", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "intensity (model)", flops / bytes, "flop/B", KS_VFMT_F2);
    }
    /* Roofline, one launch: 2MNK flops; bytes from the variant's traffic model
     * (CPU: A, B and C once each, the least any order can move). */
    char rname[24];
    if (s->gpu && mm_active(s) < 0 && s->variant == KS_MATMUL_TILED) snprintf(rname, sizeof rname, "tiled %d", s->tile);
    else snprintf(rname, sizeof rname, "%.23s", mm_variant_name(s));
    const double rbytes = s->gpu && mm_active(s) < 0 ? ks_matmul_model_bytes(s->variant, mm_block_tile(s), z) : least_bytes;
    if (ms > 0) ks_roof_log_put(&s->roof, rname, flops, rbytes, ms);
    ks_view_roof(v, &s->roof, rname, "one multiply", s->t_peak_gbs, s->gpu ? s->peak_gflops : 0.0);
    if (s->notice[0]) {
        snprintf(v->message, sizeof v->message, "%s", s->notice);
        v->message_kind = KS_VMSG_NOTICE; /* a hint (an option ignored, a variant skipped), not a failure */
    }
    v->colorbar.on = 1;
    v->colorbar.cmap = s->opt->colormap;
    v->colorbar.lo = s->lo;
    v->colorbar.hi = s->hi;
    snprintf(v->colorbar.label, sizeof v->colorbar.label, "C[i][j]");
    if (s->pic != KS_MATMUL_PIC_VALUE) tiles_view(s, v);
    ks_variant_set_view(s->set, v);
    hover(s, v->hover, sizeof v->hover);
}

