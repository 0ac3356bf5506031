/* CUDA-only: wraps a runtime call so a failure becomes a ks_status with the
 * call text, CUDA's error string, file and line. Never include from app/ or render/. */
#ifndef KS_CUDA_CHECK_H
#define KS_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "ks_error.h"

#define KS_CUDA_TRY(call)                                                                          \
    do {                                                                                           \
        cudaError_t ks_cuda_err_ = (call);                                                         \
        if (ks_cuda_err_ != cudaSuccess)                                                           \
            return ks_fail(KS_ERR_CUDA, "%s failed: %s (%s:%d)", #call,                            \
                           cudaGetErrorString(ks_cuda_err_), __FILE__, __LINE__);                  \
    } while (0)

/* After a launch: catches bad configurations at once (asynchronous faults
 * surface at the next synchronising call). */
#define KS_CUDA_TRY_LAUNCH(what) KS_CUDA_TRY(cudaPeekAtLastError())

#endif
