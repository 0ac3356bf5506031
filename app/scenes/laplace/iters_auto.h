/* Automatic iterations per frame (--iters auto, the CUDA default): the count
 * that makes the solver at least KS_ITERS_AUTO_SHARE of a frame, so the live
 * view runs the kernel back to back instead of waiting on drawing and
 * presenting. Sized from measured medians (the solver's time per frame, the
 * wall-clock frame interval), within a frame time of KS_ITERS_AUTO_MIN_MS ..
 * KS_ITERS_AUTO_MAX_MS (the view stays interactive).
 *
 * The display's GL work (panels, present; a virtual or remote X server's
 * read-back) shares the GPU with the solver, and its slices fall inside the
 * solver's own timed span, where a share cannot see them. So before the
 * second sizing a few frames run their solver alone (the host waits for the
 * GPU to drain, launches, and waits again, with no GL work queued): the
 * fastest of them is the solver's undisturbed time per iteration, and what a
 * frame costs above that many iterations of it counts as overhead too.
 * Plain C, no device. */
#ifndef KS_ITERS_AUTO_H
#define KS_ITERS_AUTO_H

#define KS_ITERS_AUTO_SHARE 0.97 /* what a frame adds outside the solver (view, colour range,
                                    cadenced residual and histogram) costs at most 3 % */
#define KS_ITERS_AUTO_MIN_MS 25.0  /* solver time a frame at least: the GL work a frame brings
                                      (panels, present) shares the GPU with the solver, and
                                      its slices fall inside the solver's timed span */
#define KS_ITERS_AUTO_MAX_MS 100.0 /* ... and at most: 10 frames a second */
enum {
    KS_ITERS_AUTO_FIRST = 4,  /* frames at the starting count before the first sizing */
    KS_ITERS_AUTO_SETTLE = 40, /* frames at a new count before the next: the 64-frame medians are then its own */
    KS_ITERS_AUTO_SIZINGS = 2, /* sizings after a (re)start; then the count stays, so the view is steady */
    KS_ITERS_AUTO_ALONE = 3    /* frames whose solver runs alone, the last ones before a settled sizing */
};

typedef struct ks_iters_auto {
    int on;        /* 0: the count is fixed (--iters K, + / -) */
    int frames_at; /* stepping frames run at the current count */
    int settle;    /* frames_at needed before the next sizing */
    int sizings;   /* sizings left before the count stays (until a restart) */
    double alone_ms_per_iter; /* the fastest solver time per iteration of a frame run alone; 0: none yet */
} ks_iters_auto;

void ks_iters_auto_init(ks_iters_auto *a, int on);
/* After anything that changes the per-iteration cost or stops the solver
 * (variant, block, pause): wait for fresh medians before sizing again (and
 * for fresh frames run alone). */
void ks_iters_auto_restart(ks_iters_auto *a);
/* The count for the share: solver_ms is the median solver time of a frame of
 * `iters` iterations, interval_ms the median frame interval, alone_ms_per_iter
 * the undisturbed time per iteration (0: unknown; used only when below the
 * median's own); rounded to a multiple of granularity (tblock: its time
 * block), 1..max_iters. Returns iters when a median is unknown (<= 0). */
int ks_iters_auto_target(int iters, double solver_ms, double interval_ms, double alone_ms_per_iter,
                         int granularity, int max_iters);
/* Whether the coming stepping frame (after ks_iters_auto_step for it) should
 * run its solver alone and report it with ks_iters_auto_alone. */
int ks_iters_auto_wants_alone(const ks_iters_auto *a);
/* A frame run alone: its solver took ms for iters iterations (host clock). */
void ks_iters_auto_alone(ks_iters_auto *a, double ms, int iters);
/* Once per stepping frame, before it runs: 1 and *iters changed when the
 * medians say the count is more than 20 % off its target. It sizes at most
 * KS_ITERS_AUTO_SIZINGS times after init or restart (the first from the
 * starting count, the second from the first's own medians). */
int ks_iters_auto_step(ks_iters_auto *a, int *iters, double solver_ms, double interval_ms, int granularity,
                       int max_iters);

#endif
