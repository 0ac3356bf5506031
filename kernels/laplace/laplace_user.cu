/* A user's kernel as a Laplace variant (laplace.h, ks_luser_*): its code
 * loaded by kernels/user/user_code.h (no link to the driver library, so
 * the binary still starts without one), launched by the contract's rule
 * (laplace_contract.h): the grid covers the interior, one point per thread,
 * or as the file's declaration says (ks_kdecl_stencil_grid). */
#include <string.h>

#include "kernels/user/user_code.h"
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
    /* or the file's declaration: the grid over the interior, the whole domain, or (3D) the (i, j)
       columns, each thread marching over k */
    static const unsigned grids3 =
        1u << KS_KDECL_GRID_INTERIOR | 1u << KS_KDECL_GRID_DOMAIN | 1u << KS_KDECL_GRID_COLUMNS;
    static const ks_user_code_desc contract3 = {"jacobi", "kernelscope_points_per_thread", 3,
                                                {KS_LUSER_POINTS_MAX, KS_LUSER_POINTS_MAX, KS_LUSER_POINTS_MAX},
                                                "each must be 1 to %d", "nx ny nz u v", grids3, NULL, NULL};
    static const ks_user_code_desc contract2 = {"jacobi", "kernelscope_points_per_thread", 3,
                                                {KS_LUSER_POINTS_MAX, KS_LUSER_POINTS_MAX, 1},
                                                "each must be 1 to %d, the third 1 in 2D", "nx ny u v",
                                                1u << KS_KDECL_GRID_INTERIOR | 1u << KS_KDECL_GRID_DOMAIN, NULL, NULL};
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

const ks_kdecl *ks_luser_declaration(int id)
{
    const ks_luser_code *c = code_of(id);
    return c ? ks_user_code_declaration(c->code) : NULL;
}

long long ks_luser_generation(int id)
{
    const ks_luser_code *c = code_of(id);
    return c ? c->generation : 0;
}

/* A size as the declaration types it, beside the others (each its own storage). */
typedef union ks_luser_size {
    int i;
    long long ll;
} ks_luser_size;

/* The launch a declaration asks for: its block (or the user's), a grid over
 * the interior, the domain or the (i, j) columns, its dynamic shared memory,
 * the arguments in its order. A size it says must be a multiple of its block
 * is checked here too, so a launch never runs a kernel past what it assumes. */
static ks_status declared_launch(const ks_lsweep *sw, const ks_lvariant_info *info, const ks_kdecl *d,
                                 const void *fn)
{
    int b[3];
    ks_kdecl_block(d, sw->block, b);
    const ks_grid *g = sw->grid;
    if (b[0] < 1 || b[1] < 1 || b[2] < 1)
        return ks_fail(KS_ERR_INVALID, "%s: its declared block %dx%dx%d is not a block", info->name, b[0], b[1], b[2]);
    if (info->dims == 2 && b[2] != 1)
        return ks_fail(KS_ERR_INVALID, "%s: a 2D kernel's block has a z extent of 1, not %d", info->name, b[2]);
    const int threads = b[0] * b[1] * b[2];
    const size_t shared = ks_kdecl_shared(d, threads);
    if (shared > 48 * 1024) cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    ks_lsweep own = *sw; /* the checks read the block the kernel runs with */
    for (int a = 0; a < 3; ++a) own.block[a] = b[a];
    KS_TRY(ks_lcheck_kernel(&own, fn, info->name, threads, shared));
    const long long n[3] = {g->nx, g->ny, g->dims == 3 ? g->nz : 1};
    if (d->multiple)
        for (int a = 0; a < g->dims; ++a)
            if (n[a] % b[a])
                return ks_fail(KS_ERR_INVALID, "%s: it assumes sizes that are multiples of its block (multiple), and "
                               "%lld is not a multiple of %d", info->name, n[a], b[a]);
    long long blocks[3];
    ks_kdecl_stencil_grid(d, g->dims, n, b, NULL, blocks);
    KS_TRY(ks_lcheck_grid_dim(&own, 0, (unsigned)blocks[0]));
    const dim3 grid((unsigned)blocks[0], (unsigned)blocks[1], (unsigned)blocks[2]);
    KS_TRY(ks_lcheck_grid_dim(&own, 1, grid.y));
    KS_TRY(ks_lcheck_grid_dim(&own, 2, grid.z));
    if (sw->dry_run) return KS_OK;
    const float *u = sw->in;
    float *v = sw->out;
    ks_luser_size size[3];
    void *args[KS_KDECL_ARGS_MAX];
    for (int a = 0; a < d->nargs; ++a) {
        const char *role = d->args[a].role;
        if (!strcmp(role, "u")) args[a] = (void *)&u;
        else if (!strcmp(role, "v")) args[a] = (void *)&v;
        else {
            const int axis = role[1] - 'x'; /* nx ny nz */
            if (ks_kdecl_arg_bytes(&d->args[a]) == 8) size[axis].ll = n[axis];
            else size[axis].i = (int)n[axis];
            args[a] = &size[axis];
        }
    }
    KS_CUDA_TRY(cudaLaunchKernel(fn, grid, dim3(b[0], b[1], b[2]), args, shared, sw->stream));
    return KS_OK;
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
    const ks_kdecl *decl = ks_user_code_declaration(c->code);
    if (decl) return declared_launch(sw, info, decl, fn);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(c->code, &a);
    const int *b = sw->block;
    const ks_grid *g = sw->grid;
    if (info->dims == 2) KS_TRY(ks_lneed_2d_block(sw, info->name));
    KS_TRY(ks_lcheck_kernel(sw, fn, info->name, b[0] * b[1] * b[2], 0));
    const dim3 block(b[0], b[1], b[2]);
    const long long n[3] = {g->nx, g->ny, g->nz};
    long long blocks[3]; /* over the interior, the file's points a thread */
    ks_kdecl_stencil_grid(NULL, g->dims, n, b, a.per_thread, blocks);
    const dim3 grid((unsigned)blocks[0], (unsigned)blocks[1], (unsigned)blocks[2]);
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
