/* A user's compiled kernel loaded through CUDA's library management
 * (cudaLibraryLoadData, the runtime's face of the driver's cuLibrary), so the
 * binary links no driver library (user_library.h). */
#include "user_library.h"

#include <string.h>

#include "cuda_check.h"

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

extern "C" ks_status ks_user_library_load(const char *name, const void *code, const char *entry, ks_user_library *out)
{
    memset(out, 0, sizeof *out);
    if (!code) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    cudaError_t e = cudaLibraryLoadData(&out->lib, code, NULL, NULL, 0, NULL, NULL, 0);
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&out->fn, out->lib, entry);
    if (e == cudaSuccess) e = load_into_context(out->fn);
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, (const void *)out->fn);
    if (e != cudaSuccess) {
        const int missing = e == cudaErrorSymbolNotFound || e == cudaErrorSharedObjectSymbolNotFound;
        const char *what = cudaGetErrorString(e);
        cudaGetLastError(); /* not sticky: the context goes on */
        ks_user_library_unload(out);
        if (missing)
            return ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: it has no extern \"C\" __global__ void %s(...)",
                           name, entry);
        return ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: %s", name, what);
    }
    out->registers = fa.numRegs;
    out->static_smem = (int)fa.sharedSizeBytes;
    out->max_threads = fa.maxThreadsPerBlock;
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
