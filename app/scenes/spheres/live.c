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
 * checked before the first frame, reloaded on save. This file: create, the
 * frame (compute, draw), the timing table; keys in live_keys.c, the view in
 * live_view.c, the Hardware panel's launch in live_counters.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "app/scenes/spheres/check.h"
#include "app/scenes/spheres/live.h"
#include "app/scenes/spheres/live_state.h"

/* ---- timing table ---- */

ks_spheres_count_row *ks_spheres_scene_row(ks_spheres_scene *s, int count)
{
    ks_spheres_count_row *oldest = &s->rows[0];
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

void ks_spheres_scene_collect(ks_spheres_scene *s)
{
    if (!s->gpu) return;
    ks_spheres_sample got[16];
    int n;
    while ((n = ks_spheres_gpu_collect(s->gpu, got, 16)) > 0)
        for (int k = 0; k < n; ++k) {
            ks_spheres_count_row *row = ks_spheres_scene_row(s, got[k].count);
            ks_timing_window *w = got[k].kind == KS_SPHERES_SAMPLE_RENDER ? row->render : row->upload;
            ks_timing_window_push(&w[got[k].mem], got[k].ms, 0.0);
        }
}

/* ---- spheres ---- */

static ks_status alloc(ks_spheres_scene *s, int count)
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
void ks_spheres_scene_refresh(ks_spheres_scene *s)
{
    ks_spheres_animate(s->base, s->vel, s->count, s->t, s->w, s->h, s->now);
    ks_spheres_pack(s->now, s->count, s->packed);
    ++s->data_gen;
}

/* count generated spheres (the first n of a seed's stream never change with count). */
ks_status ks_spheres_scene_generate(ks_spheres_scene *s, int count)
{
    ks_sphere *base = malloc((size_t)count * sizeof *base);
    if (!base) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: no host memory for %d spheres", count);
    ks_spheres_generate(s->seed, count, s->w, s->h, base);
    free(s->base);
    s->base = base;
    s->count = count;
    KS_TRY(alloc(s, count));
    ks_spheres_velocities(s->seed, count, s->vel);
    ks_spheres_scene_refresh(s);
    s->attrs_valid = 0;
    return KS_OK;
}

ks_status ks_spheres_scene_upload(ks_spheres_scene *s, ks_frame_ctx *ctx)
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
    ks_spheres_scene *s = self;
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
static ks_status variant_set(ks_spheres_scene *s, const ks_scene_env *env)
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
    ks_spheres_scene *s = calloc(1, sizeof *s);
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
            ks_spheres_scene_refresh(s);
        }
    } else if (st == KS_OK) {
        if (count < 1 || count > KS_SPHERES_MAX)
            st = ks_fail(KS_ERR_INVALID, "spheres: --spheres %d must be 1..%d", count, KS_SPHERES_MAX);
        else
            st = ks_spheres_scene_generate(s, count);
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
    ks_spheres_scene *s = self;
    return s->gpu ? ks_spheres_gpu_stream(s->gpu) : NULL;
}

static void max_image_size(void *self, int *w, int *h)
{
    ks_spheres_scene *s = self;
    *w = s->w;
    *h = s->h;
}

static ks_status compute(void *self, ks_frame_ctx *ctx)
{
    ks_spheres_scene *s = self;
    s->frame = ctx ? ctx->frame : s->frame + 1;
    if (s->gpu) { /* finished builds loaded; the block a file runs at is one its check passed */
        int block[3] = {s->block[0], s->block[1], 1}, changed = 0;
        ks_variant_set_poll(s->set, block, &changed);
        s->block[0] = block[0];
        s->block[1] = block[1];
        if (changed) s->user_attrs_valid = 0;
    }
    ks_spheres_scene_collect(s);
    if (s->animate && ctx && ctx->step) {
        s->t += 1.0;
        ks_spheres_scene_refresh(s);
    }
    return ks_spheres_scene_upload(s, ctx);
}

static ks_status draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    ks_spheres_scene *s = self;
    *w = s->w;
    *h = s->h;
    if (ctx) {
        s->probe_valid = ctx->probe_valid;
        s->probe_a = ctx->probe_a;
        s->probe_b = ctx->probe_b;
    }
    KS_TRY(ks_spheres_scene_upload(s, ctx)); /* a key may have switched the variant since compute */
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
        ks_timing_window_push(&ks_spheres_scene_row(s, s->count)->render[0], (ks_now_seconds() * 1e3) - t0, 0.0);
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
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

/* Its users' kernels: the page's editor (--edit), a build that waits for a frame (app/scene.h). */
static ks_variant_set *variant_set_of(void *self)
{
    ks_spheres_scene *s = self;
    return s->set;
}

static void status(void *self, char *buf, size_t cap)
{
    const ks_spheres_scene *s = self;
    snprintf(buf, cap, "%d spheres, %s", s->count,
             !s->gpu ? "cpu" : file_active(s) >= 0 ? ks_variant_set_name(s->set) : ks_spheres_mem_name(s->mem));
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
    .key = ks_spheres_scene_key,
    .view = ks_spheres_scene_view,
    .finish = finish,
    .status = status,
    .counters = ks_spheres_scene_counters,
    .variant_set = variant_set_of,
};
