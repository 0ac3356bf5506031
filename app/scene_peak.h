/* A scene's ratio to T_peak in its panel: the number, or on the CPU backend,
 * where T_peak is the host's copy bandwidth measured on a machine that may be
 * busy, why there is none (base/host_peak.h). */
#ifndef KS_SCENE_PEAK_H
#define KS_SCENE_PEAK_H

#include "render/view.h"
#include "app/scene.h"

/* The row `label` (e.g. "T_eff/T_peak"): gbs / T_peak as "0.73 x", or on the
 * CPU backend "n/a: T_peak unreliable (busy CPU)" and the like when T_peak is
 * not steady or gbs exceeds it. Nothing without a T_peak. */
void ks_scene_peak_ratio(ks_view *v, const ks_scene_env *env, ks_vgroup group, const char *label, double gbs);
/* The row `label` with T_peak in GB/s (unit: what was copied), and on the CPU
 * backend the spread of its repetitions ("T_peak spread"). */
void ks_scene_peak_rows(ks_view *v, const ks_scene_env *env, ks_vgroup group, const char *label);

#endif
