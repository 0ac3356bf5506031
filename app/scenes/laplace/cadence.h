/* How often a frame's bookkeeping runs (the Laplace residual, the field
 * histogram): every `every` frames, either fixed by a flag or chosen from
 * measured stage medians so that the task costs at most a small budget of the
 * solver's time. Plain C, no device: the live scenes own one per task. */
#ifndef KS_CADENCE_H
#define KS_CADENCE_H

enum { KS_CADENCE_MAX = 250 }; /* frames; a convergence point at least this often */
#define KS_CADENCE_BUDGET 0.0025 /* automatic: task time <= 0.25 % of the solver time */

typedef struct ks_cadence {
    int fixed;  /* > 0: every `fixed` frames (from a flag); 0: automatic */
    int every;  /* frames between runs now, 1..KS_CADENCE_MAX (fixed: the flag's value) */
    int since;  /* frames since the last run */
} ks_cadence;

/* fixed 0: automatic, starting at every frame until ks_cadence_tune has medians. */
void ks_cadence_init(ks_cadence *c, int fixed);
/* The smallest k with task_ms / (k * solver_ms) <= budget, in 1..KS_CADENCE_MAX;
 * 1 when a median is unknown (<= 0). */
int ks_cadence_auto_every(double task_ms, double solver_ms, double budget);
/* Automatic cadences: every = ks_cadence_auto_every(task_ms, solver_ms,
 * KS_CADENCE_BUDGET), the medians of one run of the task and of the solver's
 * part of one frame. A fixed cadence keeps its value. */
void ks_cadence_tune(ks_cadence *c, double task_ms, double solver_ms);
/* Automatic cadences: at most period_ms of frames between runs (every <=
 * period_ms / frame_ms, at least 1), so that a task as cheap per frame as the
 * solver itself (the residual on the CPU, two iterations a frame) still comes
 * several times a second. Unknown medians (<= 0) and fixed cadences: no change. */
void ks_cadence_cap_period(ks_cadence *c, double frame_ms, double period_ms);
/* Called once per frame: 1 when the task runs in this frame (every `every`-th
 * call, the first call after init or restart included). */
int ks_cadence_due(ks_cadence *c);
/* The next ks_cadence_due says 1 (after a reset of what the task watches). */
void ks_cadence_restart(ks_cadence *c);

#endif
