/* The live view's Hardware panel (live_counters.h). */
#include "app/live/live_counters.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/timeline.h"
#include "base/cuda_device.h"
#include "base/ks_util.h"

enum { KS_HW_BUDGET_PCT = 5 }; /* --counters-every: at most this share of the run */

/* src cut to cap (the view's fields are shorter than some sources) */
static void copy_text(char *dst, size_t cap, const char *src)
{
    if (cap == 0) return;
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

void ks_live_counters_init(ks_live_counters *hw, const ks_live_counters_desc *desc)
{
    memset(hw, 0, sizeof *hw);
    hw->d = *desc;
    hw->frame = -1;
    hw->in_use = desc->every_s > 0.0;
    hw->interval_s = desc->every_s;
}

void ks_live_counters_destroy(ks_live_counters *hw)
{
    if (hw == NULL) return;
    ks_counters_destroy(hw->ctr);
    hw->ctr = NULL;
}

void ks_live_counters_ask(ks_live_counters *hw)
{
    hw->asked = 1;
    hw->in_use = 1;
}

double ks_live_counters_interval(double asked_s, double cost_s)
{
    const double floor_s = cost_s > 0.0 ? cost_s * (100.0 / KS_HW_BUDGET_PCT) : 0.0;
    return asked_s > floor_s ? asked_s : floor_s;
}

void ks_live_counters_every_text(double asked_s, double in_force_s, double cost_s, char *buf, size_t cap)
{
    if (!(asked_s > 0.0)) {
        copy_text(buf, cap, "");
        return;
    }
    if (in_force_s > asked_s * 1.001)
        snprintf(buf, cap, "every %.3g s (asked %.3g s: one measurement costs %.0f ms, kept under %d %% of the run)",
                 in_force_s, asked_s, cost_s * 1e3, KS_HW_BUDGET_PCT);
    else
        snprintf(buf, cap, "every %.3g s (--counters-every)", in_force_s);
}

/* What runs now, as the scene says (0: nothing to measure now, not_now says why). */
static int ask_scene(ks_live_counters *hw, ks_scene_counters *sc)
{
    memset(sc, 0, sizeof *sc);
    if (!hw->d.use_cuda || hw->d.api->counters == NULL) return 0;
    const int ok = hw->d.api->counters(hw->d.scene, sc);
    copy_text(hw->config_now, sizeof hw->config_now, sc->config);
    copy_text(hw->not_now, sizeof hw->not_now, ok ? "" : sc->what);
    return ok && sc->launch != NULL;
}

int ks_live_counters_due(ks_live_counters *hw, double now)
{
    if (!hw->in_use) return 0;
    if (!hw->d.use_cuda || hw->d.api->counters == NULL) return hw->asked || !hw->why[0]; /* once: why not */
    ks_scene_counters sc;
    if (!ask_scene(hw, &sc)) return 0; /* an asked one waits until the scene can (not_now says why) */
    if (hw->asked) return 1;
    if (hw->why[0]) return 0; /* without counters only a key tries again */
    if (hw->have && strcmp(hw->config_now, hw->last_config) != 0) return 1;
    if (!hw->have && hw->measurements == 0) return 1; /* --counters-every: the first one at once */
    return hw->d.every_s > 0.0 && now - hw->last_at >= hw->interval_s;
}

/* A failure: its words for the panel, its line on stderr the first time. */
static void no_counters(ks_live_counters *hw)
{
    const char *line = ks_error_message();
    const char *prefix = "hardware counters: ";
    copy_text(hw->why, sizeof hw->why, strncmp(line, prefix, strlen(prefix)) == 0 ? line + strlen(prefix) : line);
    if (!hw->noticed) {
        fprintf(stderr, "kernelscope: %s%s\n", strncmp(line, prefix, strlen(prefix)) == 0 ? "" : prefix, line);
        fflush(stderr);
        hw->noticed = 1;
    }
    ks_error_clear();
}

void ks_live_counters_measure(ks_live_counters *hw, long long frame, double now)
{
    hw->asked = 0;
    hw->last_at = now;
    if (!hw->d.use_cuda) {
        (void)ks_counters_fail(KS_CTRS_CPU_BACKEND, NULL);
        no_counters(hw);
        return;
    }
    if (hw->d.api->counters == NULL) {
        copy_text(hw->why, sizeof hw->why, "this scene has no kernel the counters can measure");
        return;
    }
    ks_scene_counters sc;
    if (!ask_scene(hw, &sc)) return; /* the panel says not_now */
    const double t0 = ks_now_seconds();
    if (hw->ctr == NULL) {
        const ks_counters_desc cd = {.device = -1};
        if (ks_counters_create(&cd, &hw->ctr) != KS_OK) {
            hw->ctr = NULL;
            no_counters(hw);
            return;
        }
    }
    /* the frames in flight first: only this launch runs under the profiler */
    ks_status st = ks_cuda_sync();
    ks_counter_set set;
    if (st == KS_OK) st = ks_counters_measure(hw->ctr, sc.launch, hw->d.scene, hw->d.api->stream(hw->d.scene), &set);
    const double cost_s = ks_now_seconds() - t0;
    if (st != KS_OK) {
        no_counters(hw);
        return;
    }
    hw->why[0] = '\0';
    hw->set = set;
    hw->sc = sc;
    hw->have = 1;
    hw->frame = frame;
    hw->cost_ms = cost_s * 1e3;
    ++hw->measurements;
    copy_text(hw->last_config, sizeof hw->last_config, sc.config);
    if (hw->d.every_s > 0.0) hw->interval_s = ks_live_counters_interval(hw->d.every_s, cost_s);
    if (hw->measurements == 1 || hw->d.every_s <= 0.0) { /* what it costs, said; periodic ones once */
        fprintf(stderr, "kernelscope: hardware counters: %s measured in %.0f ms (%d replay %s, %d %s)\n", sc.what,
                hw->cost_ms, set.passes, set.passes == 1 ? "pass" : "passes", set.nkernels,
                set.nkernels == 1 ? "kernel" : "kernels");
        fflush(stderr);
    }
}

void ks_live_counters_fill(ks_vhardware *out, const ks_counter_set *s, const ks_scene_counters *sc, double cost_ms,
                           long long frame, int measurements)
{
    /* what the launch knows: its theoretical occupancy and access widths */
    ks_counter_set with = *s;
    const ks_counter_launch launch = {sc->occupancy, sc->load_bytes, sc->store_bytes};
    ks_counters_set_launch(&with, -1, &launch);
    ks_counter_row rows[KS_COUNTER_ROWS];
    const int n = ks_counters_rows(&with, -1, sc->model_bytes, rows, KS_COUNTER_ROWS);
    out->nrows = 0;
    for (int i = 0; i < n && out->nrows < KS_VIEW_HW_ROWS; ++i) {
        ks_vhw_row *r = &out->rows[out->nrows++];
        copy_text(r->key, sizeof r->key, rows[i].key);
        copy_text(r->label, sizeof r->label, rows[i].label);
        copy_text(r->value, sizeof r->value, rows[i].value);
        copy_text(r->unit, sizeof r->unit, rows[i].unit);
        copy_text(r->hover, sizeof r->hover, rows[i].hover);
        copy_text(r->words, sizeof r->words, rows[i].words);
        r->number = rows[i].number;
        r->present = rows[i].present;
    }
    copy_text(out->what, sizeof out->what, sc->what);
    size_t used = 0;
    out->kernel[0] = '\0';
    if (s->nkernels > 1) ks_text_append(out->kernel, sizeof out->kernel, &used, "%d kernels: ", s->nkernels);
    for (int k = 0; k < s->nkernels && k < KS_COUNTERS_MAX_KERNELS; ++k) {
        char name[KS_TL_NAME];
        ks_tl_short_name(s->kernels[k].name, name, sizeof name);
        ks_text_append(out->kernel, sizeof out->kernel, &used, "%s%s", k ? ", " : "", name);
    }
    snprintf(out->status, sizeof out->status, "measured after frame %lld in %.0f ms (%d replay %s of one launch%s)",
             frame, cost_ms, s->passes, s->passes == 1 ? "pass" : "passes",
             s->dropped > 0 ? "; some kernels left out" : "");
    out->measurements = measurements;
    out->frame = frame;
    out->cost_ms = cost_ms;
}

void ks_live_counters_view(const ks_live_counters *hw, ks_view *v)
{
    ks_vhardware *h = &v->hw;
    h->on = 1;
    h->open = hw->in_use;
    h->frame = -1;
    if (hw->have) ks_live_counters_fill(h, &hw->set, &hw->sc, hw->cost_ms, hw->frame, hw->measurements);
    if (hw->why[0]) {
        copy_text(h->why, sizeof h->why, hw->why);
    } else if (!hw->d.use_cuda) {
        copy_text(h->why, sizeof h->why, ks_counters_why_short(KS_CTRS_CPU_BACKEND));
    } else if (hw->not_now[0]) {
        copy_text(h->why, sizeof h->why, hw->not_now);
    } else if (!hw->have) {
        copy_text(h->status, sizeof h->status, "not measured yet: K or Measure measures the kernel that runs");
    }
    h->stale = hw->have && hw->config_now[0] && strcmp(hw->config_now, hw->last_config) != 0;
    const double cost_s = hw->have ? hw->cost_ms * 1e-3 : 0.0;
    ks_live_counters_every_text(hw->d.every_s, hw->interval_s, cost_s, h->every, sizeof h->every);
}
