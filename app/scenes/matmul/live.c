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
 * process before they run, reloaded on save (app/kernel/user_files.h). The cuBLAS reference and
 * the FP32 peak (an FMA kernel) are timed once at start, so the overlay shows
 * per cent of each. Bytes from DRAM come from the variant's textbook model. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/kernel/user_files.h"
#include "kernels/common/ks_util.h"
#include "kernels/common/timing_window.h"
#include "kernels/common/fma_peak.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_user.h"
#include "app/kernel/user_diff.h"
#include "render/image_io.h"
#include "app/scenes/matmul/live.h"
#include "app/scenes/matmul/options.h"
#include "app/scene.h"
#include "app/scenes.h"

enum {
    KS_MM_PICTURE = 1024, KS_MM_CPU_DEFAULT = 512, KS_MM_REF_REPS = 5,
    KS_MM_CPU_TILE = 64, /* the CPU gold's tile of C: 8 x 8 tiles at the default 512 */
    KS_MM_UNITS = 1024,  /* SM ids / thread numbers counted per unit (more are drawn, not counted) */
};

typedef struct matmul_scene {
    const ks_options *opt;
    ks_matmul_size size;
    ks_matmul_variant variant;
    int tile;                 /* tiled's tile */
    int w, h;                 /* picture */
    ks_matmul_gpu *gpu;       /* NULL on the CPU backend */
    float *a, *b, *c;         /* host: CPU backend inputs and C; GPU: C for the range and the dump */
    int computed;             /* C holds a result */
    float lo, hi;             /* colour range: C's min and max */
    int range_valid;
    double cublas_ms;         /* reference, median at start */
    double peak_gflops;       /* measured FMA throughput */
    double t_peak_gbs;        /* copy bandwidth measured at start-up */
    ks_roof_log roof;         /* last roofline point of each variant (and tile) */
    ks_timing_window times;   /* this variant's last times */
    unsigned char lut[256][4];
    char notice[256];
    int probe_valid, probe_a, probe_b;
    ks_matmul_picture pic;    /* what the picture shows (V) */
    ks_matmul_tile_rec *rec;  /* the last run's records, host */
    int rec_cap, rec_n, rec_bt; /* capacity, count (0: none, e.g. cuBLAS), block tile */
    unsigned long long first, last; /* earliest and latest finish (ns) */
    int units;                /* distinct SMs / threads in the records */
    int unit_min, unit_max;   /* fewest and most tiles one of them computed */
    unsigned char pal[256][4];
    /* users' kernels (--kernel-file): variants after ours */
    ks_user_files *files;     /* NULL without any */
    ks_matmul_user *user[KS_USER_FILES_MAX]; /* each file's code that passed its check (NULL: none yet) */
    int nuser;
    int active;               /* the file that runs, -1: one of ours (variant) */
    int block[3];             /* the users' kernels' block: --block, [ ] */
    int run_block[3];         /* the block the active file runs with this frame (its checked one) */
    ks_user_diff diff;        /* D: |yours - regtile| over C, from each file's check */
} matmul_scene;

/* Blocks [ ] cycle a user's kernel through, by thread count. */
static const int ks_mm_user_blocks[][3] = {{8, 8, 1},   {16, 8, 1},  {32, 4, 1},  {16, 16, 1},
                                           {32, 8, 1},  {32, 16, 1}, {32, 32, 1}};
enum { KS_MM_USER_BLOCKS = (int)(sizeof ks_mm_user_blocks / sizeof ks_mm_user_blocks[0]) };

static const char *variant_name(const matmul_scene *s)
{
    if (!s->gpu) return "cpu";
    return s->active >= 0 ? ks_user_files_name(s->files, s->active) : ks_matmul_variant_get(s->variant)->name;
}

static int block_tile(const matmul_scene *s)
{
    if (s->gpu && s->active >= 0) return 0; /* a user's kernel: its tiling is its own */
    return s->gpu ? ks_matmul_block_tile(s->variant, s->tile) : KS_MM_CPU_TILE;
}

/* Room for the records of the current variant's grid. */
static ks_status rec_reserve(matmul_scene *s)
{
    if (block_tile(s) <= 0) return KS_OK;
    int tx, ty;
    ks_matmul_tile_grid(&s->size, block_tile(s), &tx, &ty);
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
    if (block_tile(s) > 0) ks_matmul_tile_grid(&s->size, block_tile(s), &tx, &ty);
    if (s->gpu) KS_TRY(ks_matmul_gpu_records(s->gpu, s->rec, s->rec_cap, &s->rec_n));
    else s->rec_n = tx * ty;
    if (s->rec_n != tx * ty) s->rec_n = 0; /* another variant's grid (or cuBLAS, a user's kernel: none) */
    s->rec_bt = block_tile(s);
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
    if (s->gpu && s->active >= 0) {
        KS_TRY(ks_matmul_gpu_run_user_timed(s->gpu, s->user[s->active], s->run_block, &ms));
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
    ks_user_files_destroy(s->files); /* first: its worker may be inside a check */
    for (int i = 0; i < s->nuser; ++i) ks_matmul_user_destroy(s->user[i]);
    ks_matmul_gpu_destroy(s->gpu);
    ks_user_diff_free(&s->diff);
    free(s->a);
    free(s->b);
    free(s->c);
    free(s->rec);
    free(s);
}

/* A build that passed its check (the frame thread): its code replaces the
 * file's. No launch of the old code is in flight: every run waits for its end event. */
static ks_status load_user(void *user, int slot, const char *name, const void *code, size_t size, int cubin)
{
    (void)cubin; /* the loader tells CUBIN from PTX itself */
    matmul_scene *s = user;
    ks_matmul_user *u = NULL;
    KS_TRY(ks_matmul_user_load(name, code, size, &u));
    ks_matmul_user_destroy(s->user[slot]);
    s->user[slot] = u;
    return KS_OK;
}

/* --kernel-file: every file built and checked (at the live size and the block it runs with)
 * before the first frame; the first of them runs unless --kernel names another variant. */
static ks_status user_files(matmul_scene *s, const ks_scene_env *env)
{
    const ks_scene_def *def = s->opt->scene;
    const char *paths[KS_USER_FILES_MAX];
    const int n = ks_user_files_paths(s->opt, paths, KS_USER_FILES_MAX);
    if (!n) return KS_OK;
    s->nuser = n;
    const ks_user_files_desc d = {
        .paths = paths, .count = n, .scene = def->name, .device = env->device,
        .grid = {s->size.m, s->size.n, s->size.k},
        .block = {s->block[0], s->block[1], s->block[2]},
        .watch = 1, .edit = s->opt->edit, .diff = 1, .load = load_user, .user = s,
    };
    KS_TRY(ks_user_files_create(&d, &s->files));
    s->active = s->opt->kernel_count ? -1 : 0; /* --kernel names ours or a file */
    for (int i = 0; i < n && s->opt->kernel_count && s->active < 0; ++i)
        if (strcmp(ks_user_files_name(s->files, i), s->opt->kernels[0]) == 0) s->active = i;
    memcpy(s->run_block, s->block, sizeof s->run_block);
    return KS_OK;
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
        double mn = 0.0;
        KS_TRY(ks_matmul_gpu_time(s->gpu, KS_MATMUL_CUBLAS, 0, 1, KS_MM_REF_REPS, &s->cublas_ms, &mn));
        KS_TRY(user_files(s, env));
    } else {
        s->a = malloc((size_t)s->size.m * s->size.k * sizeof *s->a);
        s->b = malloc((size_t)s->size.k * s->size.n * sizeof *s->b);
        if (!s->a || !s->b) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: no host memory for A and B");
        ks_matmul_fill(&s->size, s->a, s->b);
        if (opt->kernel_count)
            snprintf(s->notice, sizeof s->notice, "cpu backend: --kernel %s ignored (the CPU gold runs)", opt->kernels[0]);
    }
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
    /* defaults, in one place */
    const int side = env->use_cuda ? KS_MATMUL_DEFAULT_SIZE : KS_MM_CPU_DEFAULT;
    s->size = (ks_matmul_size){side, side, side};
    if (KS_MATMUL_OPTS(opt)->size_n > 0) s->size = (ks_matmul_size){KS_MATMUL_OPTS(opt)->sizes[0][0], KS_MATMUL_OPTS(opt)->sizes[0][1], KS_MATMUL_OPTS(opt)->sizes[0][2]};
    s->variant = KS_MATMUL_REGTILE;
    s->tile = KS_MATMUL_OPTS(opt)->tile_n > 0 ? KS_MATMUL_OPTS(opt)->tiles[0] : 16;
    s->active = -1;
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
    if (s->files) { /* builds that finished, and the block the user's kernel runs at */
        int changed = 0, reverted = 0;
        ks_user_files_poll(s->files, s->active, s->block, &changed, s->run_block, &reverted);
        if (reverted) memcpy(s->block, s->run_block, sizeof s->block); /* refused there: back to the one it passed at */
        if (changed) ks_timing_window_clear(&s->times); /* new code: its own times */
        ks_user_diff_poll(&s->diff, s->files);
    }
    if (ctx && !ctx->step) return KS_OK;
    const int stage = ctx && ctx->timer ? ks_stage_timer_solver_stage(ctx->timer, "matmul") : -1;
    if (stage >= 0) KS_TRY(ks_stage_timer_begin(ctx->timer, stage));
    KS_TRY(run(s));
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

static int grid_tile(const matmul_scene *s)
{
    return s->gpu && s->active < 0 ? ks_matmul_block_tile(s->variant, s->tile) : 0;
}

/* The element of C under the cursor: 1 and (i, j), or 0 when the cursor is off the picture. */
static int probe_cell(const matmul_scene *s, int *i, int *j)
{
    if (!s->probe_valid || s->probe_a < 0 || s->probe_b < 0 || s->probe_a >= s->w || s->probe_b >= s->h) return 0;
    *i = (int)((long long)(s->h - 1 - s->probe_b) * s->size.m / s->h);
    *j = (int)((long long)s->probe_a * s->size.n / s->w);
    return 1;
}

/* The tile whose inputs the hover names: the recorded tile in the tile pictures, else the
 * block tile of the variant (CPU: the gold's tile); 0 for cuBLAS, whose tiles are its own. */
static int band_tile(const matmul_scene *s)
{
    if (s->pic != KS_MATMUL_PIC_VALUE && s->rec_n > 0) return s->rec_bt;
    if (s->gpu && (s->variant == KS_MATMUL_CUBLAS || s->active >= 0)) return 0;
    return block_tile(s);
}

/* The row band and column band of the hovered tile: 1, or 0 when nothing is hovered. */
static int hovered_band(const matmul_scene *s, ks_matmul_band *band)
{
    int i, j;
    const int bt = band_tile(s);
    if (bt <= 0 || !probe_cell(s, &i, &j)) return 0;
    ks_matmul_band_of(&s->size, bt, i, j, band);
    return 1;
}

/* D: the picture of an answer's difference (ks_user_diff_picture's draw). */
static void draw_diff_picture(void *user, const ks_user_files_diff *d, float max, unsigned char *rgba)
{
    const matmul_scene *s = user;
    ks_matmul_draw_diff_cpu(&s->size, d->values, s->w, s->h, max, rgba);
}

/* D: the difference picture of the file the view is of. 1 when drawn. */
static ks_status draw_diff(matmul_scene *s, void *rgba, int *drawn)
{
    const int slot = ks_user_diff_slot(s->files, s->active);
    *drawn = ks_user_diff_shown(&s->diff, slot);
    if (!*drawn) return KS_OK;
    const ks_user_files_diff *d = &s->diff.d[slot];
    if (d->w != s->size.m || d->h != s->size.n)
        return ks_fail(KS_ERR_INVALID, "difference of %dx%d elements for C of %dx%d", d->w, d->h, s->size.m, s->size.n);
    return ks_user_diff_picture(&s->diff, slot, s->w, s->h, draw_diff_picture, s, s->gpu != NULL,
                                s->gpu ? ks_matmul_gpu_stream(s->gpu) : NULL, rgba);
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
        KS_TRY(ks_matmul_gpu_draw(s->gpu, s->w, s->h, s->lut, s->lo, s->hi, grid_tile(s), rgba));
    } else {
        ks_matmul_draw_cpu(&s->size, s->c, s->w, s->h, s->lut, s->lo, s->hi, 0, rgba);
    }
    ks_matmul_band band;
    if (hovered_band(s, &band)) {
        if (s->gpu) KS_TRY(ks_matmul_gpu_shade_bands(s->gpu, &band, s->w, s->h, rgba));
        else ks_matmul_shade_bands_cpu(&s->size, &band, s->w, s->h, (unsigned char *)rgba);
    }
    if (stage >= 0) KS_TRY(ks_stage_timer_end(ctx->timer, stage));
    return KS_OK;
}

/* [ ] on a user's kernel: the next block by thread count that the compiled
 * kernel can take; it runs at the new one once the check passed there. */
static ks_status cycle_user_block(matmul_scene *s, int dir)
{
    const long threads = (long)s->block[0] * s->block[1];
    int pos = -1;
    for (int i = 0; i < KS_MM_USER_BLOCKS; ++i)
        if (memcmp(ks_mm_user_blocks[i], s->block, sizeof s->block) == 0) pos = i;
    for (int i = dir > 0 ? (pos >= 0 ? pos + 1 : 0) : (pos >= 0 ? pos - 1 : KS_MM_USER_BLOCKS - 1);
         i >= 0 && i < KS_MM_USER_BLOCKS; i += dir) {
        const int *b = ks_mm_user_blocks[i];
        const long t = (long)b[0] * b[1];
        if (pos < 0 && (dir > 0 ? t <= threads : t >= threads)) continue; /* a block off the list: past it */
        if (ks_matmul_user_check_block(s->user[s->active], &s->size, b) != KS_OK) {
            ks_error_clear();
            continue;
        }
        memcpy(s->block, b, sizeof s->block);
        ks_timing_window_clear(&s->times);
        return KS_OK;
    }
    return ks_fail(KS_ERR_UNSUPPORTED, "no %s block for %s", dir > 0 ? "larger" : "smaller", variant_name(s));
}

static ks_status key(void *self, const ks_key_event *ev, int *handled)
{
    matmul_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case 'D':
        (void)ks_user_diff_toggle(&s->diff, s->files, s->gpu != NULL, s->notice, sizeof s->notice);
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
        if (s->active >= 0) {
            s->active = s->active + 1 < s->nuser ? s->active + 1 : -1;
            if (s->active < 0) s->variant = (ks_matmul_variant)0;
        } else if (s->variant + 1 == KS_MATMUL_NUM && s->nuser > 0) {
            s->active = 0;
        } else {
            s->variant = (ks_matmul_variant)((s->variant + 1) % KS_MATMUL_NUM);
        }
        if (s->active >= 0) memcpy(s->run_block, s->block, sizeof s->run_block); /* the poll picks the checked one */
        ks_timing_window_clear(&s->times);
        if (s->pic != KS_MATMUL_PIC_VALUE) KS_TRY(run(s)); /* this variant's records, even when paused */
        return KS_OK;
    case KS_KEY_LEFT_BRACKET:
    case KS_KEY_RIGHT_BRACKET: {
        if (s->gpu && s->active >= 0) return cycle_user_block(s, ev->key == KS_KEY_RIGHT_BRACKET ? 1 : -1);
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
    if (!probe_cell(s, &i, &j)) return;
    float v = NAN;
    if (s->gpu) {
        if (ks_matmul_gpu_read(s->gpu, i, j, &v) != KS_OK) ks_error_clear();
    } else {
        v = s->c[(size_t)i * s->size.n + j];
    }
    snprintf(buf, len, "C[%d][%d] = %g", i, j, (double)v);
    const int slot = ks_user_diff_slot(s->files, s->active);
    if (ks_user_diff_shown(&s->diff, slot))
        cat(buf, len, "  |yours - regtile| = %g", (double)s->diff.d[slot].values[(size_t)i + (size_t)j * s->size.m]);
    const int K = s->size.k;
    if (s->pic != KS_MATMUL_PIC_VALUE && s->rec_n > 0) {
        /* the tile under the cursor: who computed it, when, and what fed it */
        const int bt = s->rec_bt, ti = i / bt, tj = j / bt, tx = (s->size.n + bt - 1) / bt;
        const ks_matmul_tile_rec *r = &s->rec[(size_t)ti * tx + tj];
        if (r->done)
            cat(buf, len, "  tile (%d,%d): %s %u, done %.3f ms after the first tile (last %.3f ms)", ti, tj,
                s->gpu ? "SM" : "thread", r->unit, (double)(r->t_ns - s->first) * 1e-6,
                (double)(s->last - s->first) * 1e-6);
    }
    if (!s->gpu) {
        ks_matmul_band b;
        if (hovered_band(s, &b))
            cat(buf, len, "  fed by A rows %d..%d (all %d columns) and B columns %d..%d (all %d rows): the lit bands",
                b.i0, b.i1 - 1, K, b.j0, b.j1 - 1, K);
        return;
    }
    if (s->active >= 0) {
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
        const int kt = (K + 7) / 8;
        cat(buf, len, "  block (%d,%d) reads 128x8 tiles A(%d, 0..%d) and 8x128 tiles B(0..%d, %d): the lit bands",
            i / 128, j / 128, i / 128, kt - 1, kt - 1, j / 128);
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
                     s->gpu && s->active >= 0 ? "your kernel keeps no per-block record: C's values shown"
                     : s->gpu && s->variant == KS_MATMUL_CUBLAS
                         ? "cuBLAS keeps no per-block record (closed kernels): C's values shown"
                         : "no tile records yet: the next run makes them (N when paused)");
        return;
    }
    ks_view_text(v, KS_VGROUP_SCENE, "picture", "tile of C (%dx%d) by %s", s->rec_bt, s->rec_bt,
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

static void view(void *self, ks_view *v)
{
    matmul_scene *s = self;
    const ks_matmul_size *z = &s->size;
    snprintf(v->scene, sizeof v->scene, "matmul");
    static const char *const pic_suffix[KS_MATMUL_PIC_NUM] = {"", "_sm", "_time"};
    snprintf(v->image_name, sizeof v->image_name, "matmul_%.40s%s", variant_name(s), pic_suffix[s->pic]);
    ks_vcontrol *c;
    if (s->gpu) {
        c = ks_view_control(v, "kernel", 0, KS_KEY_TAB);
        if (c) {
            /* Tab order from the current variant round to it again: ours, then the kernel files */
            const int all = KS_MATMUL_NUM + s->nuser, at = s->active >= 0 ? KS_MATMUL_NUM + s->active : (int)s->variant;
            for (int i = 0; i < all && c->nchoices < KS_VIEW_CHOICES; ++i) {
                const int k = (at + i) % all;
                snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s",
                         k < KS_MATMUL_NUM ? ks_matmul_variant_get((ks_matmul_variant)k)->name
                                           : ks_user_files_name(s->files, k - KS_MATMUL_NUM));
            }
            snprintf(c->value, sizeof c->value, "%s", variant_name(s));
        }
        if (s->active >= 0) {
            c = ks_view_control(v, "block", KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET);
            if (c) snprintf(c->value, sizeof c->value, "%dx%d", s->run_block[0], s->run_block[1]);
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
    if (s->gpu && s->active >= 0) {
        ks_matmul_user_attrs a;
        ks_matmul_user_get_attrs(s->user[s->active], &a);
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", variant_name(s));
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "your kernel (--kernel-file)");
        ks_view_text(v, KS_VGROUP_KERNEL, "block", "%dx%d, %dx%d elements a thread", s->run_block[0], s->run_block[1],
                     a.points[0], a.points[1]);
        ks_view_num(v, KS_VGROUP_KERNEL, "registers / thread", a.registers, "", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "static shared / block", a.static_smem, "B", KS_VFMT_INT);
    } else if (s->gpu) {
        const ks_matmul_variant_info *vi = ks_matmul_variant_get(s->variant);
        ks_view_text(v, KS_VGROUP_KERNEL, "variant", "%s", vi->name);
        ks_view_text(v, KS_VGROUP_KERNEL, "what", "%s", vi->summary);
        if (s->variant == KS_MATMUL_TILED) ks_view_text(v, KS_VGROUP_KERNEL, "tile", "%dx%d", s->tile, s->tile);
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
    if (s->gpu && s->active >= 0) {
        ks_view_num(v, KS_VGROUP_KERNEL, "DRAM bytes (least possible)", least_bytes, "B", KS_VFMT_G4);
        if (ms > 0) ks_view_num(v, KS_VGROUP_KERNEL, "DRAM rate (least)", least_bytes / (ms * 1e6), "GB/s", KS_VFMT_INT);
    } else if (s->gpu) {
        const double bytes = ks_matmul_model_bytes(s->variant, s->tile, z);
        ks_view_num(v, KS_VGROUP_KERNEL, "DRAM bytes (model count)", bytes, "B", KS_VFMT_G4);
        if (ms > 0) ks_view_num(v, KS_VGROUP_KERNEL, "DRAM rate (model)", bytes / (ms * 1e6), "GB/s", KS_VFMT_INT);
        ks_view_num(v, KS_VGROUP_KERNEL, "intensity (model)", flops / bytes, "flop/B", KS_VFMT_F2);
    }
    /* Roofline, one launch: 2MNK flops; bytes from the variant's traffic model
     * (CPU: A, B and C once each, the least any order can move). */
    char rname[24];
    if (s->gpu && s->active < 0 && s->variant == KS_MATMUL_TILED) snprintf(rname, sizeof rname, "tiled %d", s->tile);
    else snprintf(rname, sizeof rname, "%.23s", variant_name(s));
    const double rbytes = s->gpu && s->active < 0 ? ks_matmul_model_bytes(s->variant, s->tile, z) : least_bytes;
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
    ks_user_files_view(s->files, s->active, v);
    ks_user_diff_view(&s->diff, s->files, ks_user_diff_slot(s->files, s->active),
                      ks_matmul_variant_get(KS_MATMUL_REGTILE)->name, "elements of C",
                      "grey: exactly 0, a pixel shows its elements' largest", 1, v);
    hover(s, v->hover, sizeof v->hover);
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

/* --edit: the page edits the first --kernel-file */
static const struct ks_server_editor *editor(void *self)
{
    matmul_scene *s = self;
    return ks_user_files_editor(s->files);
}

const ks_scene_api ks_scene_matmul_api = {
    .name = "matmul",
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
    .view = view,
    .finish = finish,
    .editor = editor,
};
