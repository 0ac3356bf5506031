/* `kernelscope bench live`: the real live loop (app/live.c), headless and in a
 * window, for each Laplace kernel at its best block over a grid list and for
 * the spheres' memory variants, against the kernel time that bench
 * laplace3d/2d and bench spheres measure for the same configuration in the
 * same run. Table on stdout; bench_live.csv, bench_live_stages.csv and one
 * chart per mode (bench_live_<mode>.png) in --out. */
#ifndef KS_BENCH_LIVE_H
#define KS_BENCH_LIVE_H

#include "kernels/common/cuda_device.h"
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

/* The share of a frame that the solver takes: the medians of the stages the
 * scene marked as its solver (ks_stage_timer_solver_stage: "jacobi" for the
 * Laplace scenes, "render" for spheres) over frame_ms; 0 when it marked none. */
double ks_bench_live_solver_share(const ks_live_stats *s, double frame_ms);
/* Options for one live run of scene from a bench's options: the common ones
 * (size, colours, backend), nothing saved, no scene options; frames: the
 * bench's warm-up plus opt->frames (a caller may change it). */
void ks_bench_live_run_options(const ks_options *opt, ks_scene_id scene, ks_options *run);
/* Fills the derived columns of r from a finished run's stats. */
void ks_bench_live_fill(ks_live_row *r, const ks_live_stats *s);
/* The writers (tested on their own); malloc'd text. */
char *ks_bench_live_table(const ks_live_row *rows, int n);
char *ks_bench_live_csv(const ks_live_row *rows, int n);
char *ks_bench_live_stages_csv(const ks_live_row *rows, int n);

#endif
