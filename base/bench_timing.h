/* The one timing loop of every scene's bench: warm-up runs, then timed
 * samples until the standard error of their median is under 1 % (or a fixed
 * count, or a cap), each after an L2 flush when the row is timed cold, with
 * the statistics every CSV row carries (median, minimum, repetitions, the
 * standard error, the cache policy). Plain C: a scene gives it a sample
 * function (one timed run on its own clock: CUDA events, or the host's) and
 * a flush function (base/l2_flush.h); the pure parts (the
 * estimator, the stopping rule, the policy) are tested on their own.
 * docs/benchmarks.md, "Timings": what the columns mean. */
#ifndef KS_BENCH_TIMING_H
#define KS_BENCH_TIMING_H

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the caches stand when a sample starts. */
typedef enum ks_cache_policy {
    KS_CACHE_AUTO = 0, /* cold when the working set is under 4x the L2, else warm */
    KS_CACHE_COLD,     /* the L2 flushed (a write of twice its size) before every sample, outside its timing */
    KS_CACHE_WARM,     /* samples back to back: what the previous one left in the caches stays */
    KS_CACHE_NUM
} ks_cache_policy;

enum {
    KS_TIMING_MIN_REPS = 10,   /* adaptive: at least this many samples ... */
    KS_TIMING_MAX_REPS = 1000, /* ... at most this many */
    KS_TIMING_SLOW_REPS = 3,   /* the budget stops a row only after this many */
    KS_TIMING_L2_FACTOR = 4,   /* AUTO: cold below this many L2s of working set */
};
#define KS_TIMING_TARGET_SE_PCT 1.0 /* adaptive: stop once the median's SE is under this % of it */
#define KS_TIMING_BUDGET_MS 1500.0  /* adaptive: host time one row's samples may take */

const char *ks_cache_policy_name(ks_cache_policy p); /* "auto", "cold", "warm" */
/* "cold" / "warm" (and "auto") into *out: 0, or -1 for anything else. */
int ks_cache_policy_parse(const char *text, ks_cache_policy *out);
/* The policy a row is timed under: asked when it is cold or warm; AUTO: cold
 * when working_set_bytes < 4 x l2_bytes, else warm (warm too when l2_bytes is
 * unknown, 0, or no flush is possible). */
ks_cache_policy ks_cache_policy_resolve(ks_cache_policy asked, double working_set_bytes, double l2_bytes,
                                        int can_flush);

/* The standard error of the median of sorted[0..n) (ascending), by the
 * order-statistic estimate: the distribution-free 95 % interval of the median
 * runs from order statistic floor(n/2 - 0.98 sqrt n) to ceil(n/2 + 0.98 sqrt n)
 * (1-based, clamped to 1..n), and the SE is its width over 2 x 1.96. Robust:
 * an outlier outside that window does not move it. -1 when n < 3 (no estimate). */
double ks_median_se(const double *sorted, int n);

/* Why a loop stopped (or that it goes on). */
typedef enum ks_timing_stop {
    KS_TIMING_MORE = 0,     /* not yet */
    KS_TIMING_FIXED,        /* the fixed count (--reps N) is reached */
    KS_TIMING_CONVERGED,    /* the SE of the median is under the target */
    KS_TIMING_CAP_REPS,     /* KS_TIMING_MAX_REPS samples */
    KS_TIMING_CAP_TIME,     /* the time budget is spent */
} ks_timing_stop;
const char *ks_timing_stop_name(ks_timing_stop s); /* "fixed", "converged", "max reps", "time budget" */

/* What the caller asks for; zero means default everywhere. */
typedef struct ks_timing_opts {
    ks_cache_policy cache; /* KS_CACHE_AUTO by default */
    int reps;              /* > 0: exactly this many samples; 0: adaptive (KS_TIMING_MIN_REPS ..
                              KS_TIMING_MAX_REPS, until the SE is under KS_TIMING_TARGET_SE_PCT % of
                              the median or KS_TIMING_BUDGET_MS is spent) */
    int warmup;            /* untimed samples first; 0 -> 2, < 0 -> none */
    double budget_ms;      /* adaptive: 0 -> KS_TIMING_BUDGET_MS */
    double target_se_pct;  /* adaptive: 0 -> KS_TIMING_TARGET_SE_PCT */
} ks_timing_opts;

/* The stopping rule after n samples with the SE given (% of the median, < 0:
 * none yet) and elapsed_ms of host time since the first timed sample. */
ks_timing_stop ks_timing_done(const ks_timing_opts *o, int n, double se_pct, double elapsed_ms);

/* A row's figures. */
typedef struct ks_timing {
    double median_ms, min_ms; /* of the samples, as the sample function measured them */
    double se_pct;            /* the median's standard error, % of the median; < 0: under 3 samples */
    int reps;                 /* samples taken */
    ks_cache_policy cache;    /* as applied: cold or warm */
    ks_timing_stop stop;
    double working_set_bytes; /* what the caller said the row touches */
    double l2_bytes;          /* the device's L2 (0: unknown, a host row) */
} ks_timing;

/* One scene's run. sample: one timed measurement into *ms (its own clock and
 * unit: a launch, a span of launches, a number of iterations); flush: evict the
 * L2 before a cold sample, queued ahead of the sample's own timing, NULL: no
 * flush possible (host rows: always warm). */
typedef struct ks_timing_run {
    ks_status (*sample)(void *ctx, double *ms);
    ks_status (*flush)(void *ctx);
    void *ctx;
    double working_set_bytes; /* bytes one sample reads and writes (for AUTO and the "in L2" note) */
    double l2_bytes;          /* the device's L2; 0: unknown */
} ks_timing_run;

/* The loop: the policy resolved, warm-up samples, then samples (each after a
 * flush when cold) until ks_timing_done says stop; the figures in *out. */
ks_status ks_timing_measure(const ks_timing_run *run, const ks_timing_opts *o, ks_timing *out);

/* The figures of samples already taken (sorted in place): median, minimum,
 * SE and count into out (policy and stop left as they are). */
void ks_timing_summarise(double *samples, int n, ks_timing *out);

/* The note a row carries about the L2: "in L2" when its working set fits in
 * the L2 and its effective rate is above T_peak (the rate is the cache's, not
 * DRAM's), "fits L2" when it fits but the rate is not above; "" otherwise
 * (l2_bytes 0: unknown, ""). */
const char *ks_timing_l2_note(double working_set_bytes, double l2_bytes, double t_eff, double t_peak);

/* The CSV columns every bench row ends with: header "cache,reps,se_pct,in_l2"
 * and a row's values ("cold,37,0.41,0"; se_pct empty when there is none). Return
 * what snprintf returns. */
#define KS_TIMING_CSV_HEADER "cache,reps,se_pct,in_l2"
int ks_timing_csv(const ks_timing *t, char *buf, unsigned long cap);

#ifdef __cplusplus
}
#endif
#endif
