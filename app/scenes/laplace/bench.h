/* `kernelscope bench laplace3d|laplace2d`: T_peak, then every kernel variant x
 * block sweep x grid, each checked against the CPU gold first; table, CSV,
 * PNG chart, and the best block per variant and grid into the best-config store. */
#ifndef KS_BENCH_LAPLACE_H
#define KS_BENCH_LAPLACE_H

#include <stddef.h>

#include "base/bench_timing.h"
#include "base/cuda_device.h"
#include "kernels/laplace/laplace.h"
#include "app/best_config.h"
#include "app/options.h"

typedef struct ks_bench_row {
    char device[256];
    char cc[8];         /* compute capability "9.0"; "-" on the CPU backend */
    char variant[32];
    int grid[3];
    int block[3];
    double ms_per_iter;
    ks_timing timing;   /* how it was timed (per run of 4 launches): repetitions, SE, cache policy, working set */
    double t_eff_gbs;   /* 2 x field bytes / time per iteration */
    double t_peak_gbs;  /* copy bandwidth measured in the same run: a device copy of the field's size, or
                           (host_peak) the host's copy, once for the whole run */
    double ratio;       /* t_eff / t_peak; < 0: not given (host_peak: verdict says why) */
    int host_peak;      /* 1: T_peak is the host's copy (base/host_peak.h), with a spread */
    double t_peak_spread; /* host_peak: (best - median) / best of T_peak's repetitions */
    int verdict;        /* host_peak: the ks_peak_verdict of ratio */
    int registers;
    double occupancy;   /* 0..1 */
    int best;           /* fastest block for this variant and grid */
} ks_bench_row;

ks_status ks_bench_laplace(const ks_options *opt, const ks_device_info *dev, int use_cuda,
                           ks_best_store *best, const char *best_path);

/* One kernel as the bench above times it, for `bench live`: (variant, block)
 * checked against the CPU gold on a small grid, then the median ms per
 * iteration on grid g with random data. The CPU backend: the gold routine
 * (variant and block unused). */
ks_status ks_bench_laplace_time_one(const ks_grid *g, int use_cuda, int variant, const int block[3], int reps,
                                    double *ms_per_iter);

/* Deterministic non-zero data of the seed: interior and boundary random in [0.1, 1.1). */
void ks_bench_laplace_fill_random(const ks_grid *g, float *u, unsigned long long seed);
/* The table and CSV writers (tested on their own). Return malloc'd text. */
char *ks_bench_laplace_table(const ks_bench_row *rows, int n);
char *ks_bench_laplace_csv(const ks_bench_row *rows, int n);
/* The same as ks_bench_text_fn writers (app/bench/bench_output.h) over ks_bench_row rows. */
size_t ks_bench_laplace_table_text(const void *rows, int n, char *buf, size_t cap);
size_t ks_bench_laplace_csv_text(const void *rows, int n, char *buf, size_t cap);
/* A grid as people say it: "512^3", "8192^2", else "64x32x16" / "64x32". */
void ks_bench_grid_text(const int grid[3], char *buf, size_t len);
/* Marks rows[i].best for the fastest block of each (variant, grid). */
void ks_bench_mark_best(ks_bench_row *rows, int n);

#endif
