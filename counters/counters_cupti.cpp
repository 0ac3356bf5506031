/* ks_counters with CUPTI's range profiler (cupti_range_profiler.h and
 * cupti_profiler_host.h, CUDA 12.6 and later): auto range (one range per
 * kernel launch) and kernel replay (CUPTI replays each kernel once per pass
 * and restores its memory in between). The metric list is resolved against
 * the chip and its config image built once, at create; each measure enables
 * the range profiler on the context, runs the caller's launches, decodes and
 * evaluates, and disables it again, so the live loop's other launches run
 * unprofiled. */
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "counters.h"
#include "cupti_api.h"
#include "base/cuda_check.h"

struct ks_counters {
    const ks_cupti *api;
    ks_cupti_tracer tr;
    int subscribed;
    int ordinal;
    CUcontext ctx;
    CUdevice dev;
    int max_kernels;
    char device[64];
    char chip[24];
    int cc;
    ks_counter_gen gen;
    std::vector<uint8_t> availability;
    CUpti_Profiler_Host_Object *host;
    /* resolved metric names: index_of[id] into names (-1: absent on this chip) */
    char metric[KS_CTR_NUM][KS_COUNTER_METRIC];
    const char *names[KS_CTR_NUM];
    int index_of[KS_CTR_NUM];
    int nnames;
    std::vector<uint8_t> config;
    int passes;
    std::vector<uint8_t> counter_data;
    /* kernels launched during a measure, in order (the launch callback fills it) */
    std::mutex launched_mutex;
    std::vector<std::string> launched;
};

int ks_counters_built(void) { return 1; }

ks_status ks_counters_library(char *path, size_t cap)
{
    const ks_cupti *api = ks_cupti_load();
    if (api == nullptr) return KS_ERR_UNSUPPORTED; /* the line is recorded */
    if (path != nullptr && cap > 0) snprintf(path, cap, "%s", api->path);
    ks_counters_set_last_why(KS_CTRS_OK);
    return KS_OK;
}

/* Why the device cannot be profiled, from cuptiProfilerDeviceSupported's answer. */
static ks_status unsupported_device(const CUpti_Profiler_DeviceSupported_Params &p, int cc)
{
    char detail[200];
    if (p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        snprintf(detail, sizeof detail, "compute capability %d.%d: CUPTI profiles Turing (7.5) and later", cc / 10,
                 cc % 10);
    else if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        snprintf(detail, sizeof detail, "a vGPU whose hypervisor has profiling turned off");
    else if (p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        snprintf(detail, sizeof detail, "a vGPU without profiling support");
    else if (p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        snprintf(detail, sizeof detail, "confidential computing is on");
    else if (p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        snprintf(detail, sizeof detail, "a crypto-mining processor (CMP)");
    else if (p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        snprintf(detail, sizeof detail, "WSL without profiling support");
    else if (p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        snprintf(detail, sizeof detail, "SLI is on");
    else
        snprintf(detail, sizeof detail, "CUPTI says the device is not supported");
    return ks_counters_fail(KS_CTRS_DEVICE_UNSUPPORTED, detail);
}

/* ConfigAddMetrics of names on a fresh host object (a failed add may leave a host object unusable). */
static CUptiResult try_add(ks_counters *c, const char **names, int n, CUpti_Profiler_Host_Object **host)
{
    *host = nullptr;
    if (ks_cupti_host_create(c->api, &c->tr, CUPTI_PROFILER_TYPE_RANGE_PROFILER, c->chip, c->availability.data(),
                             host) != KS_OK)
        return CUPTI_ERROR_UNKNOWN;
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, p);
    p.pHostObject = *host;
    p.ppMetricNames = names;
    p.numMetrics = (size_t)n;
    return KS_CUPTI_CALL(c->api, &c->tr, cuptiProfilerHostConfigAddMetrics, &p);
}

/* Each logical metric's first candidate the chip has (asked of CUPTI, never
 * assumed), then one config with all of them: a metric CUPTI will not
 * schedule is dropped and shown absent. */
static ks_status resolve_metrics(ks_counters *c)
{
    CUpti_Profiler_Host_Object *probe = nullptr;
    KS_TRY(ks_cupti_host_create(c->api, &c->tr, CUPTI_PROFILER_TYPE_RANGE_PROFILER, c->chip,
                                c->availability.data(), &probe));
    c->nnames = 0;
    for (int id = 0; id < KS_CTR_NUM; ++id) {
        c->index_of[id] = -1;
        c->metric[id][0] = '\0';
        const char *cand[KS_CTR_CANDIDATES];
        const int n = ks_counters_candidates(c->gen, (ks_counter_id)id, cand, KS_CTR_CANDIDATES);
        for (int k = 0; k < n; ++k) {
            const int has = ks_cupti_has_metric(c->api, &c->tr, probe, CUPTI_PROFILER_TYPE_RANGE_PROFILER, c->chip,
                                                c->availability.data(), cand[k]);
            ks_cupti_tracef(&c->tr, "metric %-26s candidate %s: %s", ks_counters_info((ks_counter_id)id)->key,
                            cand[k], has ? "on this chip" : "not on this chip");
            if (has) {
                snprintf(c->metric[id], KS_COUNTER_METRIC, "%s", cand[k]);
                break;
            }
        }
        if (c->metric[id][0]) {
            c->index_of[id] = c->nnames;
            c->names[c->nnames++] = c->metric[id];
        }
    }
    ks_cupti_host_destroy(c->api, &c->tr, probe);
    if (c->nnames == 0) return ks_counters_fail(KS_CTRS_METRIC_ABSENT, c->chip);

    CUpti_Profiler_Host_Object *host = nullptr;
    CUptiResult r = try_add(c, c->names, c->nnames, &host);
    if (r != CUPTI_SUCCESS) {
        /* find the ones CUPTI refuses, one by one */
        ks_cupti_host_destroy(c->api, &c->tr, host);
        ks_cupti_tracef(&c->tr, "metrics: the %d together were refused; trying each alone", c->nnames);
        const char *kept[KS_CTR_NUM];
        int nkept = 0;
        for (int id = 0; id < KS_CTR_NUM; ++id) {
            if (c->index_of[id] < 0) continue;
            const char *one = c->metric[id];
            CUpti_Profiler_Host_Object *h1 = nullptr;
            const CUptiResult r1 = try_add(c, &one, 1, &h1);
            ks_cupti_host_destroy(c->api, &c->tr, h1);
            ks_cupti_tracef(&c->tr, "metric %s alone: %s", one, ks_cupti_result_name(c->api, r1));
            if (r1 == CUPTI_SUCCESS) {
                c->index_of[id] = nkept;
                kept[nkept++] = c->metric[id];
            } else {
                c->index_of[id] = -1;
                c->metric[id][0] = '\0';
            }
        }
        for (int i = 0; i < nkept; ++i) c->names[i] = kept[i];
        c->nnames = nkept;
        if (nkept == 0) return ks_cupti_fail(c->api, r, "cuptiProfilerHostConfigAddMetrics", __FILE__, __LINE__);
        r = try_add(c, c->names, c->nnames, &host);
        if (r != CUPTI_SUCCESS) {
            ks_cupti_host_destroy(c->api, &c->tr, host);
            return ks_cupti_fail(c->api, r, "cuptiProfilerHostConfigAddMetrics", __FILE__, __LINE__);
        }
    }
    c->host = host;

    KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
    sz.pHostObject = c->host;
    KS_CUPTI_TRY(c->api, &c->tr, cuptiProfilerHostGetConfigImageSize, &sz);
    c->config.assign(sz.configImageSize, 0);
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, img);
    img.pHostObject = c->host;
    img.configImageSize = c->config.size();
    img.pConfigImage = c->config.data();
    KS_CUPTI_TRY(c->api, &c->tr, cuptiProfilerHostGetConfigImage, &img);
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, passes);
    passes.configImageSize = c->config.size();
    passes.pConfigImage = c->config.data();
    KS_CUPTI_TRY(c->api, &c->tr, cuptiProfilerHostGetNumOfPasses, &passes);
    c->passes = (int)passes.numOfPasses;
    ks_cupti_tracef(&c->tr, "config image: %zu bytes, %d metrics, %d passes", c->config.size(), c->nnames,
                    c->passes);
    return KS_OK;
}

static ks_status create_steps(ks_counters *c, const ks_counters_desc *d)
{
    KS_TRY(ks_cupti_context(d->device, &c->ctx, &c->dev, &c->ordinal));
    c->api = ks_cupti_load();
    if (c->api == nullptr) return KS_ERR_UNSUPPORTED;
    ks_cupti_tracef(&c->tr, "libcupti: %s (CUPTI API version %d)", c->api->path, c->api->version);

    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, c->ordinal) != cudaSuccess) {
        cudaGetLastError();
        return ks_counters_fail(KS_CTRS_NO_DEVICE, "cudaGetDeviceProperties failed");
    }
    snprintf(c->device, sizeof c->device, "%.*s", (int)sizeof c->device - 1, prop.name);
    c->cc = 10 * prop.major + prop.minor;
    c->gen = ks_counters_generation(c->cc);
    ks_cupti_tracef(&c->tr, "device %d: %s, compute capability %d.%d, metric table %s", c->ordinal, c->device,
                    prop.major, prop.minor, ks_counters_gen_name(c->gen));
    if (c->gen == KS_GEN_UNSUPPORTED) {
        char detail[96];
        snprintf(detail, sizeof detail, "compute capability %d.%d: CUPTI profiles Turing (7.5) and later",
                 prop.major, prop.minor);
        return ks_counters_fail(KS_CTRS_DEVICE_UNSUPPORTED, detail);
    }

    KS_TRY(ks_cupti_subscribe(c->api, &c->tr));
    c->subscribed = 1;
    KS_TRY(ks_cupti_profiler_init(c->api, &c->tr));

    KS_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, sup);
    sup.cuDevice = c->dev;
    sup.api = CUPTI_PROFILER_RANGE_PROFILING;
    KS_CUPTI_TRY(c->api, &c->tr, cuptiProfilerDeviceSupported, &sup);
    ks_cupti_tracef(&c->tr,
                    "device supported: overall %d, architecture %d, sli %d, vGPU %d, confidential %d, cmp %d, "
                    "wsl %d (3 = supported)",
                    (int)sup.isSupported, (int)sup.architecture, (int)sup.sli, (int)sup.vGpu,
                    (int)sup.confidentialCompute, (int)sup.cmp, (int)sup.wsl);
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return unsupported_device(sup, c->cc);

    KS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, chip);
    chip.deviceIndex = (size_t)c->ordinal;
    KS_CUPTI_TRY(c->api, &c->tr, cuptiDeviceGetChipName, &chip);
    snprintf(c->chip, sizeof c->chip, "%s", chip.pChipName ? chip.pChipName : "");
    ks_cupti_tracef(&c->tr, "chip: %s", c->chip);

    KS_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, av);
    av.ctx = c->ctx;
    KS_CUPTI_TRY(c->api, &c->tr, cuptiProfilerGetCounterAvailability, &av);
    c->availability.assign(av.counterAvailabilityImageSize, 0);
    av.pCounterAvailabilityImage = c->availability.data();
    KS_CUPTI_TRY(c->api, &c->tr, cuptiProfilerGetCounterAvailability, &av);

    return resolve_metrics(c);
}

ks_status ks_counters_create(const ks_counters_desc *desc, ks_counters **out)
{
    if (out == nullptr) return ks_fail(KS_ERR_INVALID, "hardware counters: no place for the handle");
    *out = nullptr;
    ks_counters_desc d;
    memset(&d, 0, sizeof d);
    if (desc != nullptr) d = *desc;
    if (d.max_kernels < 0 || d.max_kernels > KS_COUNTERS_MAX_KERNELS)
        return ks_fail(KS_ERR_INVALID, "hardware counters: max_kernels %d is outside 0..%d", d.max_kernels,
                       KS_COUNTERS_MAX_KERNELS);
    if (d.cpu_backend) return ks_counters_fail(KS_CTRS_CPU_BACKEND, nullptr);
    ks_counters *c = new (std::nothrow) ks_counters();
    if (c == nullptr) return ks_fail(KS_ERR_OUT_OF_MEMORY, "hardware counters: no memory");
    c->tr.fn = d.trace;
    c->tr.user = d.trace_user;
    c->max_kernels = d.max_kernels ? d.max_kernels : 8;
    const ks_status st = create_steps(c, &d);
    if (st != KS_OK) {
        ks_counters_destroy(c);
        return st;
    }
    ks_counters_set_last_why(KS_CTRS_OK);
    *out = c;
    return KS_OK;
}

void ks_counters_destroy(ks_counters *c)
{
    if (c == nullptr) return;
    ks_cupti_host_destroy(c->api, &c->tr, c->host);
    if (c->subscribed) ks_cupti_unsubscribe(c->api, &c->tr);
    delete c;
}

void ks_counters_describe(const ks_counters *c, ks_counter_set *out)
{
    memset(out, 0, sizeof *out);
    if (c == nullptr) return;
    snprintf(out->device, sizeof out->device, "%s", c->device);
    snprintf(out->chip, sizeof out->chip, "%s", c->chip);
    out->cc = c->cc;
    out->gen = c->gen;
    out->passes = c->passes;
    for (int id = 0; id < KS_CTR_NUM; ++id) snprintf(out->metric[id], KS_COUNTER_METRIC, "%s", c->metric[id]);
}

static void on_launch(void *user, const char *symbol)
{
    ks_counters *c = static_cast<ks_counters *>(user);
    std::lock_guard<std::mutex> lock(c->launched_mutex);
    if (c->launched.size() < 4096) c->launched.emplace_back(symbol);
}

/* Everything a measure does while the range profiler is enabled on the context. */
static ks_status measure_enabled(ks_counters *c, CUpti_RangeProfiler_Object *obj,
                                 ks_status (*launch)(void *, void *), void *user, void *stream, ks_counter_set *out)
{
    const ks_cupti *api = c->api;
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, sz);
    sz.pRangeProfilerObject = obj;
    sz.pMetricNames = c->names;
    sz.numMetrics = (size_t)c->nnames;
    sz.maxNumOfRanges = (size_t)c->max_kernels;
    sz.maxNumRangeTreeNodes = (uint32_t)c->max_kernels;
    KS_CUPTI_TRY(api, &c->tr, cuptiRangeProfilerGetCounterDataSize, &sz);
    c->counter_data.assign(sz.counterDataSize, 0);
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
    init.pRangeProfilerObject = obj;
    init.counterDataSize = c->counter_data.size();
    init.pCounterData = c->counter_data.data();
    KS_CUPTI_TRY(api, &c->tr, cuptiRangeProfilerCounterDataImageInitialize, &init);

    KS_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, cfg);
    cfg.pRangeProfilerObject = obj;
    cfg.configSize = c->config.size();
    cfg.pConfig = c->config.data();
    cfg.counterDataImageSize = c->counter_data.size();
    cfg.pCounterDataImage = c->counter_data.data();
    cfg.range = CUPTI_AutoRange;
    cfg.replayMode = CUPTI_KernelReplay;
    cfg.maxRangesPerPass = (size_t)c->max_kernels;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    KS_CUPTI_TRY(api, &c->tr, cuptiRangeProfilerSetConfig, &cfg);

    {
        std::lock_guard<std::mutex> lock(c->launched_mutex);
        c->launched.clear();
    }
    KS_TRY(ks_cupti_launch_sink(api, &c->tr, on_launch, c));
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
    start.pRangeProfilerObject = obj;
    CUptiResult r = KS_CUPTI_CALL(api, &c->tr, cuptiRangeProfilerStart, &start);
    if (r != CUPTI_SUCCESS) {
        ks_cupti_launch_sink(api, &c->tr, nullptr, nullptr);
        return ks_cupti_fail(api, r, "cuptiRangeProfilerStart", __FILE__, __LINE__);
    }
    const double t0 = ks_now_seconds();
    ks_status st = launch(user, stream);
    if (st == KS_OK) st = ks_cuda_wait_stream(static_cast<cudaStream_t>(stream), "the measured kernels");
    ks_cupti_tracef(&c->tr, "launch callback: %s, %.3f ms with replays", st == KS_OK ? "ok" : ks_error_message(),
                    (ks_now_seconds() - t0) * 1e3);
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = obj;
    r = KS_CUPTI_CALL(api, &c->tr, cuptiRangeProfilerStop, &stop);
    ks_cupti_launch_sink(api, &c->tr, nullptr, nullptr);
    if (st != KS_OK) return st; /* the launch's own failure comes first */
    if (r != CUPTI_SUCCESS) return ks_cupti_fail(api, r, "cuptiRangeProfilerStop", __FILE__, __LINE__);
    /* kernel replay runs every pass inside each launch: all are in by now */
    ks_cupti_tracef(&c->tr, "stop: all passes submitted %d, pass index %zu%s", (int)stop.isAllPassSubmitted,
                    stop.passIndex, stop.isAllPassSubmitted ? "" : " (NOT ALL: the values may be partial)");

    KS_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, dec);
    dec.pRangeProfilerObject = obj;
    KS_CUPTI_TRY(api, &c->tr, cuptiRangeProfilerDecodeData, &dec);
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = c->counter_data.data();
    info.counterDataImageSize = c->counter_data.size();
    KS_CUPTI_TRY(api, &c->tr, cuptiRangeProfilerGetCounterDataInfo, &info);

    std::vector<std::string> launched;
    {
        std::lock_guard<std::mutex> lock(c->launched_mutex);
        launched = c->launched;
    }
    const int nranges = (int)info.numTotalRanges;
    ks_cupti_tracef(&c->tr, "decoded: %d ranges, %zu dropped, %zu launches named", nranges, dec.numOfRangeDropped,
                    launched.size());
    ks_counters_describe(c, out);
    const int keep = nranges < KS_COUNTERS_MAX_KERNELS ? nranges : KS_COUNTERS_MAX_KERNELS;
    out->dropped = (int)dec.numOfRangeDropped + (nranges - keep);
    if ((int)launched.size() > nranges + (int)dec.numOfRangeDropped)
        out->dropped += (int)launched.size() - nranges - (int)dec.numOfRangeDropped;
    std::vector<double> values((size_t)c->nnames, 0.0);
    for (int i = 0; i < keep; ++i) {
        ks_kernel_counters *k = &out->kernels[i];
        KS_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, ri);
        ri.pCounterDataImage = c->counter_data.data();
        ri.counterDataImageSize = c->counter_data.size();
        ri.rangeIndex = (size_t)i;
        ri.rangeDelimiter = "/";
        KS_CUPTI_TRY(api, &c->tr, cuptiRangeProfilerCounterDataGetRangeInfo, &ri);
        /* auto ranges are numbered; the launch callback saw the names in the same order */
        if (i < (int)launched.size() && !launched[(size_t)i].empty())
            ks_cupti_demangle(launched[(size_t)i].c_str(), k->name, sizeof k->name);
        else
            snprintf(k->name, sizeof k->name, "kernel %s", ri.rangeName ? ri.rangeName : "?");

        KS_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->counter_data.data();
        ev.counterDataImageSize = c->counter_data.size();
        ev.rangeIndex = (size_t)i;
        ev.ppMetricNames = c->names;
        ev.numMetrics = (size_t)c->nnames;
        ev.pMetricValues = values.data();
        KS_CUPTI_TRY(api, &c->tr, cuptiProfilerHostEvaluateToGpuValues, &ev);
        for (int id = 0; id < KS_CTR_NUM; ++id) {
            const int at = c->index_of[id];
            k->present[id] = at >= 0;
            k->values[id] = at >= 0 ? values[(size_t)at] : NAN;
        }
        ks_cupti_tracef(&c->tr, "range %d (CUPTI name \"%s\"): %s", i, ri.rangeName ? ri.rangeName : "", k->name);
    }
    out->nkernels = keep;
    return KS_OK;
}

ks_status ks_counters_measure(ks_counters *c, ks_status (*launch)(void *user, void *stream), void *user,
                              void *stream, ks_counter_set *out)
{
    if (c == nullptr || launch == nullptr || out == nullptr)
        return ks_fail(KS_ERR_INVALID, "hardware counters: measure without counters, launch or result");
    memset(out, 0, sizeof *out);
    const CUcontext cur = ks_cupti_current_context();
    if (cur != c->ctx) {
        char detail[96];
        snprintf(detail, sizeof detail, "measure called where device %d's context is not current", c->ordinal);
        return ks_counters_fail(KS_CTRS_FAILED, detail);
    }
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, en);
    en.ctx = c->ctx;
    KS_CUPTI_TRY(c->api, &c->tr, cuptiRangeProfilerEnable, &en);
    const ks_status st = measure_enabled(c, en.pRangeProfilerObject, launch, user, stream, out);
    /* disabled on every path, so the live loop's launches run unprofiled again */
    KS_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, dis);
    dis.pRangeProfilerObject = en.pRangeProfilerObject;
    const CUptiResult r = KS_CUPTI_CALL(c->api, &c->tr, cuptiRangeProfilerDisable, &dis);
    if (st != KS_OK) {
        if (ks_counters_last_why() == KS_CTRS_OK) ks_counters_set_last_why(KS_CTRS_FAILED);
        return st;
    }
    if (r != CUPTI_SUCCESS) return ks_cupti_fail(c->api, r, "cuptiRangeProfilerDisable", __FILE__, __LINE__);
    ks_counters_set_last_why(KS_CTRS_OK);
    return KS_OK;
}

static const char *metric_type_name(CUpti_MetricType t)
{
    return t == CUPTI_METRIC_TYPE_COUNTER ? "counter" : t == CUPTI_METRIC_TYPE_RATIO ? "ratio" : "throughput";
}

ks_status ks_counters_list_metrics(int device, int pm_sampling, const char *contains,
                                   void (*emit)(void *user, const char *name, const char *description), void *user)
{
    if (emit == nullptr) return ks_fail(KS_ERR_INVALID, "hardware counters: listing metrics without emit");
    ks_cupti_tracer tr = {nullptr, nullptr};
    CUcontext ctx = nullptr;
    CUdevice dev = 0;
    int ordinal = 0;
    KS_TRY(ks_cupti_context(device, &ctx, &dev, &ordinal));
    const ks_cupti *api = ks_cupti_load();
    if (api == nullptr) return KS_ERR_UNSUPPORTED;
    KS_TRY(ks_cupti_profiler_init(api, &tr));
    KS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, chip);
    chip.deviceIndex = (size_t)ordinal;
    KS_CUPTI_TRY(api, &tr, cuptiDeviceGetChipName, &chip);
    std::vector<uint8_t> availability;
    if (pm_sampling) {
        KS_CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params, av);
        av.deviceIndex = (size_t)ordinal;
        KS_CUPTI_TRY(api, &tr, cuptiPmSamplingGetCounterAvailability, &av);
        availability.assign(av.counterAvailabilityImageSize, 0);
        av.pCounterAvailabilityImage = availability.data();
        KS_CUPTI_TRY(api, &tr, cuptiPmSamplingGetCounterAvailability, &av);
    } else {
        KS_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, av);
        av.ctx = ctx;
        KS_CUPTI_TRY(api, &tr, cuptiProfilerGetCounterAvailability, &av);
        availability.assign(av.counterAvailabilityImageSize, 0);
        av.pCounterAvailabilityImage = availability.data();
        KS_CUPTI_TRY(api, &tr, cuptiProfilerGetCounterAvailability, &av);
    }
    CUpti_Profiler_Host_Object *host = nullptr;
    KS_TRY(ks_cupti_host_create(api, &tr,
                                pm_sampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING : CUPTI_PROFILER_TYPE_RANGE_PROFILER,
                                chip.pChipName, availability.data(), &host));
    ks_status st = KS_OK;
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT && st == KS_OK; ++t) {
        KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, bm);
        bm.pHostObject = host;
        bm.metricType = (CUpti_MetricType)t;
        const CUptiResult r = KS_CUPTI_CALL(api, &tr, cuptiProfilerHostGetBaseMetrics, &bm);
        if (r != CUPTI_SUCCESS) {
            st = ks_cupti_fail(api, r, "cuptiProfilerHostGetBaseMetrics", __FILE__, __LINE__);
            break;
        }
        for (size_t i = 0; i < bm.numMetrics; ++i) {
            const char *name = bm.ppMetricNames[i];
            if (name == nullptr || (contains != nullptr && strstr(name, contains) == nullptr)) continue;
            KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, mp);
            mp.pHostObject = host;
            mp.pMetricName = name;
            char desc[512];
            if (KS_CUPTI_CALL(api, &tr, cuptiProfilerHostGetMetricProperties, &mp) == CUPTI_SUCCESS)
                snprintf(desc, sizeof desc, "%s; %s, unit %s", mp.pDescription ? mp.pDescription : "",
                         metric_type_name((CUpti_MetricType)t), mp.pDimUnit ? mp.pDimUnit : "?");
            else
                snprintf(desc, sizeof desc, "%s", metric_type_name((CUpti_MetricType)t));
            emit(user, name, desc);
        }
    }
    ks_cupti_host_destroy(api, &tr, host);
    return st;
}
