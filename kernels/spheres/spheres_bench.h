/* The sphere bench's measuring (the exercise's table, filled automatically):
 * check every variant against the CPU gold on a small image, then time each
 * variant at each sphere count. Shared by `kernelscope bench spheres`
 * (app/scenes/spheres/bench.c, which writes the files) and tests/spheres/perf_spheres.c. */
#ifndef KS_SPHERES_BENCH_H
#define KS_SPHERES_BENCH_H

#include <stddef.h>

#include "base/bench_hook.h"
#include "spheres.h"
#include "spheres_user.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_SPHERES_BENCH_MAX_USERS = 8, KS_SPHERES_BENCH_MAX_COUNTS = 32,
       KS_SPHERES_BENCH_MAX_COLS = KS_SPHERES_MEM_NUM + KS_SPHERES_BENCH_MAX_USERS };

typedef struct ks_spheres_bench_desc {
    int use_cuda;            /* 1: the five CUDA variants; 0: the CPU gold */
    int width, height;       /* picture; 0 -> 2048 x 2048 */
    const int *counts;       /* sphere counts; NULL -> 16, 32, ..., 16384 (CPU: 16 .. 256) */
    int count_n;
    ks_spheres_mem only;     /* DEFAULT: every variant; else that one and global (for speedups) */
    int block[2];            /* 0 -> 16 x 16 */
    ks_timing_opts timing;   /* cache policy and repetitions a cell (base/bench_timing.h; zero: cold
                                under 4x the L2, until the median's SE is under 1 %); CPU: at most 5, one warm-up */
    unsigned long long seed; /* sphere generator seed (0 is a seed like any other) */
    const ks_sphere *scene;  /* spheres from a scene file instead of the generator (counts ignored) */
    int scene_n;             /* spheres in scene, 1..KS_SPHERES_MAX */
    int (*stop)(void);       /* optional: nonzero asks to stop after the row (count) in progress, the first row always measured;
                              * the result then holds the rows measured (count_n shrinks) */
    ks_bench_hook after_row; /* optional: each cell's render once more after its timing (bench --counters);
                              * its row: the cell's CSV line, count k * col_n + column c */
    /* Users' kernels (--kernel-file, checked already), one column each after ours, named
       after their files; a count over one's __constant__ array is "n/a" */
    const ks_spheres_user *const *users;
    const char *const *user_names;
    int user_n;              /* 0 .. KS_SPHERES_BENCH_MAX_USERS */
} ks_spheres_bench_desc;

typedef struct ks_spheres_bench_cell {
    int available;   /* 0: "n/a" (constant memory cannot hold the count) */
    double ms;       /* median */
    double min_ms;
    ks_timing timing; /* repetitions, SE, cache policy, working set */
} ks_spheres_bench_cell;

typedef struct ks_spheres_bench_result {
    char device[256];
    char cc[8];              /* compute capability "9.0" (set by the caller); "" / "-" on the CPU */
    int use_cuda;
    int width, height, block[2];
    int count_n;
    int counts[KS_SPHERES_BENCH_MAX_COUNTS];
    int col_n;
    int cols[KS_SPHERES_BENCH_MAX_COLS]; /* ks_spheres_mem per column, KS_SPHERES_MEM_NUM + i for user kernel i;
                                            the CPU has one column, 0 */
    const ks_spheres_user *users[KS_SPHERES_BENCH_MAX_USERS];
    char user_names[KS_SPHERES_BENCH_MAX_USERS][64];
    ks_spheres_bench_cell cell[KS_SPHERES_BENCH_MAX_COUNTS][KS_SPHERES_BENCH_MAX_COLS];
    char check[512]; /* what the correctness check compared */
} ks_spheres_bench_result;

/* Runs the check, then the timings. A variant that differs from the gold
 * aborts with KS_ERR_INVALID naming it and the first differing pixel. */
ks_status ks_spheres_bench_run(const ks_spheres_bench_desc *d, ks_spheres_bench_result *r);
const char *ks_spheres_bench_col_name(const ks_spheres_bench_result *r, int col); /* "global" / "cpu" */
/* Text table (with a speedup line) and CSV (device, spheres, variant, width,
 * height, ms, speedup_vs_global, cc, min_ms, cache, reps, se_pct, in_l2) into buf;
 * return the length they need. */
size_t ks_spheres_bench_table(const ks_spheres_bench_result *r, char *buf, size_t len);
size_t ks_spheres_bench_csv(const ks_spheres_bench_result *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
