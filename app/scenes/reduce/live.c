/* The reduce scene: the course's reduction and scan exercise, live. Each frame
 * the chosen variant sums (or scans) N floats, timed back to back (a short
 * span of runs between two events, so a 30 us kernel is not lost in launch
 * overhead), and checked against the CPU gold when it is chosen. The picture:
 * the input and its partial sums as strips, one per reduction level (sum: the
 * input, the per-block sums, their sums ... down to the total; scan: the input,
 * the block-local scans, the block sums, the final scan).
 * Keys: Tab / shift+Tab next / previous variant, V new input values (seed + 1),
 * [ / ] halve / double the block (variants that take one).
 * Users' sum kernels (--kernel-file) are variants after ours: checked in the
 * checker process before they run, reloaded on save (its variant set,
 * app/kernel/variant_set.h, with the contract of check.c); [ ] change their
 * block, which their check must pass at first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/scene_peak.h"
#include "app/kernel/variant_set.h"
#include "app/scene.h"
#include "app/scenes.h"
#include "app/scenes/reduce/check.h"
#include "app/scenes/reduce/live.h"
#include "app/scenes/reduce/options.h"
#include "base/ks_util.h"
#include "base/timing_window.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_bench.h"
#include "kernels/reduce/reduce_user.h"

enum { KS_RD_SPAN_MS = 2 /* one timed span of back-to-back runs per frame */ };

typedef struct reduce_scene {
    const ks_options *opt;
    const char *name;             /* the row's */
    int use_cuda;
    double t_peak_gbs, fma_gflops;
    const ks_scene_env *env;      /* T_peak's verdict (app/scene_peak.h) */
    int w, h;
    int probe_valid, probe_a, probe_b; /* the cursor over the picture (its pixels, rows from the bottom) */
    ks_reduce_desc desc;          /* n, seed, block, input */
    ks_reduce_variant variant;    /* CPU backend: the op's CPU routine, named "cpu" */
    ks_reduce_op op;              /* the CPU backend's op (Tab flips it) */
    ks_reduce_gpu *gpu;
    float *x;                     /* host input (the gold's) */
    float *gold_scan;             /* the gold scan of x */
    double gold_sum, abs_sum;
    float *levels;                /* host levels (CPU backend, and the check) */
    ks_reduce_levels lv;
    unsigned char lut[256][4];
    /* per variant: ours, the CPU's sum and scan, then the kernel files */
    ks_timing_window win[KS_REDUCE_NUM + 2 + KS_USER_FILES_MAX];
    double last_sum;              /* the last sum computed, or the last scan element */
    char check[200];              /* the variant's check against the gold */
    int checked[KS_REDUCE_NUM];
    ks_roof_log roof;
    char notice[256];
    /* ours, then the users' kernels (--kernel-file) */
    ks_variant_set *set;
    const char *our_names[KS_REDUCE_NUM];
    int block[3];                 /* the users' kernels' block: --block, [ ] */
} reduce_scene;

/* Blocks [ ] cycle a user's kernel through. */
static const int ks_rd_user_blocks[][3] = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
enum { KS_RD_USER_BLOCKS = (int)(sizeof ks_rd_user_blocks / sizeof ks_rd_user_blocks[0]) };

enum { KS_RD_WIN_USER = KS_REDUCE_NUM + 2 /* the first kernel file's timing window */ };

/* The file that runs, -1: one of ours (variant). */
static int active(const reduce_scene *s) { return s->gpu ? ks_variant_set_file(s->set) : -1; }

static const char *variant_name(const reduce_scene *s)
{
    if (s->gpu) return ks_variant_set_name(s->set);
    return s->op == KS_REDUCE_OP_SUM ? "cpu_sum" : "cpu_scan";
}

static ks_reduce_op current_op(const reduce_scene *s)
{
    if (active(s) >= 0) return KS_REDUCE_OP_SUM; /* users' kernels sum */
    return s->gpu ? ks_reduce_variant_get(s->variant)->op : s->op;
}

static void rd_destroy(void *self)
{
    reduce_scene *s = self;
    if (!s) return;
    ks_variant_set_destroy(s->set); /* first: its worker may be inside a check */
    ks_reduce_gpu_destroy(s->gpu);
    free(s->x);
    free(s->gold_scan);
    free(s->levels);
    free(s);
}

/* The input on the host, its gold sum and scan; the device copy refilled. */
static ks_status new_input(reduce_scene *s)
{
    const long long n = s->desc.n;
    ks_reduce_fill(s->desc.input, s->desc.seed, s->x, n);
    s->gold_sum = ks_reduce_gold_sum(s->x, n);
    s->abs_sum = ks_reduce_abs_sum(s->x, n);
    ks_reduce_gold_scan(s->x, s->gold_scan, n);
    memset(s->checked, 0, sizeof s->checked);
    s->check[0] = '\0';
    return s->gpu ? ks_reduce_gpu_fill(s->gpu, s->desc.input, s->desc.seed) : KS_OK;
}

/* The running variant against the gold (once per variant and input): the
 * sum within its stated tolerance, the scan exactly on integer input. */
static ks_status check_variant(reduce_scene *s)
{
    if (!s->gpu || active(s) >= 0 || s->checked[s->variant]) return KS_OK; /* a file: checked in the checker process */
    const int exact = s->desc.input == KS_REDUCE_INPUT_INTEGER;
    ks_status st = ks_reduce_check_variant(s->gpu, s->variant, s->x, s->gold_sum, s->abs_sum, s->gold_scan, exact,
                                           s->levels);
    s->checked[s->variant] = 1;
    if (st != KS_OK) {
        snprintf(s->check, sizeof s->check, "FAILED: %s", ks_error_message());
        snprintf(s->notice, sizeof s->notice, "%s", s->check);
        ks_error_clear();
        return KS_OK; /* shown, and the picture goes on */
    }
    snprintf(s->check, sizeof s->check, "%s the CPU gold", exact ? "equals" : "within tolerance of");
    return KS_OK;
}

static ks_timing_window *window(void *scene);

/* Ours and the --kernel-file files (the CUDA backend): every file built and checked (at the live
 * size and input and the block it runs with) before the first frame; the first of them runs unless
 * --kernel names another variant. */
static ks_status variant_set(reduce_scene *s, const ks_scene_env *env)
{
    for (int v = 0; v < KS_REDUCE_NUM; ++v) s->our_names[v] = ks_reduce_variant_get((ks_reduce_variant)v)->name;
    ks_variant_set_desc d = {
        .contract = &ks_reduce_contract, .scene = s, .times = window, .opt = s->opt, .use_cuda = s->gpu != NULL,
        .device = env->device, .ours = KS_REDUCE_NUM, .our_names = s->our_names, .first = (int)s->variant,
        .block = {s->block[0], s->block[1], s->block[2]}, .watch = 1,
    };
    ks_reduce_check_grid(s->desc.n, s->desc.input == KS_REDUCE_INPUT_INTEGER, d.grid);
    return ks_variant_set_create(&d, &s->set);
}

static ks_status rd_create(const ks_scene_env *env, void **self)
{
    *self = NULL;
    const ks_options *opt = env->opt;
    const ks_reduce_opts *ro = KS_REDUCE_OPTS(opt);
    reduce_scene *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "reduce: out of host memory");
    s->opt = opt;
    s->name = opt->scene->name;
    s->use_cuda = env->use_cuda;
    s->t_peak_gbs = env->t_peak_gbs;
    s->env = env;
    s->fma_gflops = env->fma_gflops;
    s->w = opt->width > 0 ? opt->width : 1280;
    s->h = opt->height > 0 ? opt->height : 800;
    ks_reduce_desc d = {0};
    d.n = ro->size_n ? ro->sizes[0] : env->use_cuda ? KS_REDUCE_DEFAULT_N : (1LL << 20);
    d.seed = (unsigned)(opt->seed ? opt->seed : 1);
    d.block = opt->block_count ? opt->blocks[0][0] : 0;
    d.input = ro->integer ? KS_REDUCE_INPUT_INTEGER : KS_REDUCE_INPUT_RANDOM;
    s->desc = ks_reduce_desc_defaults(&d);
    ks_status st = ks_reduce_desc_check(&s->desc);
    s->variant = KS_REDUCE_SUM_SHUFFLE;
    s->block[0] = s->desc.block;
    s->block[1] = s->block[2] = 1;
    if (st == KS_OK && opt->kernel_count && ks_reduce_variant_parse(opt->kernels[0], &s->variant) != 0 &&
        !ks_reduce_kernel_file_named(opt, opt->kernels[0])) /* a file's name: the variant set picks it */
        st = ks_fail(KS_ERR_INVALID, "unknown reduce kernel '%s'", opt->kernels[0]);
    s->op = ks_reduce_variant_get(s->variant)->op;
    const long long n = s->desc.n;
    ks_reduce_levels probe;
    const long long nlev = st == KS_OK ? ks_reduce_levels_layout(KS_REDUCE_OP_SCAN, n, KS_REDUCE_MIN_BLOCK, &probe) : 0;
    const long long nlev2 = st == KS_OK ? ks_reduce_levels_layout(KS_REDUCE_OP_SUM, n, KS_REDUCE_MIN_BLOCK, &probe) : 0;
    if (st == KS_OK) {
        s->x = malloc((size_t)n * sizeof(float));
        s->gold_scan = malloc((size_t)n * sizeof(float));
        /* the levels (any op, any block: the smallest block gives the most) and the check's scratch */
        const long long need = nlev > nlev2 ? nlev : nlev2;
        s->levels = malloc((size_t)(need > n ? need : n) * sizeof(float));
        if (!s->x || !s->gold_scan || !s->levels)
            st = ks_fail(KS_ERR_OUT_OF_MEMORY, "reduce: no host memory for %lld floats", n);
    }
    if (st == KS_OK && env->use_cuda) st = ks_reduce_gpu_create(&s->desc, &s->gpu);
    if (st == KS_OK) st = new_input(s);
    if (st == KS_OK) st = variant_set(s, env);
    if (st != KS_OK) {
        rd_destroy(s);
        return st;
    }
    ks_colormap_table_rgba(opt->colormap, s->lut);
    *self = s;
    return KS_OK;
}

static void *rd_stream(void *self)
{
    reduce_scene *s = self;
    return s->gpu ? ks_reduce_gpu_stream(s->gpu) : NULL;
}

static void rd_max_image_size(void *self, int *w, int *h)
{
    reduce_scene *s = self;
    *w = s->w;
    *h = s->h;
}

/* The timing window of the variant that runs. */
static int win_index(const reduce_scene *s)
{
    if (!s->gpu) return KS_REDUCE_NUM + (int)s->op;
    return active(s) >= 0 ? KS_RD_WIN_USER + active(s) : (int)s->variant;
}

/* That window (also the variant set's desc.times). */
static ks_timing_window *window(void *scene)
{
    reduce_scene *s = scene;
    return &s->win[win_index(s)];
}

static ks_status rd_compute(void *self, ks_frame_ctx *ctx)
{
    reduce_scene *s = self;
    ks_variant_set_poll(s->set, s->block, NULL); /* builds that finished, and the block the user's kernel runs at */
    if (ctx && !ctx->step) return KS_OK;
    KS_TRY(check_variant(s));
    const int stage = ctx && ctx->timer ? ks_stage_timer_solver_stage(ctx->timer, s->opt->scene->solver_stage) : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    const ks_reduce_op op = current_op(s);
    const double bytes = op == KS_REDUCE_OP_SUM ? 4.0 * (double)s->desc.n : 8.0 * (double)s->desc.n;
    /* a frame's time: 3 spans back to back after one warm-up, as the runs go on frame after frame */
    const ks_timing_opts frame_timing = {.cache = KS_CACHE_WARM, .reps = 3, .warmup = 1};
    if (active(s) >= 0) {
        ks_reduce_timing t;
        KS_TRY(ks_reduce_gpu_time_user(s->gpu, ks_variant_set_code(s->set), ks_variant_set_run_block(s->set)[0],
                                       KS_RD_SPAN_MS, &frame_timing, &t));
        ks_timing_window_push(window(s), t.median_ms, bytes);
    } else if (s->gpu) {
        ks_reduce_timing t;
        KS_TRY(ks_reduce_gpu_time(s->gpu, s->variant, KS_RD_SPAN_MS, &frame_timing, &t));
        ks_timing_window_push(window(s), t.median_ms, bytes);
    } else {
        const double t0 = ks_now_seconds();
        if (op == KS_REDUCE_OP_SUM) s->last_sum = ks_reduce_cpu_sum(s->x, s->desc.n);
        else ks_reduce_cpu_scan(s->x, s->levels, s->desc.n);
        ks_timing_window_push(window(s), (ks_now_seconds() - t0) * 1e3, bytes);
        if (op == KS_REDUCE_OP_SCAN) s->last_sum = s->levels[s->desc.n - 1];
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

static ks_status rd_draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    reduce_scene *s = self;
    if (ctx) {
        s->probe_valid = ctx->probe_valid;
        s->probe_a = ctx->probe_a;
        s->probe_b = ctx->probe_b;
    }
    const int stage = ctx && ctx->timer ? ks_stage_timer_stage(ctx->timer, "levels+draw") : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    *w = s->w;
    *h = s->h;
    const ks_reduce_op op = current_op(s);
    if (s->gpu) {
        KS_TRY(ks_reduce_gpu_levels(s->gpu, op, &s->lv));
        if (op == KS_REDUCE_OP_SUM) KS_TRY(ks_reduce_gpu_sum_result(s->gpu, &s->last_sum));
        else {
            float last = 0.0f;
            KS_TRY(ks_reduce_gpu_scan_read(s->gpu, s->desc.n - 1, &last));
            s->last_sum = last;
        }
        KS_TRY(ks_reduce_gpu_draw(s->gpu, s->w, s->h, s->lut, -1.0f, 1.0f, rgba));
    } else {
        ks_reduce_levels_cpu(op, s->x, s->desc.n, s->desc.block, s->levels, &s->lv);
        ks_reduce_draw_cpu(&s->lv, s->levels, s->w, s->h, s->lut, -1.0f, 1.0f, rgba);
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

static ks_status rd_key(void *self, const ks_key_event *ev, int *handled)
{
    reduce_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case KS_KEY_TAB: {
        if (!s->gpu) {
            s->op = s->op == KS_REDUCE_OP_SUM ? KS_REDUCE_OP_SCAN : KS_REDUCE_OP_SUM;
            return KS_OK;
        }
        /* ours in order, then the kernel files, then round again */
        ks_variant_set_select(s->set, ks_variant_set_next(s->set, ev->shift ? -1 : 1, NULL, NULL, NULL));
        if (ks_variant_set_ours(s->set) >= 0) s->variant = (ks_reduce_variant)ks_variant_set_ours(s->set);
        return KS_OK;
    }
    case 'V':
        s->desc.seed += 1;
        return new_input(s);
    case KS_KEY_LEFT_BRACKET:
    case KS_KEY_RIGHT_BRACKET: {
        /* a user's kernel: the next power of two that the compiled kernel can take; it runs at the new
         * one once the check passed there (ours keep theirs) */
        if (active(s) >= 0)
            return ks_variant_set_next_block(s->set, ks_rd_user_blocks, KS_RD_USER_BLOCKS,
                                             ev->key == KS_KEY_RIGHT_BRACKET ? 1 : -1, s->block);
        const int block = ev->key == KS_KEY_RIGHT_BRACKET ? s->desc.block * 2 : s->desc.block / 2;
        if (block < KS_REDUCE_MIN_BLOCK || block > KS_REDUCE_MAX_BLOCK)
            return ks_fail(KS_ERR_UNSUPPORTED, "the block stays in %d..%d threads", KS_REDUCE_MIN_BLOCK,
                           KS_REDUCE_MAX_BLOCK);
        ks_reduce_desc d = s->desc;
        d.block = block;
        ks_reduce_gpu *g = NULL;
        if (s->gpu) KS_TRY(ks_reduce_gpu_create(&d, &g)); /* the old context stays on failure */
        ks_reduce_gpu_destroy(s->gpu);
        s->gpu = g;
        s->desc = d;
        memset(s->win, 0, sizeof s->win);
        return new_input(s);
    }
    default: *handled = 0; return KS_OK;
    }
}

/* Hover: the strip and element under the cursor, what it adds up, and (CPU backend, whose levels
 * are on the host) its value. */
static void hover(const reduce_scene *s, char *buf, size_t len)
{
    int strip = 0;
    long long i = 0;
    if (!s->probe_valid || !ks_reduce_levels_at(&s->lv, s->w, s->h, s->probe_a, s->probe_b, &strip, &i)) return;
    char what[160];
    ks_reduce_levels_element(&s->lv, strip, i, what, sizeof what);
    if (!what[0]) return;
    if (!s->gpu && s->levels) snprintf(buf, len, "strip %d, %s = %.6g", strip + 1, what, s->levels[s->lv.offset[strip] + i]);
    else snprintf(buf, len, "strip %d, %s", strip + 1, what);
}

static void rd_view(void *self, ks_view *v)
{
    reduce_scene *s = self;
    const ks_reduce_op op = current_op(s);
    const char *name = variant_name(s);
    snprintf(v->scene, sizeof v->scene, "%s", s->name);
    snprintf(v->image_name, sizeof v->image_name, "%s_%.40s", s->name, name);
    hover(s, v->hover, sizeof v->hover);
    ks_vcontrol *c = ks_view_control(v, s->gpu ? "kernel" : "op", 0, KS_KEY_TAB);
    if (c && s->gpu) ks_variant_set_choices(s->set, c);
    else if (c) snprintf(c->value, sizeof c->value, "%s", name);
    c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
    if (c) snprintf(c->value, sizeof c->value, "%d", active(s) >= 0 ? ks_variant_set_run_block(s->set)[0] : s->desc.block);
    ks_view_text(v, KS_VGROUP_SCENE, "op", "%s", ks_reduce_op_name(op));
    ks_view_num(v, KS_VGROUP_SCENE, "N", (double)s->desc.n, "", KS_VFMT_INT);
    ks_view_text(v, KS_VGROUP_SCENE, "values", "%s (seed %u)",
                 s->desc.input == KS_REDUCE_INPUT_INTEGER ? "integers" : "random in (-1, 1)", s->desc.seed);
    ks_view_num(v, KS_VGROUP_SCENE, op == KS_REDUCE_OP_SUM ? "sum" : "last prefix sum", s->last_sum, "", KS_VFMT_G4);
    ks_view_num(v, KS_VGROUP_SCENE, "gold", s->gold_sum, "", KS_VFMT_G4);
    if (s->check[0] && active(s) < 0) ks_view_text(v, KS_VGROUP_SCENE, "check", "%s", s->check);
    char strips[KS_VIEW_TEXT];
    ks_reduce_levels_describe(&s->lv, strips, sizeof strips);
    ks_view_text(v, KS_VGROUP_SCENE, "strips, top down", "%s", strips);
    for (int k = 0; k < s->lv.count; ++k) { /* each strip's caption over its top left corner */
        char strip[64];
        ks_reduce_levels_strip_name(&s->lv, k, strip, sizeof strip);
        ks_view_label(v, 0.0f, (float)k / (float)s->lv.count, "%d: %s", k + 1, strip);
    }
    if (active(s) >= 0) {
        ks_user_code_attrs a;
        ks_user_code_get_attrs(ks_variant_set_code(s->set), &a);
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "your kernel (--kernel-file)");
        ks_view_text(v, KS_VGROUP_KERNEL, "block", "%dx1, %d float%s a thread", ks_variant_set_run_block(s->set)[0],
                     a.per_thread[0], a.per_thread[0] == 1 ? "" : "s");
        ks_view_num(v, KS_VGROUP_KERNEL, "registers / thread", a.registers, "", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "static shared / block", a.static_smem, "B", KS_VFMT_INT);
    } else if (s->gpu) {
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "%s", ks_reduce_variant_get(s->variant)->summary);
    } else {
        ks_view_text(v, KS_VGROUP_KERNEL, "routine", "CPU (OpenMP)");
    }
    ks_timing_stats t;
    if (ks_timing_window_stats(window(s), &t)) {
        ks_view_num(v, KS_VGROUP_KERNEL, "time per run (back to back)", t.median_ms, "ms", KS_VFMT_F4);
        ks_view_num(v, KS_VGROUP_KERNEL, "T_eff", t.median_gbs, "GB/s", KS_VFMT_F1);
        ks_scene_peak_ratio(v, s->env, KS_VGROUP_KERNEL, "T_eff/T_peak", t.median_gbs);
        ks_scene_peak_rows(v, s->env, KS_VGROUP_KERNEL, "T_peak");
        const ks_reduce_variant cub = ks_reduce_cub_variant(op);
        ks_timing_stats tc;
        if (s->gpu && (active(s) >= 0 || s->variant != cub) && ks_timing_window_stats(&s->win[cub], &tc) &&
            t.median_ms > 0)
            ks_view_num(v, KS_VGROUP_KERNEL, "vs CUB (x faster)", tc.median_ms / t.median_ms, "x", KS_VFMT_F2);
        /* Roofline: one add per element (a scan's add too); bytes as T_eff counts them. */
        ks_roof_log_put(&s->roof, name, (double)s->desc.n, t.median_gbs * t.median_ms * 1e6, t.median_ms);
    }
    ks_view_roof(v, &s->roof, name, "one run", s->t_peak_gbs, s->gpu ? s->fma_gflops : 0.0);
    v->colorbar.on = 1;
    v->colorbar.cmap = s->opt->colormap;
    v->colorbar.lo = -1.0;
    v->colorbar.hi = 1.0;
    snprintf(v->colorbar.label, sizeof v->colorbar.label, "value / strip max |value|");
    if (s->notice[0]) snprintf(v->message, sizeof v->message, "%s", s->notice);
    ks_variant_set_view(s->set, v);
}

static void rd_status(void *self, char *buf, size_t cap)
{
    reduce_scene *s = self;
    snprintf(buf, cap, "%s of %lld values = %.6g", variant_name(s), s->desc.n, s->last_sum);
}

static ks_status rd_finish(void *self)
{
    (void)self;
    return KS_OK;
}

/* Its users' kernels: the page's editor (--edit), a build that waits for a frame (app/scene.h). */
static ks_variant_set *variant_set_of(void *self)
{
    reduce_scene *s = self;
    return s->set;
}

/* The Hardware panel: one run of what runs (its kernels: a sum's passes, a scan's levels). */
static ks_status counters_launch(void *self, void *stream)
{
    (void)stream; /* the context's own */
    reduce_scene *s = self;
    if (active(s) >= 0)
        return ks_reduce_gpu_run_user(s->gpu, ks_variant_set_code(s->set), ks_variant_set_run_block(s->set)[0]);
    return ks_reduce_gpu_run(s->gpu, s->variant);
}

static int counters(void *self, ks_scene_counters *out)
{
    reduce_scene *s = self;
    if (!s->gpu) return 0;
    const int user = active(s) >= 0;
    const ks_reduce_op op = current_op(s);
    out->launch = counters_launch;
    /* ours: the variant's model; a user's: the input read (and a scan's output written) once */
    out->model_bytes = user ? (op == KS_REDUCE_OP_SUM ? 4.0 : 8.0) * (double)s->desc.n
                            : ks_reduce_model_bytes(s->variant, s->desc.n);
    snprintf(out->what, sizeof out->what, "one %s of %lld floats by %s", op == KS_REDUCE_OP_SUM ? "sum" : "scan",
             (long long)s->desc.n, variant_name(s));
    const int bx = user ? ks_variant_set_run_block(s->set)[0] : s->desc.block;
    snprintf(out->config, sizeof out->config, "%s block %d n %lld build %p", variant_name(s), bx,
             (long long)s->desc.n, user ? (const void *)ks_variant_set_code(s->set) : NULL);
    return 1;
}

const ks_scene_api ks_scene_reduce_api = {
    .help = "Tab / shift+Tab: next / previous variant, then your --kernel-file kernels (CPU backend:\n"
            "  sum / scan)\n"
            "V: new input values (the next seed)\n"
            "[ / ]: halve / double the block (variants that take one, and your kernels)",
    .create = rd_create,
    .destroy = rd_destroy,
    .stream = rd_stream,
    .max_image_size = rd_max_image_size,
    .compute = rd_compute,
    .draw = rd_draw,
    .key = rd_key,
    .view = rd_view,
    .finish = rd_finish,
    .status = rd_status,
    .variant_set = variant_set_of,
    .counters = counters,
};
