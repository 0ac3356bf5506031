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
                                               "1 to %d", KS_HIST_DECL_ROLES, KS_HIST_DECL_GRIDS, NULL,
                                               ks_hist_decl_check};
    return ks_user_code_load(&contract, name, code, size, out);
}

/* A declared kernel over n bytes into the 256 bins, as its line says. */
static ks_status declared_launch(const ks_hist_user *u, const int block[3], const unsigned char *data, size_t n,
                                 unsigned *bins, cudaStream_t stream)
{
    ks_user_launch_1d l;
    KS_TRY(ks_user_code_launch_1d(u, block, (long long)n, "bytes", &l));
    const ks_user_arg args[] = {{"data", &data}, {"bins", &bins}};
    return ks_user_code_launch_declared(u, &l, args, 2, (long long)n, stream);
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
    ks_user_launch_1d l;
    if (ks_user_code_declaration(u)) return ks_user_code_launch_1d(u, block, (long long)n, "bytes", &l);
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
    if (ks_user_code_declaration(u)) return declared_launch(u, block, data, n, bins, stream);
    KS_TRY(ks_hist_user_check_block(u, n, block));
    unsigned long long count = n;
    void *args[] = {(void *)&data, &count, (void *)&bins};
    KS_CUDA_TRY(cudaLaunchKernel(ks_user_code_function(u), dim3((unsigned)grid_of(u, n, block[0])), dim3(block[0]), args,
                                 0, stream));
    return KS_OK;
}
