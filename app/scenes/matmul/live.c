/* The matrix-multiply scene for the live loop.
 *
 * Each frame (when not paused) runs the current variant once on C (timed with
 * events; the CPU backend runs the gold) and draws C as a heatmap with the
 * variant's tile grid over it; downsampled on the GPU when C is larger than the
 * picture. The picture starts as each block's tile of C coloured by when it
 * finished (the order and the waves in which blocks ran); V cycles it to C's
 * values, then to the SM that ran each tile (each block records %smid and
 * %globaltimer at its end; the CPU gold records its OpenMP thread and clock per
 * tile). Hovering a tile lights its row band and column band of C, where the
 * rows of A and the columns of B it read sit, and dims the rest.
 * Keys: Tab variant, [ ] tiled's tile size (a user's kernel: its block). Users'
 * kernels (--kernel-file) are variants after ours: checked in the checker
 * process before they run, reloaded on save (its variant set, with the contract
 * of check.c); the panel is live_view.c. The cuBLAS reference and
 * the FP32 peak (an FMA kernel) are timed once at start, so the overlay shows
 * per cent of each. Bytes from DRAM come from the variant's textbook model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/scene.h"
#include "app/scenes.h"
#include "app/scenes/matmul/check.h"
#include "app/scenes/matmul/live.h"
#include "app/scenes/matmul/live_state.h"
#include "app/scenes/matmul/options.h"
#include "base/fma_peak.h"
#include "base/ks_util.h"
#include "kernels/matmul/matmul_user.h"
#include "render/image_io.h"

/* Blocks [ ] cycle a user's kernel through, by thread count. */
static const int ks_mm_user_blocks[][3] = {{8, 8, 1},   {16, 8, 1},  {32, 4, 1},  {16, 16, 1},
                                           {32, 8, 1},  {32, 16, 1}, {32, 32, 1}};
enum { KS_MM_USER_BLOCKS = (int)(sizeof ks_mm_user_blocks / sizeof ks_mm_user_blocks[0]) };

/* Room for the records of the current variant's grid. */
static ks_status rec_reserve(matmul_scene *s)
{
    if (mm_block_tile(s).m <= 0) return KS_OK;
    int tx, ty;
    ks_matmul_tile_grid(&s->size, mm_block_tile(s), &tx, &ty);
    const long long n = (long long)tx * ty;
    if (n <= s->rec_cap) return KS_OK;
    ks_matmul_tile_rec *r = realloc(s->rec, (size_t)n * sizeof *r);
    if (!r) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: no host memory for %lld tile records", n);
    s->rec = r;
    s->rec_cap = (int)n;
    return KS_OK;
}

/* The last run's records to the host (GPU), their span and how many units took part. */
static ks_status fetch_records(matmul_scene *s)
{
    KS_TRY(rec_reserve(s));
    int tx = 0, ty = 0;
    if (mm_block_tile(s).m > 0) ks_matmul_tile_grid(&s->size, mm_block_tile(s), &tx, &ty);
    if (s->gpu) KS_TRY(ks_matmul_gpu_records(s->gpu, s->rec, s->rec_cap, &s->rec_n));
    else s->rec_n = tx * ty;
    if (s->rec_n != tx * ty) s->rec_n = 0; /* another variant's grid (or cuBLAS, a user's kernel: none) */
    s->rec_bt = mm_block_tile(s);
    ks_matmul_tile_span(s->rec, s->rec_n, &s->first, &s->last);
    int per[KS_MM_UNITS] = {0};
    for (int r = 0; r < s->rec_n; ++r)
        if (s->rec[r].done && s->rec[r].unit < KS_MM_UNITS) ++per[s->rec[r].unit];
    s->units = 0;
    s->unit_min = s->unit_max = 0;
    for (int u = 0; u < KS_MM_UNITS; ++u) {
        if (!per[u]) continue;
        if (!s->units || per[u] < s->unit_min) s->unit_min = per[u];
        if (per[u] > s->unit_max) s->unit_max = per[u];
        ++s->units;
    }
    return KS_OK;
}

/* Runs the variant once (timed) into C. */
static ks_status run(matmul_scene *s)
{
    double ms = 0.0;
    if (s->gpu && mm_active(s) >= 0) {
        KS_TRY(ks_matmul_gpu_run_user_timed(s->gpu, ks_variant_set_code(s->set), ks_variant_set_run_block(s->set), &ms));
    } else if (s->gpu) {
        KS_TRY(ks_matmul_gpu_run_timed(s->gpu, s->variant, s->tile, &ms));
    } else {
        KS_TRY(rec_reserve(s));
        const double t0 = (ks_now_seconds() * 1e3);
        ks_matmul_gold_tiles(&s->size, s->a, s->b, s->c, KS_MM_CPU_TILE, s->rec);
        ms = (ks_now_seconds() * 1e3) - t0;
    }
    ks_timing_window_push(&s->times, ms, 0.0);
    s->computed = 1;
    return KS_OK;
}

/* C to the host copy (GPU), then its range for the colours. */
static ks_status range(matmul_scene *s)
{
    if (s->gpu) KS_TRY(ks_matmul_gpu_download(s->gpu, s->c));
    const size_t n = (size_t)s->size.m * s->size.n;
    float lo = s->c[0], hi = s->c[0];
    for (size_t e = 1; e < n; ++e) {
        if (s->c[e] < lo) lo = s->c[e];
        if (s->c[e] > hi) hi = s->c[e];
    }
    if (!(hi > lo)) hi = lo + 1.0f;
    if (s->opt->range_set) {
        lo = s->opt->range_lo;
        hi = s->opt->range_hi;
    }
    s->lo = lo;
    s->hi = hi;
    s->range_valid = 1;
    return KS_OK;
}

static void destroy(void *self)
{
    matmul_scene *s = self;
    if (!s) return;
    ks_variant_set_destroy(s->set); /* first: its worker may be inside a check */
    ks_matmul_gpu_destroy(s->gpu);
    free(s->a);
    free(s->b);
    free(s->c);
    free(s->rec);
    free(s);
}

static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba);

/* Every variant's times, one window (the variant set's desc.times). */
static ks_timing_window *times(void *scene)
{
    matmul_scene *s = scene;
    return &s->times;
}

/* Ours and the --kernel-file files: every file built and checked (at the live size and the block it
 * runs with) before the first frame; the first of them runs unless --kernel names another variant. */
static ks_status variant_set(matmul_scene *s, const ks_scene_env *env)
{
    for (int v = 0; v < KS_MATMUL_NUM; ++v) s->our_names[v] = ks_matmul_variant_get((ks_matmul_variant)v)->name;
    const ks_variant_set_desc d = {
        .contract = &ks_matmul_contract, .scene = s, .times = times, .opt = s->opt, .use_cuda = env->use_cuda,
        .device = env->device, .ours = KS_MATMUL_NUM, .our_names = s->our_names, .first = (int)s->variant,
        .grid = {s->size.m, s->size.n, s->size.k}, .block = {s->block[0], s->block[1], s->block[2]}, .watch = 1,
        .diff = KS_USER_DIFF_WHOLE, .diff_reference = ks_matmul_variant_get(KS_MATMUL_REGTILE)->name,
        .diff_cells_name = "elements of C", .diff_how = "grey: exactly 0, a pixel shows its elements' largest",
        .diff_colour_bar = 1, .draw_diff = draw_diff_picture,
    };
    return ks_variant_set_create(&d, &s->set);
}

static ks_status setup(matmul_scene *s, const ks_scene_env *env)
{
    const ks_options *opt = s->opt;
    s->t_peak_gbs = env->t_peak_gbs;
    KS_TRY(ks_matmul_size_check(&s->size));
    const size_t nc = (size_t)s->size.m * s->size.n;
    s->c = malloc(nc * sizeof *s->c);
    if (!s->c) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: no host memory for C (%dx%d)", s->size.m, s->size.n);
    ks_matmul_picture_size(&s->size, KS_MM_PICTURE, &s->w, &s->h);
    ks_colormap_table_rgba(opt->colormap, s->lut);
    ks_matmul_unit_palette(s->pal);
    /* default: by finish time, which shows how the work went on either backend (the order tiles
     * were taken in, the waves of blocks); C's values alone look like noise */
    const ks_matmul_opts *mo = KS_MATMUL_OPTS(opt);
    s->pic = mo->picture_set ? (ks_matmul_picture)mo->picture : KS_MATMUL_PIC_TIME;
    if (env->use_cuda) {
        KS_TRY(ks_matmul_gpu_create(&s->gpu));
        KS_TRY(ks_matmul_gpu_set_record(s->gpu, s->pic != KS_MATMUL_PIC_VALUE));
        KS_TRY(ks_matmul_gpu_setup(s->gpu, &s->size));
        s->peak_gflops = env->fma_gflops; /* measured at start-up; else here */
        if (!(s->peak_gflops > 0.0)) KS_TRY(ks_cuda_measure_fma_gflops(5, &s->peak_gflops));
        /* the reference as the frames run: back to back, warm */
        const ks_timing_opts ref = {.cache = KS_CACHE_WARM, .reps = KS_MM_REF_REPS, .warmup = 1};
        ks_timing t;
        KS_TRY(ks_matmul_gpu_time(s->gpu, KS_MATMUL_CUBLAS, 0, &ref, &t));
        s->cublas_ms = t.median_ms;
    } else {
        s->a = malloc((size_t)s->size.m * s->size.k * sizeof *s->a);
        s->b = malloc((size_t)s->size.k * s->size.n * sizeof *s->b);
        if (!s->a || !s->b) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: no host memory for A and B");
        ks_matmul_fill(&s->size, s->a, s->b);
        if (opt->kernel_count)
            snprintf(s->notice, sizeof s->notice, "cpu backend: --kernel %s ignored (the CPU gold runs)", opt->kernels[0]);
    }
    KS_TRY(variant_set(s, env));
    /* the first C: for the colour range (every variant gives the same C) */
    KS_TRY(run(s));
    ks_timing_window_clear(&s->times); /* the first launch is a warm-up */
    return range(s);
}

static ks_status create(const ks_scene_env *env, void **self)
{
    *self = NULL;
    const ks_options *opt = env->opt;
    matmul_scene *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: out of host memory");
    s->opt = opt;
    s->name = opt->scene->name;
    /* defaults, in one place */
    const int side = env->use_cuda ? KS_MATMUL_DEFAULT_SIZE : KS_MM_CPU_DEFAULT;
    s->size = (ks_matmul_size){side, side, side};
    if (KS_MATMUL_OPTS(opt)->size_n > 0) s->size = (ks_matmul_size){KS_MATMUL_OPTS(opt)->sizes[0][0], KS_MATMUL_OPTS(opt)->sizes[0][1], KS_MATMUL_OPTS(opt)->sizes[0][2]};
    s->variant = KS_MATMUL_REGTILE;
    s->tile = KS_MATMUL_OPTS(opt)->tile_n > 0 ? KS_MATMUL_OPTS(opt)->tiles[0] : 16;
    s->block[0] = opt->block_count ? opt->blocks[0][0] : KS_MATMUL_USER_BLOCK_X;
    s->block[1] = opt->block_count ? opt->blocks[0][1] : KS_MATMUL_USER_BLOCK_Y;
    s->block[2] = 1;
    ks_status st = KS_OK;
    if (opt->kernel_count > 0 && ks_matmul_variant_parse(opt->kernels[0], &s->variant) != 0) {
        s->variant = KS_MATMUL_REGTILE; /* a --kernel-file's name (the options checked it) */
        if (!ks_matmul_kernel_known(opt, opt->kernels[0]))
            st = ks_fail(KS_ERR_INVALID, "matmul: unknown --kernel '%s'", KS_QUOTED(opt->kernels[0]));
    }
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
    matmul_scene *s = self;
    return s->gpu ? ks_matmul_gpu_stream(s->gpu) : NULL;
}

static void max_image_size(void *self, int *w, int *h)
{
    matmul_scene *s = self;
    *w = s->w;
    *h = s->h;
}

static ks_status compute(void *self, ks_frame_ctx *ctx)
{
    matmul_scene *s = self;
    ks_variant_set_poll(s->set, s->block, NULL); /* builds that finished, and the block the user's kernel runs at */
    if (ctx && !ctx->step) return KS_OK;
    const int stage = ctx && ctx->timer ? ks_stage_timer_solver_stage(ctx->timer, s->opt->scene->solver_stage) : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    KS_TRY(run(s));
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

/* D: the picture of an answer's difference (the variant set's draw_diff). */
static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba)
{
    const matmul_scene *s = user;
    ks_matmul_draw_diff_cpu(&s->size, d->values, w, h, max, rgba);
}

/* D: the difference picture of the file the view is of. 1 when drawn. */
static ks_status draw_diff(matmul_scene *s, void *rgba, int *drawn)
{
    const ks_user_files_diff *d = ks_variant_set_diff_shown(s->set);
    *drawn = d != NULL;
    if (!*drawn) return KS_OK;
    if (d->w != s->size.m || d->h != s->size.n)
        return ks_fail(KS_ERR_INVALID, "difference of %dx%d elements for C of %dx%d", d->w, d->h, s->size.m, s->size.n);
    return ks_variant_set_diff_picture(s->set, s->w, s->h, s->gpu != NULL, s->gpu ? ks_matmul_gpu_stream(s->gpu) : NULL,
                                       rgba);
}

static ks_status draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    matmul_scene *s = self;
    *w = s->w;
    *h = s->h;
    if (ctx) {
        s->probe_valid = ctx->probe_valid;
        s->probe_a = ctx->probe_a;
        s->probe_b = ctx->probe_b;
    }
    const int stage = ctx && ctx->timer ? ks_stage_timer_stage(ctx->timer, "draw") : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    if (s->pic != KS_MATMUL_PIC_VALUE) KS_TRY(fetch_records(s));
    int diff_drawn = 0;
    KS_TRY(draw_diff(s, rgba, &diff_drawn));
    if (diff_drawn) {
        /* the difference is the picture */
    } else if (s->pic != KS_MATMUL_PIC_VALUE && s->rec_n > 0) {
        if (s->gpu)
            KS_TRY(ks_matmul_gpu_draw_tiles(s->gpu, s->rec_bt, s->pic, s->pal, s->lut, s->first, s->last, s->w, s->h,
                                            rgba));
        else
            ks_matmul_draw_tiles_cpu(&s->size, s->rec_bt, s->rec, s->pic, s->pal, s->lut, s->first, s->last, s->w,
                                     s->h, rgba);
    } else if (s->gpu) {
        KS_TRY(ks_matmul_gpu_draw(s->gpu, s->w, s->h, s->lut, s->lo, s->hi, mm_grid_tile(s), rgba));
    } else {
        ks_matmul_draw_cpu(&s->size, s->c, s->w, s->h, s->lut, s->lo, s->hi, (ks_matmul_tile){0, 0}, rgba);
    }
    ks_matmul_band band;
    if (mm_hovered_band(s, &band)) {
        if (s->gpu) KS_TRY(ks_matmul_gpu_shade_bands(s->gpu, &band, s->w, s->h, rgba));
        else ks_matmul_shade_bands_cpu(&s->size, &band, s->w, s->h, (unsigned char *)rgba);
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

static ks_status key(void *self, const ks_key_event *ev, int *handled)
{
    matmul_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case 'D':
        (void)ks_variant_set_diff_key(s->set, s->notice, sizeof s->notice);
        return KS_OK;
    case 'V':
        s->pic = (ks_matmul_picture)((s->pic + (ev->shift ? KS_MATMUL_PIC_NUM - 1 : 1)) % KS_MATMUL_PIC_NUM);
        if (s->gpu) KS_TRY(ks_matmul_gpu_set_record(s->gpu, s->pic != KS_MATMUL_PIC_VALUE));
        /* the records come with the next run; until then the picture shows what there is */
        if (s->pic != KS_MATMUL_PIC_VALUE && s->gpu) KS_TRY(run(s));
        return KS_OK;
    case KS_KEY_TAB:
        if (!s->gpu) return ks_fail(KS_ERR_UNSUPPORTED, "cpu backend: only the CPU gold runs");
        /* ours in order, then the kernel files, then round again */
        ks_variant_set_select(s->set, ks_variant_set_next(s->set, 1, NULL, NULL, NULL));
        if (ks_variant_set_ours(s->set) >= 0) s->variant = (ks_matmul_variant)ks_variant_set_ours(s->set);
        ks_timing_window_clear(&s->times);
        if (s->pic != KS_MATMUL_PIC_VALUE) KS_TRY(run(s)); /* this variant's records, even when paused */
        return KS_OK;
    case KS_KEY_LEFT_BRACKET:
    case KS_KEY_RIGHT_BRACKET: {
        /* a user's kernel: the next block by thread count that the compiled kernel can take; it runs
         * at the new one once the check passed there */
        if (s->gpu && mm_active(s) >= 0)
            return ks_variant_set_next_block(s->set, ks_mm_user_blocks, KS_MM_USER_BLOCKS,
                                             ev->key == KS_KEY_RIGHT_BRACKET ? 1 : -1, s->block);
        if (!s->gpu || s->variant != KS_MATMUL_TILED)
            return ks_fail(KS_ERR_UNSUPPORTED, "[ ] change the tile of 'tiled' only (Tab to it)");
        const int *t = ks_matmul_variant_get(KS_MATMUL_TILED)->tiles;
        int at = 0;
        while (at < 2 && t[at] != s->tile) ++at;
        at = ev->key == KS_KEY_RIGHT_BRACKET ? (at < 2 ? at + 1 : 2) : (at > 0 ? at - 1 : 0);
        s->tile = t[at];
        ks_timing_window_clear(&s->times);
        if (s->pic != KS_MATMUL_PIC_VALUE) KS_TRY(run(s));
        return KS_OK;
    }
    default: *handled = 0; return KS_OK;
    }
}

static ks_status finish(void *self)
{
    matmul_scene *s = self;
    const char *path = s->opt->dump_field;
    if (!path) return KS_OK;
    if (!s->computed) KS_TRY(run(s));
    if (s->gpu) KS_TRY(ks_matmul_gpu_download(s->gpu, s->c));
    const size_t shape[2] = {(size_t)s->size.m, (size_t)s->size.n};
    return ks_npy_write_f32(path, s->c, 2, shape);
}

/* Its users' kernels: the page's editor (--edit), a build that waits for a frame (app/scene.h). */
static ks_variant_set *variant_set_of(void *self)
{
    matmul_scene *s = self;
    return s->set;
}

/* The Hardware panel: one multiply by what runs (ours at its tile, or the user's code at its block). */
static ks_status counters_launch(void *self, void *stream)
{
    (void)stream; /* the context's own */
    matmul_scene *s = self;
    if (mm_active(s) >= 0) return ks_matmul_gpu_run_user(s->gpu, ks_variant_set_code(s->set), ks_variant_set_run_block(s->set));
    return ks_matmul_gpu_run(s->gpu, s->variant, s->tile);
}

static int counters(void *self, ks_scene_counters *out)
{
    matmul_scene *s = self;
    if (!s->gpu) return 0;
    const ks_matmul_size *z = &s->size;
    const int user = mm_active(s) >= 0;
    const int *b = ks_variant_set_run_block(s->set);
    out->launch = counters_launch;
    /* ours: the variant's textbook model; a user's kernel: the least any kernel moves (A, B, C once) */
    out->model_bytes = user ? 4.0 * ((double)z->m * z->k + (double)z->k * z->n + (double)z->m * z->n)
                            : ks_matmul_model_bytes(s->variant, mm_block_tile(s), z);
    const int vec = !user && s->variant == KS_MATMUL_REGTILE && z->k % 4 == 0 && z->n % 4 == 0;
    out->load_bytes = user || s->variant == KS_MATMUL_CUBLAS ? 0 : vec ? 16 : 4;
    out->store_bytes = user || s->variant == KS_MATMUL_CUBLAS ? 0 : 4;
    if (user)
        snprintf(out->what, sizeof out->what, "one multiply by %s, block %dx%d, C = A*B of %dx%dx%d (M x N x K)",
                 mm_variant_name(s), b[0], b[1], z->m, z->n, z->k);
    else if (s->variant == KS_MATMUL_TILED)
        snprintf(out->what, sizeof out->what, "one multiply by tiled, tile %d, C = A*B of %dx%dx%d (M x N x K)", s->tile,
                 z->m, z->n, z->k);
    else
        snprintf(out->what, sizeof out->what, "one multiply by %s, C = A*B of %dx%dx%d (M x N x K)", mm_variant_name(s),
                 z->m, z->n, z->k);
    snprintf(out->config, sizeof out->config, "%s tile %d block %dx%d size %dx%dx%d records %d build %p",
             mm_variant_name(s), user ? 0 : s->tile, user ? b[0] : 0, user ? b[1] : 0, z->m, z->n, z->k,
             s->pic != KS_MATMUL_PIC_VALUE, user ? (const void *)ks_variant_set_code(s->set) : NULL);
    return 1;
}

const ks_scene_api ks_scene_matmul_api = {
    .help = "Matmul scene\n"
            "  Tab        next variant (naive, tiled, regtile, cublas, then your --kernel-file kernels)\n"
            "  [ / ]      smaller / larger tile (tiled: 8, 16, 32); your kernel: smaller / larger block\n"
            "  V          next picture: tiles by finish time (default), C's values, tiles by SM (CPU: thread)\n"
            "  D          difference view: |your kernel - regtile| over C (--kernel-file), from its last check\n"
            "  hover      C[i][j], its tile's SM and time, the tiles of A and B it read (their bands lit)\n",
    .create = create,
    .destroy = destroy,
    .stream = stream,
    .max_image_size = max_image_size,
    .compute = compute,
    .draw = draw,
    .key = key,
    .view = ks_matmul_live_view,
    .finish = finish,
    .variant_set = variant_set_of,
    .counters = counters,
};
