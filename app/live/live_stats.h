/* The live loop's frame clock (fps for the overlay, the wall-clock frame
 * intervals) and what a run measured, for `kernelscope bench live` and
 * `bench serve` (ks_live_get_stats, app/live/live.h). */
#ifndef KS_LIVE_STATS_H
#define KS_LIVE_STATS_H

#include "base/stage_timer.h"

/* What a run measured, for `kernelscope bench live`, read after ks_live_run
 * returned: medians over its last frames. */
enum {
    KS_LIVE_STATS_WINDOW = 256, /* frame intervals kept (the stage timer keeps as many finished frames) */
    KS_LIVE_STATS_QUEUE = 256,
    KS_LIVE_STATS_STAGES = KS_TIMER_MAX_STAGES,
};
typedef struct ks_live_stage_median {
    char name[32];    /* "jacobi", "interop map", "frame", ... */
    double median_ms; /* 0 when the stage never ran */
    int samples;
} ks_live_stage_median;
typedef struct ks_live_stats {
    long long frames;         /* frames run in all */
    int intervals;            /* frame intervals in the window */
    double interval_ms;       /* median wall-clock time from the end of one frame to the end of the next */
    double fps;               /* 1000 / interval_ms */
    double iters_per_frame;   /* the scene's work per frame (ks_scene_api.work_per_frame); 1 for scenes without */
    char work_label[32];      /* what it counts, the scene's ("iterations/frame"); "" for scenes without */
    char path[16];            /* how the picture reaches GL: "pbo" (CUDA-GL interop), "cpu" (host buffer) */
    int nstages;
    ks_live_stage_median stages[KS_LIVE_STATS_STAGES];
} ks_live_stats;
/* The median of stage name in *s, or -1 when it has none. */
double ks_live_stats_stage(const ks_live_stats *s, const char *name);

typedef struct ks_live_clock {
    double fps;                /* smoothed, for the overlay */
    double last;               /* host seconds at the end of the last frame, 0 before the first */
    double intervals[KS_LIVE_STATS_WINDOW]; /* wall-clock frame intervals, ms, a ring */
    int next, count;
} ks_live_clock;

/* At the end of a frame, at host time t (seconds). */
void ks_live_clock_tick(ks_live_clock *c, double t);

/* What ks_live_stats_collect needs besides the clock and the timer. */
typedef struct ks_live_stats_desc {
    long long frames;        /* frames run */
    int last_frames;         /* medians over these last frames; 0: all kept */
    int timer_frames_taken;  /* 1: the timings CSV takes the timer's finished frames: use its window */
    double work_per_frame;   /* the scene's; 0: 1 */
    const char *work_label;  /* the scene's; NULL: "" */
    const char *path;        /* the display path's kind: "pbo", "copy", "cpu" */
} ks_live_stats_desc;

/* Fills *out (zeroed first); takes the timer's finished frames unless the CSV does. */
void ks_live_stats_collect(const ks_live_clock *c, ks_stage_timer *timer, const ks_live_stats_desc *desc,
                           ks_live_stats *out);

#endif
