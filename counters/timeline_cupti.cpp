/* ks_timeline with CUPTI: PM sampling (cupti_pmsampling.h) of DRAM
 * throughput and SM activity, and kernel activity records
 * (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), both put on the GPU's clock and
 * into rings. A worker thread decodes the PM sampler's buffer every
 * decode_ms and flushes the activity buffers; CUPTI calls the buffer
 * callbacks from its own thread too, so the span ring's writers share a lock
 * (its reader needs none). */
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "cupti_api.h"
#include "kernels/common/cuda_check.h"
#include "timeline.h"
#include "timeline_marker.h"

enum {
    HW_BUFFER_BYTES = 64 << 20, /* the PM sampler's buffer on the GPU: seconds of samples */
    ACTIVITY_BUFFER_BYTES = 1 << 20,
};

struct ks_timeline {
    const ks_cupti *api;
    ks_cupti_tracer tr;
    int subscribed;
    int ordinal;
    CUcontext ctx;
    CUdevice dev;
    ks_counter_gen gen;
    char chip[24];
    std::vector<uint8_t> availability;
    CUpti_Profiler_Host_Object *host;
    /* the metrics sampled: index into names per role (-1 none) */
    char metric[KS_TL_METRICS][KS_COUNTER_METRIC];
    const char *names[KS_TL_METRICS];
    int index_of[KS_TL_METRICS];
    int nnames;
    std::vector<uint8_t> config;
    CUpti_PmSampling_Object *pm;
    std::vector<uint8_t> counter_data, counter_data_blank;
    double interval_us;
    int time_trigger;
    int decode_ms;
    int activity_on;

    ks_tl_ring samples, spans;
    std::mutex span_push; /* CUPTI's thread and the worker both deliver activity buffers */
    std::mutex pm_mutex;  /* PM calls: start and stop on the caller's thread, decoding on the worker */
    int sampling;

    int sms;
    int64_t offset_ns; /* gpu - cpu, from create's markers */
    /* the samples' clock, measured at each start (ks_tl_fit_clock); read by get_info without locks */
    std::atomic<int> domain_known, domain;
    std::atomic<int64_t> samples_minus_cpu_ns, clock_fit_ns;
    std::atomic<double> clock_contrast;
    std::atomic<int64_t> sample_shift_ns; /* added to a sample's timestamps: onto the GPU's clock */
    /* the marker's record, while calibrating */
    std::atomic<uint64_t> marker_start, marker_end;

    std::thread worker;
    std::mutex m;
    std::condition_variable cv;
    bool quit;
    uint64_t flush_asked, flush_done;

    std::atomic<uint64_t> decode_passes, overflows, decode_errors, records_dropped;
    std::mutex error_mutex;
    char last_error[256];
};

/* One timeline per process: CUPTI's activity buffer callbacks are global. */
static std::mutex current_mutex;
static ks_timeline *current;
static int activity_callbacks_registered;

static void set_worker_error(ks_timeline *tl, const char *text)
{
    std::lock_guard<std::mutex> lock(tl->error_mutex);
    snprintf(tl->last_error, sizeof tl->last_error, "%s", text);
}

/* ---- Activity records ---- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = static_cast<uint8_t *>(aligned_alloc(8, ACTIVITY_BUFFER_BYTES));
    *size = *buffer ? ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void take_kernel(ks_timeline *tl, const CUpti_ActivityKernel10 *k)
{
    if (k->start == 0 && k->end == 0) return; /* CUPTI could not time it */
    char full[256];
    ks_cupti_demangle(k->name, full, sizeof full);
    if (strstr(full, KS_TL_MARKER_NAME) != nullptr) {
        /* the clock marker: calibrating waits for it; its span stays in the ring (it did run) */
        tl->marker_start.store(k->start);
        tl->marker_end.store(k->end);
    }
    ks_tl_span s;
    memset(&s, 0, sizeof s);
    s.start_ns = k->start + (uint64_t)tl->offset_ns;
    s.end_ns = k->end + (uint64_t)tl->offset_ns;
    s.stream = k->streamId;
    s.correlation = k->correlationId;
    ks_tl_short_name(full, s.name, sizeof s.name);
    std::lock_guard<std::mutex> lock(tl->span_push);
    ks_tl_ring_push(&tl->spans, &s);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    std::lock_guard<std::mutex> lock(current_mutex);
    ks_timeline *tl = current;
    if (tl != nullptr && buffer != nullptr && valid > 0) {
        CUpti_Activity *rec = nullptr;
        while (tl->api->cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
            if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL)
                take_kernel(tl, reinterpret_cast<const CUpti_ActivityKernel10 *>(rec));
        }
        size_t dropped = 0;
        if (tl->api->cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
            tl->records_dropped += dropped;
    }
    free(buffer);
}

/* ---- PM samples ---- */

/* Decodes what the PM sampler's buffer holds into the sample ring, moved onto
 * the GPU's clock; or, with hold, as they are into hold (while the clock is
 * measured). pm_mutex held. */
static ks_status decode_locked(ks_timeline *tl, std::vector<ks_tl_sample> *hold)
{
    const ks_cupti *api = tl->api;
    const uint64_t shift = (uint64_t)tl->sample_shift_ns.load(); /* modular: a shift may be negative */
    for (int round = 0; round < 64; ++round) {
        KS_CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params, dec);
        dec.pPmSamplingObject = tl->pm;
        dec.pCounterDataImage = tl->counter_data.data();
        dec.counterDataImageSize = tl->counter_data.size();
        const CUptiResult r = KS_CUPTI_CALL(api, nullptr, cuptiPmSamplingDecodeData, &dec);
        tl->decode_passes++;
        if (dec.overflow || r == CUPTI_ERROR_OUT_OF_MEMORY) tl->overflows++;
        if (r != CUPTI_SUCCESS) return ks_cupti_fail(api, r, "cuptiPmSamplingDecodeData", __FILE__, __LINE__);
        KS_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params, info);
        info.pCounterDataImage = tl->counter_data.data();
        info.counterDataImageSize = tl->counter_data.size();
        KS_CUPTI_TRY(api, nullptr, cuptiPmSamplingGetCounterDataInfo, &info);
        double values[KS_TL_METRICS];
        for (size_t i = 0; i < info.numCompletedSamples; ++i) {
            /* per sample: called directly, neither traced nor faked (tens of thousands a second) */
            KS_CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params, si);
            si.pPmSamplingObject = tl->pm;
            si.pCounterDataImage = tl->counter_data.data();
            si.counterDataImageSize = tl->counter_data.size();
            si.sampleIndex = i;
            CUptiResult sr = api->cuptiPmSamplingCounterDataGetSampleInfo(&si);
            if (sr != CUPTI_SUCCESS)
                return ks_cupti_fail(api, sr, "cuptiPmSamplingCounterDataGetSampleInfo", __FILE__, __LINE__);
            KS_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
            ev.pHostObject = tl->host;
            ev.pCounterDataImage = tl->counter_data.data();
            ev.counterDataImageSize = tl->counter_data.size();
            ev.rangeIndex = i;
            ev.ppMetricNames = tl->names;
            ev.numMetrics = (size_t)tl->nnames;
            ev.pMetricValues = values;
            sr = api->cuptiProfilerHostEvaluateToGpuValues(&ev);
            if (sr != CUPTI_SUCCESS)
                return ks_cupti_fail(api, sr, "cuptiProfilerHostEvaluateToGpuValues", __FILE__, __LINE__);
            double v[KS_TL_METRICS];
            for (int m = 0; m < KS_TL_METRICS; ++m) v[m] = tl->index_of[m] >= 0 ? values[tl->index_of[m]] : NAN;
            ks_tl_sample s = ks_tl_decode_sample(si.startTimestamp, si.endTimestamp, v[KS_TL_DRAM],
                                                 v[KS_TL_DRAM_READ], v[KS_TL_DRAM_WRITE], v[KS_TL_SM]);
            if (hold != nullptr) {
                hold->push_back(s);
                continue;
            }
            s.t0_ns += shift;
            s.t1_ns += shift;
            ks_tl_ring_push(&tl->samples, &s);
        }
        /* an empty image again for the next decode */
        memcpy(tl->counter_data.data(), tl->counter_data_blank.data(), tl->counter_data.size());
        if (dec.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) break;
    }
    return KS_OK;
}

static void worker_main(ks_timeline *tl)
{
    std::unique_lock<std::mutex> lock(tl->m);
    while (!tl->quit) {
        tl->cv.wait_for(lock, std::chrono::milliseconds(tl->decode_ms),
                        [tl] { return tl->quit || tl->flush_asked != tl->flush_done; });
        const uint64_t asked = tl->flush_asked;
        lock.unlock();
        {
            std::lock_guard<std::mutex> pm_lock(tl->pm_mutex);
            if (tl->sampling && decode_locked(tl, nullptr) != KS_OK) {
                tl->decode_errors++;
                set_worker_error(tl, ks_error_message());
            }
        }
        /* completed buffers; a flush then asks for everything (the device was synchronised) */
        CUptiResult r = tl->api->cuptiActivityFlushAll(0);
        if (r == CUPTI_SUCCESS && asked != tl->flush_done)
            r = tl->api->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        if (r != CUPTI_SUCCESS) {
            tl->decode_errors++;
            char text[128];
            snprintf(text, sizeof text, "cuptiActivityFlushAll: %s", ks_cupti_result_name(tl->api, r));
            set_worker_error(tl, text);
        }
        lock.lock();
        tl->flush_done = asked;
        tl->cv.notify_all();
    }
}

/* ---- Create ---- */

/* The first candidate of m CUPTI knows for the chip ("" none). */
static void pick_metric(ks_timeline *tl, CUpti_Profiler_Host_Object *probe, ks_tl_metric m)
{
    tl->metric[m][0] = '\0';
    const char *cand[KS_CTR_CANDIDATES];
    const int n = ks_tl_candidates(tl->gen, m, cand, KS_CTR_CANDIDATES);
    for (int k = 0; k < n; ++k) {
        const int has = ks_cupti_has_metric(tl->api, &tl->tr, probe, CUPTI_PROFILER_TYPE_PM_SAMPLING, tl->chip,
                                            tl->availability.data(), cand[k]);
        ks_cupti_tracef(&tl->tr, "timeline metric %d candidate %s: %s", (int)m, cand[k],
                        has ? "on this chip" : "not on this chip");
        if (has) {
            snprintf(tl->metric[m], KS_COUNTER_METRIC, "%s", cand[k]);
            return;
        }
    }
}

static ks_status build_config(ks_timeline *tl)
{
    const ks_cupti *api = tl->api;
    KS_CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params, av);
    av.deviceIndex = (size_t)tl->ordinal;
    KS_CUPTI_TRY(api, &tl->tr, cuptiPmSamplingGetCounterAvailability, &av);
    tl->availability.assign(av.counterAvailabilityImageSize, 0);
    av.pCounterAvailabilityImage = tl->availability.data();
    KS_CUPTI_TRY(api, &tl->tr, cuptiPmSamplingGetCounterAvailability, &av);

    KS_TRY(ks_cupti_host_create(api, &tl->tr, CUPTI_PROFILER_TYPE_PM_SAMPLING, tl->chip, tl->availability.data(),
                                &tl->host));
    pick_metric(tl, tl->host, KS_TL_DRAM);
    if (!tl->metric[KS_TL_DRAM][0]) {
        pick_metric(tl, tl->host, KS_TL_DRAM_READ);
        pick_metric(tl, tl->host, KS_TL_DRAM_WRITE);
        if (!tl->metric[KS_TL_DRAM_READ][0] || !tl->metric[KS_TL_DRAM_WRITE][0])
            tl->metric[KS_TL_DRAM_READ][0] = tl->metric[KS_TL_DRAM_WRITE][0] = '\0';
    } else {
        tl->metric[KS_TL_DRAM_READ][0] = tl->metric[KS_TL_DRAM_WRITE][0] = '\0';
    }
    pick_metric(tl, tl->host, KS_TL_SM);
    ks_cupti_host_destroy(api, &tl->tr, tl->host); /* the probe; the config gets a fresh one */
    tl->host = nullptr;
    /* the PM sampler takes one pass: where DRAM and SM together need more, SM goes */
    for (int attempt = 0; attempt < 2; ++attempt) {
        tl->nnames = 0;
        for (int m = 0; m < KS_TL_METRICS; ++m) {
            tl->index_of[m] = -1;
            if (!tl->metric[m][0]) continue;
            tl->index_of[m] = tl->nnames;
            tl->names[tl->nnames++] = tl->metric[m];
        }
        if (tl->nnames == 0)
            return ks_counters_fail(KS_CTRS_METRIC_ABSENT, "no DRAM or SM metric for the PM sampler");
        ks_cupti_host_destroy(api, &tl->tr, tl->host);
        tl->host = nullptr;
        KS_TRY(ks_cupti_host_create(api, &tl->tr, CUPTI_PROFILER_TYPE_PM_SAMPLING, tl->chip, tl->availability.data(),
                                    &tl->host));
        KS_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
        add.pHostObject = tl->host;
        add.ppMetricNames = tl->names;
        add.numMetrics = (size_t)tl->nnames;
        KS_CUPTI_TRY(api, &tl->tr, cuptiProfilerHostConfigAddMetrics, &add);
        KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
        sz.pHostObject = tl->host;
        KS_CUPTI_TRY(api, &tl->tr, cuptiProfilerHostGetConfigImageSize, &sz);
        tl->config.assign(sz.configImageSize, 0);
        KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, img);
        img.pHostObject = tl->host;
        img.configImageSize = tl->config.size();
        img.pConfigImage = tl->config.data();
        KS_CUPTI_TRY(api, &tl->tr, cuptiProfilerHostGetConfigImage, &img);
        KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, passes);
        passes.configImageSize = tl->config.size();
        passes.pConfigImage = tl->config.data();
        KS_CUPTI_TRY(api, &tl->tr, cuptiProfilerHostGetNumOfPasses, &passes);
        ks_cupti_tracef(&tl->tr, "timeline config: %d metrics, %zu passes (the PM sampler needs 1)", tl->nnames,
                        passes.numOfPasses);
        if (passes.numOfPasses == 1) return KS_OK;
        if (!tl->metric[KS_TL_SM][0] || tl->nnames == 1) break;
        ks_cupti_tracef(&tl->tr, "timeline: leaving SM activity (%s) out to fit one pass", tl->metric[KS_TL_SM]);
        tl->metric[KS_TL_SM][0] = '\0';
    }
    return ks_counters_fail(KS_CTRS_METRIC_ABSENT, "the sampled metrics do not fit the PM sampler's one pass");
}

static ks_status enable_sampler(ks_timeline *tl)
{
    const ks_cupti *api = tl->api;
    KS_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params, en);
    en.deviceIndex = (size_t)tl->ordinal;
    KS_CUPTI_TRY(api, &tl->tr, cuptiPmSamplingEnable, &en);
    tl->pm = en.pPmSamplingObject;

    /* room for several decode periods of samples */
    const double per_decode = (double)tl->decode_ms * 1000.0 / tl->interval_us;
    const uint32_t max_samples = (uint32_t)(per_decode * 4.0 + 1024.0);
    KS_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params, sz);
    sz.pPmSamplingObject = tl->pm;
    sz.pMetricNames = tl->names;
    sz.numMetrics = (size_t)tl->nnames;
    sz.maxSamples = max_samples;
    KS_CUPTI_TRY(api, &tl->tr, cuptiPmSamplingGetCounterDataSize, &sz);
    tl->counter_data.assign(sz.counterDataSize, 0);
    KS_CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params, init);
    init.pPmSamplingObject = tl->pm;
    init.counterDataSize = tl->counter_data.size();
    init.pCounterData = tl->counter_data.data();
    KS_CUPTI_TRY(api, &tl->tr, cuptiPmSamplingCounterDataImageInitialize, &init);
    tl->counter_data_blank = tl->counter_data;

    tl->time_trigger = ks_counters_pm_time_trigger(tl->gen);
    KS_CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params, cfg);
    cfg.pPmSamplingObject = tl->pm;
    cfg.configSize = tl->config.size();
    cfg.pConfig = tl->config.data();
    cfg.hardwareBufferSize = HW_BUFFER_BYTES;
    /* a time trigger counts ns; Turing and GA100 count system clocks (about 1 GHz there, so ns again roughly) */
    cfg.samplingInterval = (uint64_t)llround(tl->interval_us * 1000.0);
    cfg.triggerMode = tl->time_trigger ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL
                                       : CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
    cfg.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    KS_CUPTI_TRY(api, &tl->tr, cuptiPmSamplingSetConfig, &cfg);
    ks_cupti_tracef(&tl->tr, "timeline sampler: every %.1f us (%s trigger), %u samples a decode, image %zu bytes",
                    tl->interval_us, tl->time_trigger ? "time" : "system-clock", max_samples,
                    tl->counter_data.size());
    return KS_OK;
}

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
static ks_status calibrate(ks_timeline *tl)
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
static ks_status align_clocks_locked(ks_timeline *tl)
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
        KS_TRY(decode_locked(tl, &raw));
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

static ks_status create_steps(ks_timeline *tl, const ks_timeline_desc *d)
{
    KS_TRY(ks_cupti_context(d->device, &tl->ctx, &tl->dev, &tl->ordinal));
    tl->api = ks_cupti_load();
    if (tl->api == nullptr) return KS_ERR_UNSUPPORTED;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, tl->ordinal) != cudaSuccess) {
        cudaGetLastError();
        return ks_counters_fail(KS_CTRS_NO_DEVICE, "cudaGetDeviceProperties failed");
    }
    tl->gen = ks_counters_generation(10 * prop.major + prop.minor);
    tl->sms = prop.multiProcessorCount;
    ks_cupti_tracef(&tl->tr, "timeline: device %d %s, %s; libcupti %s", tl->ordinal, prop.name,
                    ks_counters_gen_name(tl->gen), tl->api->path);
    if (tl->gen == KS_GEN_UNSUPPORTED) {
        char detail[96];
        snprintf(detail, sizeof detail, "compute capability %d.%d: CUPTI samples Turing (7.5) and later", prop.major,
                 prop.minor);
        return ks_counters_fail(KS_CTRS_DEVICE_UNSUPPORTED, detail);
    }
    KS_TRY(ks_cupti_subscribe(tl->api, &tl->tr));
    tl->subscribed = 1;
    KS_TRY(ks_cupti_profiler_init(tl->api, &tl->tr));

    KS_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, sup);
    sup.cuDevice = tl->dev;
    sup.api = CUPTI_PROFILER_PM_SAMPLING;
    KS_CUPTI_TRY(tl->api, &tl->tr, cuptiProfilerDeviceSupported, &sup);
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        char detail[160];
        snprintf(detail, sizeof detail,
                 "PM sampling: architecture %d, vGPU %d, confidential %d, cmp %d, wsl %d, sli %d (3 = supported)",
                 (int)sup.architecture, (int)sup.vGpu, (int)sup.confidentialCompute, (int)sup.cmp, (int)sup.wsl,
                 (int)sup.sli);
        return ks_counters_fail(KS_CTRS_DEVICE_UNSUPPORTED, detail);
    }
    KS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, chip);
    chip.deviceIndex = (size_t)tl->ordinal;
    KS_CUPTI_TRY(tl->api, &tl->tr, cuptiDeviceGetChipName, &chip);
    snprintf(tl->chip, sizeof tl->chip, "%s", chip.pChipName ? chip.pChipName : "");

    KS_TRY(build_config(tl));
    KS_TRY(enable_sampler(tl));

    /* kernel records: the buffer callbacks are the process's (registered once) */
    {
        std::lock_guard<std::mutex> lock(current_mutex);
        if (!activity_callbacks_registered) {
            const CUptiResult r = KS_CUPTI_CALL(tl->api, &tl->tr, cuptiActivityRegisterCallbacks, buffer_requested,
                                                buffer_completed);
            if (r != CUPTI_SUCCESS)
                return ks_cupti_fail(tl->api, r, "cuptiActivityRegisterCallbacks", __FILE__, __LINE__);
            activity_callbacks_registered = 1;
        }
        current = tl;
    }
    KS_CUPTI_TRY(tl->api, &tl->tr, cuptiActivityEnable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    tl->activity_on = 1;
    KS_TRY(calibrate(tl));

    tl->worker = std::thread(worker_main, tl);
    return KS_OK;
}

ks_status ks_timeline_create(const ks_timeline_desc *desc, ks_timeline **out)
{
    if (out == nullptr) return ks_fail(KS_ERR_INVALID, "timeline: no place for the handle");
    *out = nullptr;
    ks_timeline_desc d;
    memset(&d, 0, sizeof d);
    if (desc != nullptr) d = *desc;
    if (d.interval_us == 0) d.interval_us = 50;
    if (!(d.interval_us >= 20 && d.interval_us <= 100))
        return ks_fail(KS_ERR_INVALID, "timeline: a sampling interval of %g us is outside 20..100", d.interval_us);
    if (d.ring_samples < 0 || d.ring_spans < 0 || d.decode_ms < 0 || d.decode_ms > 1000)
        return ks_fail(KS_ERR_INVALID, "timeline: negative ring sizes or a decode period outside 0..1000 ms");
    if (d.cpu_backend) return ks_counters_fail(KS_CTRS_CPU_BACKEND, nullptr);
    {
        std::lock_guard<std::mutex> lock(current_mutex);
        if (current != nullptr) return ks_fail(KS_ERR_INVALID, "timeline: one timeline per process");
    }
    ks_timeline *tl = new (std::nothrow) ks_timeline();
    if (tl == nullptr) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timeline: no memory");
    tl->tr.fn = d.trace;
    tl->tr.user = d.trace_user;
    tl->interval_us = d.interval_us;
    tl->decode_ms = d.decode_ms ? d.decode_ms : 10;
    tl->domain.store(KS_TL_DOMAIN_CPU);
    tl->clock_contrast.store(NAN);
    ks_status st = ks_tl_ring_init(&tl->samples, sizeof(ks_tl_sample), (uint64_t)(d.ring_samples ? d.ring_samples : 65536));
    if (st == KS_OK) st = ks_tl_ring_init(&tl->spans, sizeof(ks_tl_span), (uint64_t)(d.ring_spans ? d.ring_spans : 8192));
    if (st == KS_OK) st = create_steps(tl, &d);
    if (st != KS_OK) {
        ks_timeline_destroy(tl);
        return st;
    }
    ks_counters_set_last_why(KS_CTRS_OK);
    *out = tl;
    return KS_OK;
}

void ks_timeline_destroy(ks_timeline *tl)
{
    if (tl == nullptr) return;
    if (tl->worker.joinable()) {
        {
            std::lock_guard<std::mutex> lock(tl->m);
            tl->quit = true;
        }
        tl->cv.notify_all();
        tl->worker.join();
    }
    if (tl->sampling) ks_timeline_stop(tl);
    if (tl->activity_on) {
        (void)KS_CUPTI_CALL(tl->api, &tl->tr, cuptiActivityDisable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        (void)KS_CUPTI_CALL(tl->api, &tl->tr, cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    {
        std::lock_guard<std::mutex> lock(current_mutex);
        if (current == tl) current = nullptr;
    }
    if (tl->pm != nullptr) {
        KS_CUPTI_PARAMS(CUpti_PmSampling_Disable_Params, dis);
        dis.pPmSamplingObject = tl->pm;
        (void)KS_CUPTI_CALL(tl->api, &tl->tr, cuptiPmSamplingDisable, &dis);
    }
    ks_cupti_host_destroy(tl->api, &tl->tr, tl->host);
    if (tl->subscribed) ks_cupti_unsubscribe(tl->api, &tl->tr);
    ks_tl_ring_free(&tl->samples);
    ks_tl_ring_free(&tl->spans);
    delete tl;
}

ks_status ks_timeline_start(ks_timeline *tl)
{
    if (tl == nullptr) return ks_fail(KS_ERR_INVALID, "timeline: start without a timeline");
    std::lock_guard<std::mutex> lock(tl->pm_mutex);
    if (tl->sampling) return KS_OK;
    KS_CUPTI_PARAMS(CUpti_PmSampling_Start_Params, p);
    p.pPmSamplingObject = tl->pm;
    KS_CUPTI_TRY(tl->api, &tl->tr, cuptiPmSamplingStart, &p);
    tl->sampling = 1;
    const ks_status st = align_clocks_locked(tl);
    if (st != KS_OK) {
        KS_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params, q);
        q.pPmSamplingObject = tl->pm;
        (void)KS_CUPTI_CALL(tl->api, &tl->tr, cuptiPmSamplingStop, &q);
        tl->sampling = 0;
    }
    return st;
}

ks_status ks_timeline_stop(ks_timeline *tl)
{
    if (tl == nullptr) return ks_fail(KS_ERR_INVALID, "timeline: stop without a timeline");
    std::lock_guard<std::mutex> lock(tl->pm_mutex);
    if (!tl->sampling) return KS_OK;
    KS_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params, p);
    p.pPmSamplingObject = tl->pm;
    KS_CUPTI_TRY(tl->api, &tl->tr, cuptiPmSamplingStop, &p);
    /* what the buffer still holds, decoded before sampling counts as off */
    const ks_status st = decode_locked(tl, nullptr);
    tl->sampling = 0;
    return st;
}

ks_status ks_timeline_flush(ks_timeline *tl)
{
    if (tl == nullptr) return ks_fail(KS_ERR_INVALID, "timeline: flush without a timeline");
    KS_CUDA_TRY(cudaDeviceSynchronize());
    std::unique_lock<std::mutex> lock(tl->m);
    const uint64_t ticket = ++tl->flush_asked;
    tl->cv.notify_all();
    tl->cv.wait(lock, [tl, ticket] { return tl->flush_done >= ticket || tl->quit; });
    return KS_OK;
}

ks_status ks_timeline_read(ks_timeline *tl, ks_tl_sample *samples, int max_samples, int *nsamples,
                           ks_tl_span *spans, int max_spans, int *nspans)
{
    if (nsamples != nullptr) *nsamples = 0;
    if (nspans != nullptr) *nspans = 0;
    if (tl == nullptr) return ks_fail(KS_ERR_INVALID, "timeline: read without a timeline");
    if (samples != nullptr && nsamples != nullptr)
        *nsamples = ks_tl_ring_read(&tl->samples, samples, max_samples, nullptr);
    if (spans != nullptr && nspans != nullptr) *nspans = ks_tl_ring_read(&tl->spans, spans, max_spans, nullptr);
    return KS_OK;
}

void ks_timeline_get_info(ks_timeline *tl, ks_timeline_info *out)
{
    memset(out, 0, sizeof *out);
    if (tl == nullptr) return;
    if (tl->metric[KS_TL_DRAM][0]) {
        snprintf(out->dram_metric[0], KS_COUNTER_METRIC, "%s", tl->metric[KS_TL_DRAM]);
    } else {
        snprintf(out->dram_metric[0], KS_COUNTER_METRIC, "%s", tl->metric[KS_TL_DRAM_READ]);
        snprintf(out->dram_metric[1], KS_COUNTER_METRIC, "%s", tl->metric[KS_TL_DRAM_WRITE]);
    }
    snprintf(out->sm_metric, KS_COUNTER_METRIC, "%s", tl->metric[KS_TL_SM]);
    out->interval_us = tl->interval_us;
    out->time_trigger = tl->time_trigger;
    out->gpu_minus_cpu_ns = tl->offset_ns;
    out->domain_known = tl->domain_known.load();
    out->domain = (ks_tl_domain)tl->domain.load();
    out->samples_minus_cpu_ns = tl->samples_minus_cpu_ns.load();
    out->clock_fit_ns = tl->clock_fit_ns.load();
    out->clock_contrast = tl->clock_contrast.load();
    out->samples = ks_tl_ring_pushed(&tl->samples);
    out->spans = ks_tl_ring_pushed(&tl->spans);
    out->decode_passes = tl->decode_passes.load();
    out->overflows = tl->overflows.load();
    out->decode_errors = tl->decode_errors.load();
    out->records_dropped = tl->records_dropped.load();
    std::lock_guard<std::mutex> lock(tl->error_mutex);
    snprintf(out->last_error, sizeof out->last_error, "%s", tl->last_error);
}
