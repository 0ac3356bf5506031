/* Automatic iterations per frame (iters_auto.h). */
#include "iters_auto.h"

#include <math.h>

void ks_iters_auto_init(ks_iters_auto *a, int on)
{
    a->on = on;
    a->frames_at = 0;
    a->settle = KS_ITERS_AUTO_FIRST;
    a->sizings = KS_ITERS_AUTO_SIZINGS;
}

void ks_iters_auto_restart(ks_iters_auto *a)
{
    a->frames_at = 0;
    a->settle = KS_ITERS_AUTO_SETTLE;
    a->sizings = KS_ITERS_AUTO_SIZINGS;
}

int ks_iters_auto_target(int iters, double solver_ms, double interval_ms, int granularity, int max_iters)
{
    if (iters < 1 || !(solver_ms > 0.0) || !(interval_ms > 0.0)) return iters;
    const int g = granularity > 0 ? granularity : 1;
    /* the frame's cost outside the solver stays what it is; the solver grows
     * until it is KS_ITERS_AUTO_SHARE of the whole */
    const double overhead = fmax(interval_ms - solver_ms, 0.0);
    double want_ms = overhead * KS_ITERS_AUTO_SHARE / (1.0 - KS_ITERS_AUTO_SHARE);
    want_ms = fmin(fmax(want_ms, KS_ITERS_AUTO_MIN_MS), KS_ITERS_AUTO_MAX_MS);
    const double per_iter = solver_ms / iters;
    double n = ceil(want_ms / per_iter / g) * g;
    const int top = max_iters / g * g > 0 ? max_iters / g * g : g;
    if (n > top) n = top;
    if (n < g) n = g;
    return (int)n;
}

int ks_iters_auto_step(ks_iters_auto *a, int *iters, double solver_ms, double interval_ms, int granularity,
                       int max_iters)
{
    if (!a->on || a->sizings <= 0) return 0;
    if (++a->frames_at <= a->settle) return 0;
    const int want = ks_iters_auto_target(*iters, solver_ms, interval_ms, granularity, max_iters);
    a->frames_at = 0;
    a->settle = KS_ITERS_AUTO_SETTLE;
    --a->sizings;
    if (want == *iters || fabs((double)want / *iters - 1.0) <= 0.2) return 0;
    *iters = want;
    return 1;
}
