/* The sphere ray-casting scene for the live loop.
 *
 * Each frame: drift the spheres when animating (host), upload them to the
 * memory the current variant reads (stage "upload"), render straight into
 * the frame's pixel buffer (stage "render"; for binned the binning is part
 * of it). Keys: M variant (ours, then the --kernel-file kernels), + - sphere
 * count, [ ] block size, V animate, R reset, D the difference view of a
 * kernel file. The A/B table keeps, per sphere count, the last times of every
 * variant, taken from the renderer's own events tagged with the variant
 * (the stage timer's window would mix variants right after a switch). The
 * kernel files are a variant set (app/kernel/variant_set.h): built and
 * checked before the first frame, reloaded on save. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/common/ks_util.h"
#include "kernels/common/timing_window.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_user.h"
#include "app/kernel/variant_set.h"
#include "app/scenes/spheres/check.h"
#include "app/scenes.h"
#include "app/scenes/spheres/live.h"
#include "app/scenes/spheres/options.h"
#include "app/scene.h"

enum {
    KS_SPH_TABLE_ROWS = 8,    /* sphere counts remembered */
    KS_SPH_CPU_LIVE_MAX = 4096, /* + stops here on the CPU backend (seconds a frame beyond) */
    KS_SPH_OURS = KS_SPHERES_MEM_NUM - 1, /* global .. binned */
    KS_SPH_COLS = KS_SPHERES_MEM_NUM + KS_USER_FILES_MAX, /* ks_spheres_mem, then a column a kernel file */
    KS_SPH_BLOCKS_MAX = 32,
};

typedef struct count_row {
    int count;                                  /* 0: unused */
    long long used;                             /* last frame it was touched, for reuse */
    ks_timing_window render[KS_SPH_COLS];   /* [0] is the CPU gold; KS_SPHERES_MEM_NUM + i: kernel file i */
    ks_timing_window upload[KS_SPH_COLS];
} count_row;

typedef struct spheres_scene {
    const ks_options *opt;
    int use_cuda;
    int w, h;                   /* picture, pixels */
    const char *scene_file;     /* NULL: generated from seed */
    unsigned long long seed;
    int count;
    ks_sphere *base;            /* as generated or loaded */
    ks_sphere *now;             /* after t frames of drift */
    float *vel;                 /* 3 per sphere, pixels per frame */
    ks_sphere_packed *packed;   /* what the renderers read */
    int animate;
    double t;                   /* frames of drift */
    ks_spheres_mem mem;
    int block[2];
    ks_spheres_gpu *gpu;        /* NULL on the CPU backend */
    long long data_gen;         /* bumps when packed changes */
    long long global_gen, const_gen; /* data_gen last uploaded to each place, -1 none */
    ks_kernel_attrs attrs;
    int attrs_valid;
    char notice[256];           /* last refusal or hint, shown until the next key */
    count_row rows[KS_SPH_TABLE_ROWS];
    double t_peak_gbs, fma_gflops; /* roofline ceilings, measured at start-up */
    long long frame;
    int probe_valid, probe_a, probe_b;
    ks_variant_set *set;        /* ours (M order), then the --kernel-file kernels */
    const char *our_names[KS_SPH_OURS];
    int blocks[KS_SPH_BLOCKS_MAX][3]; /* the [ ] list as 3-part blocks, for a file's next block */
    int nblocks;
    ks_kernel_attrs user_attrs;  /* of the file that runs, at its block */
    int user_attrs_valid;
} spheres_scene;

/* The kernel file that runs (its slot), -1: one of ours. */
static int file_active(const spheres_scene *s) { return s->gpu ? ks_variant_set_file(s->set) : -1; }

/* Where the spheres go for what runs: a kernel file reads the global array (and its own
 * __constant__ copy of it, which the render fills). */
static ks_spheres_mem upload_mem(const spheres_scene *s)
{
    return file_active(s) >= 0 ? KS_SPHERES_MEM_GLOBAL : s->mem;
}

/* The table's column of what runs. */
static int active_col(const spheres_scene *s)
{
    if (!s->gpu) return 0;
    return file_active(s) >= 0 ? KS_SPHERES_MEM_NUM + file_active(s) : (int)s->mem;
}

/* ---- timing table ---- */

static count_row *row_for(spheres_scene *s, int count)
{
    count_row *oldest = &s->rows[0];
    for (int k = 0; k < KS_SPH_TABLE_ROWS; ++k) {
        if (s->rows[k].count == count) {
            s->rows[k].used = s->frame;
            return &s->rows[k];
        }
        if (s->rows[k].count == 0 || s->rows[k].used < oldest->used) oldest = &s->rows[k];
    }
    memset(oldest, 0, sizeof *oldest);
    oldest->count = count;
    oldest->used = s->frame;
    return oldest;
}

static void collect(spheres_scene *s)
{
    if (!s->gpu) return;
    ks_spheres_sample got[16];
    int n;
    while ((n = ks_spheres_gpu_collect(s->gpu, got, 16)) > 0)
        for (int k = 0; k < n; ++k) {
            count_row *row = row_for(s, got[k].count);
            ks_timing_window *w = got[k].kind == KS_SPHERES_SAMPLE_RENDER ? row->render : row->upload;
            ks_timing_window_push(&w[got[k].mem], got[k].ms, 0.0);
        }
}

/* ---- spheres ---- */

static ks_status alloc(spheres_scene *s, int count)
{
    char what[64];
    snprintf(what, sizeof what, "spheres: %d spheres", count);
    KS_TRY(ks_host_memory_check((double)count * (2 * sizeof(ks_sphere) + 3 * sizeof(float) +
                                                 sizeof(ks_sphere_packed)),
                                what));
    free(s->now);
    free(s->vel);
    free(s->packed);
    s->now = malloc((size_t)count * sizeof *s->now);
    s->vel = malloc((size_t)count * 3 * sizeof *s->vel);
    s->packed = malloc((size_t)count * sizeof *s->packed);
    if (!s->now || !s->vel || !s->packed)
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: no host memory for %d spheres", count);
    return KS_OK;
}

/* Positions at s->t into packed. */
static void refresh(spheres_scene *s)
{
    ks_spheres_animate(s->base, s->vel, s->count, s->t, s->w, s->h, s->now);
    ks_spheres_pack(s->now, s->count, s->packed);
    ++s->data_gen;
}

/* count generated spheres (the first n of a seed's stream never change with count). */
static ks_status generate(spheres_scene *s, int count)
{
    ks_sphere *base = malloc((size_t)count * sizeof *base);
    if (!base) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: no host memory for %d spheres", count);
    ks_spheres_generate(s->seed, count, s->w, s->h, base);
    free(s->base);
    s->base = base;
    s->count = count;
    KS_TRY(alloc(s, count));
    ks_spheres_velocities(s->seed, count, s->vel);
    refresh(s);
    s->attrs_valid = 0;
    return KS_OK;
}

static ks_status upload_if_needed(spheres_scene *s, ks_frame_ctx *ctx)
{
    if (!s->gpu) return KS_OK;
    const ks_spheres_mem mem = upload_mem(s);
    const int constant = mem == KS_SPHERES_MEM_CONSTANT;
    long long *gen = constant ? &s->const_gen : &s->global_gen;
    if (*gen == s->data_gen) return KS_OK;
    const int stage = ctx && ctx->timer ? ks_stage_timer_stage(ctx->timer, "upload") : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    KS_TRY(ks_spheres_gpu_upload(s->gpu, mem, s->packed, s->count));
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    *gen = s->data_gen;
    return KS_OK;
}

/* ---- plugin ---- */

static void destroy(void *self)
{
    spheres_scene *s = self;
    if (!s) return;
    ks_variant_set_destroy(s->set); /* first: its worker may be inside a check */
    ks_spheres_gpu_destroy(s->gpu);
    free(s->base);
    free(s->now);
    free(s->vel);
    free(s->packed);
    free(s);
}

static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba);

/* Ours in M order and the --kernel-file files: every file built and checked (at the picture's size,
 * the start's sphere count and the block it runs with) before the first frame; the first file runs. */
static ks_status variant_set(spheres_scene *s, const ks_scene_env *env)
{
    for (int m = 0; m < KS_SPH_OURS; ++m) s->our_names[m] = ks_spheres_mem_name((ks_spheres_mem)(KS_SPHERES_MEM_GLOBAL + m));
    const int (*list)[2];
    const int n = ks_spheres_block_presets(&list);
    for (int k = 0; k < n && k < KS_SPH_BLOCKS_MAX; ++k) {
        s->blocks[k][0] = list[k][0];
        s->blocks[k][1] = list[k][1];
        s->blocks[k][2] = 1;
        s->nblocks = k + 1;
    }
    const ks_variant_set_desc d = {
        .contract = &ks_spheres_contract, .scene = s, .opt = s->opt, .use_cuda = env->use_cuda,
        .device = env->device, .ours = KS_SPH_OURS, .our_names = s->our_names,
        .first = (int)s->mem - KS_SPHERES_MEM_GLOBAL, .grid = {s->w, s->h, s->count},
        .block = {s->block[0], s->block[1], 1}, .watch = 1, .diff = KS_USER_DIFF_WHOLE,
        .diff_cells = {s->w, s->h}, .diff_reference = "the CPU gold", .diff_cells_name = "pixels",
        .diff_how = "grey: equal to the gold; a colour: the pixel's largest channel difference",
        .diff_colour_bar = 1, .draw_diff = draw_diff_picture,
    };
    return ks_variant_set_create(&d, &s->set);
}

static ks_status create(const ks_scene_env *env, void **self)
{
    *self = NULL;
    const ks_options *opt = env->opt;
    spheres_scene *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: out of host memory");
    s->opt = opt;
    s->use_cuda = env->use_cuda;
    s->t_peak_gbs = env->t_peak_gbs;
    s->fma_gflops = env->fma_gflops;
    s->global_gen = s->const_gen = -1;
    s->seed = opt->seed;
    /* defaults, in one place */
    s->w = opt->size_set && opt->width > 0 ? opt->width : KS_SPHERES_DEFAULT_WIDTH;
    s->h = opt->size_set && opt->height > 0 ? opt->height : KS_SPHERES_DEFAULT_HEIGHT;
    s->mem = KS_SPHERES_MEM_GLOBAL;
    ks_spheres_block_default(s->block);
    if (opt->block_count > 0) {
        s->block[0] = opt->blocks[0][0];
        s->block[1] = opt->blocks[0][1];
    }
    const int count = KS_SPHERES_OPTS(opt)->count > 0 ? KS_SPHERES_OPTS(opt)->count : KS_SPHERES_DEFAULT_COUNT;

    ks_status st = KS_OK;
    if (s->w < 1 || s->h < 1 || s->w > 16384 || s->h > 16384)
        st = ks_fail(KS_ERR_INVALID, "spheres: --size %dx%d must be 1..16384 a side", s->w, s->h);
    if (st == KS_OK && KS_SPHERES_OPTS(opt)->mem && ks_spheres_mem_parse(KS_SPHERES_OPTS(opt)->mem, &s->mem) != 0) {
        char list[128];
        ks_spheres_mem_list(list, sizeof list);
        st = ks_fail(KS_ERR_INVALID, "spheres: unknown --mem '%s' (one of: %s)", KS_QUOTED(KS_SPHERES_OPTS(opt)->mem), list);
    }
    if (st == KS_OK) st = ks_spheres_block_check(s->block);
    if (st == KS_OK && !s->use_cuda) { /* the CPU gold draws into a host picture: refuse up front */
        char what[64];
        snprintf(what, sizeof what, "spheres: a %dx%d picture", s->w, s->h);
        st = ks_host_memory_check(4.0 * s->w * (double)s->h, what);
    }
    if (st == KS_OK && KS_SPHERES_OPTS(opt)->file) {
        ks_sphere *loaded = NULL;
        int n = 0;
        st = ks_spheres_load(KS_SPHERES_OPTS(opt)->file, &loaded, &n);
        if (st == KS_OK) {
            s->scene_file = KS_SPHERES_OPTS(opt)->file;
            s->base = loaded;
            s->count = n;
            st = alloc(s, n);
        }
        if (st == KS_OK) {
            ks_spheres_velocities(s->seed, n, s->vel);
            refresh(s);
        }
    } else if (st == KS_OK) {
        if (count < 1 || count > KS_SPHERES_MAX)
            st = ks_fail(KS_ERR_INVALID, "spheres: --spheres %d must be 1..%d", count, KS_SPHERES_MAX);
        else
            st = generate(s, count);
    }
    /* constant memory refuses, never truncates */
    if (st == KS_OK && s->use_cuda) st = ks_spheres_mem_check(s->mem, s->count);
    if (st == KS_OK && s->use_cuda) st = ks_spheres_gpu_create(&s->gpu);
    if (st == KS_OK && s->gpu) ks_spheres_gpu_track(s->gpu, 1);
    if (st == KS_OK && s->gpu) st = variant_set(s, env);
    if (st == KS_OK && !s->use_cuda && KS_SPHERES_OPTS(opt)->mem)
        snprintf(s->notice, sizeof s->notice, "cpu backend: --mem %s ignored (the CPU gold renders)", KS_SPHERES_OPTS(opt)->mem);
    if (st != KS_OK) {
        destroy(s);
        return st;
    }
    *self = s;
    return KS_OK;
}

static void *stream(void *self)
{
    spheres_scene *s = self;
    return s->gpu ? ks_spheres_gpu_stream(s->gpu) : NULL;
}

static void max_image_size(void *self, int *w, int *h)
{
    spheres_scene *s = self;
    *w = s->w;
    *h = s->h;
}

static ks_status compute(void *self, ks_frame_ctx *ctx)
{
    spheres_scene *s = self;
    s->frame = ctx ? ctx->frame : s->frame + 1;
    if (s->gpu) { /* finished builds loaded; the block a file runs at is one its check passed */
        int block[3] = {s->block[0], s->block[1], 1}, changed = 0;
        ks_variant_set_poll(s->set, block, &changed);
        s->block[0] = block[0];
        s->block[1] = block[1];
        if (changed) s->user_attrs_valid = 0;
    }
    collect(s);
    if (s->animate && ctx && ctx->step) {
        s->t += 1.0;
        refresh(s);
    }
    return upload_if_needed(s, ctx);
}

static ks_status draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    spheres_scene *s = self;
    *w = s->w;
    *h = s->h;
    if (ctx) {
        s->probe_valid = ctx->probe_valid;
        s->probe_a = ctx->probe_a;
        s->probe_b = ctx->probe_b;
    }
    KS_TRY(upload_if_needed(s, ctx)); /* a key may have switched the variant since compute */
    const int stage = ctx && ctx->timer ? ks_stage_timer_solver_stage(ctx->timer, s->opt->scene->solver_stage) : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    int diff_drawn = 0;
    if (s->gpu && ks_variant_set_diff_shown(s->set)) { /* D: the difference is the picture */
        KS_TRY(ks_variant_set_diff_picture(s->set, s->w, s->h, 1, ks_spheres_gpu_stream(s->gpu), rgba));
        diff_drawn = 1;
    }
    if (diff_drawn) {
    } else if (s->gpu && file_active(s) >= 0) {
        const int *rb = ks_variant_set_run_block(s->set);
        const int block[2] = {rb[0], rb[1]};
        KS_TRY(ks_spheres_gpu_render_user(s->gpu, ks_variant_set_code(s->set), block, s->w, s->h, rgba,
                                          active_col(s)));
    } else if (s->gpu) {
        KS_TRY(ks_spheres_gpu_render(s->gpu, s->mem, s->block, s->w, s->h, rgba));
    } else {
        const double t0 = (ks_now_seconds() * 1e3);
        ks_spheres_gold_render(s->packed, s->count, s->w, s->h, (unsigned char *)rgba);
        ks_timing_window_push(&row_for(s, s->count)->render[0], (ks_now_seconds() * 1e3) - t0, 0.0);
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

static ks_status set_count(spheres_scene *s, int count)
{
    if (s->scene_file)
        return ks_fail(KS_ERR_UNSUPPORTED, "the scene file %s fixes the spheres (%d); + and - work on generated scenes",
                       s->scene_file, s->count);
    const int max = s->use_cuda ? KS_SPHERES_MAX : KS_SPH_CPU_LIVE_MAX;
    if (count > max) return ks_fail(KS_ERR_UNSUPPORTED, "%d spheres is the most here", max);
    if (count < KS_SPHERES_LIVE_MIN) return ks_fail(KS_ERR_UNSUPPORTED, "%d spheres is the fewest here", KS_SPHERES_LIVE_MIN);
    if (s->use_cuda && file_active(s) >= 0) {
        const int *rb = ks_variant_set_run_block(s->set);
        const int block[2] = {rb[0], rb[1]};
        KS_TRY(ks_spheres_user_check(ks_variant_set_code(s->set), count, block));
    } else if (s->use_cuda) {
        KS_TRY(ks_spheres_mem_check(s->mem, count));
    }
    return generate(s, count);
}

/* M passes over our constant variant where it cannot hold the count. */
static int skip_ours(void *user, int ours)
{
    const spheres_scene *s = user;
    const ks_spheres_mem m = (ks_spheres_mem)(KS_SPHERES_MEM_GLOBAL + ours);
    if (ks_spheres_mem_check(m, s->count) == KS_OK) return 0;
    ks_error_clear();
    return 1;
}

static ks_status key(void *self, const ks_key_event *ev, int *handled)
{
    spheres_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case 'M': {
        if (!s->use_cuda) return ks_fail(KS_ERR_UNSUPPORTED, "cpu backend: the CPU gold has no memory variants");
        /* ours in order, then the kernel files, then round again; what cannot hold the count is passed over */
        const int all = ks_variant_set_count(s->set);
        for (int tries = 0; tries < all; ++tries) {
            int skipped = 0;
            ks_variant_set_select(s->set, ks_variant_set_next(s->set, 1, skip_ours, s, &skipped));
            if (skipped)
                snprintf(s->notice, sizeof s->notice, "constant skipped: memory holds at most %d spheres, not %d",
                         KS_SPHERES_CONST_MAX, s->count);
            const int file = ks_variant_set_file(s->set);
            if (file < 0) break;
            if (s->count <= ks_spheres_user_capacity(ks_variant_set_code(s->set))) break;
            snprintf(s->notice, sizeof s->notice, "%s skipped: its " "kernelscope_spheres holds %d spheres, not %d",
                     ks_variant_set_name(s->set), ks_spheres_user_capacity(ks_variant_set_code(s->set)), s->count);
        }
        if (ks_variant_set_ours(s->set) >= 0) s->mem = (ks_spheres_mem)(KS_SPHERES_MEM_GLOBAL + ks_variant_set_ours(s->set));
        s->attrs_valid = 0;
        s->user_attrs_valid = 0;
        return KS_OK;
    }
    case 'D':
        (void)ks_variant_set_diff_key(s->set, s->notice, sizeof s->notice);
        return KS_OK;
    case KS_KEY_PLUS: return set_count(s, s->count * 2);
    case KS_KEY_MINUS: return set_count(s, s->count / 2);
    case KS_KEY_LEFT_BRACKET:
    case KS_KEY_RIGHT_BRACKET: {
        if (file_active(s) >= 0) { /* the next block the compiled kernel takes; it runs there once checked */
            int block[3] = {s->block[0], s->block[1], 1};
            KS_TRY(ks_variant_set_next_block(s->set, (const int (*)[3])s->blocks, s->nblocks,
                                             ev->key == KS_KEY_RIGHT_BRACKET ? 1 : -1, block));
            s->block[0] = block[0];
            s->block[1] = block[1];
            s->user_attrs_valid = 0;
            return KS_OK;
        }
        const int (*list)[2];
        const int n = ks_spheres_block_presets(&list);
        int at = -1;
        for (int k = 0; k < n && at < 0; ++k)
            if (list[k][0] == s->block[0] && list[k][1] == s->block[1]) at = k;
        for (int k = 0; k < n && at < 0; ++k) /* a --block off the list: from the nearest not larger */
            if (list[k][0] * list[k][1] > s->block[0] * s->block[1]) at = k > 0 ? k - 1 : 0;
        if (at < 0) at = n - 1;
        if (ev->key == KS_KEY_RIGHT_BRACKET) at = at + 1 < n ? at + 1 : n - 1;
        else at = at > 0 ? at - 1 : 0;
        s->block[0] = list[at][0];
        s->block[1] = list[at][1];
        s->attrs_valid = 0;
        return KS_OK;
    }
    case 'V': s->animate = !s->animate; return KS_OK;
    case 'R':
        s->t = 0.0;
        refresh(s);
        return KS_OK;
    default: *handled = 0; return KS_OK;
    }
}

static void view(void *self, ks_view *v)
{
    spheres_scene *s = self;
    collect(s);
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
    const count_row *row = row_for(s, s->count);
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

static ks_status finish(void *self)
{
    (void)self;
    return KS_OK;
}

/* D: an answer's difference, one pixel a picture pixel, in the difference colours. */
static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba)
{
    (void)user;
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_DIFF_CMAP, table);
    const float inv_span = ks_colormap_inv_span(0.0f, max);
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) {
            const float v = i < d->w && j < d->h ? d->values[(size_t)j * d->w + i] : 0.0f;
            memcpy(rgba + 4 * ((size_t)j * w + i), ks_diff_colour_of(table, v, max, inv_span), 4);
        }
}

/* --edit: the page edits the first --kernel-file */
static const struct ks_server_editor *editor(void *self)
{
    spheres_scene *s = self;
    return s->gpu ? ks_variant_set_editor(s->set) : NULL;
}

/* a build or a difference answer that the next frame takes (a paused run idles otherwise) */
static int ready(void *self)
{
    spheres_scene *s = self;
    return ks_variant_set_ready(s->set);
}

static void status(void *self, char *buf, size_t cap)
{
    const spheres_scene *s = self;
    snprintf(buf, cap, "%d spheres, %s", s->count,
             !s->gpu ? "cpu" : file_active(s) >= 0 ? ks_variant_set_name(s->set) : ks_spheres_mem_name(s->mem));
}

/* The Hardware panel: one render by the memory variant that runs, into the renderer's own
 * picture (binned: its binning too), untracked (its time under replay is no frame's). */
static ks_status counters_launch(void *self, void *stream)
{
    (void)stream; /* the renderer's own */
    spheres_scene *s = self;
    KS_TRY(upload_if_needed(s, NULL));
    ks_spheres_gpu_track(s->gpu, 0);
    const ks_status st = ks_spheres_gpu_render(s->gpu, s->mem, s->block, s->w, s->h, NULL);
    ks_spheres_gpu_track(s->gpu, 1);
    return st;
}

static int counters(void *self, ks_scene_counters *out)
{
    spheres_scene *s = self;
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

const ks_scene_api ks_scene_spheres_api = {
    .help = "M: next memory variant (global, readonly, constant, shared, binned, then your --kernel-file kernels)\n"
            "+ / -: double / halve the sphere count\n"
            "[ / ]: smaller / larger thread block\n"
            "V: animate (spheres drift; the upload is timed each frame)\n"
            "R: reset the spheres to their start\n"
            "D: difference view: |your kernel - the CPU gold| per pixel (--kernel-file), from its last check",
    .create = create,
    .destroy = destroy,
    .stream = stream,
    .max_image_size = max_image_size,
    .compute = compute,
    .draw = draw,
    .key = key,
    .view = view,
    .finish = finish,
    .status = status,
    .counters = counters,
    .editor = editor,
    .ready = ready,
};
