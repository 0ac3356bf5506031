/* `kernelscope bench histogram`: variants x inputs (text, uniform, equal) x
 * sizes, each configuration checked exactly against the CPU gold before it
 * is timed (CUDA events after warm-up, medians); T_peak (device copy) is
 * measured in the same run. Prints the table, writes bench_histogram.csv and
 * bench_histogram.png (GB/s per input, one line per variant) into opt->out_dir. */
#ifndef KS_BENCH_HISTOGRAM_H
#define KS_BENCH_HISTOGRAM_H

#include <stddef.h>

#include "base/bench_timing.h"
#include "base/cuda_device.h"
#include "base/ks_error.h"
#include "app/options.h"

enum { KS_HBENCH_MAX_ROWS = 512 };

typedef struct ks_hbench_row {
    char device[256];
    char cc[8];       /* compute capability "9.0"; "-" on the CPU backend */
    char variant[64];  /* ours, or a --kernel-file's name */
    char input[16];   /* text, uniform, equal */
    char mode[8];     /* bytes, pairs, words */
    unsigned long long bytes;
    unsigned bins;
    double ms, min_ms; /* median, minimum */
    ks_timing timing;  /* how it was timed: repetitions, SE, cache policy, working set against the L2 */
    char kernel[128];  /* warp in bytes mode: the byte kernel chosen for this input and why; "" otherwise */
    double gbs;        /* bytes read / median time */
    double t_peak_gbs; /* device copy in this run (CPU: the host's copy, once for the run) */
    int verdict;       /* ks_peak_verdict (base/host_peak.h) of gbs against a host T_peak:
                          0, a ratio, unless T_peak is unreliable or exceeded (pct_tpeak then empty) */
    double pct_cub;    /* 100 * cub ms / ms for the same input and size; < 0: no cub */
} ks_hbench_row;

/* CSV (device, variant, input, mode, bytes, bins, ms, min_ms, gbs, t_peak_gbs,
 * pct_tpeak, pct_cub, cc, kernel, cache, reps, se_pct, in_l2; an empty pct_cub where
 * there is no cub, an empty pct_tpeak (n/a in the table) where the verdict gives no
 * ratio) and the text table (a rate above T_peak whose bytes fit in the L2 says "in
 * L2"; the kernel warp chose for each input, after the rows) into buf; return the
 * length they need (snprintf-style). */
size_t ks_hbench_csv(const ks_hbench_row *rows, int n, char *buf, size_t len);
size_t ks_hbench_table(const ks_hbench_row *rows, int n, char *buf, size_t len);

/* Options used: hist_sizes, kernel files (each one more variant, bytes mode, checked in the
 * checker process at the first size, then against the gold like ours), words, bins_list (pairs / words: one run per count), kernels (variants; none = all), reps, seed, out_dir. */
ks_status ks_bench_histogram(const ks_options *opt, const ks_device_info *dev, int use_cuda);

#endif
