/* The frames' intervals while kernel files are compiled and checked on the
 * side, against those without (live_state.h). */
#include <stdio.h>
#include <stdlib.h>

#include "app/kernel/variant_set.h"
#include "app/scenes/laplace/live_state.h"
#include "base/ks_util.h"

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "median 16.7 ms, p99 17.9 ms over 300 frames" of one side (sorts it). */
static void interval_text(double *ms, int n, char *buf, size_t cap)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    snprintf(buf, cap, "median %.2f ms, p99 %.2f ms over %d frames", ms[n / 2], ms[(int)(0.99 * (n - 1) + 0.5)], n);
}

/* With kernel files, once a frame: its interval, on the side of whether a build was on its way. */
void ks_laplace_note_interval(ks_laplace_scene *s)
{
    if (!ks_variant_set_files(s->set)) return;
    const double now = ks_now_seconds();
    const int busy = ks_variant_set_busy(s->set);
    if (s->intervals.last > 0 && s->intervals.n[busy] < KS_LAPLACE_INTERVALS)
        s->intervals.ms[busy][s->intervals.n[busy]++] = (now - s->intervals.last) * 1e3;
    s->intervals.last = now;
}

/* At the end: what compiling and checking on the side cost the frames. */
void ks_laplace_say_intervals(ks_laplace_scene *s)
{
    if (s->intervals.n[1] < 10 || s->intervals.n[0] < 10) return;
    char quiet[128], busy[128];
    interval_text(s->intervals.ms[0], s->intervals.n[0], quiet, sizeof quiet);
    interval_text(s->intervals.ms[1], s->intervals.n[1], busy, sizeof busy);
    fprintf(stderr, "kernelscope: frame interval while a kernel file was compiled and checked: %s; otherwise %s\n",
            busy, quiet);
}
