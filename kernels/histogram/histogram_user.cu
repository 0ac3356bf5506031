/* A user's histogram kernel (histogram_user.h): its code loaded by
 * kernels/common/user_library.h (no link to the driver library), launched by the contract's rule (histogram_contract.h): the grid
 * covers the bytes, kernelscope_bytes_per_thread a thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/cuda_check.h"
#include "kernels/common/user_library.h"
#include "histogram_contract.h"
#include "histogram_user_launch.h"

struct ks_hist_user {
    ks_user_library mod;
    ks_hist_user_attrs attrs;
    char name[256];
};

/* The file's kernelscope_bytes_per_thread, or 1 without one. */
static ks_status read_bytes_per_thread(const ks_user_library *mod, const char *name, int *p)
{
    *p = 1;
    int found = 0;
    KS_TRY(ks_user_library_ints(mod, name, KS_HIST_USER_BYTES, 1, p, &found));
    if (found && (*p < 1 || *p > KS_HIST_USER_BYTES_MAX))
        return ks_fail(KS_ERR_INVALID, "%s: " KS_HIST_USER_BYTES " is %d: 1 to %d", name, *p, KS_HIST_USER_BYTES_MAX);
    return KS_OK;
}

extern "C" ks_status ks_hist_user_load(const char *name, const void *code, size_t size, ks_hist_user **out)
{
    *out = NULL;
    if (!code || !size) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    ks_hist_user *u = (ks_hist_user *)calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    snprintf(u->name, sizeof u->name, "%s", name);
    const ks_status loaded = ks_user_library_load(name, code, KS_HIST_USER_ENTRY, &u->mod);
    if (loaded != KS_OK) {
        ks_hist_user_destroy(u);
        return loaded;
    }
    u->attrs.registers = u->mod.registers;
    u->attrs.static_smem = u->mod.static_smem;
    u->attrs.max_threads = u->mod.max_threads;
    const ks_status st = read_bytes_per_thread(&u->mod, name, &u->attrs.bytes_per_thread);
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
    ks_user_library_unload(&u->mod);
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
    KS_CUDA_TRY(cudaLaunchKernel((const void *)u->mod.fn, dim3((unsigned)grid_of(u, n, block[0])), dim3(block[0]), args,
                                 0, stream));
    return KS_OK;
}
