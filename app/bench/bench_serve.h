/* `kernelscope bench serve`: the live loop headless with the browser
 * viewer's server on loopback, for each scene case in turn: no viewer
 * (none), one WebSocket viewer taking JPEG (jpeg) or H.264 (h264) frames, and
 * --record at 60 fps with no viewer (record). Per row: the solver's median ms
 * per iteration and its ratio to the none row, the loop's fps, the frames and
 * Mbit/s the viewer received, and key press to changed picture (JPEG rows).
 * Table on stdout; bench_serve.csv, bench_serve.txt and bench_serve.png in --out. */
#ifndef KS_BENCH_SERVE_H
#define KS_BENCH_SERVE_H

#include "base/cuda_device.h"
#include "app/best_config.h"
#include "app/options.h"

typedef struct ks_serve_row {
    char device[256];
    char cc[8];                /* "9.0"; "-" on the CPU backend */
    char scene[16];            /* laplace3d, laplace2d, spheres */
    char variant[32];          /* Laplace kernel or sphere memory variant; "gold" on the CPU backend */
    char size[24];             /* the picture, "1920x1080" (as the viewer received it on viewer rows) */
    char kase[16];             /* none, jpeg, h264, record; with --browser browser-jpeg, browser-h264 */
    char encoder[32];          /* nvjpeg, libjpeg-turbo, libx264, h264_nvenc; "-" for none */
    int frames;                /* timed frames of the live loop */
    double solver_ms_per_iter; /* the solver stage's median / iterations per frame */
    double solver_ratio;       /* over the none row of the same scene; 0: no none row */
    double loop_fps;           /* 1000 / the median frame interval */
    double viewer_fps;         /* frames the viewer received per second (browser rows: drew, by its own count); < 0: no viewer */
    double viewer_mbit_s;      /* what it received; < 0: no viewer */
    double latency_ms;         /* key press to changed picture, median; < 0: not measured */
    int latency_samples;
} ks_serve_row;

ks_status ks_bench_serve(const ks_options *opt, const ks_device_info *dev, int use_cuda, const ks_best_store *best);

/* The writers (tested on their own); malloc'd text. */
char *ks_bench_serve_table(const ks_serve_row *rows, int n);
char *ks_bench_serve_csv(const ks_serve_row *rows, int n);
/* KS_ERR_IO when the row had a viewer (or a browser) that received no frame in its timed frames. */
ks_status ks_bench_serve_check_row(const ks_serve_row *r);
/* The rows of a bench_serve.csv's text (as ks_bench_serve_csv writes it; "-": not measured), at most
 * max into rows: *n of them. KS_ERR_INVALID, with the line and what is wrong, for any other text. */
ks_status ks_bench_serve_parse_csv(const char *text, ks_serve_row *rows, int max, int *n);
/* bench serve --replot CSV: the table, bench_serve.txt, .csv and .png of an earlier run's rows in
 * out_dir, nothing run (a chart drawn again after a fix, or on another machine). */
ks_status ks_bench_serve_replot(const char *csv_path, const char *out_dir);
/* The rows of the bench_serve.csv at path (ks_bench_serve_parse_csv), up to max. */
ks_status ks_bench_serve_read_csv(const char *path, ks_serve_row *rows, int max, int *n);
/* The options' check of --replot: the file is read and its rows parsed (then dropped). */
ks_status ks_bench_serve_replot_check(const char *csv_path);
/* Sets solver_ratio of every row from the none row of its scene and variant. */
void ks_bench_serve_ratios(ks_serve_row *rows, int n);

/* ---- For the scenes' serve_case hooks (app/scenes.h) ---- */
typedef struct ks_serve_bench ks_serve_bench;
const ks_options *ks_serve_bench_options(const ks_serve_bench *b);
int ks_serve_bench_use_cuda(const ks_serve_bench *b);
const ks_device_info *ks_serve_bench_device(const ks_serve_bench *b);
const ks_best_store *ks_serve_bench_best(const ks_serve_bench *b);
/* A case: the scene's live options run (from ks_bench_live_run_options, with the
 * scene's own set), its variant's name and the keys the latency probe sends in
 * turn (key1 may be NULL). */
ks_status ks_serve_bench_add_case(ks_serve_bench *b, const char *variant, const char *key0, const char *key1,
                                  const ks_options *run);

#endif
