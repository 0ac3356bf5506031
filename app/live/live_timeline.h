/* The live view's timeline strip (--timeline, T): the GPU's DRAM throughput
 * and SM activity sampled every 20-100 us while the view runs, and every
 * kernel's span, drawn under the picture (counters/timeline.h). The sampler
 * and its decoding run on the timeline's own worker thread; a frame only
 * copies the newest samples out of its rings (never waiting for the GPU) and
 * lays them into the view's columns. Without it (CPU backend, no CUPTI, no
 * permission, ...) the strip says why, and one line goes to stderr, once. */
#ifndef KS_LIVE_TIMELINE_H
#define KS_LIVE_TIMELINE_H

#include "counters/timeline.h"
#include "render/view.h"

typedef struct ks_live_timeline {
    int use_cuda;
    int interval_us;        /* 20..100 */
    int on;                 /* asked for (--timeline, T) */
    int sampling;           /* the sampler runs */
    int paused;             /* stopped for a counter measurement (they share the counters) */
    int noticed;            /* the "no timeline" line went to stderr */
    ks_timeline *tl;        /* made on first use */
    char why[KS_VIEW_TEXT]; /* why there is no strip ("" there is one) */
    ks_tl_sample *samples;  /* read buffers, made with tl */
    ks_tl_span *spans;
    ks_tl_strip *strip;
    double window_ms;       /* what the strip spans (follows the frame interval) */
} ks_live_timeline;

void ks_live_timeline_init(ks_live_timeline *lt, int use_cuda, int interval_us);
void ks_live_timeline_destroy(ks_live_timeline *lt);
/* On or off (T; --timeline at the start): on makes the sampler on first use
 * and starts it; off stops it (what it recorded is dropped from the view). */
void ks_live_timeline_set(ks_live_timeline *lt, int on);
/* Around a counter measurement: the sampler holds the counters while it runs. */
void ks_live_timeline_pause(ks_live_timeline *lt);
void ks_live_timeline_resume(ks_live_timeline *lt);
/* The strip's part of the view, from the newest samples and spans (never
 * waits); frame_ms: the frame interval, which sets the window (two frames,
 * in steps of 1, 2, 5 x 10^k ms, 1 ms to 500 ms). */
void ks_live_timeline_view(ks_live_timeline *lt, double frame_ms, ks_view *v);

/* ---- pure, for the tests ---- */

/* The window for a frame interval: the 1-2-5 step at or above two frames (1..500 ms; 20 ms when unknown). */
double ks_live_timeline_window_ms(double frame_ms);
/* A strip into the view's columns (its width at most KS_VIEW_STRIP) and marks. */
void ks_live_timeline_fill(ks_vtimeline *out, const ks_tl_strip *strip);

#endif
