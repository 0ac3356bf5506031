/* A user's kernel as a Laplace variant (laplace.h, ks_luser_*): its code
 * loaded by kernels/common/user_library.h (no link to the driver library, so
 * the binary still starts without one), launched by the contract's rule
 * (laplace_contract.h): the grid covers the interior, one point per thread. */
#include <string.h>

#include "kernels/common/user_library.h"
#include "laplace_launch.h"
#include "laplace_user.h"

typedef struct ks_luser_code {
    ks_user_library mod;
    int points[3];      /* points a thread (kernelscope_points_per_thread; 1 1 1 without it) */
    long long generation;
} ks_luser_code;

#define KS_LUSER_POINTS_SYMBOL "kernelscope_points_per_thread"
enum { KS_LUSER_POINTS_MAX = 256 };

/* The file's kernelscope_points_per_thread (laplace_contract.h), or 1 1 1
 * without one; an error for the wrong size or a value out of range. */
static ks_status read_points(const ks_user_library *mod, int dims, const char *name, int points[3])
{
    points[0] = points[1] = points[2] = 1;
    int found = 0;
    KS_TRY(ks_user_library_ints(mod, name, KS_LUSER_POINTS_SYMBOL, 3, points, &found));
    for (int a = 0; found && a < 3; ++a)
        if (points[a] < 1 || points[a] > KS_LUSER_POINTS_MAX || (a == 2 && dims == 2 && points[a] != 1))
            return ks_fail(KS_ERR_INVALID, "%s: " KS_LUSER_POINTS_SYMBOL " is {%d, %d, %d}: each must be 1 to %d%s", name,
                           points[0], points[1], points[2], KS_LUSER_POINTS_MAX, dims == 2 ? ", the third 1 in 2D" : "");
    return KS_OK;
}
static ks_luser_code ks_luser_codes[KS_LUSER_MAX]; /* beside the rows (laplace_variants.c) */

static ks_luser_code *code_of(int id)
{
    return ks_lvariant_is_user(id) ? &ks_luser_codes[id - ks_lvariant_builtin_count()] : NULL;
}

ks_status ks_luser_load(int id, const void *code, size_t size)
{
    ks_luser_code *c = code_of(id);
    if (!c || !code || !size) return ks_fail(KS_ERR_INVALID, "no user kernel %d, or no code to load", id);
    (void)size; /* the loader finds the end itself (CUBIN header, PTX's NUL) */
    const ks_lvariant_info *info = ks_lvariant_get(id);
    ks_user_library mod;
    KS_TRY(ks_user_library_load(info->name, code, "jacobi", &mod));
    int points[3];
    const ks_status st = read_points(&mod, info->dims, info->name, points);
    if (st != KS_OK) {
        ks_user_library_unload(&mod);
        return st;
    }
    ks_user_library_unload(&c->mod); /* the caller has drained every stream that used it */
    c->mod = mod;
    memcpy(c->points, points, sizeof c->points);
    ++c->generation;
    return KS_OK;
}

int ks_luser_ready(int id)
{
    const ks_luser_code *c = code_of(id);
    return c && c->mod.fn;
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
    if (!c->mod.fn) return ks_fail(KS_ERR_INVALID, "%s has no compiled code yet", info->name);
    const int *b = sw->block;
    const ks_grid *g = sw->grid;
    if (info->dims == 2) KS_TRY(ks_lneed_2d_block(sw, info->name));
    KS_TRY(ks_lcheck_kernel(sw, (const void *)c->mod.fn, info->name, b[0] * b[1] * b[2], 0));
    const dim3 block(b[0], b[1], b[2]);
    const int *p = c->points; /* the file's points a thread */
    const dim3 grid(ks_fdiv_up(g->nx - 2, (long long)b[0] * p[0]), ks_fdiv_up(g->ny - 2, (long long)b[1] * p[1]),
                    g->dims == 3 ? ks_fdiv_up(g->nz - 2, (long long)b[2] * p[2]) : 1);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, grid.y));
    KS_TRY(ks_lcheck_grid_dim(sw, 2, grid.z));
    if (sw->dry_run) return KS_OK;
    const float *u = sw->in;
    float *v = sw->out;
    int nx = g->nx, ny = g->ny, nz = g->nz;
    void *args[] = {(void *)&u, (void *)&v, &nx, &ny, &nz}; /* 2D: nz is not read */
    KS_CUDA_TRY(cudaLaunchKernel((const void *)c->mod.fn, grid, block, args, 0, sw->stream));
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
