#include "app/bench/bench_live.h"
#include "app/bench/bench_live_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fma_peak.h"
#include "base/ks_util.h"
#include "render/chart.h"
#include "render/image_io.h"
#include "render/window.h"
#include "app/bench/bench_output.h"
#include "app/bench/bench_roofline.h"
#include "app/run_outputs.h"
#include "app/scenes.h"
#include "app/signals.h"

enum {
    KS_LIVE_WARMUP = 48,     /* frames run before the timed ones (first launches, caches, the ring of timer
                                events, and --iters auto's sizing: it settles after 4 + 40 frames) */
    KS_LIVE_MAX_ROWS = 512,
};

/* ---- Derived columns ---- */

const char *ks_bench_live_solver_stage(const char *scene)
{
    const ks_scene_def *d = ks_scene_def_find(scene);
    return d && d->solver_stage ? d->solver_stage : "jacobi";
}

double ks_bench_live_solver_share(const char *scene, const ks_live_stats *s, double frame_ms)
{
    const double solver = ks_live_stats_stage(s, ks_bench_live_solver_stage(scene));
    return solver > 0.0 && frame_ms > 0.0 ? solver / frame_ms : 0.0;
}

void ks_bench_live_fill(ks_live_row *r, const ks_live_stats *s)
{
    snprintf(r->path, sizeof r->path, "%s", s->path);
    r->iters_per_frame = s->iters_per_frame;
    r->frame_ms = s->interval_ms;
    r->fps = s->fps;
    r->live_ms_per_iter = s->iters_per_frame > 0.0 ? s->interval_ms / s->iters_per_frame : 0.0;
    r->ratio = r->bench_ms_per_iter > 0.0 ? r->live_ms_per_iter / r->bench_ms_per_iter : 0.0;
    r->solver_share = ks_bench_live_solver_share(r->scene, s, s->interval_ms);
    /* CUDA-GL interop on the CUDA backend, the GL buffer mapped on the host on the CPU backend */
    double map = ks_live_stats_stage(s, "interop map"), unmap = ks_live_stats_stage(s, "interop unmap");
    if (map < 0.0 && unmap < 0.0) { /* CPU backend: the picture's upload from host memory */
        map = -1.0;
        unmap = ks_live_stats_stage(s, "host upload");
    }
    r->map_unmap_ms = (map > 0.0 ? map : 0.0) + (unmap > 0.0 ? unmap : 0.0);
    r->nstages = s->nstages;
    memcpy(r->stages, s->stages, sizeof r->stages);
}

/* ---- Writers: one pass to measure (buf NULL), one to write ---- */

/* The sizing column: rows made before it existed (zeroed) read "-". */
static const char *sizing_of(const ks_live_row *r) { return r->sizing[0] ? r->sizing : "-"; }

static size_t table_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_live_row *rows = rows_;
    size_t used = 0;
    /* "interval ms": the wall clock from frame to frame (the CSV's frame_ms), not the frame work stage */
    ks_text_measure(buf, cap, &used, "%-9s %-8s %-16s %-10s %-8s %6s %10s %10s %6s %11s %7s %9s %7s  %s\n", "scene",
                    "variant", "grid", "block", "mode", "it/fr", "live ms/it", "bench ms/it", "ratio",
                    "interval ms", "solver", "map+unmap", "fps", "sizing");
    for (int i = 0; i < n; ++i) {
        const ks_live_row *r = &rows[i];
        ks_text_measure(buf, cap, &used, "%-9s %-8s %-16s %-10s %-8s %6.0f %10.4f %11.4f %6.3f %11.3f %6.1f%% %9.3f %7.1f  %s\n",
                        r->scene, r->variant, r->grid, r->block, r->mode, r->iters_per_frame,
                        r->live_ms_per_iter, r->bench_ms_per_iter, r->ratio, r->frame_ms,
                        100.0 * r->solver_share, r->map_unmap_ms, r->fps, sizing_of(r));
        /* the frame's breakdown: every stage's median, by the names the panels use (the "frame"
         * stage, map .. unmap, reads "frame work"; the stages CSV keeps the stage's own name) */
        ks_text_measure(buf, cap, &used, "          stages (median ms):");
        for (int s = 0; s < r->nstages; ++s)
            if (r->stages[s].samples > 0)
                ks_text_measure(buf, cap, &used, "%s %s %.3f", s ? "," : "", ks_stage_label(r->stages[s].name),
                                r->stages[s].median_ms);
        ks_text_measure(buf, cap, &used, "\n");
    }
    return used;
}

static size_t csv_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_live_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used,
                    "device,scene,variant,grid,block,path,mode,iters_per_frame,live_ms_per_iter,bench_ms_per_iter,"
                    "ratio,frame_ms,solver_share,map_unmap_ms,fps,cc,sizing\n");
    for (int i = 0; i < n; ++i) {
        const ks_live_row *r = &rows[i];
        char device[600];
        ks_csv_quote(r->device, device, sizeof device);
        ks_text_measure(buf, cap, &used, "%s,%s,%s,%s,%s,%s,%s,%.0f,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f,%.2f,%s,%s\n", device,
                        r->scene, r->variant, r->grid, r->block, r->path, r->mode, r->iters_per_frame,
                        r->live_ms_per_iter, r->bench_ms_per_iter, r->ratio, r->frame_ms, r->solver_share,
                        r->map_unmap_ms, r->fps, r->cc[0] ? r->cc : "-", sizing_of(r));
    }
    return used;
}

static size_t stages_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_live_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used, "device,scene,variant,grid,block,path,mode,stage,median_ms,samples,cc,sizing\n");
    for (int i = 0; i < n; ++i) {
        const ks_live_row *r = &rows[i];
        char device[600];
        ks_csv_quote(r->device, device, sizeof device);
        for (int s = 0; s < r->nstages; ++s) {
            char stage[80];
            ks_csv_quote(r->stages[s].name, stage, sizeof stage);
            ks_text_measure(buf, cap, &used, "%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%d,%s,%s\n", device, r->scene, r->variant,
                            r->grid, r->block, r->path, r->mode, stage, r->stages[s].median_ms,
                            r->stages[s].samples, r->cc[0] ? r->cc : "-", sizing_of(r));
        }
    }
    return used;
}

char *ks_bench_live_table(const ks_live_row *rows, int n) { return ks_bench_text(table_text, rows, n); }
char *ks_bench_live_csv(const ks_live_row *rows, int n) { return ks_bench_text(csv_text, rows, n); }
char *ks_bench_live_stages_csv(const ks_live_row *rows, int n) { return ks_bench_text(stages_text, rows, n); }

/* ---- The runs ---- */

struct ks_live_bench {
    const ks_options *opt;
    const ks_device_info *dev;
    int use_cuda;
    const ks_best_store *best;
    double t_peak_gbs, fma_gflops; /* for the scenes' views, as the live view measures them at start-up */
    ks_host_peak host_peak;        /* the CPU backend's T_peak and its spread */
    unsigned modes[2];
    int nmodes;
    int has_window; /* window among the modes */
    ks_live_row *rows;
    int nrows;
};

static const char *mode_name(unsigned m) { return m == KS_LIVE_MODE_WINDOW ? "window" : "headless"; }

static int has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

/* The modes to run: as given, or headless and (when a window opens) window. */
static ks_status choose_modes(ks_live_bench *b)
{
    const ks_options *opt = b->opt;
    const ks_live_bench_opts *lo = ks_options_own_const(opt, &ks_bench_live_group);
    if (lo->modes_n) {
        for (int i = 0; i < lo->modes_n; ++i) b->modes[b->nmodes++] = lo->order[i];
        if ((lo->modes & KS_LIVE_MODE_WINDOW) && !has_display())
            return ks_fail(KS_ERR_INVALID, "--modes window: no display (set DISPLAY, or leave window out)");
        return KS_OK;
    }
    b->modes[b->nmodes++] = KS_LIVE_MODE_HEADLESS;
    if (!has_display()) {
        printf("window mode: skipped (no display)\n");
        return KS_OK;
    }
    ks_window_desc wd = {0};
    wd.width = 320;
    wd.height = 200;
    wd.title = "kernelscope bench live";
    ks_window *w = NULL;
    if (ks_window_create(&wd, &w) == KS_OK) b->modes[b->nmodes++] = KS_LIVE_MODE_WINDOW;
    else printf("window mode: skipped (%s)\n", ks_error_message());
    ks_window_destroy(w);
    ks_error_clear();
    return KS_OK;
}

/* A run of the live loop with the options of one scene; its stats in *s. */
static ks_status run_live(const ks_live_bench *b, const ks_options *run, unsigned mode, ks_live_stats *s)
{
    ks_scene_env env;
    memset(&env, 0, sizeof env);
    env.opt = run;
    env.use_cuda = b->use_cuda;
    env.device = b->dev;
    env.t_peak_gbs = b->t_peak_gbs;
    env.host_peak = b->use_cuda ? NULL : &b->host_peak;
    env.fma_gflops = b->fma_gflops;
    env.best = b->best;
    ks_live *live = NULL;
    /* CUDA's GL interop serves the GL platform (GLX or EGL) it met first in a
     * process: with window runs in the same process, the headless ones draw
     * with an invisible window's context, so that both register the buffer */
    ks_live_display display = KS_LIVE_WINDOW;
    if (mode == KS_LIVE_MODE_HEADLESS) display = b->has_window ? KS_LIVE_HEADLESS_HIDDEN : KS_LIVE_HEADLESS;
    const ks_live_desc ld = {&env, run->scene->live, display};
    ks_status st = ks_live_create(&ld, &live);
    if (st == KS_OK) st = ks_live_run(live);
    if (st == KS_OK) ks_live_get_stats(live, b->opt->frames, s); /* the warm-up frames left out */
    ks_live_destroy(live);
    return st;
}

/* Options for one live run of scene: the bench's common ones (size, colours,
 * backend), nothing saved, warm-up plus the timed frames. */
void ks_bench_live_run_options(const ks_options *opt, const ks_scene_def *scene, ks_options *run)
{
    *run = *opt;
    run->mode = KS_MODE_LIVE;
    run->scene = scene;
    memset(run->flags_given, 0, sizeof run->flags_given);
    run->kernel_count = 0;
    run->block_count = 0;
    run->save_every = 0;
    run->dump_field = NULL;
    run->progress = 0;
    run->size_text = NULL;
    run->frames = KS_LIVE_WARMUP + opt->frames;
}

const ks_options *ks_live_bench_options(const ks_live_bench *b) { return b->opt; }
int ks_live_bench_use_cuda(const ks_live_bench *b) { return b->use_cuda; }
const ks_device_info *ks_live_bench_device(const ks_live_bench *b) { return b->dev; }
const ks_best_store *ks_live_bench_best(const ks_live_bench *b) { return b->best; }

int ks_live_bench_wanted(const ks_live_bench *b, const char *name)
{
    const ks_options *opt = b->opt;
    if (!opt->kernel_count) return 1;
    for (int k = 0; k < opt->kernel_count; ++k)
        if (strcmp(opt->kernels[k], name) == 0) return 1;
    return 0;
}

ks_status ks_live_bench_proto(const ks_live_bench *b, const char *scene, const char *variant, ks_live_row *r)
{
    if (b->nrows == KS_LIVE_MAX_ROWS) return ks_fail(KS_ERR_INVALID, "bench live: more than %d rows", KS_LIVE_MAX_ROWS);
    memset(r, 0, sizeof *r);
    snprintf(r->device, sizeof r->device, "%s", b->use_cuda ? b->dev->name : "host CPU");
    if (b->use_cuda) snprintf(r->cc, sizeof r->cc, "%d.%d", b->dev->cc_major, b->dev->cc_minor);
    else snprintf(r->cc, sizeof r->cc, "-");
    snprintf(r->scene, sizeof r->scene, "%s", scene);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->sizing, sizeof r->sizing, "-"); /* a scene with a count says how it was sized */
    return KS_OK;
}

/* Runs the live loop in every mode for a configuration whose bench time is in
 * proto; a row per mode. */
ks_status ks_live_bench_run_modes(ks_live_bench *b, const ks_options *run, const ks_live_row *proto)
{
    for (int m = 0; m < b->nmodes && !ks_signals_stop_requested(); ++m) {
        ks_live_stats s;
        KS_TRY(run_live(b, run, b->modes[m], &s));
        if (ks_signals_stop_requested()) break; /* a run cut short measures nothing */
        if (b->nrows == KS_LIVE_MAX_ROWS) return ks_fail(KS_ERR_INVALID, "bench live: more than %d rows", KS_LIVE_MAX_ROWS);
        ks_live_row *r = &b->rows[b->nrows];
        *r = *proto;
        snprintf(r->mode, sizeof r->mode, "%s", mode_name(b->modes[m]));
        ks_bench_live_fill(r, &s);
        ++b->nrows;
        printf("%s %s %s %s %s: %.0f it/frame, live %.4f ms/it, kernel %.4f ms/it (x%.3f), frame interval %.3f ms "
               "(%.1f fps), solver %.0f%%\n",
               r->scene, r->variant, r->grid, r->mode, sizing_of(r), r->iters_per_frame, r->live_ms_per_iter,
               r->bench_ms_per_iter, r->ratio, r->frame_ms, r->fps, 100.0 * r->solver_share);
        fflush(stdout);
    }
    return KS_OK;
}

/* ---- Charts: one per mode, live / bench per variant against the work per frame ---- */

static ks_status write_chart(const ks_live_bench *b, unsigned mode)
{
    enum { KS_NS = KS_CHART_MAX_SERIES };
    char names[KS_NS][48];
    double xs[KS_NS][KS_LIVE_MAX_ROWS / 4], ys[KS_NS][KS_LIVE_MAX_ROWS / 4];
    ks_chart_series series[KS_NS];
    int nseries = 0, left_out = 0;
    /* one line per variant: the frame-rate rows where there are any (what a
     * user watching gets), the fastest ones in the CSV and the table */
    int has_fps_rows = 0;
    for (int i = 0; i < b->nrows; ++i) has_fps_rows |= strncmp(b->rows[i].sizing, "fps", 3) == 0;
    for (int i = 0; i < b->nrows; ++i) {
        const ks_live_row *r = &b->rows[i];
        if (strcmp(r->mode, mode_name(mode)) != 0 || !(r->ratio > 0.0)) continue;
        if (has_fps_rows && strcmp(r->sizing, "fastest") == 0) continue;
        char name[48];
        snprintf(name, sizeof name, "%s %s", r->scene, r->variant);
        int k = 0;
        while (k < nseries && strcmp(names[k], name) != 0) ++k;
        if (k == nseries) {
            if (nseries == KS_NS) {
                ++left_out;
                continue;
            }
            snprintf(names[k], sizeof names[k], "%s", name);
            series[k] = (ks_chart_series){names[k], xs[k], ys[k], 0};
            ++nseries;
        }
        if (series[k].n == KS_LIVE_MAX_ROWS / 4) continue;
        /* points in increasing x */
        int at = series[k].n++;
        while (at > 0 && xs[k][at - 1] > r->points) {
            xs[k][at] = xs[k][at - 1];
            ys[k][at] = ys[k][at - 1];
            --at;
        }
        xs[k][at] = r->points;
        ys[k][at] = r->ratio;
    }
    if (nseries == 0) return KS_OK;
    /* the kernel's own speed, y = 1, across the points (when a line is free) */
    double ref_x[2] = {INFINITY, -INFINITY}, ref_y[2] = {1.0, 1.0};
    for (int k = 0; k < nseries; ++k) {
        ref_x[0] = fmin(ref_x[0], xs[k][0]);
        ref_x[1] = fmax(ref_x[1], xs[k][series[k].n - 1]);
    }
    if (nseries < KS_NS)
        series[nseries++] = (ks_chart_series){"kernel speed", ref_x, ref_y, ref_x[1] > ref_x[0] ? 2 : 1};
    if (left_out) printf("chart %s: %d rows of further variants left out (at most %d lines)\n", mode_name(mode), left_out, KS_NS);
    char title[400];
    snprintf(title, sizeof title, "kernelscope bench live (%s%s) on %s: live / kernel time per iteration",
             mode_name(mode), has_fps_rows ? ", frame-rate sizing" : "", b->rows[0].device);
    /* log y: ratios near 1 and outliers of many times on one chart */
    const ks_chart_desc d = {.title = title, .x_label = "grid points (spheres: picture pixels), log scale",
                             .y_label = "live / kernel time per iteration, log scale", .log_x = 1, .log_y = 1,
                             .series = series, .series_count = nseries};
    char name[256];
    snprintf(name, sizeof name, "bench_live_%s.png", mode_name(mode));
    return ks_bench_chart_write(&d, b->opt->out_dir, name, NULL, 0);
}

/* One chart per display mode measured. */
static ks_status charts(const void *ctx, const char *dir)
{
    (void)dir; /* opt->out_dir */
    const ks_live_bench *b = ctx;
    for (int m = 0; m < b->nmodes; ++m) KS_TRY(write_chart(b, b->modes[m]));
    return KS_OK;
}

ks_status ks_bench_live(const ks_options *opt, const ks_device_info *dev, int use_cuda, const ks_best_store *best)
{
    ks_live_bench b;
    memset(&b, 0, sizeof b);
    b.opt = opt;
    b.dev = dev;
    b.use_cuda = use_cuda;
    b.best = best;
    KS_TRY(choose_modes(&b));
    for (int m = 0; m < b.nmodes; ++m)
        if (b.modes[m] == KS_LIVE_MODE_WINDOW) b.has_window = 1;
    if (use_cuda) {
        /* the ceilings the live view measures at start-up, for the scenes' own figures */
        KS_TRY(ks_cuda_measure_copy_gbs((size_t)256 << 20, 10, &b.t_peak_gbs));
        KS_TRY(ks_cuda_measure_fma_gflops(5, &b.fma_gflops));
    } else {
        KS_TRY(ks_host_peak_measure(NULL, &b.host_peak));
        b.t_peak_gbs = b.host_peak.gbs;
    }
    b.rows = calloc(KS_LIVE_MAX_ROWS, sizeof *b.rows);
    if (!b.rows) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    printf("kernelscope bench live on %s (%s backend): %d timed frames after %d warm-up, modes:",
           use_cuda ? dev->name : "host CPU", use_cuda ? "cuda" : "cpu", opt->frames, KS_LIVE_WARMUP);
    for (int m = 0; m < b.nmodes; ++m) printf(" %s", mode_name(b.modes[m]));
    printf("\n");
    fflush(stdout);

    /* every scene that takes part, in registry order */
    ks_status st = KS_OK;
    for (int i = 0; i < ks_scene_def_count() && st == KS_OK && !ks_signals_stop_requested(); ++i)
        if (ks_scene_def_at(i)->live_bench) st = ks_scene_def_at(i)->live_bench(ks_scene_def_at(i), &b);
    /* what was measured before a failure or a stop is still written */
    if (b.nrows > 0) {
        const ks_bench_output_desc out = {
            .dir = opt->out_dir, .rows = b.rows, .n = b.nrows, .table = table_text,
            .files = {{"bench_live.csv", csv_text}, {"bench_live_stages.csv", stages_text}},
            .charts = charts, .ctx = &b};
        st = ks_bench_output_write(&out, st);
    } else if (st == KS_OK) {
        printf("kernelscope: no row measured; nothing to write\n");
    }
    free(b.rows);
    return st;
}
