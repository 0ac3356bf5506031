/* The CUPTI timeline's clocks: gpu - cpu from a marker kernel's global-timer
 * readings against its activity record, and which clock the PM samples are
 * on, from a marker that keeps every SM busy while sampling runs. */
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "timeline_cupti.h"
#include "timeline_marker.h"

/* Completed activity buffers until the marker's record is in (a forced
 * flush would hand it over unfinished): its start and end on CUPTI's clock. */
static ks_status marker_record(ks_timeline *tl, uint64_t *cs, uint64_t *ce)
{
    const double t0 = ks_now_seconds();
    int flushes = 0;
    while (tl->marker_end.load() == 0 && ks_now_seconds() - t0 < 2.0) {
        const CUptiResult r = KS_CUPTI_CALL(tl->api, flushes < 3 ? &tl->tr : nullptr, cuptiActivityFlushAll, 0);
        if (r != CUPTI_SUCCESS) return ks_cupti_fail(tl->api, r, "cuptiActivityFlushAll", __FILE__, __LINE__);
        if (tl->marker_end.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ++flushes;
    }
    if (tl->marker_end.load() == 0)
        (void)KS_CUPTI_CALL(tl->api, &tl->tr, cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    ks_cupti_tracef(&tl->tr, "timeline clock: marker record after %d flushes, %.1f ms", flushes,
                    (ks_now_seconds() - t0) * 1e3);
    *cs = tl->marker_start.load();
    *ce = tl->marker_end.load();
    if (*cs == 0 || *ce == 0)
        return ks_counters_fail(KS_CTRS_FAILED, "the clock marker's activity record did not arrive");
    return KS_OK;
}

/* gpu - cpu from the marker kernel: its global-timer readings against its activity record. */
ks_status ks_tl_clock_calibrate(ks_timeline *tl)
{
    int64_t offsets[3];
    for (int i = 0; i < 3; ++i) {
        tl->marker_start.store(0);
        tl->marker_end.store(0);
        unsigned long long gpu[2] = {0, 0};
        KS_TRY(ks_tl_marker_run(gpu, 20000, 1));
        uint64_t cs = 0, ce = 0;
        KS_TRY(marker_record(tl, &cs, &ce));
        offsets[i] = (int64_t)(gpu[0] / 2 + gpu[1] / 2) - (int64_t)(cs / 2 + ce / 2);
        ks_cupti_tracef(&tl->tr,
                        "timeline clock: marker global timer %llu..%llu (%lld ns), CUPTI record %llu..%llu (%lld ns), "
                        "gpu - cpu %lld ns",
                        gpu[0], gpu[1], (long long)(gpu[1] - gpu[0]), (unsigned long long)cs, (unsigned long long)ce,
                        (long long)(ce - cs), (long long)offsets[i]);
    }
    /* the median of three */
    int64_t a = offsets[0], b = offsets[1], c = offsets[2];
    tl->offset_ns = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
    /* until a start measures the samples' clock: taken as CUPTI's (what an H200 showed) */
    tl->sample_shift_ns.store(tl->offset_ns);
    return KS_OK;
}

static const char *domain_name(int d)
{
    return d == KS_TL_DOMAIN_GPU ? "the GPU's timer" : d == KS_TL_DOMAIN_CPU ? "CUPTI's clock" : "a clock of its own";
}

/* Which clock the samples are on, from a marker that keeps every SM busy
 * while sampling runs; the samples decoded meanwhile go into the ring once
 * it is known. pm_mutex held, sampling started. */
ks_status ks_tl_clock_align_locked(ks_timeline *tl)
{
    const int64_t interval_ns = llround(tl->interval_us * 1000.0);
    const unsigned long long spin = (unsigned long long)(10 * interval_ns > 500000 ? 10 * interval_ns : 500000);
    tl->marker_start.store(0);
    tl->marker_end.store(0);
    unsigned long long gpu[2] = {0, 0};
    KS_TRY(ks_tl_marker_run(gpu, spin, 4 * (tl->sms > 0 ? tl->sms : 1)));
    uint64_t cs = 0, ce = 0;
    KS_TRY(marker_record(tl, &cs, &ce));
    /* samples until the marker's end plus three intervals has passed on either clock, or 50 ms more */
    const int64_t after = (int64_t)ce + 3 * interval_ns;
    const int64_t need = tl->offset_ns > 0 ? after + tl->offset_ns : after;
    std::vector<ks_tl_sample> raw;
    const double t0 = ks_now_seconds();
    int decodes = 0;
    for (;;) {
        KS_TRY(ks_tl_pm_decode_locked(tl, &raw));
        ++decodes;
        uint64_t newest = 0, now = 0;
        for (const ks_tl_sample &x : raw) newest = x.t1_ns > newest ? x.t1_ns : newest;
        tl->api->cuptiGetTimestamp(&now);
        if ((int64_t)newest >= need || (int64_t)now >= after + 50000000 || ks_now_seconds() - t0 > 2.0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const ks_tl_clock_fit f = ks_tl_fit_clock(raw.data(), (int)raw.size(), cs, ce, tl->offset_ns, interval_ns);
    tl->clock_fit_ns.store(f.fitted_ns);
    tl->clock_contrast.store(f.contrast);
    if (f.measured) {
        tl->domain.store((int)f.domain);
        tl->samples_minus_cpu_ns.store(f.samples_minus_cpu_ns);
        tl->domain_known.store(1);
    }
    tl->sample_shift_ns.store(tl->offset_ns - tl->samples_minus_cpu_ns.load());
    ks_cupti_tracef(&tl->tr,
                    "timeline clock: marker on every SM %llu..%llu on CUPTI's clock (%.3f ms), %zu samples in %d "
                    "decodes; SM step %.1f points at a lag of %+lld ns; gpu - cpu %lld ns: samples %s%s%s",
                    (unsigned long long)cs, (unsigned long long)ce, (double)(ce - cs) * 1e-6, raw.size(), decodes,
                    f.contrast, (long long)f.fitted_ns, (long long)tl->offset_ns,
                    f.measured ? "on " : "not measured (no step), taken as on ", domain_name(tl->domain.load()),
                    f.measured && !f.distinct ? " (the clocks are too close to tell apart; either lines up)" : "");
    const uint64_t shift = (uint64_t)tl->sample_shift_ns.load();
    for (ks_tl_sample &x : raw) {
        x.t0_ns += shift;
        x.t1_ns += shift;
        ks_tl_ring_push(&tl->samples, &x);
    }
    return KS_OK;
}
