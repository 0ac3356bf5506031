#include "base/host_peak.h"

#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void ks_host_peak_judge(const double *gbs, int n, ks_host_peak *out)
{
    memset(out, 0, sizeof *out);
    double v[KS_HOST_PEAK_MAX_REPS];
    int m = 0;
    for (int i = 0; i < n && i < KS_HOST_PEAK_MAX_REPS; ++i)
        if (gbs[i] > 0.0) v[m++] = gbs[i];
    out->reps = m;
    if (m == 0) return;
    out->median_gbs = ks_median_sort(v, m); /* sorts v */
    out->gbs = v[m - 1];
    out->spread = (out->gbs - out->median_gbs) / out->gbs;
    out->reliable = out->spread <= KS_HOST_PEAK_MAX_SPREAD;
}

/* dst = src by every thread, each its own contiguous share. */
static void copy_once(char *dst, const char *src, size_t bytes, int threads)
{
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
    {
        const size_t t = (size_t)omp_get_thread_num(), n = (size_t)omp_get_num_threads();
        const size_t lo = bytes / n * t, hi = t + 1 == n ? bytes : bytes / n * (t + 1);
        memcpy(dst + lo, src + lo, hi - lo);
    }
#else
    (void)threads;
    memcpy(dst, src, bytes);
#endif
}

ks_status ks_host_peak_measure(const ks_host_peak_desc *desc, ks_host_peak *out)
{
    memset(out, 0, sizeof *out);
    const ks_host_peak_desc d = desc ? *desc : (ks_host_peak_desc){0};
    const size_t bytes = d.bytes ? d.bytes : (size_t)64 << 20;
    const int reps = d.reps > 0 ? (d.reps < KS_HOST_PEAK_MAX_REPS ? d.reps : KS_HOST_PEAK_MAX_REPS) : 9;
    const double min_seconds = d.min_seconds > 0.0 ? d.min_seconds : 0.02;
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "T_peak: no host memory for two copies of %zu MiB", bytes >> 20);
    }
    /* every page touched before the clock runs */
    memset(a, 0x5a, bytes);
    memset(b, 0, bytes);
    copy_once(b, a, bytes, threads);
    /* passes a repetition makes: enough for min_seconds at a first pass's rate */
    const double t0 = ks_now_seconds();
    copy_once(b, a, bytes, threads);
    const double once = ks_now_seconds() - t0;
    int passes = once > 0.0 ? (int)(min_seconds / once) + 1 : 1;
    if (passes > 1000) passes = 1000;
    double gbs[KS_HOST_PEAK_MAX_REPS];
    for (int r = 0; r < reps; ++r) {
        const double t1 = ks_now_seconds();
        for (int p = 0; p < passes; ++p) copy_once(r % 2 ? a : b, r % 2 ? b : a, bytes, threads);
        const double dt = ks_now_seconds() - t1;
        gbs[r] = dt > 0.0 ? 2.0 * (double)bytes * passes / dt / 1e9 : 0.0;
    }
    free(a);
    free(b);
    ks_host_peak_judge(gbs, reps, out);
    out->threads = threads;
    return KS_OK;
}

ks_peak_verdict ks_host_peak_ratio(const ks_host_peak *p, double t_eff_gbs, double *ratio)
{
    *ratio = -1.0;
    if (!p || !(p->gbs > 0.0) || !(t_eff_gbs > 0.0)) return KS_PEAK_NONE;
    if (!p->reliable) return KS_PEAK_UNRELIABLE;
    if (t_eff_gbs > p->gbs) return KS_PEAK_EXCEEDED;
    *ratio = t_eff_gbs / p->gbs;
    return KS_PEAK_RATIO;
}

const char *ks_peak_verdict_text(ks_peak_verdict v)
{
    switch (v) {
    case KS_PEAK_NONE: return "no T_peak";
    case KS_PEAK_UNRELIABLE: return "T_peak unreliable (busy CPU)";
    case KS_PEAK_EXCEEDED: return "T_eff above T_peak (cache, or busy CPU)";
    default: return "";
    }
}
