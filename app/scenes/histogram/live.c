/* The histogram scene: the input is counted in chunks, one chunk
 * per frame, so the bars grow while the kernel runs over the input. When the
 * whole input has been counted, the full histogram stays for KS_HS_HOLD
 * frames, then the counts are cleared and the pass starts over.
 * Keys: Tab next variant (shift: previous), L log scale, R restart the pass,
 * + / - double / halve the chunk. Picture: bars drawn by a small kernel
 * (CUDA) or from the gold's counts (CPU backend), under labels made on the host
 * from the counts (a count axis, the bytes below, the tallest bytes named).
 * Users' kernels (--kernel-file) are variants after ours: checked in the
 * checker process before they run, reloaded on save (its variant set,
 * app/kernel/variant_set.h, with the contract of check.c); [ ] change their block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/scene_peak.h"
#include "app/kernel/variant_set.h"
#include "base/ks_util.h"
#include "base/timing_window.h"
#include "kernels/histogram/histogram.h"
#include "kernels/histogram/histogram_user.h"
#include "render/image_io.h"
#include "app/scenes/histogram/check.h"
#include "app/scenes/histogram/live.h"
#include "app/scenes/histogram/options.h"
#include "app/scene.h"
#include "app/scenes.h"

enum {
    KS_HS_HOLD = 60,        /* frames the finished histogram stays */
    KS_HS_PASS_FRAMES = 240 /* default chunk: the input in about this many frames */
};

typedef struct hist_scene {
    const char *name;    /* the row's */
    int use_cuda;
    double t_peak_gbs;
    const ks_scene_env *env;  /* T_peak's verdict (app/scene_peak.h) */
    double fma_gflops;
    int w, h;
    unsigned char *data; /* host copy of the input */
    size_t n;
    const char *source;  /* file name or "generated text" */
    unsigned long long seed;
    ks_hist_mode mode;
    unsigned bins;
    int variant;         /* ours that runs when no file does: ks_hist_variant index (CPU: the gold) */
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
    /* chunk times per variant, for the medians: ours, then the kernel files */
    ks_timing_window win[KS_HIST_VARIANT_NUM + KS_USER_FILES_MAX];
    const ks_options *opt;
    /* ours, then the users' kernels (--kernel-file), and D: |yours - cub| by bin from each file's check */
    ks_variant_set *set;
    const char *our_names[KS_HIST_VARIANT_NUM];
    int block[3];             /* the users' kernels' block: --block, [ ] */
    const char *dump_path;
    char notice[256];
    uint64_t diff_counts[256]; /* the bars of the picture last drawn of D */
} hist_scene;

static void destroy(void *self)
{
    hist_scene *s = self;
    if (!s) return;
    ks_variant_set_destroy(s->set); /* first: its worker may be inside a check */
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

/* Blocks [ ] cycle a user's kernel through. */
static const int ks_hs_user_blocks[][3] = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
enum { KS_HS_USER_BLOCKS = (int)(sizeof ks_hs_user_blocks / sizeof ks_hs_user_blocks[0]) };

/* The file that runs, -1: one of ours (variant). */
static int active(const hist_scene *s) { return s->gpu ? ks_variant_set_file(s->set) : -1; }

static const char *variant_name(const hist_scene *s) { return s->gpu ? ks_variant_set_name(s->set) : "cpu"; }

/* The timing window of the variant that runs. */
static int win_index(const hist_scene *s)
{
    return !s->gpu ? 0 : active(s) >= 0 ? KS_HIST_VARIANT_NUM + active(s) : s->variant;
}

/* That window (the variant set's desc.times). */
static ks_timing_window *times(void *scene)
{
    hist_scene *s = scene;
    return &s->win[win_index(s)];
}

static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba);

/* Ours and the --kernel-file files: every file built and checked (on the input's size and the block
 * it runs with) before the first frame; the first of them runs unless --kernel names another variant. */
static ks_status variant_set(hist_scene *s, const ks_scene_env *env)
{
    if (s->use_cuda && KS_HIST_OPTS(s->opt)->kernel_files.count && s->mode != KS_HIST_BYTES)
        return ks_fail(KS_ERR_INVALID, "--kernel-file: your kernels count bytes; not with --bins or --words");
    for (int v = 0; v < KS_HIST_VARIANT_NUM; ++v) s->our_names[v] = ks_hist_variant_get(v)->name;
    ks_variant_set_desc d = {
        .contract = &ks_hist_contract, .scene = s, .times = times, .opt = s->opt, .use_cuda = s->use_cuda,
        .device = env->device, .ours = KS_HIST_VARIANT_NUM, .our_names = s->our_names, .first = s->variant,
        .block = {s->block[0], s->block[1], s->block[2]}, .watch = 1,
        .diff = KS_USER_DIFF_WHOLE, .diff_cells = {256, 1}, /* the difference by byte */
        .diff_reference = "cub", .diff_cells_name = "bins",
        .diff_how = "the bars: |yours - cub| by byte, from the check's first run of the live size",
        .draw_diff = draw_diff_picture,
    };
    ks_hist_check_grid(s->n, d.grid);
    return ks_variant_set_create(&d, &s->set);
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
        if (opt->kernel_count && ks_hist_kernel_file_named(opt, opt->kernels[0])) {
            /* a --kernel-file's name: the variant set picks it */
        } else if (opt->kernel_count) {
            s->variant = ks_hist_variant_find(opt->kernels[0]);
            if (s->variant < 0)
                return ks_fail(KS_ERR_INVALID, "--kernel: unknown histogram variant '%s' (global, strided, "
                               "shared, warp, cub)", opt->kernels[0]);
            if (s->variant == cub && s->mode == KS_HIST_WORDS)
                return ks_fail(KS_ERR_INVALID, "--kernel cub: cub counts samples, not words (no cub with --words)");
        }
    }
    return variant_set(s, env);
}

static ks_status create(const ks_scene_env *env, void **self)
{
    *self = NULL;
    const ks_options *opt = env->opt;
    hist_scene *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: out of host memory");
    s->use_cuda = env->use_cuda;
    s->t_peak_gbs = env->t_peak_gbs;
    s->env = env;
    s->fma_gflops = env->fma_gflops;
    s->w = opt->width > 0 ? opt->width : 1280;
    s->h = opt->height > 0 ? opt->height : 800;
    if (s->w > 16383) s->w = 16383;
    s->seed = opt->seed;
    s->opt = opt;
    s->name = opt->scene->name;
    s->block[0] = opt->block_count ? opt->blocks[0][0] : KS_HIST_USER_BLOCK;
    s->block[1] = s->block[2] = 1;
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
    ks_variant_set_poll(s->set, s->block, NULL); /* builds that finished, and the block the user's kernel runs at */
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
    const int stage = ctx && ctx->timer ? ks_stage_timer_solver_stage(ctx->timer, s->opt->scene->solver_stage) : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    double ms = 0.0;
    if (s->gpu && active(s) >= 0) {
        KS_TRY(ks_hist_gpu_chunk_user(s->gpu, ks_variant_set_code(s->set), ks_variant_set_run_block(s->set), s->pos,
                                      end, &ms));
        ks_timing_window_push(&s->win[win_index(s)], ms, (double)(end - s->pos));
    } else if (s->gpu) {
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

/* D: the picture of an answer's difference (the variant set's draw_diff); its layout stays the
 * scene's for the hover while the view is on. */
static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba)
{
    hist_scene *s = user;
    (void)max, (void)w, (void)h; /* the bars have their own axis; the picture is the scene's size */
    for (int b = 0; b < 256; ++b) s->diff_counts[b] = b < d->w * d->h ? (uint64_t)d->values[b] : 0;
    ks_hist_axes_make(s->diff_counts, 256, KS_HIST_BYTES, 0, s->w, s->h, &s->axes, s->mask);
    ks_hist_draw_bars_cpu(s->diff_counts, 256, 0, &s->axes, s->mask, rgba, s->w, s->h);
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
    if (ks_variant_set_diff_shown(s->set)) /* D: the bars of |yours - cub|, by byte, on a linear axis */
        return ks_variant_set_diff_picture(s->set, s->w, s->h, s->gpu != NULL, s->gpu ? ks_hist_gpu_stream(s->gpu) : NULL,
                                           rgba);
    /* the labels come from the counts on the host (GPU: a copy of bins counts) */
    if (s->gpu) KS_TRY(ks_hist_gpu_counts(s->gpu, s->counts));
    ks_hist_axes_make(s->counts, s->bins, s->mode, s->log_scale, s->w, s->h, &s->axes, s->mask);
    if (s->gpu) return ks_hist_gpu_draw(s->gpu, s->log_scale, &s->axes, s->mask, rgba, s->w, s->h);
    ks_hist_draw_bars_cpu(s->counts, s->bins, s->log_scale, &s->axes, s->mask, rgba, s->w, s->h);
    return KS_OK;
}

/* Tab in word mode passes over ours that count samples, not words (cub). */
static int no_words(void *user, int variant)
{
    const hist_scene *s = user;
    return s->mode == KS_HIST_WORDS && !ks_hist_variant_get(variant)->words;
}

static ks_status key(void *self, const ks_key_event *ev, int *handled)
{
    hist_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case 'D':
        (void)ks_variant_set_diff_key(s->set, s->notice, sizeof s->notice);
        return KS_OK;
    case KS_KEY_TAB: {
        if (!s->gpu) return ks_fail(KS_ERR_UNSUPPORTED, "cpu backend: the gold has no variants");
        int skipped = 0;
        ks_variant_set_select(s->set, ks_variant_set_next(s->set, ev->shift ? -1 : 1, no_words, s, &skipped));
        if (skipped) snprintf(s->notice, sizeof s->notice, "cub skipped: it counts samples, not words");
        if (ks_variant_set_ours(s->set) >= 0) s->variant = ks_variant_set_ours(s->set);
        return KS_OK;
    }
    case KS_KEY_LEFT_BRACKET:
    case KS_KEY_RIGHT_BRACKET: {
        if (!s->gpu || active(s) < 0)
            return ks_fail(KS_ERR_UNSUPPORTED, "[ ] change the block of your kernels only (--kernel-file; Tab to one)");
        /* the next block that the compiled kernel can take; it runs at the new one once the check passed there */
        return ks_variant_set_next_block(s->set, ks_hs_user_blocks, KS_HS_USER_BLOCKS,
                                         ev->key == KS_KEY_RIGHT_BRACKET ? 1 : -1, s->block);
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
    const int shown = ks_variant_set_diff_shown(s->set) != NULL;
    const uint64_t *of = shown ? s->diff_counts : s->counts; /* D: the difference's bars */
    uint64_t c = 0;
    for (unsigned b = b0; b < b1; ++b) c += of[b];
    char name[32], last[32];
    ks_hist_bin_label(s->mode, s->bins, b0, name, sizeof name);
    if (b1 - b0 == 1) {
        snprintf(buf, len, "%s %s: %s%llu", s->mode == KS_HIST_BYTES ? "byte" : "bin", name,
                 shown ? "|yours - cub| = " : "", (unsigned long long)c);
    } else {
        ks_hist_bin_label(s->mode, s->bins, b1 - 1, last, sizeof last);
        snprintf(buf, len, "bins %s .. %s: %s%llu", name, last, shown ? "|yours - cub| = " : "", (unsigned long long)c);
    }
}

static void view(void *self, ks_view *v)
{
    hist_scene *s = self;
    hover(s, v->hover, sizeof v->hover);
    const ks_hist_variant *var = s->gpu && active(s) < 0 ? ks_hist_variant_get(s->variant) : NULL;
    snprintf(v->scene, sizeof v->scene, "%s", s->name);
    snprintf(v->image_name, sizeof v->image_name, "%s_%.40s", s->name, variant_name(s));
    ks_vcontrol *c;
    if (s->gpu) {
        c = ks_view_control(v, "kernel", 0, KS_KEY_TAB);
        if (c) ks_variant_set_choices(s->set, c);
        if (active(s) >= 0) {
            c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
            if (c) snprintf(c->value, sizeof c->value, "%dx1", ks_variant_set_run_block(s->set)[0]);
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
    if (s->gpu && active(s) >= 0) {
        ks_user_code_attrs a;
        ks_user_code_get_attrs(ks_variant_set_code(s->set), &a);
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", variant_name(s));
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "your kernel (--kernel-file)");
        ks_view_text(v, KS_VGROUP_KERNEL, "block", "%dx1, %d byte%s a thread", ks_variant_set_run_block(s->set)[0],
                     a.per_thread[0], a.per_thread[0] == 1 ? "" : "s");
        ks_view_num(v, KS_VGROUP_KERNEL, "registers / thread", a.registers, "", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "static shared / block", a.static_smem, "B", KS_VFMT_INT);
    } else if (var) {
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", var->name);
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "%s", var->summary);
        if (s->gpu && s->mode == KS_HIST_BYTES && strcmp(var->name, "warp") == 0) {
            char chosen[128]; /* the byte kernel timed fastest on this input at start */
            ks_hist_choice_text(ks_hist_gpu_ctx(s->gpu), chosen, sizeof chosen);
            ks_view_text(v, KS_VGROUP_KERNEL, "byte kernel", "%s", chosen);
        }
    } else {
        ks_view_text(v, KS_VGROUP_KERNEL, "counter", "CPU gold");
    }
    ks_timing_stats t;
    if (ks_timing_window_stats(&s->win[win_index(s)], &t)) {
        const double ms = t.median_ms, gbs = t.median_gbs;
        ks_view_num(v, KS_VGROUP_KERNEL, "chunk time", ms, "ms", KS_VFMT_F4);
        ks_view_num(v, KS_VGROUP_KERNEL, "read", gbs, "GB/s", KS_VFMT_F1);
        ks_scene_peak_ratio(v, s->env, KS_VGROUP_KERNEL, "read/T_peak", gbs);
        ks_scene_peak_rows(v, s->env, KS_VGROUP_KERNEL, "T_peak");
        if (s->cub_ms > 0 && ms > 0) {
            ks_view_num(v, KS_VGROUP_KERNEL, "of cub", s->cub_ms / ms, "", KS_VFMT_PCT);
            ks_view_num(v, KS_VGROUP_KERNEL, "cub chunk time", s->cub_ms, "ms", KS_VFMT_F4);
        }
    }
    /* Roofline, one chunk: the bytes read (no flops: the points sit at the
     * left edge, at their read rate); every variant timed so far. */
    ks_roof_log roof = {0};
    for (int i = 0; i < (s->gpu ? ks_variant_set_count(s->set) : 1); ++i) {
        ks_timing_stats r;
        const char *name = s->gpu ? ks_variant_set_name_at(s->set, i) : "cpu";
        if (ks_timing_window_stats(&s->win[i], &r))
            ks_roof_log_put(&roof, name, 0.0, r.median_gbs * r.median_ms * 1e6, r.median_ms);
    }
    ks_view_roof(v, &roof, variant_name(s), "one chunk", s->t_peak_gbs, s->gpu ? s->fma_gflops : 0.0);
    if (var) {
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
    ks_variant_set_view(s->set, v);
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

/* Its users' kernels: the page's editor (--edit), a build that waits for a frame (app/scene.h). */
static ks_variant_set *variant_set_of(void *self)
{
    hist_scene *s = self;
    return s->set;
}

/* The Hardware panel: the next chunk, counted by what runs, as the next frame would (a pass that
 * has ended waits for the next one to start). */
static ks_status counters_launch(void *self, void *stream)
{
    (void)stream; /* the context's own */
    hist_scene *s = self;
    const size_t end = s->n - s->pos < s->chunk ? s->n : s->pos + s->chunk;
    double ms = 0.0; /* under replay: not a time to keep */
    if (active(s) >= 0)
        KS_TRY(ks_hist_gpu_chunk_user(s->gpu, ks_variant_set_code(s->set), ks_variant_set_run_block(s->set), s->pos,
                                      end, &ms));
    else
        KS_TRY(ks_hist_gpu_chunk(s->gpu, s->variant, s->pos, end, &ms));
    s->pos = end;
    if (s->pos >= s->n) s->hold = KS_HS_HOLD;
    return KS_OK;
}

static int counters(void *self, ks_scene_counters *out)
{
    hist_scene *s = self;
    if (!s->gpu) return 0;
    if (s->pos >= s->n) {
        snprintf(out->what, sizeof out->what, "the pass has counted the whole input: measuring when the next starts");
        return 0;
    }
    const size_t bytes = s->n - s->pos < s->chunk ? s->n - s->pos : s->chunk;
    const int user = active(s) >= 0;
    const char *name = variant_name(s);
    out->launch = counters_launch;
    out->model_bytes = (double)bytes; /* the model: every input byte read once (the roofline's bytes) */
    /* global and strided read a byte a thread; warp 16 bytes at a time; the others their own way */
    out->load_bytes = user || s->mode != KS_HIST_BYTES ? 0
                      : strcmp(name, "warp") == 0 ? 16
                      : strcmp(name, "global") == 0 || strcmp(name, "strided") == 0 ? 1 : 0;
    snprintf(out->what, sizeof out->what, "one chunk of %zu bytes (%s) counted by %s", bytes,
             ks_hist_mode_name(s->mode), name);
    const int *b = ks_variant_set_run_block(s->set);
    snprintf(out->config, sizeof out->config, "%s block %dx%d chunk %zu mode %d build %p", name, user ? b[0] : 0,
             user ? b[1] : 0, s->chunk, (int)s->mode, user ? (const void *)ks_variant_set_code(s->set) : NULL);
    return 1;
}

const ks_scene_api ks_scene_histogram_api = {
    .help = "Tab / shift+Tab: next / previous variant (global, strided, shared, warp, cub, then your\n"
            "  --kernel-file kernels)\n"
            "[ / ]: your kernel: smaller / larger block\n"
            "L: log scale on / off\n"
            "+ / -: double / halve the bytes counted per frame\n"
            "R: clear the counts and start the pass again\n"
            "D: difference view: |your kernel - cub| by byte (--kernel-file), from its last check\n"
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
    .variant_set = variant_set_of,
    .counters = counters,
};
