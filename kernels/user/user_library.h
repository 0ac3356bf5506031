/* A user's compiled kernel (--kernel-file) loaded into the current context:
 * the steps every scene's loader shares. CUDA builds only (.cu callers). */
#ifndef KS_USER_LIBRARY_H
#define KS_USER_LIBRARY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_USER_PARAMS_MAX = 16 };

typedef struct ks_user_library {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    int registers, static_smem, max_threads; /* the loaded function's attributes */
    /* Its parameters' sizes in bytes, as the code says (cudaFuncGetParamInfo);
       params -1 where this runtime or driver cannot tell. */
    int params;
    int param_size[KS_USER_PARAMS_MAX];
} ks_user_library;

/* Loads code (CUBIN or PTX) and its function `entry`: extern "C", or a C++
 * __global__ function of that name at namespace scope (its mangled name
 * _Z<length><entry>..., the one such function in the code), made resident now rather than at its first launch (lazy loading would load it
 * in the middle of a frame or a timed run). KS_ERR_CUDA with one line
 * "name: loading the kernel failed: ..." (no such function, a bad image);
 * the context goes on. */
ks_status ks_user_library_load(const char *name, const void *code, const char *entry, ks_user_library *out);
/* Unloads it (NULL or never loaded: nothing). */
void ks_user_library_unload(ks_user_library *l);
/* The file's optional global int[count] `symbol` (a tuning constant such as
 * kernelscope_points_per_thread) into out: *found 0 and out untouched when it
 * is not declared; KS_ERR_INVALID with one line when it has another size. */
ks_status ks_user_library_ints(const ks_user_library *l, const char *name, const char *symbol, int count, int *out,
                               int *found);
/* The device address and size of the file's global `symbol` (a __device__ or
 * __constant__ variable at namespace scope, whose name C++ does not mangle):
 * 1, or 0 when it is not declared (*dev NULL, *bytes 0). */
int ks_user_library_global(const ks_user_library *l, const char *symbol, void **dev, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
