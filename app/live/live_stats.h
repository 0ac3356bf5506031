/* The live loop's frame clock (fps for the overlay, the wall-clock frame
 * intervals) and what a finished run measured, for `kernelscope bench live`
 * and `bench serve` (ks_live_stats, app/live/live.h). */
#ifndef KS_LIVE_STATS_H
#define KS_LIVE_STATS_H

#include "kernels/common/stage_timer.h"
#include "app/live/live.h"

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
