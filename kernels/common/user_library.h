/* A user's compiled kernel (--kernel-file) loaded into the current context:
 * the steps every scene's loader shares. CUDA builds only (.cu callers). */
#ifndef KS_USER_LIBRARY_H
#define KS_USER_LIBRARY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_user_library {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    int registers, static_smem, max_threads; /* the loaded function's attributes */
} ks_user_library;

/* Loads code (CUBIN or PTX) and its extern "C" function `entry`, made
 * resident now rather than at its first launch (lazy loading would load it
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

#ifdef __cplusplus
}
#endif
#endif
