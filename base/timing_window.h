/* The last few timings of one thing (a variant, a sphere count), for the live
 * scenes' medians: a ring of KS_TIMING_WINDOW samples, each a time and the
 * bytes it moved. Plain C, no allocation: a zeroed struct is an empty window. */
#ifndef KS_TIMING_WINDOW_H
#define KS_TIMING_WINDOW_H

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_TIMING_WINDOW = 32 };

typedef struct ks_timing_window {
    double ms[KS_TIMING_WINDOW];    /* milliseconds */
    double bytes[KS_TIMING_WINDOW]; /* bytes moved by that sample; 0 when not counted */
    int n;                          /* samples held, 0..KS_TIMING_WINDOW */
    int next;                       /* slot the next sample goes to */
} ks_timing_window;

typedef struct ks_timing_stats {
    int n;             /* samples the figures come from */
    double median_ms;
    double min_ms;
    double median_gbs; /* median of bytes / time per sample, GB/s (1e9 bytes) */
} ks_timing_stats;

/* Adds a sample; the oldest goes once the window is full. */
void ks_timing_window_push(ks_timing_window *w, double ms, double bytes);
void ks_timing_window_clear(ks_timing_window *w);
/* Medians (mean of the middle two for an even count) and the minimum; returns
 * 0 and zeroes *out when the window is empty, else 1. */
int ks_timing_window_stats(const ks_timing_window *w, ks_timing_stats *out);

#ifdef __cplusplus
}
#endif
#endif
