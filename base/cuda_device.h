/* The CUDA device as the app sees it: presence, name, limits, and the
 * copy-bandwidth ceiling T_peak measured at start-up. Plain C. */
#ifndef KS_CUDA_DEVICE_H
#define KS_CUDA_DEVICE_H

#include <stddef.h>

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_device_info {
    int present;              /* 1 when a usable CUDA device was found */
    int ordinal;              /* device index used */
    char name[256];           /* e.g. "NVIDIA H100 80GB HBM3" */
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_block;
    int max_block_dim[3];
    int max_threads_per_sm;
    size_t smem_per_block;    /* default limit, bytes */
    size_t smem_per_block_optin;
    size_t total_mem, free_mem; /* bytes, free read at probe time */
    size_t l2_bytes;
    int device_count;         /* CUDA devices this process sees */
} ks_device_info;

/* Per-launch resource figures of a kernel (for the overlay and the bench). */
typedef struct ks_kernel_attrs {
    int registers;          /* per thread */
    int static_smem;        /* bytes per block */
    int dynamic_smem;       /* bytes per block */
    int blocks_per_sm;      /* resident blocks per SM at this block size */
    double occupancy;       /* resident warps / max warps per SM, 0..1 */
} ks_kernel_attrs;

/* Fills info; info->present == 0 (and KS_OK) when there is no device or the
 * driver is missing: the message then says why, for the one-line notice. */
ks_status ks_cuda_probe(ks_device_info *info);
/* Device-to-device copy bandwidth, counting bytes read + written, GB/s
 * (1e9 bytes): median of reps event-timed cudaMemcpyAsync of bytes after warm-up. */
ks_status ks_cuda_measure_copy_gbs(size_t bytes, int reps, double *gbs);
/* bytes of host memory at src into device memory at dst, queued on stream (a
 * cudaStream_t; NULL: the default stream); src may be reused on return. */
ks_status ks_cuda_upload(void *dst, const void *src, size_t bytes, void *stream);
/* Free device memory right now, bytes. */
ks_status ks_cuda_free_memory(size_t *free_bytes, size_t *total_bytes);
/* Registers, shared memory and occupancy of kernel `fn` (a __global__
 * function's address) launched with `threads` per block and `dyn_smem` bytes
 * of dynamic shared memory, on a device with max_threads_per_sm. */
ks_status ks_cuda_kernel_attrs(const void *fn, int threads, size_t dyn_smem, int max_threads_per_sm,
                               ks_kernel_attrs *out);
/* Makes `ordinal` this thread's device (an MPI rank's GPU, before the probe). */
ks_status ks_cuda_use_device(int ordinal);
/* Another GPU of the same compute capability as this thread's device (the
 * lowest such ordinal), for work that must not share a GPU with it; -1 when
 * there is none (or no CUDA). */
int ks_cuda_spare_device(void);
/* Waits for all device work (used at shutdown and in tests). */
ks_status ks_cuda_sync(void);
/* Waits for all device work, then starts (on 1) or stops (0) a profiler's
 * range: cudaProfilerStart / Stop, which a profiler run with
 * --profile-from-start off (Nsight Compute, Nsight Systems) collects between. */
ks_status ks_cuda_profiler(int on);
/* 1 once a wait for the GPU gave up (KS_GPU_STALL_S, cuda_check.h): its work
 * no longer finishes, and so would no cleanup that waits for it. */
int ks_cuda_stalled(void);

/* What the probe learnt when no device could be used, turned into the notice's
 * words by ks_cuda_probe_reason (pure, so the cpu tests cover every case). */
typedef enum ks_cuda_probe_error {
    KS_PROBE_ERR_NONE = 0,           /* cudaGetDeviceCount succeeded */
    KS_PROBE_ERR_NO_DEVICE,          /* cudaErrorNoDevice */
    KS_PROBE_ERR_INSUFFICIENT_DRIVER,/* cudaErrorInsufficientDriver (also: no libcuda at all) */
    KS_PROBE_ERR_OTHER,
    KS_PROBE_ERR_NUM
} ks_cuda_probe_error;
typedef struct ks_cuda_probe_facts {
    int built_with_cuda;     /* 0 in a build without CUDA */
    int driver_loadable;     /* libcuda.so.1 could be opened */
    int driver_version;      /* cudaDriverGetVersion: 1000*major + 10*minor; 0 = no driver */
    int runtime_version;     /* cudaRuntimeGetVersion, same encoding */
    ks_cuda_probe_error error;
    const char *error_text;  /* cudaGetErrorString for KS_PROBE_ERR_OTHER, may be NULL */
    int device_count;
} ks_cuda_probe_facts;
/* One line, e.g. "no NVIDIA driver found", "no CUDA device found", or "the NVIDIA
 * driver supports CUDA 12.2 but this build needs CUDA 13.0 (driver >= 580)".
 * Returns buf. */
const char *ks_cuda_probe_reason(const ks_cuda_probe_facts *f, char *buf, size_t len);
/* The oldest Linux driver branch that runs a CUDA runtime of this version
 * (1000*major + 10*minor) through minor-version compatibility; 0 when unknown. */
int ks_cuda_min_driver(int runtime_version);

#ifdef __cplusplus
}
#endif
#endif
