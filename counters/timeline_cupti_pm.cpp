/* The CUPTI timeline's PM sampler (cupti_pmsampling.h): which DRAM and SM
 * metrics the chip has and fit the sampler's one pass, the sampler enabled
 * with them, and its buffer decoded into samples. */
#include <cmath>
#include <cstdio>
#include <cstring>

#include "timeline_cupti.h"

/* Decodes what the PM sampler's buffer holds into the sample ring, moved onto
 * the GPU's clock; or, with hold, as they are into hold (while the clock is
 * measured). pm_mutex held. */
ks_status ks_tl_pm_decode_locked(ks_timeline *tl, std::vector<ks_tl_sample> *hold)
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

ks_status ks_tl_pm_build_config(ks_timeline *tl)
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

ks_status ks_tl_pm_enable(ks_timeline *tl)
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
