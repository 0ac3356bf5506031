/* CUPTI at run time: the library (dlopen), checked and traced calls, the one
 * callback subscriber, kernel launch names. See cupti_api.h for why dlopen. */
#include "cupti_api.h"

#include <cuda_runtime_api.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/ks_error.h"

/* counters_text.c maps CUptiResult by value (it has no CUPTI headers): the values must match. */
static_assert(CUPTI_ERROR_NOT_INITIALIZED == 15 && CUPTI_ERROR_INVALID_METRIC_NAME == 17 &&
                  CUPTI_ERROR_DISABLED == 23 && CUPTI_ERROR_HARDWARE_BUSY == 26 && CUPTI_ERROR_NOT_SUPPORTED == 27 &&
                  CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED == 33 && CUPTI_ERROR_INSUFFICIENT_PRIVILEGES == 35 &&
                  CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED == 36 && CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED == 38 &&
                  CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED == 39 &&
                  CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES == 40 &&
                  CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED == 41 && CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED == 42 &&
                  CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED == 43 && CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED == 44 &&
                  CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED == 45 && CUPTI_ERROR_INVALID_CHIP_NAME == 46,
              "CUptiResult values changed: update counters_text.c");

#ifndef KS_CUPTI_SONAME
#define KS_CUPTI_SONAME "libcupti.so"
#endif
#ifndef KS_CUPTI_LIB_PATH
#define KS_CUPTI_LIB_PATH ""
#endif

/* ---- The library ---- */

static std::mutex load_mutex;
static ks_cupti loaded_api;
static int loaded; /* a failure is tried again next time: dlopen is cheap, and the path may change */
static char load_error[768];

/* dlopen one candidate; its dlerror appended to why on failure. */
static void *open_one(const char *name, char *why, size_t cap, size_t *used)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        ks_text_append(why, cap, used, "%s%s", *used ? "; " : "", e ? e : name);
    }
    return h;
}

static int load_locked(void)
{
    char why[600] = "";
    size_t used = 0;
    void *h = NULL;
    const char *override_path = getenv("KS_CUPTI_LIBRARY");
    if (override_path != NULL && override_path[0] != '\0') {
        h = open_one(override_path, why, sizeof why, &used); /* asked for: that file or nothing */
    } else {
        /* the soname through the run path (the toolkit's lib folder), then where the build found it */
        h = open_one(KS_CUPTI_SONAME, why, sizeof why, &used);
        if (h == NULL && KS_CUPTI_LIB_PATH[0] != '\0') h = open_one(KS_CUPTI_LIB_PATH, why, sizeof why, &used);
    }
    if (h == NULL) {
        snprintf(load_error, sizeof load_error, "%s", why);
        return -1;
    }
    ks_cupti *a = &loaded_api;
#define KS_CUPTI_SYM(name)                                                                         \
    a->name = reinterpret_cast<decltype(a->name)>(dlsym(h, #name));                                \
    if (a->name == nullptr) {                                                                      \
        snprintf(load_error, sizeof load_error, "%s has no %s: CUPTI older than CUDA 12.6",        \
                 override_path && override_path[0] ? override_path : KS_CUPTI_SONAME, #name);      \
        dlclose(h);                                                                                \
        return -1;                                                                                 \
    }
    KS_CUPTI_FUNCS(KS_CUPTI_SYM)
#undef KS_CUPTI_SYM
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(a->cuptiGetVersion), &info) != 0 && info.dli_fname != nullptr)
        snprintf(a->path, sizeof a->path, "%s", info.dli_fname);
    else
        snprintf(a->path, sizeof a->path, "%s", override_path && override_path[0] ? override_path : KS_CUPTI_SONAME);
    uint32_t version = 0;
    if (a->cuptiGetVersion(&version) == CUPTI_SUCCESS) a->version = (int)version;
    return 1;
}

const ks_cupti *ks_cupti_load(void)
{
    std::lock_guard<std::mutex> lock(load_mutex);
    if (!loaded && load_locked() < 0) {
        ks_counters_fail(KS_CTRS_NO_LIBRARY, load_error);
        return nullptr;
    }
    loaded = 1;
    return &loaded_api;
}

/* ---- Calls ---- */

void ks_cupti_tracef(const ks_cupti_tracer *tr, const char *fmt, ...)
{
    if (tr == nullptr || tr->fn == nullptr) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    tr->fn(tr->user, line);
}

const char *ks_cupti_result_name(const ks_cupti *api, CUptiResult r)
{
    const char *s = nullptr;
    if (api != nullptr && api->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s != nullptr) return s;
    return "CUPTI_ERROR_(unknown)";
}

CUptiResult ks_cupti_faked(const char *call)
{
    const char *spec = getenv("KS_COUNTERS_FAKE");
    if (spec == nullptr || call == nullptr) return CUPTI_SUCCESS;
    const size_t n = strlen(call);
    for (const char *p = spec; (p = strstr(p, call)) != nullptr; p += n) {
        const int starts = p == spec || p[-1] == ',';
        if (starts && p[n] == '=') return static_cast<CUptiResult>(atoi(p + n + 1));
    }
    return CUPTI_SUCCESS;
}

void ks_cupti_trace_result(const ks_cupti *api, const ks_cupti_tracer *tr, const char *call, CUptiResult r,
                           double seconds)
{
    if (tr == nullptr || tr->fn == nullptr) return;
    ks_cupti_tracef(tr, "cupti: %-46s -> %s (%d)%s %.3f ms", call, ks_cupti_result_name(api, r), (int)r,
                    ks_cupti_faked(call) != CUPTI_SUCCESS ? " [faked by KS_COUNTERS_FAKE]" : "", seconds * 1e3);
}

ks_status ks_cupti_fail(const ks_cupti *api, CUptiResult r, const char *call, const char *file, int line)
{
    const char *base = strrchr(file, '/');
    char detail[400];
    snprintf(detail, sizeof detail, "%s returned %s at %s:%d", call, ks_cupti_result_name(api, r),
             base ? base + 1 : file, line);
    return ks_counters_fail(ks_counters_why_from_cupti((int)r), detail);
}

/* ---- Profiler and subscriber ---- */

static std::mutex state_mutex; /* the profiler's initialisation and the subscriber */
static int profiler_ready;
static CUpti_SubscriberHandle subscriber;
static int subscriber_refs;
/* The sink has a lock of its own: CUPTI is never called while a callback may wait for it. */
static std::mutex sink_mutex;
static ks_cupti_launch_fn sink_fn;
static void *sink_user;
/* Runtime launches call the driver's launch inside: named once, at the runtime's entry when it
 * gives the name, else at the driver's. Per thread: the runtime calls in progress, and whether
 * each named its kernel. */
static thread_local int runtime_depth;
static thread_local unsigned runtime_named; /* bit d: the call at depth d named it */

ks_status ks_cupti_profiler_init(const ks_cupti *api, const ks_cupti_tracer *tr)
{
    std::lock_guard<std::mutex> lock(state_mutex);
    if (profiler_ready) return KS_OK;
    KS_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, p);
    KS_CUPTI_TRY(api, tr, cuptiProfilerInitialize, &p);
    profiler_ready = 1;
    return KS_OK;
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *cbdata)
{
    (void)userdata;
    (void)cbid;
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    const CUpti_CallbackData *d = static_cast<const CUpti_CallbackData *>(cbdata);
    const int named = d->symbolName != nullptr && d->symbolName[0] != '\0';
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (d->callbackSite == CUPTI_API_EXIT) {
            if (runtime_depth > 0) runtime_named &= ~(1u << (--runtime_depth & 31));
            return;
        }
        const int depth = runtime_depth++;
        if (!named) return; /* the driver's launch inside names it */
        runtime_named |= 1u << (depth & 31);
    } else {
        /* a driver launch inside a runtime launch that named its kernel is the same kernel */
        if (d->callbackSite != CUPTI_API_ENTER || (runtime_depth > 0 && (runtime_named & (1u << ((runtime_depth - 1) & 31)))))
            return;
    }
    std::lock_guard<std::mutex> lock(sink_mutex);
    if (sink_fn != nullptr) sink_fn(sink_user, d->symbolName ? d->symbolName : "");
}

ks_status ks_cupti_subscribe(const ks_cupti *api, const ks_cupti_tracer *tr)
{
    std::lock_guard<std::mutex> lock(state_mutex);
    if (subscriber_refs > 0) {
        ++subscriber_refs;
        return KS_OK;
    }
    char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
    KS_CUPTI_PARAMS(CUpti_SubscriberParams, p);
    p.subscriberName = "kernelscope";
    p.oldSubscriberName = other;
    p.oldSubscriberSize = sizeof other;
    CUpti_SubscriberHandle h = nullptr;
    const CUptiResult r =
        ks_cupti_run(api, tr, "cuptiSubscribe_v2", [&]() { return api->cuptiSubscribe_v2(&h, on_callback, nullptr, &p); });
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        char detail[256];
        snprintf(detail, sizeof detail, "CUPTI names it \"%s\"", other[0] ? other : "an unnamed tool");
        return ks_counters_fail(KS_CTRS_OTHER_PROFILER, detail);
    }
    if (r != CUPTI_SUCCESS) return ks_cupti_fail(api, r, "cuptiSubscribe_v2", __FILE__, __LINE__);
    subscriber = h;
    subscriber_refs = 1;
    return KS_OK;
}

void ks_cupti_unsubscribe(const ks_cupti *api, const ks_cupti_tracer *tr)
{
    std::lock_guard<std::mutex> lock(state_mutex);
    if (subscriber_refs <= 0 || --subscriber_refs > 0) return;
    (void)KS_CUPTI_CALL(api, tr, cuptiUnsubscribe, subscriber);
    subscriber = nullptr;
    std::lock_guard<std::mutex> sink_lock(sink_mutex);
    sink_fn = nullptr;
    sink_user = nullptr;
}

/* The launch calls whose kernels are named: runtime entries (what the app
 * calls) and driver entries (what a driver-API program or NVRTC-compiled
 * kernel calls). */
static const CUpti_CallbackId runtime_launches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};
static const CUpti_CallbackId driver_launches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

ks_status ks_cupti_launch_sink(const ks_cupti *api, const ks_cupti_tracer *tr, ks_cupti_launch_fn fn, void *user)
{
    CUpti_SubscriberHandle sub = nullptr;
    {
        std::lock_guard<std::mutex> lock(state_mutex);
        if (subscriber_refs <= 0)
            return ks_counters_fail(KS_CTRS_FAILED, "launch names asked for without a subscriber");
        sub = subscriber; /* stays: the caller holds a reference */
    }
    const uint32_t on = fn != nullptr;
    if (on) {
        std::lock_guard<std::mutex> lock(sink_mutex);
        sink_fn = fn;
        sink_user = user;
    }
    /* names are a help, not a need: a launch kind this CUPTI does not know is traced and skipped */
    int enabled = 0;
    for (CUpti_CallbackId id : runtime_launches)
        enabled += KS_CUPTI_CALL(api, tr, cuptiEnableCallback, on, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id) == CUPTI_SUCCESS;
    for (CUpti_CallbackId id : driver_launches)
        enabled += KS_CUPTI_CALL(api, tr, cuptiEnableCallback, on, sub, CUPTI_CB_DOMAIN_DRIVER_API, id) == CUPTI_SUCCESS;
    if (!on) {
        std::lock_guard<std::mutex> lock(sink_mutex);
        sink_fn = nullptr;
        sink_user = nullptr;
    }
    ks_cupti_tracef(tr, "launch names %s: %d of %zu launch callbacks", on ? "on" : "off", enabled,
                    sizeof runtime_launches / sizeof runtime_launches[0] + sizeof driver_launches / sizeof driver_launches[0]);
    return KS_OK;
}

/* A single ConfigAddMetrics on a fresh host object: whether the chip schedules the metric. */
CUptiResult ks_cupti_try_metric(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_ProfilerType type,
                                const char *chip, const uint8_t *availability, const char *name)
{
    CUpti_Profiler_Host_Object *host = nullptr;
    if (ks_cupti_host_create(api, tr, type, chip, availability, &host) != KS_OK) return CUPTI_ERROR_UNKNOWN;
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, p);
    p.pHostObject = host;
    p.ppMetricNames = &name;
    p.numMetrics = 1;
    const CUptiResult r = KS_CUPTI_CALL(api, tr, cuptiProfilerHostConfigAddMetrics, &p);
    ks_cupti_host_destroy(api, tr, host);
    return r;
}

/* Does the chip have the metric? CUPTI's properties first (cheap); where they
 * refuse the name, a config with it alone decides. */
int ks_cupti_has_metric(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_Profiler_Host_Object *probe,
                        CUpti_ProfilerType type, const char *chip, const uint8_t *availability, const char *name)
{
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, p);
    p.pHostObject = probe;
    p.pMetricName = name;
    if (KS_CUPTI_CALL(api, tr, cuptiProfilerHostGetMetricProperties, &p) == CUPTI_SUCCESS) return 1;
    return ks_cupti_try_metric(api, tr, type, chip, availability, name) == CUPTI_SUCCESS;
}

/* ---- Context ---- */

typedef CUresult (*cu_ctx_get_current_fn)(CUcontext *);
typedef CUresult (*cu_device_get_fn)(CUdevice *, int);

/* A driver entry point through the runtime (the app links no libcuda). */
static void *driver_entry(const char *name)
{
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        return nullptr;
    return fn;
}

CUcontext ks_cupti_current_context(void)
{
    static const cu_ctx_get_current_fn get_current =
        reinterpret_cast<cu_ctx_get_current_fn>(driver_entry("cuCtxGetCurrent"));
    CUcontext ctx = nullptr;
    if (get_current == nullptr || get_current(&ctx) != CUDA_SUCCESS) return nullptr;
    return ctx;
}

ks_status ks_cupti_context(int ordinal, CUcontext *ctx, CUdevice *dev, int *used_ordinal)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        cudaGetLastError(); /* the runtime keeps the error sticky otherwise */
        return ks_counters_fail(KS_CTRS_NO_DEVICE, e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    }
    if (ordinal >= count) {
        char detail[64];
        snprintf(detail, sizeof detail, "device %d of %d", ordinal, count);
        return ks_counters_fail(KS_CTRS_NO_DEVICE, detail);
    }
    if (ordinal < 0 && cudaGetDevice(&ordinal) != cudaSuccess) ordinal = 0;
    cudaError_t se = cudaSetDevice(ordinal);
    if (se == cudaSuccess) se = cudaFree(nullptr); /* the primary context exists and is current */
    if (se != cudaSuccess) {
        cudaGetLastError();
        return ks_counters_fail(KS_CTRS_NO_DEVICE, cudaGetErrorString(se));
    }
    static const cu_device_get_fn device_get = reinterpret_cast<cu_device_get_fn>(driver_entry("cuDeviceGet"));
    *ctx = ks_cupti_current_context();
    if (*ctx == nullptr || device_get == nullptr || device_get(dev, ordinal) != CUDA_SUCCESS)
        return ks_counters_fail(KS_CTRS_FAILED, "the CUDA driver gave no context for the device");
    *used_ordinal = ordinal;
    return KS_OK;
}

/* ---- Names ---- */

void ks_cupti_demangle(const char *symbol, char *out, size_t cap)
{
    if (out == nullptr || cap == 0) return;
    if (symbol == nullptr) symbol = "";
    int status = -1;
    char *plain = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
    snprintf(out, cap, "%s", status == 0 && plain != nullptr ? plain : symbol);
    free(plain);
}

/* ---- Host objects ---- */

ks_status ks_cupti_host_create(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_ProfilerType type,
                               const char *chip, const uint8_t *availability, CUpti_Profiler_Host_Object **out)
{
    *out = nullptr;
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, p);
    p.profilerType = type;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = availability;
    KS_CUPTI_TRY(api, tr, cuptiProfilerHostInitialize, &p);
    *out = p.pHostObject;
    return KS_OK;
}

void ks_cupti_host_destroy(const ks_cupti *api, const ks_cupti_tracer *tr, CUpti_Profiler_Host_Object *host)
{
    if (host == nullptr) return;
    KS_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p);
    p.pHostObject = host;
    (void)KS_CUPTI_CALL(api, tr, cuptiProfilerHostDeinitialize, &p);
}
