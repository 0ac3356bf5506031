/* ks_timeline with CUPTI: PM sampling (cupti_pmsampling.h) of DRAM
 * throughput and SM activity, and kernel activity records
 * (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), both put on the GPU's clock and
 * into rings. A worker thread decodes the PM sampler's buffer every
 * decode_ms and flushes the activity buffers; CUPTI calls the buffer
 * callbacks from its own thread too, so the span ring's writers share a lock
 * (its reader needs none). This file: the life cycle, the worker and the
 * activity records; the PM sampler in timeline_cupti_pm.cpp, the clocks in
 * timeline_cupti_clock.cpp. */
#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/cuda_check.h"
#include "timeline_cupti.h"
#include "timeline_marker.h"

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
            if (tl->sampling && ks_tl_pm_decode_locked(tl, nullptr) != KS_OK) {
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

    KS_TRY(ks_tl_pm_build_config(tl));
    KS_TRY(ks_tl_pm_enable(tl));

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
    KS_TRY(ks_tl_clock_calibrate(tl));

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
    const ks_status st = ks_tl_clock_align_locked(tl);
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
    const ks_status st = ks_tl_pm_decode_locked(tl, nullptr);
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
