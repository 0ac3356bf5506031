/* The live view's timeline strip (live_timeline.h). */
#include "app/live/live_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"

/* What a frame reads: at most this many of the newest samples (the window's
 * worth at 20 us up to 500 ms is 25000) and spans. */
enum { KS_LT_READ_SAMPLES = 25600, KS_LT_READ_SPANS = 2048, KS_LT_LABEL_COLS = 40 };

/* src cut to cap (the view's fields are shorter than some sources) */
static void copy_text(char *dst, size_t cap, const char *src)
{
    if (cap == 0) return;
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

void ks_live_timeline_init(ks_live_timeline *lt, int use_cuda, int interval_us)
{
    memset(lt, 0, sizeof *lt);
    lt->use_cuda = use_cuda;
    lt->interval_us = interval_us > 0 ? interval_us : 50;
    lt->window_ms = 20.0;
}

void ks_live_timeline_destroy(ks_live_timeline *lt)
{
    if (lt == NULL) return;
    if (lt->tl && lt->sampling) (void)ks_timeline_stop(lt->tl);
    ks_timeline_destroy(lt->tl);
    free(lt->samples);
    free(lt->spans);
    free(lt->strip);
    memset(lt, 0, sizeof *lt);
}

static void no_timeline(ks_live_timeline *lt)
{
    const char *line = ks_error_message();
    const char *prefix = "hardware counters: ";
    const size_t np = strlen(prefix);
    copy_text(lt->why, sizeof lt->why, strncmp(line, prefix, np) == 0 ? line + np : line);
    if (!lt->noticed) {
        fprintf(stderr, "kernelscope: timeline: %s\n", lt->why);
        fflush(stderr);
        lt->noticed = 1;
    }
    ks_error_clear();
}

static ks_status make(ks_live_timeline *lt)
{
    if (!lt->use_cuda) return ks_counters_fail(KS_CTRS_CPU_BACKEND, NULL);
    lt->samples = malloc(KS_LT_READ_SAMPLES * sizeof *lt->samples);
    lt->spans = malloc(KS_LT_READ_SPANS * sizeof *lt->spans);
    lt->strip = malloc(sizeof *lt->strip);
    if (!lt->samples || !lt->spans || !lt->strip) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timeline: out of host memory");
    const ks_timeline_desc d = {.device = -1, .interval_us = lt->interval_us};
    return ks_timeline_create(&d, &lt->tl);
}

static void start(ks_live_timeline *lt)
{
    if (lt->sampling) return;
    if (lt->tl == NULL && make(lt) != KS_OK) {
        ks_timeline_destroy(lt->tl);
        lt->tl = NULL;
        no_timeline(lt);
        return;
    }
    if (ks_timeline_start(lt->tl) != KS_OK) {
        no_timeline(lt);
        return;
    }
    lt->sampling = 1;
    lt->why[0] = '\0';
}

static void stop(ks_live_timeline *lt)
{
    if (!lt->sampling) return;
    if (ks_timeline_stop(lt->tl) != KS_OK) ks_error_clear(); /* stopping: nothing to show */
    lt->sampling = 0;
}

void ks_live_timeline_set(ks_live_timeline *lt, int on)
{
    lt->on = on != 0;
    if (lt->on) start(lt);
    else stop(lt);
}

void ks_live_timeline_pause(ks_live_timeline *lt)
{
    lt->paused = lt->sampling;
    stop(lt);
}

void ks_live_timeline_resume(ks_live_timeline *lt)
{
    if (lt->paused && lt->on) start(lt);
    lt->paused = 0;
}

double ks_live_timeline_window_ms(double frame_ms)
{
    if (!(frame_ms > 0.0)) return 20.0;
    static const double steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; ++i)
        if (steps[i] >= 2.0 * frame_ms) return steps[i];
    return 500.0;
}

void ks_live_timeline_fill(ks_vtimeline *out, const ks_tl_strip *strip)
{
    const int n = strip->width < KS_VIEW_STRIP ? strip->width : KS_VIEW_STRIP;
    out->n = n;
    for (int c = 0; c < n; ++c) {
        out->dram[c] = strip->dram_pct[c];
        out->sm[c] = strip->sm_pct[c];
    }
    out->dram_mean = strip->dram_mean_pct;
    out->sm_mean = strip->sm_mean_pct;
    /* the newest marks when there are more than the view holds */
    const int first = strip->nmarks > KS_VIEW_MARKS ? strip->nmarks - KS_VIEW_MARKS : 0;
    out->nmarks = 0;
    for (int i = first; i < strip->nmarks; ++i) {
        const ks_tl_mark *m = &strip->marks[i];
        if (m->x0 >= n) continue;
        ks_vmark *o = &out->marks[out->nmarks++];
        o->x0 = m->x0;
        o->x1 = m->x1 < n ? m->x1 : n;
        o->count = m->count;
        o->label = m->label;
        copy_text(o->name, sizeof o->name, m->name);
    }
}

void ks_live_timeline_view(ks_live_timeline *lt, double frame_ms, ks_view *v)
{
    ks_vtimeline *t = &v->timeline;
    if (!lt->on) return;
    t->on = 1;
    t->interval_us = lt->interval_us;
    t->dram_mean = t->sm_mean = NAN;
    if (!lt->sampling) {
        copy_text(t->why, sizeof t->why, lt->why[0] ? lt->why : "paused for a counter measurement");
        return;
    }
    /* the window follows the frame interval, but only by whole steps, so it stays put */
    lt->window_ms = ks_live_timeline_window_ms(frame_ms);
    t->window_ms = lt->window_ms;
    const int want = (int)(lt->window_ms * 1e3 / lt->interval_us) * 2 + 64;
    int ns = 0, nsp = 0;
    if (ks_timeline_read(lt->tl, lt->samples, want < KS_LT_READ_SAMPLES ? want : KS_LT_READ_SAMPLES, &ns, lt->spans,
                         KS_LT_READ_SPANS, &nsp) != KS_OK) {
        no_timeline(lt);
        copy_text(t->why, sizeof t->why, lt->why);
        return;
    }
    ks_timeline_info info;
    ks_timeline_get_info(lt->tl, &info);
    size_t used = 0;
    ks_text_append(t->note, sizeof t->note, &used, "every %d us; %llu samples, %llu kernels recorded", lt->interval_us,
                   (unsigned long long)info.samples, (unsigned long long)info.spans);
    if (!info.domain_known) ks_text_append(t->note, sizeof t->note, &used, "; sample clock not yet measured");
    if (info.overflows || info.records_dropped)
        ks_text_append(t->note, sizeof t->note, &used, "; %llu lost", (unsigned long long)(info.overflows + info.records_dropped));
    if (ns == 0 && nsp == 0) {
        copy_text(t->why, sizeof t->why, "waiting for the first samples");
        return;
    }
    /* the strip ends at the newest sample: spans come later than samples, so an older end would leave them out */
    if (ks_tl_strip_build(lt->samples, ns, lt->spans, nsp, 0, (uint64_t)(lt->window_ms * 1e6), KS_VIEW_STRIP,
                          KS_LT_LABEL_COLS, lt->strip) != KS_OK) {
        copy_text(t->why, sizeof t->why, ks_error_message());
        ks_error_clear();
        return;
    }
    ks_live_timeline_fill(t, lt->strip);
}
