/* The live view's Hardware panel: the counters of one launch of the kernel
 * that runs (counters/counters.h), measured on demand (K, the panel's
 * Measure button), every --counters-every seconds, and again whenever what
 * runs changes (the scene's ks_scene_api.counters says what that is). The
 * live loop owns one; the ks_counters object inside is made on first use, on
 * the frame thread, between frames, and a measurement blocks that frame
 * only. Without counters (CPU backend, no CUPTI, no permission, another
 * profiler, ...) the panel says why and one line goes to stderr, once. */
#ifndef KS_LIVE_COUNTERS_H
#define KS_LIVE_COUNTERS_H

#include "app/scene.h"
#include "counters/counters.h"

typedef struct ks_live_counters_desc {
    const ks_scene_api *api; /* required */
    void *scene;
    int use_cuda;            /* 0: the CPU backend (the panel says why) */
    double every_s;          /* --counters-every (0: on request only) */
} ks_live_counters_desc;

/* A plain struct the frame loop holds; its fields are this module's. */
typedef struct ks_live_counters {
    ks_live_counters_desc d;
    ks_counters *ctr;         /* made on first use; NULL until then, or after a failed create */
    int asked;                /* K or Measure: measure after this frame */
    int in_use;               /* asked once (or --counters-every): a change of what runs measures again */
    int noticed;              /* the "no counters" line went to stderr */
    char why[KS_VIEW_TEXT];   /* why the last try had no counters ("" it had) */
    char last_config[KS_SCENE_CONFIG]; /* what the shown measurement measured */
    char config_now[KS_SCENE_CONFIG];  /* what runs now, as the scene last said */
    char not_now[KS_VIEW_TEXT]; /* the scene's words when nothing can be measured now */
    ks_scene_counters sc;     /* the scene's side of the shown measurement */
    ks_counter_set set;       /* the shown measurement */
    int have;                 /* set holds one */
    int measurements;
    long long frame;          /* the frame after which it was made */
    double cost_ms;           /* what it cost the frame (create included the first time) */
    double last_at;           /* host seconds of the last periodic or asked measurement */
    double interval_s;        /* --counters-every as in force (stretched to keep under 5 %) */
} ks_live_counters;

void ks_live_counters_init(ks_live_counters *hw, const ks_live_counters_desc *desc);
void ks_live_counters_destroy(ks_live_counters *hw);
/* K or the panel's Measure button: measure after this frame. */
void ks_live_counters_ask(ks_live_counters *hw);
/* Between frames: 1 when a measurement is due now (asked, the interval is up,
 * or what runs changed since the shown one). Asks the scene what runs. */
int ks_live_counters_due(ks_live_counters *hw, double now);
/* Measures what runs now (the GPU drained first); the result or why there is
 * none goes into the panel. Never fails the run: a failure is the panel's why
 * (and its line on stderr, once). `frame`: frames drawn so far. */
void ks_live_counters_measure(ks_live_counters *hw, long long frame, double now);
/* The panel's part of the view. */
void ks_live_counters_view(const ks_live_counters *hw, ks_view *v);

/* ---- pure, for the tests ---- */

/* The panel's rows of a measurement: every kernel of s as one, against
 * sc->model_bytes, with sc's theoretical occupancy and access widths; the
 * kernel names, the status line and `what`. Leaves `on`, `open`, `why` and
 * `every` as they are. */
void ks_live_counters_fill(ks_vhardware *out, const ks_counter_set *s, const ks_scene_counters *sc, double cost_ms,
                           long long frame, int measurements);
/* The interval --counters-every runs at: the one asked, stretched so that a
 * measurement costing cost_s takes at most 5 % of the time. */
double ks_live_counters_interval(double asked_s, double cost_s);
/* Its line for the panel: "every 2 s" or "every 6.2 s (asked 1 s: one costs 310 ms, kept under 5 %)". */
void ks_live_counters_every_text(double asked_s, double in_force_s, double cost_s, char *buf, size_t cap);

#endif
