/* POSIX: fork, kill, waitpid, mkdtemp, nftw (the --browser rows) */
#define _XOPEN_SOURCE 700

#include "app/bench/bench_serve_internal.h"
#include "app/bench/bench_serve_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fma_peak.h"
#include "base/ks_util.h"
#include "render/image_io.h"
#include "serve/server.h"
#include "serve/ws_viewer.h"
#include "video/recorder.h"
#include "app/bench/bench_live.h"
#include "app/bench/bench_output.h"
#include "app/bench/bench_roofline.h"
#include "app/live/live.h"
#include "app/run_outputs.h"
#include "app/scenes.h"
#include "app/signals.h"

enum {
    KS_SERVE_WARMUP = 48,        /* frames before the timed ones (as bench live; --iters auto settles in 44) */
    KS_SERVE_MIN_TIMED_S = 2,    /* the timed frames last at least this long: a viewer's frame rate over
                                    120 frames of a 1000 fps loop would be a tenth of a second of counting */
    KS_SERVE_LATENCY_SAMPLES = 24,
};
static const double ks_first_frame_s = 20.0; /* the viewer's first frame after the warm-up, at most */
static const double ks_latency_s = 60.0;     /* all the latency samples, at most */
static const double ks_key_s = 3.0;          /* one key press to its changed picture, at most */

static const double ks_browser_s = 40.0; /* the page's first reports after the warm-up, at most */

/* ---- The scene cases: each scene builds its own (its serve_case hook) ---- */

typedef struct serve_scene {
    const ks_scene_def *scene;
    char variant[32];    /* kernel or memory variant; "gold" on the CPU backend */
    const char *keys[2]; /* the latency keys, sent in turn */
    ks_options run;      /* the scene's live options for the case (ks_serve_bench_add_case) */
} serve_scene;

struct ks_serve_bench {
    const ks_options *opt;
    const ks_device_info *dev;
    int use_cuda;
    const ks_best_store *best;
    double t_peak_gbs, fma_gflops;
    ks_host_peak host_peak; /* the CPU backend's T_peak and its spread */
    serve_scene scenes[KS_SERVE_MAX_CASES];
    int nscenes;
    ks_serve_row rows[KS_SERVE_MAX_ROWS];
    int nrows;
};
typedef struct ks_serve_bench serve_bench;

const ks_options *ks_serve_bench_options(const ks_serve_bench *b) { return b->opt; }
int ks_serve_bench_use_cuda(const ks_serve_bench *b) { return b->use_cuda; }
const ks_device_info *ks_serve_bench_device(const ks_serve_bench *b) { return b->dev; }
const ks_best_store *ks_serve_bench_best(const ks_serve_bench *b) { return b->best; }

ks_status ks_serve_bench_add_case(ks_serve_bench *b, const char *variant, const char *key0, const char *key1,
                                  const ks_options *run)
{
    if (b->nscenes == KS_SERVE_MAX_CASES)
        return ks_fail(KS_ERR_INVALID, "bench serve: at most %d scene cases", KS_SERVE_MAX_CASES);
    serve_scene *c = &b->scenes[b->nscenes++];
    memset(c, 0, sizeof *c);
    c->scene = run->scene;
    snprintf(c->variant, sizeof c->variant, "%s", b->use_cuda ? variant : "gold");
    c->keys[0] = key0;
    c->keys[1] = key1;
    c->run = *run;
    return KS_OK;
}

/* --kernel names pick the cases (each to the first scene that has it); else each
 * scene's own default cases. */
static ks_status choose_scenes(serve_bench *b)
{
    const ks_options *opt = b->opt;
    for (int i = 0; i < ks_scene_def_count() && (!b->use_cuda || !opt->kernel_count); ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        if (d->serve_case) KS_TRY(d->serve_case(d, b, NULL));
    }
    for (int k = 0; b->use_cuda && k < opt->kernel_count; ++k) {
        const ks_scene_def *d = NULL;
        for (int i = 0; i < ks_scene_def_count() && !d; ++i) {
            const ks_scene_def *e = ks_scene_def_at(i);
            if (e->serve_case && e->has_kernel && e->has_kernel(e, opt->kernels[k])) d = e;
        }
        if (!d) return ks_fail(KS_ERR_INVALID, "--kernel: unknown kernel '%s'", opt->kernels[k]); /* the options checked it */
        KS_TRY(d->serve_case(d, b, opt->kernels[k]));
    }
    return KS_OK;
}

/* The live options of one row: the scene's, served on loopback, headless. */
static ks_status row_options(const serve_bench *b, const serve_scene *c, ks_case kase, const char *video,
                             ks_options *run)
{
    (void)b;
    *run = c->run;
    run->frames = 0; /* the frame hook ends the run */
    run->headless = 1;
    run->window = 0;
    run->no_overlay = 1; /* the picture fills the frame: the viewer gets --size */
    run->size_set = 1;
    run->serve = 1;
    snprintf(run->serve_addr, sizeof run->serve_addr, "127.0.0.1");
    run->serve_port = 0; /* a free port */
    run->token = NULL;
    run->record = kase == KS_CASE_RECORD ? video : NULL;
    run->fps = 60;
    return KS_OK;
}

/* ---- One row: the frame hook runs warm-up, timed frames and the latency probe ---- */

enum { PHASE_WARM = 0, PHASE_TIMED, PHASE_LATENCY, PHASE_BROWSER_TAIL };

typedef struct serve_run {
    int frames;                    /* timed frames asked for */
    long long timed;               /* timed frames run (at least frames, and KS_SERVE_MIN_TIMED_S) */
    ks_ws_viewer *viewer;          /* NULL: none */
    int latency;                   /* measure key to picture after the timed frames */
    const char *scene;
    int phase;
    long long start_frame;
    double phase_at;               /* host seconds the phase began */
    ks_ws_viewer_counts c0, c1;
    double t0, t1;
    ks_live_stats stats;
    int measured;
    char encoder[32];              /* --record's encoder, read while it records */
    double lat_ms;                 /* key to picture, median */
    int lat_n;
    int browser;                   /* a browser views the page: its own reports count */
    ks_frame_kind want;            /* the frames it must draw */
    ks_server_viewer_stats v0, v1; /* the page's reports at the start of the timed frames and after */
    char skip[200];                /* a case this browser cannot do: why */
    ks_status st;
    char error[512];
} serve_run;

static int run_fail(serve_run *r, ks_status st, const char *text)
{
    r->st = st;
    snprintf(r->error, sizeof r->error, "%s", text);
    return 1;
}

/* The timed frames' phase: 0 while it lasts (at least r->frames frames and
 * KS_SERVE_MIN_TIMED_S); then 1 with the stage medians taken over the timed
 * frames (as many as the live loop keeps), or -1 with the row failed. */
static int end_timed(serve_run *r, ks_live *live, long long done, double now)
{
    if (done - r->start_frame < r->frames || now - r->t0 < KS_SERVE_MIN_TIMED_S) return 0;
    r->t1 = now;
    r->timed = done - r->start_frame;
    r->st = ks_live_measure(live, (int)(r->timed < KS_LIVE_STATS_WINDOW ? r->timed : KS_LIVE_STATS_WINDOW),
                            &r->stats);
    if (r->st != KS_OK) {
        run_fail(r, r->st, ks_error_message());
        return -1;
    }
    r->measured = 1;
    return 1;
}

/* The browser rows: the page's own reports of the frames it drew. */
static int browser_hook(serve_run *r, ks_live *live, long long done, double now)
{
    ks_server_viewer_stats vs;
    ks_live_serve_viewer_stats_of(live, &vs);
    switch (r->phase) {
    case PHASE_WARM:
        if (done < KS_SERVE_WARMUP) return 0;
        if (r->phase_at == 0.0) r->phase_at = now;
        if (vs.reports < 2 || vs.kind != r->want) {
            if (now - r->phase_at <= ks_browser_s) return 0;
            if (vs.reports && r->want == KS_FRAME_H264) { /* the page fell back to JPEG */
                snprintf(r->skip, sizeof r->skip, "the browser decodes no H.264 here (WebCodecs)");
                return 1;
            }
            char why[200];
            snprintf(why, sizeof why, "browser: %llu reports from the page in %.0f s", vs.reports, ks_browser_s);
            return run_fail(r, KS_ERR_IO, why);
        }
        r->phase = PHASE_TIMED;
        r->start_frame = done;
        r->v0 = vs;
        r->t0 = now;
        return 0;
    case PHASE_TIMED: {
        const int ended = end_timed(r, live, done, now);
        if (ended <= 0) return ended < 0;
        r->phase = PHASE_BROWSER_TAIL;
        r->phase_at = now;
        return 0;
    }
    default:
        /* the report that covers the end of the timed frames (the page sends one a second) */
        if (vs.reports < r->v0.reports + 2 && now - r->phase_at <= 5.0) return 0;
        r->v1 = vs;
        if (r->v1.reports > r->v0.reports) return 1;
        return run_fail(r, KS_ERR_IO, "browser: the page stopped reporting");
    }
}

static int frame_hook(void *user, ks_live *live, long long done)
{
    serve_run *r = user;
    const double now = ks_now_seconds();
    if (r->browser) return browser_hook(r, live, done, now);
    ks_ws_viewer_counts c;
    memset(&c, 0, sizeof c);
    if (r->viewer) {
        ks_ws_viewer_read(r->viewer, &c);
        if (c.closed) return run_fail(r, KS_ERR_IO, c.error[0] ? c.error : "viewer: the WebSocket closed");
    }
    if (!r->encoder[0]) snprintf(r->encoder, sizeof r->encoder, "%s", ks_live_record_encoder_of(live));
    switch (r->phase) {
    case PHASE_WARM:
        if (done < KS_SERVE_WARMUP) return 0;
        if (r->phase_at == 0.0) r->phase_at = now;
        if (r->viewer && c.frames < 2) { /* the viewer is in once it has frames of its kind */
            if (now - r->phase_at <= ks_first_frame_s) return 0;
            char why[200];
            snprintf(why, sizeof why, "viewer: %s in %.0f s (connected: %s)",
                     c.frames ? "only one frame" : "no frame", ks_first_frame_s, c.connected ? "yes" : "no");
            return run_fail(r, KS_ERR_IO, why);
        }
        r->phase = PHASE_TIMED;
        r->start_frame = done;
        r->c0 = c;
        r->t0 = now;
        return 0;
    case PHASE_TIMED: {
        const int ended = end_timed(r, live, done, now);
        if (ended <= 0) return ended < 0;
        r->c1 = c;
        if (!r->latency) return 1;
        ks_ws_viewer_start_latency(r->viewer);
        r->phase = PHASE_LATENCY;
        r->phase_at = now;
        return 0;
    }
    default:
        if (c.latency_done) {
            r->lat_ms = c.latency_median_ms;
            r->lat_n = c.latency_samples;
            if (c.latency_samples > 0) return 1;
            char why[200];
            snprintf(why, sizeof why, "latency: the keys sent changed no picture in %d tries (%s)",
                     c.latency_timeouts, r->scene);
            return run_fail(r, KS_ERR_IO, why);
        }
        if (now - r->phase_at <= ks_latency_s) return 0;
        {
            char why[200];
            snprintf(why, sizeof why, "latency: %d of %d samples in %.0f s", c.latency_samples,
                     KS_SERVE_LATENCY_SAMPLES, ks_latency_s);
            return run_fail(r, KS_ERR_IO, why);
        }
    }
}

static ks_serve_row *new_row(serve_bench *b, const serve_scene *c, ks_case kase)
{
    if (b->nrows == KS_SERVE_MAX_ROWS) return NULL;
    ks_serve_row *r = &b->rows[b->nrows];
    memset(r, 0, sizeof *r);
    snprintf(r->device, sizeof r->device, "%s", b->use_cuda ? b->dev->name : "host CPU");
    if (b->use_cuda) snprintf(r->cc, sizeof r->cc, "%d.%d", b->dev->cc_major, b->dev->cc_minor);
    else snprintf(r->cc, sizeof r->cc, "-");
    snprintf(r->scene, sizeof r->scene, "%s", c->scene->name);
    snprintf(r->variant, sizeof r->variant, "%s", c->variant);
    snprintf(r->kase, sizeof r->kase, "%s", ks_case_names[kase]);
    snprintf(r->encoder, sizeof r->encoder, "-");
    r->viewer_fps = r->viewer_mbit_s = r->latency_ms = -1.0;
    return r;
}

/* Runs one row; *skipped 1 (and a line printed) when the build cannot do the case. */
static ks_status run_row(serve_bench *b, const serve_scene *c, ks_case kase, int *skipped)
{
    const ks_options *opt = b->opt;
    *skipped = 0;
    char video[1100] = "";
    if (kase == KS_CASE_RECORD) {
        const int n = snprintf(video, sizeof video, "%s/bench_serve_%s_%s.mp4", opt->out_dir, c->scene->name,
                               c->variant);
        if (n < 0 || (size_t)n >= sizeof video) return ks_fail(KS_ERR_IO, "--out path too long");
        if (ks_recorder_check_path(video) != KS_OK) {
            printf("%s %s record: skipped (%s)\n", c->scene->name, c->variant, ks_error_message());
            ks_error_clear();
            *skipped = 1;
            return KS_OK;
        }
    }
    ks_options run;
    KS_TRY(row_options(b, c, kase, video, &run));
    ks_scene_env env;
    memset(&env, 0, sizeof env);
    env.opt = &run;
    env.use_cuda = b->use_cuda;
    env.device = b->dev;
    env.t_peak_gbs = b->t_peak_gbs;
    env.host_peak = b->use_cuda ? NULL : &b->host_peak;
    env.fma_gflops = b->fma_gflops;
    env.best = b->best;
    serve_run sr;
    memset(&sr, 0, sizeof sr);
    sr.frames = opt->frames;
    sr.scene = c->scene->name;
    sr.latency = kase == KS_CASE_JPEG;
    sr.browser = kase == KS_CASE_BROWSER_JPEG || kase == KS_CASE_BROWSER_H264;
    sr.want = kase == KS_CASE_BROWSER_H264 ? KS_FRAME_H264 : KS_FRAME_JPEG;
    ks_live *live = NULL;
    const ks_live_desc ld = {&env, c->scene->live, KS_LIVE_HEADLESS};
    ks_status st = ks_live_create(&ld, &live);
    char enc[32] = ""; /* a copy: the name goes with the server */
    if (st == KS_OK) {
        if (kase != KS_CASE_NONE && kase != KS_CASE_RECORD)
            snprintf(enc, sizeof enc, "%s",
                     ks_live_serve_encoder_of(live, kase == KS_CASE_H264 || kase == KS_CASE_BROWSER_H264));
        if (!enc[0] && (kase == KS_CASE_H264 || kase == KS_CASE_BROWSER_H264)) {
            printf("%s %s %s: skipped (no H.264 encoder: a build without video, or none opened)\n",
                   c->scene->name, c->variant, ks_case_names[kase]);
            ks_live_destroy(live);
            *skipped = 1;
            return KS_OK;
        }
    }
    if (st == KS_OK && (kase == KS_CASE_JPEG || kase == KS_CASE_H264)) {
        ks_ws_viewer_desc vd;
        memset(&vd, 0, sizeof vd);
        vd.port = ks_live_serve_port_of(live);
        vd.h264 = kase == KS_CASE_H264;
        vd.keys[0] = c->keys[0];
        vd.keys[1] = c->keys[1];
        vd.latency_samples = KS_SERVE_LATENCY_SAMPLES;
        vd.timeout_s = ks_key_s;
        st = ks_ws_viewer_start(&vd, &sr.viewer);
    }
    pid_t browser = 0;
    char profile[1100] = "";
    if (st == KS_OK && sr.browser) {
        const char *tmp = getenv("TMPDIR");
        snprintf(profile, sizeof profile, "%s/kernelscope-browser-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        char url[256];
        snprintf(url, sizeof url, "http://127.0.0.1:%d/%s", ks_live_serve_port_of(live),
                 kase == KS_CASE_BROWSER_JPEG ? "?codec=jpeg" : "");
        if (!mkdtemp(profile)) {
            profile[0] = '\0';
            st = ks_fail(KS_ERR_IO, "browser: cannot make a profile folder under %s", tmp && *tmp ? tmp : "/tmp");
        } else if ((browser = ks_serve_browser_start(ks_bench_serve_browser(opt), url, profile)) < 0) {
            st = ks_fail(KS_ERR_IO, "browser: cannot start %s", ks_bench_serve_browser(opt));
        }
    }
    if (st == KS_OK) {
        ks_live_set_frame_hook(live, frame_hook, &sr);
        st = ks_live_run(live);
    }
    ks_serve_browser_stop(browser);
    if (profile[0]) nftw(profile, ks_serve_browser_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (st == KS_OK && sr.st != KS_OK) st = ks_fail(sr.st, "%s %s %s: %s", c->scene->name, c->variant,
                                                    ks_case_names[kase], sr.error);
    ks_ws_viewer_stop(sr.viewer); /* before the server goes */
    ks_live_destroy(live);
    KS_TRY(st);
    if (sr.skip[0]) {
        printf("%s %s %s: skipped (%s)\n", c->scene->name, c->variant, ks_case_names[kase], sr.skip);
        *skipped = 1;
        return KS_OK;
    }
    if (!sr.measured) {
        if (ks_signals_stop_requested()) { /* a run cut short measures nothing; main exits 130 */
            *skipped = 1;
            return KS_OK;
        }
        return ks_fail(KS_ERR_IO, "bench serve: %s %s %s ended before its timed frames", c->scene->name,
                       c->variant, ks_case_names[kase]);
    }

    ks_serve_row *r = new_row(b, c, kase);
    if (!r) return ks_fail(KS_ERR_INVALID, "bench serve: more than %d rows", KS_SERVE_MAX_ROWS);
    r->frames = (int)sr.timed;
    const double solver = ks_live_stats_stage(&sr.stats, ks_bench_live_solver_stage(r->scene));
    r->solver_ms_per_iter = solver > 0.0 && sr.stats.iters_per_frame > 0.0 ? solver / sr.stats.iters_per_frame : 0.0;
    r->loop_fps = sr.stats.fps;
    if (kase == KS_CASE_RECORD) snprintf(enc, sizeof enc, "%s", sr.encoder);
    snprintf(r->encoder, sizeof r->encoder, "%s", enc[0] ? enc : "-");
    snprintf(r->size, sizeof r->size, "%dx%d", run.width, run.height);
    if (sr.viewer) {
        const double dt = sr.t1 - sr.t0;
        r->viewer_fps = dt > 0.0 ? (double)(sr.c1.frames - sr.c0.frames) / dt : 0.0;
        r->viewer_mbit_s = dt > 0.0 ? (double)(sr.c1.bytes - sr.c0.bytes) * 8e-6 / dt : 0.0;
        if (sr.c1.width > 0) snprintf(r->size, sizeof r->size, "%dx%d", sr.c1.width, sr.c1.height);
    }
    if (sr.browser && sr.v1.reports > sr.v0.reports) /* the mean of the page's reports over the timed frames */
        r->viewer_fps = (sr.v1.fps_sum - sr.v0.fps_sum) / (double)(sr.v1.reports - sr.v0.reports);
    ++b->nrows;
    KS_TRY(ks_bench_serve_check_row(r)); /* the row stays in the table; the bench fails */
    if (sr.latency && sr.lat_n > 0) { /* the hook read the viewer's last counts; none: a stop cut it short */
        r->latency_ms = sr.lat_ms;
        r->latency_samples = sr.lat_n;
    }
    return KS_OK;
}

ks_status ks_bench_serve_check_row(const ks_serve_row *r)
{
    if (r->viewer_fps < 0.0 || r->viewer_fps > 0.0) return KS_OK; /* no viewer, or frames came */
    return ks_fail(KS_ERR_IO, "bench serve: %s %s %s: the viewer received no frame during the %d timed frames",
                   r->scene, r->variant, r->kase, r->frames);
}

static ks_status charts(const void *b_, const char *dir)
{
    const serve_bench *b = b_;
    (void)dir; /* opt->out_dir */
    return ks_serve_chart_write(b->rows, b->nrows, b->opt->out_dir);
}

static ks_status run_scene(serve_bench *b, const serve_scene *c)
{
    const int ncases = ks_bench_serve_browser(b->opt) ? KS_CASE_NUM : KS_CASE_BROWSER_JPEG;
    for (int k = 0; k < ncases && !ks_signals_stop_requested(); ++k) {
        int skipped = 0;
        KS_TRY(run_row(b, c, (ks_case)k, &skipped));
        if (skipped) continue;
        ks_bench_serve_ratios(b->rows, b->nrows);
        const ks_serve_row *r = &b->rows[b->nrows - 1];
        printf("%s %s %s %s: solver %.4f ms/it (x%.3f), loop %.1f fps", r->scene, r->variant, r->size, r->kase,
               r->solver_ms_per_iter, r->solver_ratio, r->loop_fps);
        if (r->viewer_fps >= 0.0) printf(", viewer %.1f fps (%s)", r->viewer_fps, r->encoder);
        if (r->viewer_mbit_s >= 0.0) printf(", %.1f Mbit/s", r->viewer_mbit_s);
        if (r->latency_ms >= 0.0) printf(", key to picture %.1f ms (n=%d)", r->latency_ms, r->latency_samples);
        printf("\n");
        fflush(stdout);
    }
    return KS_OK;
}

ks_status ks_bench_serve(const ks_options *opt, const ks_device_info *dev, int use_cuda, const ks_best_store *best)
{
    if (ks_bench_serve_replot_path(opt)) return ks_bench_serve_replot(ks_bench_serve_replot_path(opt), opt->out_dir);
    serve_bench *b = calloc(1, sizeof *b);
    if (!b) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    b->opt = opt;
    b->dev = dev;
    b->use_cuda = use_cuda;
    b->best = best;
    ks_status st = choose_scenes(b);
    if (st == KS_OK && use_cuda) { /* the ceilings the live view measures at start-up, for the scenes' figures */
        st = ks_cuda_measure_copy_gbs((size_t)256 << 20, 10, &b->t_peak_gbs);
        if (st == KS_OK) st = ks_cuda_measure_fma_gflops(5, &b->fma_gflops);
    } else if (st == KS_OK) {
        st = ks_host_peak_measure(NULL, &b->host_peak);
        b->t_peak_gbs = b->host_peak.gbs;
    }
    if (st != KS_OK) {
        free(b);
        return st;
    }
    printf("kernelscope bench serve on %s (%s backend): %dx%d, %d timed frames after %d warm-up, server on "
           "127.0.0.1, cases none jpeg h264 record%s\n",
           use_cuda ? dev->name : "host CPU", use_cuda ? "cuda" : "cpu", opt->width, opt->height, opt->frames,
           KS_SERVE_WARMUP, ks_bench_serve_browser(opt) ? " browser-jpeg browser-h264" : "");
    fflush(stdout);
    for (int i = 0; i < b->nscenes && st == KS_OK && !ks_signals_stop_requested(); ++i) st = run_scene(b, &b->scenes[i]);
    /* what was measured before a failure or a stop is still written */
    if (b->nrows > 0) {
        const ks_bench_output_desc out = {
            .dir = opt->out_dir, .rows = b->rows, .n = b->nrows, .table = ks_serve_table_text,
            .files = {{"bench_serve.txt", ks_serve_table_text}, {"bench_serve.csv", ks_serve_csv_text}},
            .charts = charts, .ctx = b};
        st = ks_bench_output_write(&out, st);
    } else if (st == KS_OK) {
        printf("kernelscope: no row measured; nothing to write\n");
    }
    free(b);
    return st;
}
