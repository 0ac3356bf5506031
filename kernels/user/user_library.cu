/* A user's compiled kernel loaded through CUDA's library management
 * (cudaLibraryLoadData, the runtime's face of the driver's cuLibrary), so the
 * binary links no driver library (user_library.h). */
#include "user_library.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"

/* Loads fn into the current context now (cuKernelGetFunction, reached through
 * the runtime's driver entry point). An older driver lacks it: the first
 * launch loads the kernel then, as it would anyway. */
static cudaError_t load_into_context(cudaKernel_t fn)
{
    typedef int (*kernel_get_function_fn)(void **function, cudaKernel_t kernel);
    void *entry = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuKernelGetFunction", &entry, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !entry) {
        cudaGetLastError();
        return cudaSuccess;
    }
    void *function = NULL;
    return ((kernel_get_function_fn)entry)(&function, fn) == 0 ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

/* A C++ function's mangled name for entry at namespace scope: _Z, the name's
 * length, the name, then its parameter types (never a digit). */
static int mangled_as(const char *mangled, const char *entry)
{
    char head[300];
    const size_t n = strlen(entry);
    if (n + 8 > sizeof head) return 0;
    snprintf(head, sizeof head, "_Z%zu%s", n, entry);
    const size_t h = strlen(head);
    return strncmp(mangled, head, h) == 0 && mangled[h] && (mangled[h] < '0' || mangled[h] > '9');
}

/* The library's one C++ __global__ function named entry (mangled); 0 when it
 * has none, 2 when it has several (overloads). */
static int find_mangled(cudaLibrary_t lib, const char *entry, cudaKernel_t *out)
{
#if CUDART_VERSION >= 12040
    unsigned count = 0;
    if (cudaLibraryGetKernelCount(&count, lib) != cudaSuccess || count == 0 || count > 4096) {
        cudaGetLastError();
        return 0;
    }
    cudaKernel_t *all = (cudaKernel_t *)calloc(count, sizeof *all);
    if (!all || cudaLibraryEnumerateKernels(all, count, lib) != cudaSuccess) {
        cudaGetLastError();
        free(all);
        return 0;
    }
    int found = 0;
    for (unsigned k = 0; k < count; ++k) {
        const char *name = NULL;
        if (cudaFuncGetName(&name, (const void *)all[k]) != cudaSuccess || !name) {
            cudaGetLastError();
            continue;
        }
        if (mangled_as(name, entry) && found++ == 0) *out = all[k];
    }
    free(all);
    return found > 1 ? 2 : found;
#else
    (void)lib, (void)entry, (void)out;
    return 0;
#endif
}

/* The parameters' sizes, as the loaded function says (-1: not known here). */
static void read_params(ks_user_library *l)
{
    l->params = -1;
#if CUDART_VERSION >= 12040
    int n = 0;
    for (; n < KS_USER_PARAMS_MAX; ++n) {
        size_t offset = 0, size = 0;
        if (cudaFuncGetParamInfo((const void *)l->fn, (size_t)n, &offset, &size) != cudaSuccess) break;
        l->param_size[n] = (int)size;
    }
    const cudaError_t e = cudaGetLastError(); /* past the last: cudaErrorInvalidValue */
    l->params = e == cudaSuccess || e == cudaErrorInvalidValue ? n : -1;
#endif
}

extern "C" ks_status ks_user_library_load(const char *name, const void *code, const char *entry, ks_user_library *out)
{
    memset(out, 0, sizeof *out);
    if (!code) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    cudaError_t e = cudaLibraryLoadData(&out->lib, code, NULL, NULL, 0, NULL, NULL, 0);
    int overloads = 0;
    if (e == cudaSuccess) {
        e = cudaLibraryGetKernel(&out->fn, out->lib, entry);
        if (e == cudaErrorSymbolNotFound || e == cudaErrorSharedObjectSymbolNotFound) {
            cudaGetLastError();
            const int found = find_mangled(out->lib, entry, &out->fn);
            if (found == 1) e = cudaSuccess;
            overloads = found == 2;
        }
    }
    if (e == cudaSuccess) e = load_into_context(out->fn);
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, (const void *)out->fn);
    if (e != cudaSuccess) {
        const int missing = e == cudaErrorSymbolNotFound || e == cudaErrorSharedObjectSymbolNotFound;
        const char *what = cudaGetErrorString(e);
        cudaGetLastError(); /* not sticky: the context goes on */
        ks_user_library_unload(out);
        if (overloads)
            return ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: it has several __global__ functions named %s "
                           "(overloads): keep one", name, entry);
        if (missing)
            return ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: it has no __global__ void %s(...)", name, entry);
        return ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: %s", name, what);
    }
    out->registers = fa.numRegs;
    out->static_smem = (int)fa.sharedSizeBytes;
    out->max_threads = fa.maxThreadsPerBlock;
    read_params(out);
    return KS_OK;
}

extern "C" void ks_user_library_unload(ks_user_library *l)
{
    if (l && l->lib && cudaLibraryUnload(l->lib) != cudaSuccess) cudaGetLastError(); /* a lost context: nothing to free */
    if (l) memset(l, 0, sizeof *l);
}

extern "C" ks_status ks_user_library_ints(const ks_user_library *l, const char *name, const char *symbol, int count,
                                          int *out, int *found)
{
    *found = 0;
    void *dev = NULL;
    size_t bytes = 0;
    if (cudaLibraryGetGlobal(&dev, &bytes, l->lib, symbol) != cudaSuccess) {
        cudaGetLastError(); /* not declared */
        return KS_OK;
    }
    if (bytes != (size_t)count * sizeof(int)) {
        if (count == 1) return ks_fail(KS_ERR_INVALID, "%s: %s must be an int, not %zu bytes", name, symbol, bytes);
        return ks_fail(KS_ERR_INVALID, "%s: %s must be an int[%d], not %zu bytes", name, symbol, count, bytes);
    }
    KS_CUDA_TRY(cudaMemcpy(out, dev, bytes, cudaMemcpyDeviceToHost));
    *found = 1;
    return KS_OK;
}

extern "C" int ks_user_library_global(const ks_user_library *l, const char *symbol, void **dev, size_t *bytes)
{
    *dev = NULL;
    *bytes = 0;
    if (!l->lib || cudaLibraryGetGlobal(dev, bytes, l->lib, symbol) != cudaSuccess) {
        cudaGetLastError(); /* not declared */
        *dev = NULL;
        *bytes = 0;
        return 0;
    }
    return 1;
}
