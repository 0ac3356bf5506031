/* CUDA-only: wraps a runtime call so a failure becomes a ks_status with the
 * call text, CUDA's error string, file and line. Never include from app/ or render/. */
#ifndef KS_CUDA_CHECK_H
#define KS_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "ks_error.h"

/* A call of a library that returns a status of type `type` (success: ok):
 * on failure, returns KS_ERR_CUDA with the call's text (`text`, its #call),
 * words for the status (to_text) and the place. One body for the CUDA
 * runtime, cuBLAS and nvJPEG. */
#define KS_STATUS_TRY(type, ok, to_text, call, text)                                               \
    do {                                                                                           \
        const type ks_try_st_ = (call);                                                            \
        if (ks_try_st_ != (ok))                                                                    \
            return ks_fail_call(KS_ERR_CUDA, text, to_text(ks_try_st_), __FILE__, __LINE__);       \
    } while (0)

#define KS_CUDA_TRY(call) KS_STATUS_TRY(cudaError_t, cudaSuccess, cudaGetErrorString, call, #call)

/* After a launch: catches bad configurations at once (asynchronous faults
 * surface at the next synchronising call). */
#define KS_CUDA_TRY_LAUNCH(what) KS_CUDA_TRY(cudaPeekAtLastError())

/* How long a wait for the GPU may take before the app calls it stalled. */
#define KS_GPU_STALL_S 20.0

/* cudaEventSynchronize / cudaStreamSynchronize that give up after
 * KS_GPU_STALL_S with one line saying the GPU stopped answering, instead of
 * waiting forever: after a fault of another program (a user's kernel in the
 * checker process), some GPUs stop switching between contexts, and the
 * app's work never finishes. what names the wait. (cuda_device.cu) */
#ifdef __cplusplus
extern "C" {
#endif
ks_status ks_cuda_wait_event(cudaEvent_t event, const char *what);
ks_status ks_cuda_wait_stream(cudaStream_t stream, const char *what);
#ifdef __cplusplus
}
#endif

#endif
