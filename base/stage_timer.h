/* Per-stage timing of frames without stalling them. With CUDA the stages are
 * bracketed by events on a stream and read back when they have completed
 * (cudaEventQuery, a few frames later); without, by the host clock. Each
 * finished sample goes into a rolling window per stage (median and min). */
#ifndef KS_STAGE_TIMER_H
#define KS_STAGE_TIMER_H

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_TIMER_MAX_STAGES = 12, KS_TIMER_WINDOW = 64 };

typedef struct ks_stage_timer ks_stage_timer;

typedef struct ks_stage_stats {
    const char *name;
    int samples;       /* in the window */
    double median_ms;  /* over the window; 0 when no samples */
    double min_ms;
    double last_ms;
    long long total;   /* samples ever recorded */
} ks_stage_stats;

typedef struct ks_stage_timer_desc {
    int use_cuda; /* 1: CUDA events on stream; 0 (default): the host clock */
    void *stream; /* cudaStream_t as void*; NULL: the default stream */
} ks_stage_timer_desc;

/* desc NULL or use_cuda in a build without CUDA: an error. */
ks_status ks_stage_timer_create(const ks_stage_timer_desc *desc, ks_stage_timer **out);
void ks_stage_timer_destroy(ks_stage_timer *t);
/* Stage id for name (created on first use, up to KS_TIMER_MAX_STAGES). */
int ks_stage_timer_stage(ks_stage_timer *t, const char *name);
/* The same, and marks the stage as the scene's solver: the work the user
 * came to watch (Jacobi sweeps, the ray tracer, the matmul or histogram
 * kernel), counted in the solver share below. */
int ks_stage_timer_solver_stage(ks_stage_timer *t, const char *name);
/* Times stage with the host clock, also when the timer uses CUDA events: for
 * work on other streams or GPUs that the caller waits for before the stage's
 * end (events on the timer's stream would start only once its own queue
 * drained, missing the part of the work that overlaps it). */
void ks_stage_timer_host_clock(ks_stage_timer *t, int stage);
/* A stage timed elsewhere (the multi-GPU run's events on each GPU): its time
 * in the current frame, ms >= 0; outside a frame or for a bad stage nothing. */
void ks_stage_timer_record(ks_stage_timer *t, int stage, double ms);
/* Frame bracket: begin picks a free slot (collecting finished ones first). */
ks_status ks_stage_timer_frame_begin(ks_stage_timer *t);
ks_status ks_stage_timer_begin(ks_stage_timer *t, int stage);
ks_status ks_stage_timer_end(ks_stage_timer *t, int stage);
ks_status ks_stage_timer_frame_end(ks_stage_timer *t);
/* Collects every finished frame without blocking; returns how many. */
int ks_stage_timer_collect(ks_stage_timer *t);
/* Waits for every frame in flight and collects it (end of a run). */
ks_status ks_stage_timer_drain(ks_stage_timer *t);
int ks_stage_timer_stage_count(const ks_stage_timer *t);
void ks_stage_timer_stats(const ks_stage_timer *t, int stage, ks_stage_stats *out);
/* The solver's share of the frame: the median over finished frames of the
 * solver stages' time in a frame (0 in a frame that ran none, e.g. paused)
 * over the median wall-clock interval between frame_begin calls (host
 * clock), so what the GPU or CPU spends outside the timed stages (drawing,
 * presenting, the host between frames) counts against it. */
typedef struct ks_stage_share {
    double solver_ms;    /* median solver time per frame */
    double interval_ms;  /* median wall-clock frame interval */
    double share;        /* solver_ms / interval_ms, clamped to 0..1 */
    int frames;          /* frames in the solver window */
} ks_stage_share;
/* 1 and *out filled when a solver stage is marked and both windows have
 * samples; 0 (and *out zeroed) otherwise. */
int ks_stage_timer_share(const ks_stage_timer *t, ks_stage_share *out);
/* The share from two medians (the formula above; 0 when interval_ms <= 0). */
double ks_stage_share_of(double solver_ms, double interval_ms);
/* Oldest finished frame not yet popped: its per-stage times (ms, -1 where a stage did not
 * run in it) and its frame number; returns 0 when no frame has finished. For the CSV. */
int ks_stage_timer_pop_frame(ks_stage_timer *t, long long *frame, double ms[KS_TIMER_MAX_STAGES]);

#ifdef __cplusplus
}
#endif
#endif
