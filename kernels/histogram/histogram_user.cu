/* A user's histogram kernel (histogram_user.h): its code loaded by
 * kernels/user/user_code.h, launched by the contract's rule
 * (histogram_contract.h): the grid covers the bytes, kernelscope_bytes_per_thread a thread;
 * or as the file's declaration says (kernel_decl.h: its arguments' order, a grid covering the
 * bytes or N blocks a multiprocessor, its block and dynamic shared memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"
#include "histogram_contract.h"
#include "histogram_launch.h"

extern "C" ks_status ks_hist_user_load(const char *name, const void *code, size_t size, ks_hist_user **out)
{
    /* the contract, or the file's declaration (ks_hist_decl_check) */
    static const ks_user_code_desc contract = {KS_HIST_USER_ENTRY, KS_HIST_USER_BYTES, 1, {KS_HIST_USER_BYTES_MAX, 1, 1},
                                               "1 to %d", KS_HIST_DECL_ROLES, KS_HIST_DECL_GRIDS, NULL};
    KS_TRY(ks_user_code_load(&contract, name, code, size, out));
    const ks_kdecl *d = ks_user_code_declaration(*out);
    const ks_status st = d ? ks_hist_decl_check(d, name) : KS_OK;
    if (st != KS_OK) {
        ks_user_code_destroy(*out);
        *out = NULL;
    }
    return st;
}

/* ---- a declared kernel's launch (kernel_decl.h): its block, grid, shared memory and arguments ---- */

typedef struct declared_shape {
    int threads;
    size_t shared;
    unsigned long long grid;
} declared_shape;

static ks_status declared_check(const ks_hist_user *u, const ks_kdecl *d, size_t n, const int block[3],
                                declared_shape *out)
{
    const char *name = ks_user_code_name(u);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    int b[3];
    ks_kdecl_block(d, block, b);
    if (b[1] != 1 || b[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s takes a 1-part block (BXx1), got %dx%dx%d", name, b[0], b[1], b[2]);
    if (b[0] < 1 || b[0] > a.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: its block %d: the compiled kernel takes 1 to %d threads", name, b[0],
                       a.max_threads);
    out->threads = b[0];
    out->shared = ks_kdecl_shared(d, b[0]);
    int dev = 0, optin = 0, sms = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (out->shared + (size_t)a.static_smem > (size_t)optin)
        return ks_fail(KS_ERR_INVALID, "%s: %zu bytes of dynamic shared memory a block (and %d static): this GPU has "
                       "at most %d", name, out->shared, a.static_smem, optin);
    const int at = ks_kdecl_arg_index(d, "n");
    if (at >= 0 && ks_kdecl_arg_bytes(&d->args[at]) == 4 && n > 2147483647u)
        return ks_fail(KS_ERR_INVALID, "%s: its n is an int, and %zu bytes do not fit one", name, n);
    const long long per_sm = d->value[KS_KDECL_V_SM] > 0 ? d->value[KS_KDECL_V_SM] : 0;
    if (d->grid == KS_KDECL_GRID_SM) out->grid = (unsigned long long)per_sm * (unsigned long long)sms;
    else out->grid = ((unsigned long long)n + (unsigned)b[0] - 1) / (unsigned)b[0];
    if (out->grid < 1 || out->grid > 2147483647ull)
        return ks_fail(KS_ERR_INVALID, "%s: its grid of %llu blocks over %zu bytes (1 to 2^31 - 1)", name, out->grid, n);
    return KS_OK;
}

static ks_status declared_launch(const ks_hist_user *u, const ks_kdecl *d, const int block[3],
                                 const unsigned char *data, size_t n, unsigned *bins, cudaStream_t stream)
{
    declared_shape sh;
    KS_TRY(declared_check(u, d, n, block, &sh));
    const void *fn = ks_user_code_function(u);
    if (sh.shared > 48 * 1024)
        KS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh.shared));
    int n4 = (int)n;
    long long n8 = (long long)n;
    void *args[KS_KDECL_ARGS_MAX];
    for (int a = 0; a < d->nargs; ++a) {
        const char *role = d->args[a].role;
        if (!strcmp(role, "data")) args[a] = (void *)&data;
        else if (!strcmp(role, "bins")) args[a] = (void *)&bins;
        else args[a] = ks_kdecl_arg_bytes(&d->args[a]) == 8 ? (void *)&n8 : (void *)&n4;
    }
    KS_CUDA_TRY(cudaLaunchKernel(fn, dim3((unsigned)sh.grid), dim3((unsigned)sh.threads), args, sh.shared, stream));
    return KS_OK;
}

/* The contract's grid for block bx over n bytes. */
static unsigned long long grid_of(const ks_hist_user *u, size_t n, int bx)
{
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    const unsigned long long per = (unsigned long long)bx * a.per_thread[0];
    return ((unsigned long long)n + per - 1) / per;
}

extern "C" ks_status ks_hist_user_check_block(const ks_hist_user *u, size_t n, const int block[3])
{
    const ks_kdecl *d = ks_user_code_declaration(u);
    declared_shape sh;
    if (d) return declared_check(u, d, n, block, &sh);
    const char *name = ks_user_code_name(u);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    if (block[0] < 1 || block[1] != 1 || block[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s takes a 1-part block (BXx1), got %dx%dx%d", name, block[0], block[1],
                       block[2]);
    if (block[0] > a.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1 has %d threads; the compiled kernel takes at most %d", name,
                       block[0], block[0], a.max_threads);
    const unsigned long long grid = grid_of(u, n, block[0]);
    if (grid > 2147483647ull)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1 needs %llu blocks for %zu bytes (at most 2^31 - 1): a larger "
                       "block or more bytes a thread", name, block[0], grid, n);
    return KS_OK;
}

ks_status ks_hist_user_launch(const ks_hist_user *u, const int block[3], const unsigned char *data, size_t n,
                              unsigned *bins, cudaStream_t stream)
{
    if (!n) return KS_OK;
    const ks_kdecl *d = ks_user_code_declaration(u);
    if (d) return declared_launch(u, d, block, data, n, bins, stream);
    KS_TRY(ks_hist_user_check_block(u, n, block));
    unsigned long long count = n;
    void *args[] = {(void *)&data, &count, (void *)&bins};
    KS_CUDA_TRY(cudaLaunchKernel(ks_user_code_function(u), dim3((unsigned)grid_of(u, n, block[0])), dim3(block[0]), args,
                                 0, stream));
    return KS_OK;
}
