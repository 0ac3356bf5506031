/* A user's matmul kernel (matmul_user.h): its code loaded by
 * kernels/user/user_code.h, launched by the contract's rule (matmul_contract.h): the grid covers C, px x py
 * elements a thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"
#include "base/ks_util.h"
#include "matmul_contract.h"
#include "matmul_launch.h"

extern "C" ks_status ks_matmul_user_load(const char *name, const void *code, size_t size, ks_matmul_user **out)
{
    static const ks_user_code_desc contract = {
        KS_MATMUL_USER_ENTRY, KS_MATMUL_USER_POINTS, 3,
        {KS_MATMUL_USER_POINTS_MAX, KS_MATMUL_USER_POINTS_MAX, 1}, "the first two 1 to %d, the third 1", NULL, 0, NULL, NULL};
    return ks_user_code_load(&contract, name, code, size, out);
}

/* The contract's grid for block b over C of size s. */
static void grid_of(const ks_matmul_user *u, const ks_matmul_size *s, const int b[3], long long grid[2])
{
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    const int *p = a.per_thread;
    const long long cx = (long long)b[0] * p[0], cy = (long long)b[1] * p[1];
    grid[0] = (s->n + cx - 1) / cx;
    grid[1] = (s->m + cy - 1) / cy;
}

extern "C" ks_status ks_matmul_user_check_block(const ks_matmul_user *u, const ks_matmul_size *s, const int block[3])
{
    const char *name = ks_user_code_name(u);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    const long long threads = (long long)block[0] * block[1] * block[2];
    if (block[0] < 1 || block[1] < 1 || block[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s takes a 2-part block (BXxBY), got %dx%dx%d", name, block[0], block[1],
                       block[2]);
    if (threads > a.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d has %lld threads; the compiled kernel takes at most %d", name,
                       block[0], block[1], threads, a.max_threads);
    long long grid[2];
    grid_of(u, s, block, grid);
    if (grid[1] > 65535)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d needs %lld blocks down C (at most 65535): a taller block",
                       name, block[0], block[1], grid[1]);
    if (grid[0] > 2147483647LL)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d needs %lld blocks across C", name, block[0], block[1], grid[0]);
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
    KS_CUDA_TRY(cudaLaunchKernel(ks_user_code_function(u), dim3((unsigned)grid[0], (unsigned)grid[1]),
                                 dim3(block[0], block[1]), args, 0, stream));
    return KS_OK;
}
