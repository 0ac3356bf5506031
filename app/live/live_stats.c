#include "app/live/live_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/ks_util.h"

void ks_live_clock_tick(ks_live_clock *c, double t)
{
    if (c->last > 0) {
        const double inst = 1.0 / fmax(t - c->last, 1e-6);
        c->fps = c->fps > 0 ? 0.9 * c->fps + 0.1 * inst : inst;
        c->intervals[c->next] = (t - c->last) * 1e3;
        c->next = (c->next + 1) % KS_LIVE_STATS_WINDOW;
        if (c->count < KS_LIVE_STATS_WINDOW) ++c->count;
    }
    c->last = t;
}

void ks_live_stats_collect(const ks_live_clock *c, ks_stage_timer *timer, const ks_live_stats_desc *d,
                           ks_live_stats *out)
{
    memset(out, 0, sizeof *out);
    out->frames = d->frames;
    double recent[KS_LIVE_STATS_WINDOW];
    int n = c->count;
    if (d->last_frames > 0 && d->last_frames < n) n = d->last_frames;
    for (int i = 0; i < n; ++i) /* newest first, back from the ring's next slot */
        recent[i] = c->intervals[(c->next - 1 - i + 2 * KS_LIVE_STATS_WINDOW) % KS_LIVE_STATS_WINDOW];
    out->intervals = n;
    out->interval_ms = ks_median_sort(recent, n);
    out->fps = out->interval_ms > 0.0 ? 1000.0 / out->interval_ms : 0.0;
    out->iters_per_frame = d->work_per_frame > 0.0 ? d->work_per_frame : 1.0;
    snprintf(out->work_label, sizeof out->work_label, "%s", d->work_label ? d->work_label : "");
    snprintf(out->path, sizeof out->path, "%s", d->path ? d->path : "");

    /* Stage medians over the same last frames: the timer's finished frames
     * (kept for the timings CSV, so free to take when no CSV is written);
     * else its rolling window. */
    const int stages = ks_stage_timer_stage_count(timer);
    double per_stage[KS_LIVE_STATS_STAGES][KS_LIVE_STATS_QUEUE];
    int count[KS_LIVE_STATS_STAGES] = {0};
    long long frame_no;
    double ms[KS_TIMER_MAX_STAGES];
    const long long first = d->last_frames > 0 ? d->frames - d->last_frames : 0;
    int popped = 0;
    while (!d->timer_frames_taken && ks_stage_timer_pop_frame(timer, &frame_no, ms)) {
        ++popped;
        if (frame_no < first) continue;
        for (int s = 0; s < stages && s < KS_LIVE_STATS_STAGES; ++s)
            if (ms[s] >= 0.0 && count[s] < KS_LIVE_STATS_QUEUE) per_stage[s][count[s]++] = ms[s];
    }
    for (int s = 0; s < stages && out->nstages < KS_LIVE_STATS_STAGES; ++s) {
        ks_stage_stats st;
        ks_stage_timer_stats(timer, s, &st);
        ks_live_stage_median *m = &out->stages[out->nstages++];
        snprintf(m->name, sizeof m->name, "%s", st.name ? st.name : "?");
        m->median_ms = popped ? ks_median_sort(per_stage[s], count[s]) : st.median_ms;
        m->samples = popped ? count[s] : st.samples;
    }
}

double ks_live_stats_stage(const ks_live_stats *s, const char *name)
{
    for (int i = 0; i < s->nstages; ++i)
        if (strcmp(s->stages[i].name, name) == 0 && s->stages[i].samples > 0) return s->stages[i].median_ms;
    return -1.0;
}
