/* What the viewer shows beside the picture: the series of ks_viewer_value (the
 * first one the convergence plot), the stage timings of ks_viewer_stage and
 * ks_viewer_stage_ms (each a window of the newest), and the view model the
 * display draws them from (render/view.h: the window's panels, the page's state). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_error.h"
#include "base/ks_util.h"
#include "lib/kernelscope.h"
#include "lib/viewer_gpu.h"
#include "lib/viewer_internal.h"

/* The index of name among *count names (name_cap bytes each, the first member
 * of records stride bytes apart from base), added at the end when it is new;
 * -1 when it is new and there are max already. Lock held. */
_Static_assert(offsetof(ks_vw_series, name) == 0 && offsetof(ks_vw_stage, name) == 0,
               "name_index reads the names first");
static int name_index(void *base, size_t stride, size_t name_cap, int *count, int max, const char *name)
{
    for (int i = 0; i < *count; ++i)
        if (strcmp((const char *)base + (size_t)i * stride, name) == 0) return i;
    if (*count == max) return -1;
    snprintf((char *)base + (size_t)*count * stride, name_cap, "%s", name);
    return (*count)++;
}

static ks_status value(ks_viewer *v, const char *name, double x)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "ks_viewer_value: no viewer");
    if (!name || !name[0] || strlen(name) >= sizeof v->values[0].name)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_value: a name of 1 to %zu bytes", sizeof v->values[0].name - 1);
    pthread_mutex_lock(&v->lock);
    const int i = name_index(v->values, sizeof v->values[0], sizeof v->values[0].name, &v->nvalues, KS_VIEWER_SERIES,
                             name);
    if (i < 0) {
        pthread_mutex_unlock(&v->lock);
        return ks_fail(KS_ERR_INVALID, "ks_viewer_value: at most %d series ('%.40s' is one more)", KS_VIEWER_SERIES,
                       name);
    }
    ks_vw_series *s = &v->values[i];
    s->last = x;
    if (i == 0 && x > 0 && isfinite(x)) { /* the plot, log10 as a convergence plot: its newest KS_VIEW_PLOT points */
        if (v->plot_n == KS_VIEW_PLOT) {
            memmove(v->plot_x, v->plot_x + 1, sizeof v->plot_x - sizeof v->plot_x[0]);
            memmove(v->plot_y, v->plot_y + 1, sizeof v->plot_y - sizeof v->plot_y[0]);
            --v->plot_n;
        }
        v->plot_x[v->plot_n] = (float)s->count;
        v->plot_y[v->plot_n++] = (float)log10(x);
    }
    ++s->count;
    pthread_mutex_unlock(&v->lock);
    return KS_OK;
}

int ks_viewer_value(ks_viewer *v, const char *name, double x) { return ks_vw_result(value(v, name, x)); }

/* The index of stage name (added when new), or -1 with the error set. Lock held. */
static int stage_index(ks_viewer *v, const char *call, const char *name)
{
    const int i = name_index(v->stages, sizeof v->stages[0], sizeof v->stages[0].name, &v->nstages, KS_VIEW_STAGES,
                             name);
    if (i < 0) ks_fail(KS_ERR_INVALID, "%s: at most %d stages ('%.31s' is one more)", call, KS_VIEW_STAGES, name);
    return i;
}

/* One more timing of stage i, into its window of the newest. Lock held. */
static void stage_add(ks_viewer *v, int i, double ms)
{
    ks_vw_stage *s = &v->stages[i];
    s->ms[s->next] = ms;
    s->next = (s->next + 1) % KS_VIEWER_STAGE_WINDOW;
    if (s->n < KS_VIEWER_STAGE_WINDOW) ++s->n;
}

static ks_status check_stage_name(const ks_viewer *v, const char *call, const char *name)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "%s: no viewer", call);
    if (!name || !name[0] || strlen(name) >= sizeof v->stages[0].name)
        return ks_fail(KS_ERR_INVALID, "%s: a stage name of 1 to %zu bytes", call, sizeof v->stages[0].name - 1);
    return KS_OK;
}

static ks_status stage_ms(ks_viewer *v, const char *name, double ms)
{
    KS_TRY(check_stage_name(v, "ks_viewer_stage_ms", name));
    if (!isfinite(ms) || ms < 0) return ks_fail(KS_ERR_INVALID, "ks_viewer_stage_ms: %g ms (finite, >= 0)", ms);
    pthread_mutex_lock(&v->lock);
    const int i = stage_index(v, "ks_viewer_stage_ms", name);
    if (i >= 0) stage_add(v, i, ms);
    pthread_mutex_unlock(&v->lock);
    return i >= 0 ? KS_OK : KS_ERR_INVALID;
}

/* Your events: the time between them once both have happened, read without
 * waiting (lib/viewer_gpu.h). A pair still on its way when the next comes
 * is replaced by it: events used again every iteration give every iteration
 * the library finds done, not each one. */
static ks_status stage_events(ks_viewer *v, const char *name, void *start, void *end)
{
    KS_TRY(check_stage_name(v, "ks_viewer_stage", name));
    if (!start || !end) return ks_fail(KS_ERR_INVALID, "ks_viewer_stage: a start and an end event (cudaEvent_t)");
    pthread_mutex_lock(&v->lock);
    const int i = stage_index(v, "ks_viewer_stage", name);
    ks_status st = i >= 0 ? KS_OK : KS_ERR_INVALID;
    ks_vw_stage *s = i >= 0 ? &v->stages[i] : NULL;
    int ready = 0;
    double ms = 0.0;
    if (s && s->ev_pending && (s->ev_start != start || s->ev_end != end)) { /* the pair before, done by now? */
        st = ks_vgpu_event_ms(s->ev_start, s->ev_end, &ready, &ms);
        if (st == KS_OK && ready) stage_add(v, i, ms);
        s->ev_pending = 0;
    }
    if (s && st == KS_OK) {
        st = ks_vgpu_event_ms(start, end, &ready, &ms);
        if (st == KS_OK && ready) stage_add(v, i, ms);
        s->ev_start = start;
        s->ev_end = end;
        s->ev_pending = st == KS_OK && !ready;
    }
    pthread_mutex_unlock(&v->lock);
    return st;
}

int ks_viewer_stage(ks_viewer *v, const char *name, void *start_event, void *end_event)
{
    return ks_vw_result(stage_events(v, name, start_event, end_event));
}

int ks_viewer_stage_ms(ks_viewer *v, const char *name, double ms) { return ks_vw_result(stage_ms(v, name, ms)); }

/* The view the display shows (lock held): the median and minimum of each stage's window. */
void ks_vw_make_view(const ks_viewer *v, ks_view *view, int w)
{
    memset(view, 0, sizeof *view);
    snprintf(view->scene, sizeof view->scene, "%.31s", v->title); /* the page shows the scene name as its title */
    view->frame = v->drawn_seq;
    view->paused = v->paused;
    view->no_reset_save = 1;
    ks_view_num(view, KS_VGROUP_SCENE, "picture", w, "px wide", KS_VFMT_INT);
    ks_view_num(view, KS_VGROUP_SCENE, "fields shown", (double)v->shown, "", KS_VFMT_INT);
    for (int i = 0; i < v->nvalues; ++i) ks_view_num(view, KS_VGROUP_SCENE, v->values[i].name, v->values[i].last, "", KS_VFMT_G4);
    for (int i = 0; i < v->nstages; ++i) {
        const ks_vw_stage *st = &v->stages[i];
        double sorted[KS_VIEWER_STAGE_WINDOW];
        memcpy(sorted, st->ms, (size_t)st->n * sizeof *sorted);
        qsort(sorted, (size_t)st->n, sizeof *sorted, ks_cmp_double);
        ks_vstage *vs = &view->stages[view->nstages++];
        snprintf(vs->name, sizeof vs->name, "%s", st->name);
        vs->median_ms = sorted[st->n / 2];
        vs->min_ms = sorted[0];
        vs->samples = st->n;
    }
    view->colorbar.on = 1;
    view->colorbar.cmap = v->cmap;
    snprintf(view->colorbar.label, sizeof view->colorbar.label, "value");
    view->colorbar.lo = v->pic_lo;
    view->colorbar.hi = v->pic_hi;
    if (v->nvalues) {
        snprintf(view->plot.title, sizeof view->plot.title, "log10 %s", v->values[0].name);
        view->plot.n = v->plot_n;
        memcpy(view->plot.x, v->plot_x, sizeof view->plot.x);
        memcpy(view->plot.y, v->plot_y, sizeof view->plot.y);
    }
    view->help_global = "Keys\n  Space      pause / resume (ks_viewer_poll)\n  N          one step (while paused)\n"
                        "  Esc / Q    quit\n";
}
