/* A user's matmul kernel (matmul_user.h): its code loaded by
 * kernels/common/user_library.h (no link to the driver library), launched by
 * the contract's rule (matmul_contract.h): the grid covers C, px x py
 * elements a thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/cuda_check.h"
#include "kernels/common/ks_util.h"
#include "kernels/common/user_library.h"
#include "matmul_contract.h"
#include "matmul_user_launch.h"

struct ks_matmul_user {
    ks_user_library mod;
    ks_matmul_user_attrs attrs;
    char name[256];
};

/* The file's kernelscope_points_per_thread, or 1 1 1 without one. */
static ks_status read_points(const ks_user_library *mod, const char *name, int points[3])
{
    points[0] = points[1] = points[2] = 1;
    int found = 0;
    KS_TRY(ks_user_library_ints(mod, name, KS_MATMUL_USER_POINTS, 3, points, &found));
    for (int a = 0; found && a < 3; ++a)
        if (points[a] < 1 || points[a] > KS_MATMUL_USER_POINTS_MAX || (a == 2 && points[a] != 1))
            return ks_fail(KS_ERR_INVALID, "%s: " KS_MATMUL_USER_POINTS " is {%d, %d, %d}: the first two 1 to %d, the third 1",
                           name, points[0], points[1], points[2], KS_MATMUL_USER_POINTS_MAX);
    return KS_OK;
}

extern "C" ks_status ks_matmul_user_load(const char *name, const void *code, size_t size, ks_matmul_user **out)
{
    *out = NULL;
    if (!code || !size) return ks_fail(KS_ERR_INVALID, "%s: no code to load", name);
    ks_matmul_user *u = (ks_matmul_user *)calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    snprintf(u->name, sizeof u->name, "%s", name);
    const ks_status loaded = ks_user_library_load(name, code, KS_MATMUL_USER_ENTRY, &u->mod);
    if (loaded != KS_OK) {
        ks_matmul_user_destroy(u);
        return loaded;
    }
    u->attrs.registers = u->mod.registers;
    u->attrs.static_smem = u->mod.static_smem;
    u->attrs.max_threads = u->mod.max_threads;
    const ks_status st = read_points(&u->mod, name, u->attrs.points);
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
    ks_user_library_unload(&u->mod);
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
    KS_CUDA_TRY(cudaLaunchKernel((const void *)u->mod.fn, dim3((unsigned)grid[0], (unsigned)grid[1]),
                                 dim3(block[0], block[1]), args, 0, stream));
    return KS_OK;
}
