#include "app/scene_peak.h"

void ks_scene_peak_ratio(ks_view *v, const ks_scene_env *env, ks_vgroup group, const char *label, double gbs)
{
    if (!(env->t_peak_gbs > 0.0)) return;
    if (env->use_cuda || !env->host_peak) { /* a device copy: steady, and exceeded by design (time blocks) */
        ks_view_num(v, group, label, gbs / env->t_peak_gbs, "x", KS_VFMT_F2);
        return;
    }
    double ratio;
    const ks_peak_verdict verdict = ks_host_peak_ratio(env->host_peak, gbs, &ratio);
    if (verdict == KS_PEAK_RATIO) ks_view_num(v, group, label, ratio, "x", KS_VFMT_F2);
    else ks_view_text(v, group, label, "n/a: %s", ks_peak_verdict_text(verdict));
}

void ks_scene_peak_rows(ks_view *v, const ks_scene_env *env, ks_vgroup group, const char *label)
{
    if (!(env->t_peak_gbs > 0.0)) return;
    ks_view_num(v, group, label, env->t_peak_gbs, env->use_cuda ? "GB/s (dev copy)" : "GB/s (memcpy)", KS_VFMT_INT);
    if (!env->use_cuda && env->host_peak)
        ks_view_num(v, group, "T_peak spread", env->host_peak->spread, "", KS_VFMT_PCT);
}
