// CUDA device probe and the copy-bandwidth ceiling (T_peak).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#include <cuda_profiler_api.h>

#include "cuda_check.h"
#include "cuda_device.h"
#include "ks_util.h"

// The static runtime answers cudaErrorInsufficientDriver both when the driver
// is too old and when there is none at all: look at the driver library and
// both versions so that the notice says which.
static volatile int ks_cuda_stalled_flag; /* set once a wait gave up: the GPU no longer answers */

extern "C" int ks_cuda_stalled(void) { return ks_cuda_stalled_flag; }

static cudaError_t query_event(void *h) { return cudaEventQuery((cudaEvent_t)h); }
static cudaError_t query_stream(void *h) { return cudaStreamQuery((cudaStream_t)h); }

/* Polls until the work is done: yields for the first polls (most waits are
 * short), then sleeps 50 us between polls, for at most KS_GPU_STALL_S. */
static ks_status wait_bounded(cudaError_t (*query)(void *), void *h, const char *what)
{
    const double t0 = ks_now_seconds();
    for (int polls = 0;; ++polls) {
        const cudaError_t q = query(h);
        if (q == cudaSuccess) return KS_OK;
        if (q != cudaErrorNotReady)
            return ks_fail(KS_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(q));
        if (ks_cuda_stalled_flag || ks_now_seconds() - t0 > KS_GPU_STALL_S) {
            ks_cuda_stalled_flag = 1; /* later waits give up at once: each would wait as long */
            return ks_fail(KS_ERR_CUDA,
                           "%s: the GPU has not finished the work in %.0f s and stopped answering (a fault of "
                           "another program on this GPU can do that; the system log names it as an NVIDIA Xid "
                           "error)",
                           what, KS_GPU_STALL_S);
        }
        if (polls < 256) {
            sched_yield();
        } else {
            const struct timespec pause = {0, 50 * 1000};
            nanosleep(&pause, NULL);
        }
    }
}

extern "C" ks_status ks_cuda_wait_event(cudaEvent_t event, const char *what)
{
    return wait_bounded(query_event, (void *)event, what);
}

extern "C" ks_status ks_cuda_wait_stream(cudaStream_t stream, const char *what)
{
    return wait_bounded(query_stream, (void *)stream, what);
}

extern "C" ks_status ks_cuda_use_device(int ordinal)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return ks_fail(KS_ERR_NO_DEVICE, "no CUDA device");
    }
    if (ordinal < 0 || ordinal >= count)
        return ks_fail(KS_ERR_NO_DEVICE, "GPU %d asked for; this machine has %d CUDA device%s", ordinal, count,
                       count == 1 ? "" : "s");
    KS_CUDA_TRY(cudaSetDevice(ordinal));
    return KS_OK;
}

extern "C" int ks_cuda_spare_device(void)
{
    int count = 0, cur = 0, major = 0, minor = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || cudaGetDevice(&cur) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, cur) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, cur) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    for (int d = 0; d < count; ++d) {
        int ma = 0, mi = 0;
        if (d == cur || cudaDeviceGetAttribute(&ma, cudaDevAttrComputeCapabilityMajor, d) != cudaSuccess ||
            cudaDeviceGetAttribute(&mi, cudaDevAttrComputeCapabilityMinor, d) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        if (ma == major && mi == minor) return d;
    }
    return -1;
}

extern "C" ks_status ks_cuda_probe(ks_device_info *info)
{
    std::memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        cudaGetLastError(); // clear the sticky "no device" state
        ks_cuda_probe_facts f;
        std::memset(&f, 0, sizeof f);
        f.built_with_cuda = 1;
        void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        f.driver_loadable = lib != nullptr;
        if (lib) dlclose(lib);
        if (cudaDriverGetVersion(&f.driver_version) != cudaSuccess) f.driver_version = 0;
        if (cudaRuntimeGetVersion(&f.runtime_version) != cudaSuccess) f.runtime_version = CUDART_VERSION;
        cudaGetLastError();
        f.error = err == cudaSuccess                   ? KS_PROBE_ERR_NONE
                  : err == cudaErrorNoDevice           ? KS_PROBE_ERR_NO_DEVICE
                  : err == cudaErrorInsufficientDriver ? KS_PROBE_ERR_INSUFFICIENT_DRIVER
                                                       : KS_PROBE_ERR_OTHER;
        f.error_text = err != cudaSuccess ? cudaGetErrorString(err) : nullptr;
        f.device_count = count;
        char why[256];
        ks_fail(KS_ERR_NO_DEVICE, "%s", ks_cuda_probe_reason(&f, why, sizeof why));
        return KS_OK;
    }
    cudaDeviceProp prop;
    KS_CUDA_TRY(cudaGetDevice(&info->ordinal));
    KS_CUDA_TRY(cudaGetDeviceProperties(&prop, info->ordinal));
    std::snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->device_count = count;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    for (int d = 0; d < 3; ++d) info->max_block_dim[d] = prop.maxThreadsDim[d];
    info->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    info->smem_per_block = prop.sharedMemPerBlock;
    info->smem_per_block_optin = prop.sharedMemPerBlockOptin;
    info->l2_bytes = (size_t)prop.l2CacheSize;
    KS_CUDA_TRY(cudaMemGetInfo(&info->free_mem, &info->total_mem));
    info->present = 1;
    return KS_OK;
}

extern "C" ks_status ks_cuda_free_memory(size_t *free_bytes, size_t *total_bytes)
{
    KS_CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes));
    return KS_OK;
}

extern "C" ks_status ks_cuda_kernel_attrs(const void *fn, int threads, size_t dyn_smem,
                                          int max_threads_per_sm, ks_kernel_attrs *out)
{
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, fn));
    int blocks = 0;
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, dyn_smem));
    const int warps_per_block = (threads + 31) / 32;
    out->registers = fa.numRegs;
    out->static_smem = (int)fa.sharedSizeBytes;
    out->dynamic_smem = (int)dyn_smem;
    out->blocks_per_sm = blocks;
    out->occupancy =
        max_threads_per_sm > 0 ? (double)(blocks * warps_per_block * 32) / max_threads_per_sm : 0.0;
    return KS_OK;
}

extern "C" ks_status ks_cuda_sync(void)
{
    KS_CUDA_TRY(cudaDeviceSynchronize());
    return KS_OK;
}

extern "C" ks_status ks_cuda_profiler(int on)
{
    KS_CUDA_TRY(cudaDeviceSynchronize()); /* the range holds exactly what is launched inside it */
    if (on) KS_CUDA_TRY(cudaProfilerStart());
    else KS_CUDA_TRY(cudaProfilerStop());
    return KS_OK;
}

namespace {

// Owns what the measurement allocates so every exit path frees it.
struct copy_bench {
    void *src = nullptr, *dst = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ~copy_bench()
    {
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
        cudaFree(src);
        cudaFree(dst);
    }
};

} // namespace

extern "C" ks_status ks_cuda_upload(void *dst, const void *src, size_t bytes, void *stream)
{
    KS_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
    return KS_OK;
}

extern "C" ks_status ks_cuda_measure_copy_gbs(size_t bytes, int reps, double *gbs)
{
    if (bytes == 0 || reps <= 0) return ks_fail(KS_ERR_INVALID, "copy bandwidth: empty measurement");
    copy_bench b;
    KS_CUDA_TRY(cudaMalloc(&b.src, bytes));
    KS_CUDA_TRY(cudaMalloc(&b.dst, bytes));
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaEventCreate(&b.start));
    KS_CUDA_TRY(cudaEventCreate(&b.stop));
    // Non-zero source so nothing can shortcut on zero pages.
    KS_CUDA_TRY(cudaMemsetAsync(b.src, 0x5a, bytes, b.stream));
    for (int w = 0; w < 3; ++w)
        KS_CUDA_TRY(cudaMemcpyAsync(b.dst, b.src, bytes, cudaMemcpyDeviceToDevice, b.stream));
    std::vector<float> ms((size_t)reps);
    for (int r = 0; r < reps; ++r) {
        KS_CUDA_TRY(cudaEventRecord(b.start, b.stream));
        KS_CUDA_TRY(cudaMemcpyAsync(b.dst, b.src, bytes, cudaMemcpyDeviceToDevice, b.stream));
        KS_CUDA_TRY(cudaEventRecord(b.stop, b.stream));
        KS_CUDA_TRY(cudaEventSynchronize(b.stop));
        KS_CUDA_TRY(cudaEventElapsedTime(&ms[(size_t)r], b.start, b.stop));
    }
    std::sort(ms.begin(), ms.end());
    const double median_ms = ms[ms.size() / 2];
    // Bytes read plus bytes written, in GB/s (1e9).
    *gbs = 2.0 * (double)bytes / (median_ms * 1e-3) / 1e9;
    return KS_OK;
}
