/* A user's histogram kernel (histogram_user.h): its code loaded through
 * CUDA's library management (cudaLibraryLoadData: no link to the driver
 * library), launched by the contract's rule (histogram_contract.h): the grid
 * covers the bytes, kernelscope_bytes_per_thread a thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/cuda_check.h"
#include "histogram_contract.h"
#include "histogram_user_launch.h"

struct ks_hist_user {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    ks_hist_user_attrs attrs;
    char name[256];
};

/* The file's kernelscope_bytes_per_thread, or 1 without one. */
static ks_status read_bytes_per_thread(cudaLibrary_t lib, const char *name, int *p)
{
    *p = 1;
    void *dev = NULL;
    size_t bytes = 0;
    if (cudaLibraryGetGlobal(&dev, &bytes, lib, KS_HIST_USER_BYTES) != cudaSuccess) {
        cudaGetLastError(); /* not declared: one byte a thread */
        return KS_OK;
    }
    if (bytes != sizeof(int))
        return ks_fail(KS_ERR_INVALID, "%s: " KS_HIST_USER_BYTES " must be an int, not %zu bytes", name, bytes);
    KS_CUDA_TRY(cudaMemcpy(p, dev, bytes, cudaMemcpyDeviceToHost));
    if (*p < 1 || *p > KS_HIST_USER_BYTES_MAX)
        return ks_fail(KS_ERR_INVALID, "%s: " KS_HIST_USER_BYTES " is %d: 1 to %d", name, *p, KS_HIST_USER_BYTES_MAX);
    return KS_OK;
}

/* Loads the kernel into the current context now rather than at its first
 * launch (lazy loading would do it inside a timed chunk), through the
 * runtime's driver entry point, so the binary does not link the driver. */
static cudaError_t load_into_context(cudaKernel_t fn)
{
    typedef int (*kernel_get_function_fn)(void **function, cudaKernel_t kernel);
    void *entry = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuKernelGetFunction", &entry, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !entry) {
        cudaGetLastError();
        return cudaSuccess; /* an older driver: the first launch loads it */
    }
    void *function = NULL;
    return ((kernel_get_function_fn)entry)(&function, fn) == 0 ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

extern "C" ks_status ks_hist_user_load(const char *name, const void *code, size_t size, ks_hist_user **out)
{
    *out = NULL;
    if (!code || !size) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    ks_hist_user *u = (ks_hist_user *)calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    snprintf(u->name, sizeof u->name, "%s", name);
    cudaError_t e = cudaLibraryLoadData(&u->lib, code, NULL, NULL, 0, NULL, NULL, 0);
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&u->fn, u->lib, KS_HIST_USER_ENTRY);
    if (e == cudaSuccess) e = load_into_context(u->fn);
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, (const void *)u->fn);
    if (e != cudaSuccess) {
        const char *what = e == cudaErrorSymbolNotFound || e == cudaErrorSharedObjectSymbolNotFound
                               ? "it has no extern \"C\" __global__ void " KS_HIST_USER_ENTRY "(...)"
                               : cudaGetErrorString(e);
        cudaGetLastError(); /* not sticky: the context goes on */
        const ks_status st = ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: %s", name, what);
        ks_hist_user_destroy(u);
        return st;
    }
    u->attrs.registers = fa.numRegs;
    u->attrs.static_smem = (int)fa.sharedSizeBytes;
    u->attrs.max_threads = fa.maxThreadsPerBlock;
    const ks_status st = read_bytes_per_thread(u->lib, name, &u->attrs.bytes_per_thread);
    if (st != KS_OK) {
        ks_hist_user_destroy(u);
        return st;
    }
    *out = u;
    return KS_OK;
}

extern "C" void ks_hist_user_destroy(ks_hist_user *u)
{
    if (!u) return;
    if (u->lib && cudaLibraryUnload(u->lib) != cudaSuccess) cudaGetLastError(); /* a lost context: nothing to free */
    free(u);
}

extern "C" const char *ks_hist_user_name(const ks_hist_user *u) { return u ? u->name : ""; }

extern "C" void ks_hist_user_get_attrs(const ks_hist_user *u, ks_hist_user_attrs *out) { *out = u->attrs; }

/* The contract's grid for block bx over n bytes. */
static unsigned long long grid_of(const ks_hist_user *u, size_t n, int bx)
{
    const unsigned long long per = (unsigned long long)bx * u->attrs.bytes_per_thread;
    return ((unsigned long long)n + per - 1) / per;
}

extern "C" ks_status ks_hist_user_check_block(const ks_hist_user *u, size_t n, const int block[3])
{
    if (block[0] < 1 || block[1] != 1 || block[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s takes a 1-part block (BXx1), got %dx%dx%d", u->name, block[0], block[1],
                       block[2]);
    if (block[0] > u->attrs.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1 has %d threads; the compiled kernel takes at most %d", u->name,
                       block[0], block[0], u->attrs.max_threads);
    const unsigned long long grid = grid_of(u, n, block[0]);
    if (grid > 2147483647ull)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1 needs %llu blocks for %zu bytes (at most 2^31 - 1): a larger "
                       "block or more bytes a thread", u->name, block[0], grid, n);
    return KS_OK;
}

ks_status ks_hist_user_launch(const ks_hist_user *u, const int block[3], const unsigned char *data, size_t n,
                              unsigned *bins, cudaStream_t stream)
{
    if (!n) return KS_OK;
    KS_TRY(ks_hist_user_check_block(u, n, block));
    unsigned long long count = n;
    void *args[] = {(void *)&data, &count, (void *)&bins};
    KS_CUDA_TRY(cudaLaunchKernel((const void *)u->fn, dim3((unsigned)grid_of(u, n, block[0])), dim3(block[0]), args,
                                 0, stream));
    return KS_OK;
}
