#include "timing_window.h"

#include <string.h>

#include "ks_util.h"

void ks_timing_window_push(ks_timing_window *w, double ms, double bytes)
{
    w->ms[w->next] = ms;
    w->bytes[w->next] = bytes;
    w->next = (w->next + 1) % KS_TIMING_WINDOW;
    if (w->n < KS_TIMING_WINDOW) ++w->n;
}

void ks_timing_window_clear(ks_timing_window *w)
{
    memset(w, 0, sizeof *w);
}

int ks_timing_window_stats(const ks_timing_window *w, ks_timing_stats *out)
{
    memset(out, 0, sizeof *out);
    if (w->n <= 0) return 0;
    double t[KS_TIMING_WINDOW], g[KS_TIMING_WINDOW];
    for (int i = 0; i < w->n; ++i) {
        t[i] = w->ms[i];
        g[i] = w->ms[i] > 0.0 ? w->bytes[i] / (w->ms[i] * 1e6) : 0.0;
    }
    out->n = w->n;
    out->median_ms = ks_median_sort(t, w->n); /* sorts: t[0] is the minimum */
    out->min_ms = t[0];
    /* the median rate, not bytes over the median time: samples can differ in size */
    out->median_gbs = ks_median_sort(g, w->n);
    return 1;
}
