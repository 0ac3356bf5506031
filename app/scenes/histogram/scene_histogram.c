/* The histogram scene: the input is counted in chunks, one chunk
 * per frame, so the bars grow while the kernel runs over the input. When the
 * whole input has been counted, the full histogram stays for KS_HS_HOLD
 * frames, then the counts are cleared and the pass starts over.
 * Keys: Tab next variant (shift: previous), L log scale, R restart the pass,
 * + / - double / halve the chunk. Picture: bars drawn by a small kernel
 * (CUDA) or from the gold's counts (CPU backend), under labels made on the host
 * from the counts (a count axis, the bytes below, the tallest bytes named). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/common/ks_util.h"
#include "kernels/common/timing_window.h"
#include "kernels/histogram/histogram.h"
#include "render/image_io.h"
#include "app/scenes/histogram/histogram_options.h"
#include "app/scene.h"

enum {
    KS_HS_HOLD = 60,        /* frames the finished histogram stays */
    KS_HS_PASS_FRAMES = 240 /* default chunk: the input in about this many frames */
};

typedef struct hist_scene {
    int use_cuda;
    double t_peak_gbs;
    double fma_gflops;
    int w, h;
    unsigned char *data; /* host copy of the input */
    size_t n;
    const char *source;  /* file name or "generated text" */
    unsigned long long seed;
    ks_hist_mode mode;
    unsigned bins;
    int variant;         /* ks_hist_variant index (CPU: the gold) */
    size_t chunk, pos;   /* bytes per frame; next byte to count */
    int hold;            /* frames left showing the finished pass */
    long long passes;
    int log_scale;
    double items_per_byte;
    uint64_t *counts;    /* the counts so far (CPU backend); GPU: the copy the labels are made from */
    unsigned char *mask; /* the labels, w*h (ks_hist_axes_make) */
    ks_hist_axes axes;   /* the last picture's layout */
    int probe_valid, probe_a, probe_b;
    ks_hist_gpu *gpu;
    double cub_ms;       /* cub on one chunk, measured at start (0: none) */
    ks_timing_window win[KS_HIST_VARIANT_NUM]; /* chunk times per variant, for the medians */
    const char *dump_path;
    char notice[256];
} hist_scene;

static void destroy(void *self)
{
    hist_scene *s = self;
    if (!s) return;
    ks_hist_gpu_destroy(s->gpu);
    free(s->data);
    free(s->counts);
    free(s->mask);
    free(s);
}

static size_t even_up(size_t v, size_t to)
{
    return (v + to - 1) / to * to;
}

static ks_status restart(hist_scene *s)
{
    s->pos = 0;
    s->hold = 0;
    if (s->gpu) return ks_hist_gpu_fill(s->gpu, 0);
    memset(s->counts, 0, sizeof(uint64_t) * s->bins);
    return KS_OK;
}

static ks_status setup(hist_scene *s, const ks_scene_env *env)
{
    const ks_options *opt = env->opt;
    if (KS_HIST_OPTS(opt)->input) {
        const ks_status st = ks_hist_load_file(KS_HIST_OPTS(opt)->input, &s->data, &s->n);
        if (st != KS_OK) {
            ks_error_prefix("--input");
            return st;
        }
        s->source = KS_HIST_OPTS(opt)->input;
    } else {
        s->n = (size_t)KS_HIST_OPTS(opt)->sizes[0];
        s->data = malloc(s->n);
        if (!s->data) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no memory for %zu bytes", s->n);
        ks_hist_generate(KS_HIST_IN_TEXT, s->seed, s->data, s->n);
        s->source = "generated text";
    }
    s->counts = calloc(s->bins, sizeof(uint64_t));
    if (!s->counts) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory");
    if (s->mode == KS_HIST_WORDS) {
        ks_hist_gold(s->data, s->n, 0, s->n, s->mode, s->bins, s->counts);
        uint64_t words = 0;
        for (unsigned b = 0; b < s->bins; ++b) words += s->counts[b];
        s->items_per_byte = (double)words / (double)s->n;
        memset(s->counts, 0, sizeof(uint64_t) * s->bins);
    } else {
        s->items_per_byte = s->mode == KS_HIST_PAIRS ? 0.5 : 1.0;
    }
    s->chunk = even_up(s->n / KS_HS_PASS_FRAMES + 1, 16);
    if (s->use_cuda) {
        const ks_hist_gpu_desc gd = {.data = s->data, .n = s->n, .mode = s->mode, .bins = s->bins};
        KS_TRY(ks_hist_gpu_create(&gd, &s->gpu));
        const int cub = ks_hist_variant_find("cub");
        if (s->mode != KS_HIST_WORDS) {
            double t[5];
            const size_t end = s->chunk < s->n ? s->chunk : s->n;
            for (int r = 0; r < 5; ++r) KS_TRY(ks_hist_gpu_chunk(s->gpu, cub, 0, end, &t[r]));
            s->cub_ms = ks_median_sort(t, 5);
        }
        KS_TRY(ks_hist_gpu_fill(s->gpu, 0));
        s->variant = ks_hist_variant_find("warp");
        if (opt->kernel_count) {
            s->variant = ks_hist_variant_find(opt->kernels[0]);
            if (s->variant < 0)
                return ks_fail(KS_ERR_INVALID, "--kernel: unknown histogram variant '%s' (global, strided, "
                               "shared, warp, cub)", opt->kernels[0]);
            if (s->variant == cub && s->mode == KS_HIST_WORDS)
                return ks_fail(KS_ERR_INVALID, "--kernel cub: cub counts samples, not words (no cub with --words)");
        }
    }
    return KS_OK;
}

static ks_status create(const ks_scene_env *env, void **self)
{
    *self = NULL;
    const ks_options *opt = env->opt;
    hist_scene *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: out of host memory");
    s->use_cuda = env->use_cuda;
    s->t_peak_gbs = env->t_peak_gbs;
    s->fma_gflops = env->fma_gflops;
    s->w = opt->width > 0 ? opt->width : 1280;
    s->h = opt->height > 0 ? opt->height : 800;
    if (s->w > 16383) s->w = 16383;
    s->seed = opt->seed;
    s->mode = KS_HIST_OPTS(opt)->words ? KS_HIST_WORDS : KS_HIST_OPTS(opt)->bins ? KS_HIST_PAIRS : KS_HIST_BYTES;
    s->bins = s->mode == KS_HIST_BYTES ? 256u
              : KS_HIST_OPTS(opt)->bins            ? (unsigned)KS_HIST_OPTS(opt)->bins
                                     : (unsigned)KS_HIST_WORD_BINS_DEFAULT;
    s->dump_path = opt->dump_field;
    s->mask = malloc((size_t)s->w * s->h);
    ks_status st = s->mask ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory for the labels");
    if (st == KS_OK) st = setup(s, env);
    if (st != KS_OK) {
        destroy(s);
        return st;
    }
    *self = s;
    return KS_OK;
}

static void *stream(void *self)
{
    hist_scene *s = self;
    return s->gpu ? ks_hist_gpu_stream(s->gpu) : NULL;
}

static void max_image_size(void *self, int *w, int *h)
{
    hist_scene *s = self;
    *w = s->w;
    *h = s->h;
}

static ks_status compute(void *self, ks_frame_ctx *ctx)
{
    hist_scene *s = self;
    if (ctx && !ctx->step) return KS_OK;
    if (s->pos >= s->n) {
        if (s->hold > 0) {
            --s->hold;
            return KS_OK;
        }
        ++s->passes;
        KS_TRY(restart(s));
    }
    const size_t end = s->n - s->pos < s->chunk ? s->n : s->pos + s->chunk;
    const int stage = ctx && ctx->timer ? ks_stage_timer_solver_stage(ctx->timer, "histogram") : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    double ms = 0.0;
    if (s->gpu) {
        KS_TRY(ks_hist_gpu_chunk(s->gpu, s->variant, s->pos, end, &ms));
        ks_timing_window_push(&s->win[s->variant], ms, (double)(end - s->pos));
    } else {
        const double t0 = (ks_now_seconds() * 1e3);
        ks_hist_gold(s->data, s->n, s->pos, end, s->mode, s->bins, s->counts);
        ks_timing_window_push(&s->win[0], (ks_now_seconds() * 1e3) - t0, (double)(end - s->pos));
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    s->pos = end;
    if (s->pos >= s->n) s->hold = KS_HS_HOLD;
    return KS_OK;
}

static ks_status draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    hist_scene *s = self;
    *w = s->w;
    *h = s->h;
    if (ctx) {
        s->probe_valid = ctx->probe_valid;
        s->probe_a = ctx->probe_a;
        s->probe_b = ctx->probe_b;
    }
    /* the labels come from the counts on the host (GPU: a copy of bins counts) */
    if (s->gpu) KS_TRY(ks_hist_gpu_counts(s->gpu, s->counts));
    ks_hist_axes_make(s->counts, s->bins, s->mode, s->log_scale, s->w, s->h, &s->axes, s->mask);
    if (s->gpu) return ks_hist_gpu_draw(s->gpu, s->log_scale, &s->axes, s->mask, rgba, s->w, s->h);
    ks_hist_draw_bars_cpu(s->counts, s->bins, s->log_scale, &s->axes, s->mask, rgba, s->w, s->h);
    return KS_OK;
}

static ks_status key(void *self, const ks_key_event *ev, int *handled)
{
    hist_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case KS_KEY_TAB: {
        if (!s->gpu) return ks_fail(KS_ERR_UNSUPPORTED, "cpu backend: the gold has no variants");
        int v = s->variant;
        for (int k = 0; k < KS_HIST_VARIANT_NUM; ++k) {
            v = (v + (ev->shift ? KS_HIST_VARIANT_NUM - 1 : 1)) % KS_HIST_VARIANT_NUM;
            if (s->mode != KS_HIST_WORDS || ks_hist_variant_get(v)->words) break;
            snprintf(s->notice, sizeof s->notice, "cub skipped: it counts samples, not words");
        }
        s->variant = v;
        return KS_OK;
    }
    case 'L': s->log_scale = !s->log_scale; return KS_OK;
    case 'R': return restart(s);
    case KS_KEY_PLUS:
        if (s->chunk * 2 > s->n) return ks_fail(KS_ERR_UNSUPPORTED, "the chunk is already the whole input");
        s->chunk *= 2;
        return KS_OK;
    case KS_KEY_MINUS:
        if (s->chunk <= 4096) return ks_fail(KS_ERR_UNSUPPORTED, "4 KiB is the smallest chunk");
        s->chunk = even_up(s->chunk / 2, 16);
        return KS_OK;
    default: *handled = 0; return KS_OK;
    }
}

/* Hover: the bin(s) under the cursor, named as on the axis, and their count. */
static void hover(const hist_scene *s, char *buf, size_t len)
{
    const ks_hist_axes *ax = &s->axes;
    const int px = s->probe_a - ax->x0;
    if (!s->probe_valid || ax->pw < 1 || px < 0 || px >= ax->pw || s->probe_b < 0 || s->probe_b >= s->h) return;
    const int col = px / ax->cw;
    const unsigned b0 = (unsigned)((uint64_t)col * s->bins / (unsigned)ax->cols);
    unsigned b1 = (unsigned)((uint64_t)(col + 1) * s->bins / (unsigned)ax->cols);
    if (b1 <= b0) b1 = b0 + 1;
    uint64_t c = 0;
    for (unsigned b = b0; b < b1; ++b) c += s->counts[b];
    char name[32], last[32];
    ks_hist_bin_label(s->mode, s->bins, b0, name, sizeof name);
    if (b1 - b0 == 1) {
        snprintf(buf, len, "%s %s: %llu", s->mode == KS_HIST_BYTES ? "byte" : "bin", name, (unsigned long long)c);
    } else {
        ks_hist_bin_label(s->mode, s->bins, b1 - 1, last, sizeof last);
        snprintf(buf, len, "bins %s .. %s: %llu", name, last, (unsigned long long)c);
    }
}

static void view(void *self, ks_view *v)
{
    hist_scene *s = self;
    hover(s, v->hover, sizeof v->hover);
    const ks_hist_variant *var = s->gpu ? ks_hist_variant_get(s->variant) : NULL;
    snprintf(v->scene, sizeof v->scene, "histogram");
    snprintf(v->image_name, sizeof v->image_name, "histogram_%s", var ? var->name : "cpu");
    ks_vcontrol *c;
    if (s->gpu) {
        c = ks_view_control(v, "kernel", 0, KS_KEY_TAB);
        if (c) {
            /* Tab order from the current variant round to it again */
            for (int i = 0; i < KS_HIST_VARIANT_NUM && c->nchoices < KS_VIEW_CHOICES; ++i)
                snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s",
                         ks_hist_variant_get((s->variant + i) % KS_HIST_VARIANT_NUM)->name);
            snprintf(c->value, sizeof c->value, "%s", var->name);
        }
    }
    c = ks_view_control(v, "chunk", KS_KEY_MINUS, KS_KEY_PLUS);
    if (c) snprintf(c->value, sizeof c->value, "%zu B", s->chunk);
    ks_view_toggle(v, "scale", 'L', s->log_scale ? "log" : "linear", s->log_scale ? "linear" : "log");
    ks_view_text(v, KS_VGROUP_SCENE, "mode", "%s", ks_hist_mode_name(s->mode));
    ks_view_text(v, KS_VGROUP_SCENE, "input", "%s", s->source);
    ks_view_num(v, KS_VGROUP_SCENE, "bytes", (double)s->n, "B", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, "bins", s->bins, "", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, "seed", (double)s->seed, "", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, "pass", (double)(s->passes + 1), "", KS_VFMT_INT);
    ks_view_num(v, KS_VGROUP_SCENE, "counted", (double)s->pos / (double)s->n, "", KS_VFMT_PCT);
    if (var) {
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", var->name);
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "%s", var->summary);
    } else {
        ks_view_text(v, KS_VGROUP_KERNEL, "counter", "CPU gold");
    }
    ks_timing_stats t;
    const int col = s->gpu ? s->variant : 0;
    if (ks_timing_window_stats(&s->win[col], &t)) {
        const double ms = t.median_ms, gbs = t.median_gbs;
        ks_view_num(v, KS_VGROUP_KERNEL, "chunk time", ms, "ms", KS_VFMT_F4);
        ks_view_num(v, KS_VGROUP_KERNEL, "read", gbs, "GB/s", KS_VFMT_F1);
        if (s->t_peak_gbs > 0) {
            ks_view_num(v, KS_VGROUP_KERNEL, "read/T_peak", gbs / s->t_peak_gbs, "x", KS_VFMT_F2);
            ks_view_num(v, KS_VGROUP_KERNEL, "T_peak", s->t_peak_gbs, "GB/s", KS_VFMT_INT);
        }
        if (s->cub_ms > 0 && ms > 0) {
            ks_view_num(v, KS_VGROUP_KERNEL, "of cub", s->cub_ms / ms, "", KS_VFMT_PCT);
            ks_view_num(v, KS_VGROUP_KERNEL, "cub chunk time", s->cub_ms, "ms", KS_VFMT_F4);
        }
    }
    /* Roofline, one chunk: the bytes read (no flops: the points sit at the
     * left edge, at their read rate); every variant timed so far. */
    ks_roof_log roof = {0};
    for (int i = 0; i < (s->gpu ? KS_HIST_VARIANT_NUM : 1); ++i) {
        ks_timing_stats r;
        if (ks_timing_window_stats(&s->win[i], &r))
            ks_roof_log_put(&roof, s->gpu ? ks_hist_variant_get(i)->name : "cpu", 0.0, r.median_gbs * r.median_ms * 1e6,
                            r.median_ms);
    }
    ks_view_roof(v, &roof, var ? var->name : "cpu", "one chunk", s->t_peak_gbs, s->gpu ? s->fma_gflops : 0.0);
    if (s->gpu) {
        double g, sh;
        ks_hist_atomics_model(ks_hist_gpu_ctx(s->gpu), s->variant, ks_hist_gpu_input(s->gpu), s->chunk,
                              s->items_per_byte, &g, &sh);
        if (g >= 0) {
            ks_view_num(v, KS_VGROUP_KERNEL, "global atomics/byte (model)", g, "", KS_VFMT_G4);
            ks_view_num(v, KS_VGROUP_KERNEL, strcmp(var->name, "warp") == 0 ? "shared atomics/byte (model, at most)"
                                                                              : "shared atomics/byte (model)",
                        sh, "", KS_VFMT_G4);
        } else {
            ks_view_text(v, KS_VGROUP_KERNEL, "atomics/byte", "not modelled (CUB's own)");
        }
    }
    if (s->notice[0]) {
        snprintf(v->message, sizeof v->message, "%s", s->notice);
        v->message_kind = KS_VMSG_NOTICE; /* a hint (an option ignored, a variant skipped), not a failure */
    }
}

/* The counts as .npy, shape (bins,): uint32 while the total fits, else int64. */
static ks_status write_counts(const char *path, const uint64_t *counts, unsigned bins, uint64_t total)
{
    const size_t shape[1] = {bins};
    if (total > UINT32_MAX) return ks_npy_write(path, KS_NPY_I64, counts, 1, shape);
    uint32_t *narrow = malloc(bins * sizeof *narrow);
    if (!narrow) return ks_fail(KS_ERR_OUT_OF_MEMORY, "no host memory");
    for (unsigned b = 0; b < bins; ++b) narrow[b] = (uint32_t)counts[b];
    const ks_status st = ks_npy_write(path, KS_NPY_U32, narrow, 1, shape);
    free(narrow);
    return st;
}

static ks_status finish(void *self)
{
    hist_scene *s = self;
    if (!s->dump_path) return KS_OK;
    /* The whole input, however much of it the frames counted. */
    uint64_t *all = calloc(s->bins, sizeof(uint64_t));
    if (!all) return ks_fail(KS_ERR_OUT_OF_MEMORY, "--dump-field: no host memory");
    ks_status st = KS_OK;
    if (s->gpu) {
        st = ks_hist_gpu_whole(s->gpu, ks_hist_variant_find("warp"));
        if (st == KS_OK) st = ks_hist_gpu_counts(s->gpu, all);
        s->pos = s->n; /* the live counts were replaced */
    } else {
        ks_hist_gold(s->data, s->n, 0, s->n, s->mode, s->bins, all);
    }
    if (st == KS_OK) {
        st = write_counts(s->dump_path, all, s->bins, s->n);
        if (st != KS_OK) ks_error_prefix("--dump-field");
    }
    free(all);
    return st;
}

const ks_scene_api ks_scene_histogram_api = {
    .name = "histogram",
    .help = "Tab / shift+Tab: next / previous variant (global, strided, shared, warp, cub)\n"
            "L: log scale on / off\n"
            "+ / -: double / halve the bytes counted per frame\n"
            "R: clear the counts and start the pass again\n"
            "hover: the byte (bin) under the cursor and its count",
    .create = create,
    .destroy = destroy,
    .stream = stream,
    .max_image_size = max_image_size,
    .compute = compute,
    .draw = draw,
    .key = key,
    .view = view,
    .finish = finish,
};
