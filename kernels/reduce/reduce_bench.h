/* The reduce bench's measuring: each chosen variant at each N, checked against
 * the CPU gold first (random non-zero input, outputs poisoned with NaN), then
 * timed (ks_reduce_gpu_time: cold, a run after each L2 flush; warm, K runs
 * back to back between two events), with T_peak (device-to-device copy) measured in the same run.
 * Shared by `kernelscope bench reduce` (the app writes the table, CSV and chart
 * from the rows) and the tests; nothing is printed here. */
#ifndef KS_REDUCE_BENCH_H
#define KS_REDUCE_BENCH_H

#include <stddef.h>

#include "base/bench_hook.h"
#include "reduce.h"
#include "reduce_user.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KS_REDUCE_BENCH_MAX_SIZES = 8,
    KS_REDUCE_BENCH_MAX_USERS = 8, /* users' kernels (--kernel-file) */
    KS_REDUCE_BENCH_MAX_ROWS = KS_REDUCE_BENCH_MAX_SIZES * (KS_REDUCE_NUM + KS_REDUCE_BENCH_MAX_USERS),
};
/* The GPU default N (2^28 floats, 1 GiB) and the CPU's (2^24). */
#define KS_REDUCE_BENCH_GPU_N (1LL << 28)
#define KS_REDUCE_BENCH_CPU_N (1LL << 24)
/* Odd size every variant is checked on (against the gold) before any timing. */
#define KS_REDUCE_BENCH_CHECK_N 1000003LL

typedef struct ks_reduce_bench_desc {
    int use_cuda;                 /* 0: the CPU backend only (rows "cpu" for sum and scan) */
    const long long *sizes;       /* NULL -> 2^28 (CPU: 2^24) */
    int size_n;
    int variants[KS_REDUCE_NUM];  /* 1: run it; all 0 -> every variant. The op's CUB variant always runs. */
    int block;                    /* 0 -> 256 (variants that take a block size) */
    unsigned seed;                /* 0 -> 1 */
    double span_ms;               /* one timed span; 0 -> 20 */
    ks_timing_opts timing;        /* cache policy, samples (base/bench_timing.h; zero: cold under
                                     4x the L2, until the median's SE is under 1 %); the CPU: at most 5 */
    double mem_bytes;             /* device memory to stay under (0: no limit) */
    /* Users' kernels (--kernel-file), loaded: each one more sum row after ours, named
       user_names[i], run at user_block (0 -> 256), checked against the gold like ours
       (at the odd size and each timed N) before it is timed. */
    const ks_reduce_user *const *users;
    const char *const *user_names;
    int user_n;                   /* 0..KS_REDUCE_BENCH_MAX_USERS */
    int user_block;
    ks_bench_hook after_row;      /* optional: each row's run once more after its timing (bench --counters) */
} ks_reduce_bench_desc;

typedef struct ks_reduce_bench_row {
    char device[256];    /* as the result's */
    char cc[8];          /* as the result's */
    char op[8];          /* "sum", "scan" */
    char variant[64];    /* "sum_shuffle", ..., "cpu", or a --kernel-file's name */
    long long n;
    double ms;           /* median per run */
    double min_ms;
    int launches;        /* runs per timed span */
    ks_timing timing;    /* the loop's figures: samples, SE, cache policy, working set */
    double t_eff_gbs;    /* model bytes (sum 4N, scan 8N) / ms, GB/s (1e9) */
    double t_peak_gbs;   /* the run's T_peak (0 on the CPU) */
    double ratio;        /* t_eff / t_peak; < 0: n/a */
    double vs_cub;       /* CUB's ms for the op / ms (> 1: faster than CUB); < 0: n/a */
} ks_reduce_bench_row;

typedef struct ks_reduce_bench_result {
    char device[256];
    char cc[8];           /* "9.0"; "-" on the CPU */
    int use_cuda, block;
    double span_ms;
    double t_peak_gbs;    /* device-to-device copy, read + written bytes, GB/s */
    int row_n;
    ks_reduce_bench_row rows[KS_REDUCE_BENCH_MAX_ROWS];
    char check[512];      /* what the check compared */
    char note[512];       /* skipped sizes, the CPU note */
} ks_reduce_bench_result;

ks_status ks_reduce_bench_run(const ks_reduce_bench_desc *d, ks_reduce_bench_result *r);

/* Checks variant v of context g (its input: x, n = the context's) against the gold:
 * poisons the outputs, runs, compares (sum: gold_sum within the tolerance for abs_sum;
 * scan: gold_scan element by element, scratch n floats). exact: integer input, equality.
 * KS_ERR_INVALID naming the variant, N and the first mismatch otherwise. */
ks_status ks_reduce_check_variant(ks_reduce_gpu *g, ks_reduce_variant v, const float *x, double gold_sum,
                                  double abs_sum, const float *gold_scan, int exact, float *scratch);

/* Checks user kernel u (named name, at block bx) on g's input against the gold as
 * ks_reduce_check_variant checks a sum. */
ks_status ks_reduce_check_user(ks_reduce_gpu *g, const ks_reduce_user *u, const char *name, int bx, double gold_sum,
                               double abs_sum, int exact);

#ifdef __cplusplus
}
#endif
#endif
