/* A user's kernel as a Laplace variant (laplace.h, ks_luser_*): its code
 * loaded by kernels/common/user_code.h (no link to the driver library, so
 * the binary still starts without one), launched by the contract's rule
 * (laplace_contract.h): the grid covers the interior, one point per thread. */
#include <string.h>

#include "kernels/common/user_code.h"
#include "laplace_launch.h"
#include "laplace_user.h"

typedef struct ks_luser_code {
    ks_user_code *code;     /* the file's code; its per_thread: kernelscope_points_per_thread (1 1 1 without it) */
    long long generation;
} ks_luser_code;

enum { KS_LUSER_POINTS_MAX = 256 };

static ks_luser_code ks_luser_codes[KS_LUSER_MAX]; /* beside the rows (laplace_variants.c) */

static ks_luser_code *code_of(int id)
{
    return ks_lvariant_is_user(id) ? &ks_luser_codes[id - ks_lvariant_builtin_count()] : NULL;
}

ks_status ks_luser_load(int id, const void *code, size_t size)
{
    ks_luser_code *c = code_of(id);
    if (!c || !code || !size) return ks_fail(KS_ERR_INVALID, "no user kernel %d, or no code to load", id);
    const ks_lvariant_info *info = ks_lvariant_get(id);
    /* the contract (laplace_contract.h): jacobi, and points a thread, the third 1 in 2D */
    static const ks_user_code_desc contract3 = {"jacobi", "kernelscope_points_per_thread", 3,
                                                {KS_LUSER_POINTS_MAX, KS_LUSER_POINTS_MAX, KS_LUSER_POINTS_MAX},
                                                "each must be 1 to %d"};
    static const ks_user_code_desc contract2 = {"jacobi", "kernelscope_points_per_thread", 3,
                                                {KS_LUSER_POINTS_MAX, KS_LUSER_POINTS_MAX, 1},
                                                "each must be 1 to %d, the third 1 in 2D"};
    ks_user_code *loaded = NULL;
    KS_TRY(ks_user_code_load(info->dims == 2 ? &contract2 : &contract3, info->name, code, size, &loaded));
    ks_user_code_destroy(c->code); /* the caller has drained every stream that used it */
    c->code = loaded;
    ++c->generation;
    return KS_OK;
}

int ks_luser_ready(int id)
{
    const ks_luser_code *c = code_of(id);
    return c && c->code;
}

long long ks_luser_generation(int id)
{
    const ks_luser_code *c = code_of(id);
    return c ? c->generation : 0;
}

/* The contract's launch: block as given, grid over the interior. */
static ks_status user_launch(const ks_lsweep *sw, int slot)
{
    const int id = ks_lvariant_builtin_count() + slot;
    const ks_lvariant_info *info = ks_lvariant_get(id);
    const ks_luser_code *c = code_of(id);
    if (!info || !c) return ks_fail(KS_ERR_INVALID, "no user kernel %d", id);
    if (!c->code) return ks_fail(KS_ERR_INVALID, "%s has no compiled code yet", info->name);
    const void *fn = ks_user_code_function(c->code);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(c->code, &a);
    const int *b = sw->block;
    const ks_grid *g = sw->grid;
    if (info->dims == 2) KS_TRY(ks_lneed_2d_block(sw, info->name));
    KS_TRY(ks_lcheck_kernel(sw, fn, info->name, b[0] * b[1] * b[2], 0));
    const dim3 block(b[0], b[1], b[2]);
    const int *p = a.per_thread; /* the file's points a thread */
    const dim3 grid(ks_fdiv_up(g->nx - 2, (long long)b[0] * p[0]), ks_fdiv_up(g->ny - 2, (long long)b[1] * p[1]),
                    g->dims == 3 ? ks_fdiv_up(g->nz - 2, (long long)b[2] * p[2]) : 1);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, grid.y));
    KS_TRY(ks_lcheck_grid_dim(sw, 2, grid.z));
    if (sw->dry_run) return KS_OK;
    const float *u = sw->in;
    float *v = sw->out;
    int nx = g->nx, ny = g->ny, nz = g->nz;
    void *args[] = {(void *)&u, (void *)&v, &nx, &ny, &nz}; /* 2D: nz is not read */
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, 0, sw->stream));
    return KS_OK;
}

#define KS_LUSER_LAUNCHER(n) \
    static ks_status user_launch_##n(const ks_lsweep *sw) { return user_launch(sw, n); }
KS_LUSER_LAUNCHER(0)
KS_LUSER_LAUNCHER(1)
KS_LUSER_LAUNCHER(2)
KS_LUSER_LAUNCHER(3)
KS_LUSER_LAUNCHER(4)
KS_LUSER_LAUNCHER(5)
KS_LUSER_LAUNCHER(6)
KS_LUSER_LAUNCHER(7)
#undef KS_LUSER_LAUNCHER

ks_llaunch_fn ks_luser_launcher(int id)
{
    static const ks_llaunch_fn fns[KS_LUSER_MAX] = {user_launch_0, user_launch_1, user_launch_2, user_launch_3,
                                                    user_launch_4, user_launch_5, user_launch_6, user_launch_7};
    return ks_lvariant_is_user(id) ? fns[id - ks_lvariant_builtin_count()] : NULL;
}
