/* The benches' timing loop and its statistics (bench_timing.h). */
#include "bench_timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_util.h"

static const char *const ks_cache_names[KS_CACHE_NUM] = {"auto", "cold", "warm"};

const char *ks_cache_policy_name(ks_cache_policy p)
{
    return p >= 0 && p < KS_CACHE_NUM ? ks_cache_names[p] : "?";
}

int ks_cache_policy_parse(const char *text, ks_cache_policy *out)
{
    for (int p = 0; text && p < KS_CACHE_NUM; ++p)
        if (strcmp(text, ks_cache_names[p]) == 0) {
            *out = (ks_cache_policy)p;
            return 0;
        }
    return -1;
}

ks_cache_policy ks_cache_policy_resolve(ks_cache_policy asked, double working_set_bytes, double l2_bytes,
                                        int can_flush)
{
    if (!can_flush) return KS_CACHE_WARM; /* nothing to flush with: what runs is warm */
    if (asked == KS_CACHE_COLD || asked == KS_CACHE_WARM) return asked;
    if (!(l2_bytes > 0.0)) return KS_CACHE_WARM;
    return working_set_bytes < KS_TIMING_L2_FACTOR * l2_bytes ? KS_CACHE_COLD : KS_CACHE_WARM;
}

double ks_median_se(const double *sorted, int n)
{
    if (n < 3) return -1.0;
    const double half = 0.5 * n, reach = 0.5 * 1.959964 * sqrt((double)n);
    int lo = (int)floor(half - reach), hi = (int)ceil(half + reach); /* 1-based order statistics */
    if (lo < 1) lo = 1;
    if (hi > n) hi = n;
    return (sorted[hi - 1] - sorted[lo - 1]) / (2.0 * 1.959964);
}

const char *ks_timing_stop_name(ks_timing_stop s)
{
    switch (s) {
    case KS_TIMING_FIXED: return "fixed";
    case KS_TIMING_CONVERGED: return "converged";
    case KS_TIMING_CAP_REPS: return "max reps";
    case KS_TIMING_CAP_TIME: return "time budget";
    default: return "more";
    }
}

ks_timing_stop ks_timing_done(const ks_timing_opts *o, int n, double se_pct, double elapsed_ms)
{
    const ks_timing_opts none = {0};
    if (!o) o = &none;
    if (o->reps > 0) return n >= o->reps ? KS_TIMING_FIXED : KS_TIMING_MORE;
    const double budget = o->budget_ms > 0.0 ? o->budget_ms : KS_TIMING_BUDGET_MS;
    const double target = o->target_se_pct > 0.0 ? o->target_se_pct : KS_TIMING_TARGET_SE_PCT;
    if (n >= KS_TIMING_MIN_REPS && se_pct >= 0.0 && se_pct < target) return KS_TIMING_CONVERGED;
    if (n >= KS_TIMING_MAX_REPS) return KS_TIMING_CAP_REPS;
    /* a slow kernel (seconds a run) stops on the budget, but never on fewer than a few samples */
    if (elapsed_ms >= budget && n >= KS_TIMING_SLOW_REPS) return KS_TIMING_CAP_TIME;
    return KS_TIMING_MORE;
}

void ks_timing_summarise(double *samples, int n, ks_timing *out)
{
    out->reps = n;
    out->median_ms = ks_median_sort(samples, n); /* sorts: samples[0] is the minimum */
    out->min_ms = n > 0 ? samples[0] : 0.0;
    const double se = ks_median_se(samples, n);
    out->se_pct = se >= 0.0 && out->median_ms > 0.0 ? 100.0 * se / out->median_ms : -1.0;
}

/* sorted[0..n) ascending with x put in its place (sorted has room for n + 1). */
static void insert_sorted(double *sorted, int n, double x)
{
    int k = n;
    while (k > 0 && sorted[k - 1] > x) {
        sorted[k] = sorted[k - 1];
        --k;
    }
    sorted[k] = x;
}

ks_status ks_timing_measure(const ks_timing_run *run, const ks_timing_opts *o, ks_timing *out)
{
    const ks_timing_opts none = {0};
    if (!o) o = &none;
    memset(out, 0, sizeof *out);
    out->working_set_bytes = run->working_set_bytes;
    out->l2_bytes = run->l2_bytes;
    out->se_pct = -1.0;
    out->cache = ks_cache_policy_resolve(o->cache, run->working_set_bytes, run->l2_bytes, run->flush != NULL);
    const int cold = out->cache == KS_CACHE_COLD;
    const int warmup = o->warmup > 0 ? o->warmup : o->warmup < 0 ? 0 : 2;
    double ms = 0.0;
    for (int w = 0; w < warmup; ++w) {
        if (cold) KS_TRY(run->flush(run->ctx));
        KS_TRY(run->sample(run->ctx, &ms));
    }
    const int cap = o->reps > 0 ? o->reps : KS_TIMING_MAX_REPS;
    double *sorted = malloc(((size_t)cap + 1) * sizeof *sorted);
    if (!sorted) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timing: no host memory for %d samples", cap);
    ks_status st = KS_OK;
    int n = 0;
    ks_timing_stop stop = KS_TIMING_MORE;
    const double t0 = ks_now_seconds();
    while (st == KS_OK && stop == KS_TIMING_MORE && n < cap) {
        if (cold) st = run->flush(run->ctx);
        if (st == KS_OK) st = run->sample(run->ctx, &ms);
        if (st != KS_OK) break;
        insert_sorted(sorted, n++, ms);
        const double se = ks_median_se(sorted, n), med = (n & 1) ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        const double se_pct = se >= 0.0 && med > 0.0 ? 100.0 * se / med : -1.0;
        stop = ks_timing_done(o, n, se_pct, (ks_now_seconds() - t0) * 1e3);
    }
    if (st == KS_OK) {
        ks_timing_summarise(sorted, n, out);
        out->stop = stop != KS_TIMING_MORE ? stop : (o->reps > 0 ? KS_TIMING_FIXED : KS_TIMING_CAP_REPS);
    }
    free(sorted);
    return st;
}

const char *ks_timing_l2_note(double working_set_bytes, double l2_bytes, double t_eff, double t_peak)
{
    if (!(l2_bytes > 0.0) || !(working_set_bytes > 0.0) || working_set_bytes > l2_bytes) return "";
    return t_peak > 0.0 && t_eff > t_peak ? "in L2" : "fits L2";
}

int ks_timing_csv(const ks_timing *t, char *buf, unsigned long cap)
{
    char se[32] = "";
    if (t->se_pct >= 0.0) snprintf(se, sizeof se, "%.3f", t->se_pct);
    const int in_l2 = t->l2_bytes > 0.0 && t->working_set_bytes > 0.0 && t->working_set_bytes <= t->l2_bytes;
    return snprintf(buf, cap, "%s,%d,%s,%d", ks_cache_policy_name(t->cache), t->reps, se, in_l2);
}
