/* `kernelscope bench live`: the real live loop (app/live.c), headless and in a
 * window, for each Laplace kernel at its best block over a grid list and for
 * the spheres' memory variants, against the kernel time that bench
 * laplace3d/2d and bench spheres measure for the same configuration in the
 * same run; Laplace rows with --iters auto run twice, sized for the frame-rate
 * target and for the fastest solver (the sizing column). Table on stdout; bench_live.csv, bench_live_stages.csv and one
 * chart per mode (bench_live_<mode>.png) in --out. */
#ifndef KS_BENCH_LIVE_H
#define KS_BENCH_LIVE_H

#include "base/cuda_device.h"
#include "app/best_config.h"
#include "app/live/live.h"
#include "app/options.h"

/* One live run: a scene, kernel, grid, block and mode. */
typedef struct ks_live_row {
    char device[256];
    char cc[8];              /* compute capability "9.0"; "-" on the CPU backend */
    char scene[16];          /* laplace3d, laplace2d, spheres */
    char variant[32];        /* Laplace kernel or sphere memory variant; "gold" on the CPU backend */
    char grid[48];           /* "512x512x512", "4096x4096"; spheres: picture and count, "1024x768/2048" */
    char block[24];          /* "32x8x1"; "-" on the CPU backend */
    char block_from[8];      /* "best" (the best-config store) or "default" */
    char path[16];           /* how the picture reaches GL (ks_live_stats.path) */
    char mode[16];           /* headless, window */
    char sizing[16];         /* how iters_per_frame was chosen: "fps60" (--iters auto at a frame-rate
                                target of 60), "fastest" (--iters auto, --fps-target 0: the solver
                                >= 97 % of a frame), "fixed" (--iters K, or the CPU backend's 2);
                                "-" where the scene has no count (spheres) */
    double points;           /* grid points (spheres: pixels), the chart's x */
    double iters_per_frame;  /* Jacobi iterations per frame; spheres: 1 (one render) */
    double live_ms_per_iter; /* median wall-clock frame interval / iters_per_frame */
    double bench_ms_per_iter;/* the kernel alone, as bench laplace3d/2d / bench spheres time it */
    double ratio;            /* live / bench */
    double frame_ms;         /* median wall-clock frame interval */
    double solver_share;     /* 0..1: the solver stages' medians over frame_ms */
    double map_unmap_ms;     /* map + unmap stage medians */
    double fps;              /* 1000 / frame_ms */
    int nstages;
    ks_live_stage_median stages[KS_LIVE_STATS_STAGES];
} ks_live_row;

ks_status ks_bench_live(const ks_options *opt, const ks_device_info *dev, int use_cuda, const ks_best_store *best);

/* The share of a frame that the solver takes: the median of the scene's solver
 * stage (its registry row's solver_stage) over frame_ms. */
double ks_bench_live_solver_share(const char *scene, const ks_live_stats *s, double frame_ms);
/* The solver stage of a scene's live loop, from its registry row ("jacobi" when unknown). */
const char *ks_bench_live_solver_stage(const char *scene);
struct ks_scene_def;
/* Options for one live run of scene from a bench's options: the common ones
 * (size, colours, backend), nothing saved, no kernel or block; the scenes'
 * own storage is copied as it is (the scene resets what it sets); frames: the
 * bench's warm-up plus opt->frames (a caller may change it). */
void ks_bench_live_run_options(const ks_options *opt, const struct ks_scene_def *scene, ks_options *run);

/* ---- For the scenes' live_bench hooks (app/scenes.h): a scene adds its runs ---- */
typedef struct ks_live_bench ks_live_bench;
const ks_options *ks_live_bench_options(const ks_live_bench *b);
int ks_live_bench_use_cuda(const ks_live_bench *b);
const ks_device_info *ks_live_bench_device(const ks_live_bench *b);
const ks_best_store *ks_live_bench_best(const ks_live_bench *b);
/* 1 when --kernel names variant, or no --kernel was given. */
int ks_live_bench_wanted(const ks_live_bench *b, const char *variant);
/* A row for scene / variant with the device columns filled, to complete and pass to
 * ks_live_bench_run_modes. */
ks_status ks_live_bench_proto(const ks_live_bench *b, const char *scene, const char *variant, ks_live_row *proto);
/* Runs the live loop with options run in every mode; a row per mode from proto
 * (whose bench_ms_per_iter is the kernel alone). */
ks_status ks_live_bench_run_modes(ks_live_bench *b, const ks_options *run, const ks_live_row *proto);
/* Fills the derived columns of r from a finished run's stats. */
void ks_bench_live_fill(ks_live_row *r, const ks_live_stats *s);
/* The writers (tested on their own); malloc'd text. */
char *ks_bench_live_table(const ks_live_row *rows, int n);
char *ks_bench_live_csv(const ks_live_row *rows, int n);
char *ks_bench_live_stages_csv(const ks_live_row *rows, int n);

#endif
