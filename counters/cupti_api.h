/* Internal to counters/: CUPTI loaded at run time with dlopen, the checked
 * and traced call, and the one callback subscriber this process may hold,
 * shared by the counters and the timeline. C++ because CUPTI's
 * cupti_profiler_host.h includes <string>; what it offers is plain functions.
 *
 * Why dlopen rather than linking libcupti: CUPTI is a package of its own
 * (cuda-cupti-X-Y, nvidia-cuda-cupti-cuXX, conda's cuda-cupti), absent from
 * minimal toolkit installs and runtime-only machines, and loading it with its
 * PerfWorks libraries costs start-up time for a feature that is off until
 * asked for. Loaded on first use, a missing library is one line ("libcupti
 * could not be loaded") while the rest of the app runs, and a run that never
 * asks for counters never has CUPTI in the process at all (so it cannot
 * disturb Nsight Systems or Nsight Compute attached to it). */
#ifndef KS_CUPTI_API_H
#define KS_CUPTI_API_H

#include <cuda.h>
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_runtime_cbid.h>
#include <cupti_target.h>
#include <cupti_version.h>
#include <stddef.h>

#include "counters.h"
#include "base/ks_util.h"

#define KS_CUPTI_FUNCS(X)                                                                          \
    X(cuptiGetResultString)                                                                        \
    X(cuptiGetVersion)                                                                             \
    X(cuptiSubscribe_v2)                                                                           \
    X(cuptiUnsubscribe)                                                                            \
    X(cuptiEnableCallback)                                                                         \
    X(cuptiGetTimestamp)                                                                           \
    X(cuptiProfilerInitialize)                                                                     \
    X(cuptiProfilerDeviceSupported)                                                                \
    X(cuptiProfilerGetCounterAvailability)                                                         \
    X(cuptiDeviceGetChipName)                                                                      \
    X(cuptiProfilerHostInitialize)                                                                 \
    X(cuptiProfilerHostDeinitialize)                                                               \
    X(cuptiProfilerHostGetBaseMetrics)                                                             \
    X(cuptiProfilerHostGetMetricProperties)                                                        \
    X(cuptiProfilerHostConfigAddMetrics)                                                           \
    X(cuptiProfilerHostGetConfigImageSize)                                                         \
    X(cuptiProfilerHostGetConfigImage)                                                             \
    X(cuptiProfilerHostGetNumOfPasses)                                                             \
    X(cuptiProfilerHostEvaluateToGpuValues)                                                        \
    X(cuptiRangeProfilerEnable)                                                                    \
    X(cuptiRangeProfilerDisable)                                                                   \
    X(cuptiRangeProfilerSetConfig)                                                                 \
    X(cuptiRangeProfilerStart)                                                                     \
    X(cuptiRangeProfilerStop)                                                                      \
    X(cuptiRangeProfilerDecodeData)                                                                \
    X(cuptiRangeProfilerGetCounterDataSize)                                                        \
    X(cuptiRangeProfilerCounterDataImageInitialize)                                                \
    X(cuptiRangeProfilerGetCounterDataInfo)                                                        \
    X(cuptiRangeProfilerCounterDataGetRangeInfo)                                                   \
    X(cuptiPmSamplingEnable)                                                                       \
    X(cuptiPmSamplingDisable)                                                                      \
    X(cuptiPmSamplingSetConfig)                                                                    \
    X(cuptiPmSamplingStart)                                                                        \
    X(cuptiPmSamplingStop)                                                                         \
    X(cuptiPmSamplingDecodeData)                                                                   \
    X(cuptiPmSamplingGetCounterAvailability)                                                       \
    X(cuptiPmSamplingGetCounterDataSize)                                                           \
    X(cuptiPmSamplingCounterDataImageInitialize)                                                   \
    X(cuptiPmSamplingGetCounterDataInfo)                                                           \
    X(cuptiPmSamplingCounterDataGetSampleInfo)                                                     \
    X(cuptiActivityRegisterCallbacks)                                                              \
    X(cuptiActivityEnable)                                                                         \
    X(cuptiActivityDisable)                                                                        \
    X(cuptiActivityFlushAll)                                                                       \
    X(cuptiActivityGetNextRecord)                                                                  \
    X(cuptiActivityGetNumDroppedRecords)

/* The CUPTI calls, resolved from the loaded library (types from its headers). */
struct ks_cupti {
#define KS_CUPTI_PTR(name) decltype(&::name) name;
    KS_CUPTI_FUNCS(KS_CUPTI_PTR)
#undef KS_CUPTI_PTR
    char path[512]; /* the file it came from */
    int version;    /* cuptiGetVersion */
};

struct ks_cupti_tracer {
    ks_counters_trace_fn fn;
    void *user;
};

/* The library, loaded once per process and never unloaded (CUPTI keeps
 * callbacks and threads in it). NULL with the failure recorded (ks_error,
 * ks_counters_last_why: KS_CTRS_NO_LIBRARY). */
const ks_cupti *ks_cupti_load(void);

/* One trace line, printf-style (nothing when the tracer has no function). */
void ks_cupti_tracef(const ks_cupti_tracer *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CUPTI's name for a status ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"). */
const char *ks_cupti_result_name(const ks_cupti *api, CUptiResult r);
/* A status a test wants a call to return: KS_COUNTERS_FAKE="cuptiX=35[,cuptiY=39]"
 * names calls that are then not made and answer that status instead (how the
 * permission and other-profiler paths are exercised where they cannot be
 * arranged). CUPTI_SUCCESS when the call is not named. */
CUptiResult ks_cupti_faked(const char *call);
void ks_cupti_trace_result(const ks_cupti *api, const ks_cupti_tracer *tr, const char *call, CUptiResult r,
                           double seconds);
/* The failure of call with r: its case (ks_counters_why_from_cupti), one line, the status. */
ks_status ks_cupti_fail(const ks_cupti *api, CUptiResult r, const char *call, const char *file, int line);

template <typename F>
CUptiResult ks_cupti_run(const ks_cupti *api, const ks_cupti_tracer *tr, const char *call, F &&f)
{
    const CUptiResult fake = ks_cupti_faked(call);
    const double t0 = ks_now_seconds();
    const CUptiResult r = fake != CUPTI_SUCCESS ? fake : f();
    ks_cupti_trace_result(api, tr, call, r, ks_now_seconds() - t0);
    return r;
}

/* Every CUPTI call goes through these: traced, and TRY turns a failure into
 * ks_fail with cuptiGetResultString's name and the case's words. */
#define KS_CUPTI_CALL(api, tr, fn, ...) ks_cupti_run((api), (tr), #fn, [&]() { return (api)->fn(__VA_ARGS__); })
#define KS_CUPTI_TRY(api, tr, fn, ...)                                                             \
    do {                                                                                           \
        const CUptiResult ks_cupti_r_ = KS_CUPTI_CALL(api, tr, fn, __VA_ARGS__);                   \
        if (ks_cupti_r_ != CUPTI_SUCCESS) return ks_cupti_fail((api), ks_cupti_r_, #fn, __FILE__, __LINE__); \
    } while (0)

/* The params structs: zeroed, with their size. */
#define KS_CUPTI_PARAMS(type, name)                                                                \
    type name;                                                                                     \
    memset(&name, 0, sizeof name);                                                                 \
    name.structSize = type##_STRUCT_SIZE

/* cuptiProfilerInitialize, once per process. */
ks_status ks_cupti_profiler_init(const ks_cupti *api, const ks_cupti_tracer *tr);

/* The callback subscriber (CUPTI allows one per process): taken by the first
 * of the counters and the timeline, given back by the last. Another tool's
 * subscriber makes it fail as KS_CTRS_OTHER_PROFILER, naming the tool. */
ks_status ks_cupti_subscribe(const ks_cupti *api, const ks_cupti_tracer *tr);
void ks_cupti_unsubscribe(const ks_cupti *api, const ks_cupti_tracer *tr);
/* While a sink is set, each kernel launch (runtime or driver API, any thread)
 * calls it with the kernel's symbol, in launch order. NULL turns the launch
 * callbacks off again. */
typedef void (*ks_cupti_launch_fn)(void *user, const char *symbol);
ks_status ks_cupti_launch_sink(const ks_cupti *api, const ks_cupti_tracer *tr, ks_cupti_launch_fn fn, void *user);

/* The device's primary context made current on this thread (ordinal < 0: the
 * current device), with its CUdevice and ordinal. Fails as KS_CTRS_NO_DEVICE
 * without one. */
ks_status ks_cupti_context(int ordinal, CUcontext *ctx, CUdevice *dev, int *used_ordinal);
/* The context current on this thread now (NULL when none). */
CUcontext ks_cupti_current_context(void);

/* A kernel symbol demangled ("_Z4copyPKfPfm" -> "copy(float const*, float*, unsigned long)"), cut to cap. */
void ks_cupti_demangle(const char *symbol, char *out, size_t cap);

/* A host object for chip (range profiler or PM sampler), NULL on failure. */
ks_status ks_cupti_host_create(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_ProfilerType type,
                               const char *chip, const uint8_t *availability, CUpti_Profiler_Host_Object **out);
void ks_cupti_host_destroy(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_Profiler_Host_Object *host);
/* ConfigAddMetrics of one name on a fresh host object of type for chip. */
CUptiResult ks_cupti_try_metric(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_ProfilerType type,
                                const char *chip, const uint8_t *availability, const char *name);
/* 1 when the chip has the metric: CUPTI's properties of it (on probe), else a config of it alone. */
int ks_cupti_has_metric(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_Profiler_Host_Object *probe,
                        CUpti_ProfilerType type, const char *chip, const uint8_t *availability, const char *name);

#endif
