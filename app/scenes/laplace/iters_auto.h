/* Automatic iterations per frame (--iters auto, the CUDA default). Two rules:
 *
 * - A frame-rate target (--fps-target N, default KS_ITERS_AUTO_FPS = 60): as
 *   many iterations as fit in a frame of 1000 / N ms beside what the frame
 *   costs outside the solver (the display: view, panels, present, cadenced
 *   residual and histogram). Where that cost would exceed
 *   KS_ITERS_AUTO_DISPLAY_SHARE (5 %) of the solver at that rate, the rate
 *   is lowered just far enough for it to be 5 %, but not below
 *   KS_ITERS_AUTO_FLOOR_FPS (30; a target below 30 is never lowered).
 * - The fastest (--fps-target 0): the count that makes the solver at least
 *   KS_ITERS_AUTO_SHARE of a frame, so the live view runs the kernel back to
 *   back instead of waiting on drawing and presenting, within a solver time
 *   of KS_ITERS_AUTO_MIN_MS .. KS_ITERS_AUTO_MAX_MS a frame (10 to 40 fps).
 *
 * Both are sized from measured medians (the solver's time per frame, the
 * wall-clock frame interval). The display's GL work (panels, present; a
 * virtual or remote X server's read-back) shares the GPU with the solver, and
 * its slices fall inside the solver's own timed span, where a share cannot
 * see them. So before the second sizing a few frames run their solver alone
 * (the host waits for the GPU to drain, launches, and waits again, with no GL
 * work queued): the fastest of them is the solver's undisturbed time per
 * iteration, and what a frame costs above that many iterations of it counts
 * as the display's cost too. Plain C, no device. */
#ifndef KS_ITERS_AUTO_H
#define KS_ITERS_AUTO_H

#define KS_ITERS_AUTO_FPS 60.0           /* the default frame-rate target (--fps-target) */
#define KS_ITERS_AUTO_MAX_FPS 240        /* the largest --fps-target */
#define KS_ITERS_AUTO_FLOOR_FPS 30.0     /* the rate a dear display may lower the target to, no further */
#define KS_ITERS_AUTO_DISPLAY_SHARE 0.05 /* the display's cost that lowers the rate: above 5 % of the solver */
#define KS_ITERS_AUTO_FPS_TOLERANCE 0.05 /* frame-rate sizing: a count within 5 % of its target stays */

#define KS_ITERS_AUTO_SHARE 0.97 /* fastest: what a frame adds outside the solver (view, colour range,
                                    cadenced residual and histogram) costs at most 3 % */
#define KS_ITERS_AUTO_MIN_MS 25.0  /* fastest: solver time a frame at least: the GL work a frame brings
                                      (panels, present) shares the GPU with the solver, and
                                      its slices fall inside the solver's timed span */
#define KS_ITERS_AUTO_MAX_MS 100.0 /* ... and at most: 10 frames a second */
#define KS_ITERS_AUTO_TOLERANCE 0.2 /* fastest: a count within 20 % of its target stays */
enum {
    KS_ITERS_AUTO_FIRST = 4,  /* frames at the starting count before the first sizing */
    KS_ITERS_AUTO_SETTLE = 40, /* frames at a new count before the next: the 64-frame medians are then its own */
    KS_ITERS_AUTO_SIZINGS = 2, /* sizings after a (re)start; then the count stays, so the view is steady */
    KS_ITERS_AUTO_ALONE = 3,   /* frames whose solver runs alone, the last ones before a settled sizing */
    KS_ITERS_AUTO_GROWTH = 4   /* a sizing after the first multiplies the count by at most this: the
                                  count is sensible by then, and a timing that came out far too short
                                  (a frame drained by a kernel swap) must not make a frame of minutes */
};

typedef struct ks_iters_auto {
    int on;        /* 0: the count is fixed (--iters K, + / -) */
    double fps_target; /* frames a second aimed at (default 60); 0: the fastest sizing (solver >= 97 %) */
    double aim_fps;    /* the rate the last sizing aimed at (the target, or lowered toward 30); 0: none yet
                          or the fastest sizing */
    int frames_at; /* stepping frames run at the current count */
    int settle;    /* frames_at needed before the next sizing */
    int sizings;   /* sizings left before the count stays (until a restart) */
    double alone_ms_per_iter; /* the fastest solver time per iteration of a frame run alone; 0: none yet */
    int sized;     /* a sizing has run since init: the count is no longer the starting guess */
} ks_iters_auto;

/* fps_target: frames a second (> 0), or 0 for the fastest sizing. */
void ks_iters_auto_init(ks_iters_auto *a, int on, double fps_target);
/* After anything that changes the per-iteration cost or stops the solver
 * (variant, block, pause): wait for fresh medians before sizing again (and
 * for fresh frames run alone). The target stays. */
void ks_iters_auto_restart(ks_iters_auto *a);
/* The frame rate to aim at for a target (> 0) when a frame costs
 * overhead_ms outside the solver: the target, or lower, toward
 * KS_ITERS_AUTO_FLOOR_FPS, until that cost is KS_ITERS_AUTO_DISPLAY_SHARE of
 * the solver. */
double ks_iters_auto_aim_fps(double fps_target, double overhead_ms);
/* The count for the rule: solver_ms is the median solver time of a frame of
 * `iters` iterations, interval_ms the median frame interval, alone_ms_per_iter
 * the undisturbed time per iteration (0: unknown; used only when below the
 * median's own); fps_target as ks_iters_auto_init's (0: the fastest). Rounded
 * to a multiple of granularity (tblock: its time block; up for the fastest,
 * down for a frame rate, so the frame fits), 1..max_iters. *aim_fps (may be
 * NULL) gets the rate aimed at (0 for the fastest). Returns iters when a
 * median is unknown (<= 0). */
int ks_iters_auto_target(int iters, double solver_ms, double interval_ms, double alone_ms_per_iter,
                         double fps_target, int granularity, int max_iters, double *aim_fps);
/* Whether the coming stepping frame (after ks_iters_auto_step for it) should
 * run its solver alone and report it with ks_iters_auto_alone. */
int ks_iters_auto_wants_alone(const ks_iters_auto *a);
/* A frame run alone: its solver took ms for iters iterations (host clock). */
void ks_iters_auto_alone(ks_iters_auto *a, double ms, int iters);
/* Once per stepping frame, before it runs: 1 and *iters changed when the
 * medians say the count is off its target by more than the rule's tolerance
 * (5 % for a frame rate, 20 % for the fastest). It sizes at most
 * KS_ITERS_AUTO_SIZINGS times after init or restart (the first from the
 * starting count, the second from the first's own medians). */
int ks_iters_auto_step(ks_iters_auto *a, int *iters, double solver_ms, double interval_ms, int granularity,
                       int max_iters);

#endif
