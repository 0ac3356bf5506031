/* Automatic iterations per frame (iters_auto.h). */
#include "app/scenes/laplace/iters_auto.h"

#include <math.h>

void ks_iters_auto_init(ks_iters_auto *a, int on, double fps_target)
{
    a->on = on;
    a->fps_target = fps_target > 0.0 ? fps_target : 0.0;
    a->aim_fps = 0.0;
    a->frames_at = 0;
    a->settle = KS_ITERS_AUTO_FIRST;
    a->sizings = KS_ITERS_AUTO_SIZINGS;
    a->alone_ms_per_iter = 0.0;
    a->sized = 0;
}

void ks_iters_auto_restart(ks_iters_auto *a)
{
    a->frames_at = 0;
    a->settle = KS_ITERS_AUTO_SETTLE;
    a->sizings = KS_ITERS_AUTO_SIZINGS;
    a->alone_ms_per_iter = 0.0;
}

double ks_iters_auto_aim_fps(double fps_target, double overhead_ms)
{
    if (!(fps_target > 0.0)) return 0.0;
    /* the frame where the display's cost is exactly the share of the solver
     * beside it: overhead + overhead / share */
    const double fair_ms = fmax(overhead_ms, 0.0) * (1.0 + 1.0 / KS_ITERS_AUTO_DISPLAY_SHARE);
    const double floor_fps = fmin(fps_target, KS_ITERS_AUTO_FLOOR_FPS); /* a target below 30 stays */
    const double frame_ms = fmin(fmax(1000.0 / fps_target, fair_ms), 1000.0 / floor_fps);
    return 1000.0 / frame_ms;
}

int ks_iters_auto_target(int iters, double solver_ms, double interval_ms, double alone_ms_per_iter,
                         double fps_target, int granularity, int max_iters, double *aim_fps)
{
    if (aim_fps) *aim_fps = 0.0;
    if (iters < 1 || !(solver_ms > 0.0) || !(interval_ms > 0.0)) return iters;
    const int g = granularity > 0 ? granularity : 1;
    /* The frame is iters undisturbed iterations plus a cost that does not
     * grow with them (the view, the cadenced tasks, and what GL's slices add
     * inside the solver's span). */
    double per_iter = solver_ms / iters;
    if (alone_ms_per_iter > 0.0 && alone_ms_per_iter < per_iter) per_iter = alone_ms_per_iter;
    const double overhead = fmax(interval_ms - per_iter * iters, 0.0);
    double n;
    if (fps_target > 0.0) {
        /* a frame rate: the solver fills what the overhead leaves of the
         * frame, in whole blocks rounded down so the frame fits */
        const double aim = ks_iters_auto_aim_fps(fps_target, overhead);
        if (aim_fps) *aim_fps = aim;
        n = floor((1000.0 / aim - overhead) / per_iter / g + 1e-9) * g;
    } else {
        /* the fastest: the solver grows until that cost is at most
         * 1 - KS_ITERS_AUTO_SHARE of the whole */
        double want_ms = overhead * KS_ITERS_AUTO_SHARE / (1.0 - KS_ITERS_AUTO_SHARE);
        want_ms = fmin(fmax(want_ms, KS_ITERS_AUTO_MIN_MS), KS_ITERS_AUTO_MAX_MS);
        n = ceil(want_ms / per_iter / g) * g;
    }
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
    double aim = 0.0;
    int want = ks_iters_auto_target(*iters, solver_ms, interval_ms, a->alone_ms_per_iter, a->fps_target,
                                          granularity, max_iters, &aim);
    a->frames_at = 0;
    a->settle = KS_ITERS_AUTO_SETTLE;
    --a->sizings;
    if (a->sized && want / KS_ITERS_AUTO_GROWTH > *iters) {
        const int g = granularity > 0 ? granularity : 1;
        want = *iters * KS_ITERS_AUTO_GROWTH / g * g; /* whole blocks, as the target's */
    }
    a->sized = 1;
    if (aim > 0.0) a->aim_fps = aim;
    /* a frame rate is held closely; the fastest only needs the share */
    const double tolerance = a->fps_target > 0.0 ? KS_ITERS_AUTO_FPS_TOLERANCE : KS_ITERS_AUTO_TOLERANCE;
    if (want == *iters || fabs((double)want / *iters - 1.0) <= tolerance) return 0;
    *iters = want;
    return 1;
}

/* The frames just before a sizing that follows a full settle: the first
 * sizing, a few frames after the start, sizes from the share alone (graph
 * capture and warm-up would make those frames poor witnesses anyway). */
int ks_iters_auto_wants_alone(const ks_iters_auto *a)
{
    if (!a->on || a->sizings <= 0 || a->settle < KS_ITERS_AUTO_SETTLE) return 0;
    return a->frames_at > a->settle - KS_ITERS_AUTO_ALONE && a->frames_at <= a->settle;
}

void ks_iters_auto_alone(ks_iters_auto *a, double ms, int iters)
{
    if (!(ms > 0.0) || iters < 1) return;
    const double per_iter = ms / iters;
    if (a->alone_ms_per_iter <= 0.0 || per_iter < a->alone_ms_per_iter) a->alone_ms_per_iter = per_iter;
}
