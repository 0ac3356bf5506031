/* A user's matmul kernel (matmul_user.h): its code loaded through CUDA's
 * library management (cudaLibraryLoadData, the runtime's face of the driver's
 * cuLibrary: no link to the driver library), launched by the contract's rule
 * (matmul_contract.h): the grid covers C, px x py elements a thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/cuda_check.h"
#include "kernels/common/ks_util.h"
#include "matmul_contract.h"
#include "matmul_user_launch.h"

struct ks_matmul_user {
    cudaLibrary_t lib;
    cudaKernel_t fn;
    ks_matmul_user_attrs attrs;
    char name[256];
};

/* The file's kernelscope_points_per_thread, or 1 1 1 without one. */
static ks_status read_points(cudaLibrary_t lib, const char *name, int points[3])
{
    points[0] = points[1] = points[2] = 1;
    void *dev = NULL;
    size_t bytes = 0;
    if (cudaLibraryGetGlobal(&dev, &bytes, lib, KS_MATMUL_USER_POINTS) != cudaSuccess) {
        cudaGetLastError(); /* not declared: one element a thread */
        return KS_OK;
    }
    if (bytes != 3 * sizeof(int))
        return ks_fail(KS_ERR_INVALID, "%s: " KS_MATMUL_USER_POINTS " must be an int[3], not %zu bytes", name, bytes);
    KS_CUDA_TRY(cudaMemcpy(points, dev, bytes, cudaMemcpyDeviceToHost));
    for (int a = 0; a < 3; ++a)
        if (points[a] < 1 || points[a] > KS_MATMUL_USER_POINTS_MAX || (a == 2 && points[a] != 1))
            return ks_fail(KS_ERR_INVALID, "%s: " KS_MATMUL_USER_POINTS " is {%d, %d, %d}: the first two 1 to %d, the third 1",
                           name, points[0], points[1], points[2], KS_MATMUL_USER_POINTS_MAX);
    return KS_OK;
}

/* Loads the kernel into the current context now rather than at its first
 * launch (lazy loading would do it in the middle of a timed frame), through
 * the runtime's driver entry point, so the binary does not link the driver. */
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

extern "C" ks_status ks_matmul_user_load(const char *name, const void *code, size_t size, ks_matmul_user **out)
{
    *out = NULL;
    if (!code || !size) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    ks_matmul_user *u = (ks_matmul_user *)calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    snprintf(u->name, sizeof u->name, "%s", name);
    cudaError_t e = cudaLibraryLoadData(&u->lib, code, NULL, NULL, 0, NULL, NULL, 0);
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&u->fn, u->lib, KS_MATMUL_USER_ENTRY);
    if (e == cudaSuccess) e = load_into_context(u->fn);
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, (const void *)u->fn);
    if (e != cudaSuccess) {
        const char *what = e == cudaErrorSymbolNotFound || e == cudaErrorSharedObjectSymbolNotFound
                               ? "it has no extern \"C\" __global__ void " KS_MATMUL_USER_ENTRY "(...)"
                               : cudaGetErrorString(e);
        cudaGetLastError(); /* not sticky: the context goes on */
        const ks_status st = ks_fail(KS_ERR_CUDA, "%s: loading the kernel failed: %s", name, what);
        ks_matmul_user_destroy(u);
        return st;
    }
    u->attrs.registers = fa.numRegs;
    u->attrs.static_smem = (int)fa.sharedSizeBytes;
    u->attrs.max_threads = fa.maxThreadsPerBlock;
    const ks_status st = read_points(u->lib, name, u->attrs.points);
    if (st != KS_OK) {
        ks_matmul_user_destroy(u);
        return st;
    }
    *out = u;
    return KS_OK;
}

extern "C" void ks_matmul_user_destroy(ks_matmul_user *u)
{
    if (!u) return;
    if (u->lib && cudaLibraryUnload(u->lib) != cudaSuccess) cudaGetLastError(); /* a lost context: nothing to free */
    free(u);
}

extern "C" const char *ks_matmul_user_name(const ks_matmul_user *u) { return u ? u->name : ""; }

extern "C" void ks_matmul_user_get_attrs(const ks_matmul_user *u, ks_matmul_user_attrs *out) { *out = u->attrs; }

/* The contract's grid for block b over C of size s. */
static void grid_of(const ks_matmul_user *u, const ks_matmul_size *s, const int b[3], long long grid[2])
{
    const int *p = u->attrs.points;
    const long long cx = (long long)b[0] * p[0], cy = (long long)b[1] * p[1];
    grid[0] = (s->n + cx - 1) / cx;
    grid[1] = (s->m + cy - 1) / cy;
}

extern "C" ks_status ks_matmul_user_check_block(const ks_matmul_user *u, const ks_matmul_size *s, const int block[3])
{
    const long long threads = (long long)block[0] * block[1] * block[2];
    if (block[0] < 1 || block[1] < 1 || block[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s takes a 2-part block (BXxBY), got %dx%dx%d", u->name, block[0], block[1],
                       block[2]);
    if (threads > u->attrs.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d has %lld threads; the compiled kernel takes at most %d", u->name,
                       block[0], block[1], threads, u->attrs.max_threads);
    long long grid[2];
    grid_of(u, s, block, grid);
    if (grid[1] > 65535)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d needs %lld blocks down C (at most 65535): a taller block",
                       u->name, block[0], block[1], grid[1]);
    if (grid[0] > 2147483647LL)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d needs %lld blocks across C", u->name, block[0], block[1], grid[0]);
    return KS_OK;
}

ks_status ks_matmul_user_launch(const ks_matmul_user *u, const int block[3], const float *A, const float *B,
                                float *C, const ks_matmul_size *s, cudaStream_t stream)
{
    KS_TRY(ks_matmul_user_check_block(u, s, block));
    long long grid[2];
    grid_of(u, s, block, grid);
    int M = s->m, N = s->n, K = s->k;
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, &M, &N, &K};
    KS_CUDA_TRY(cudaLaunchKernel((const void *)u->fn, dim3((unsigned)grid[0], (unsigned)grid[1]),
                                 dim3(block[0], block[1]), args, 0, stream));
    return KS_OK;
}
