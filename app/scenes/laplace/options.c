/* The Laplace scenes' flags (laplace3d and laplace2d share them), their
 * storage, checks and defaults (options.h). */
#include "app/scenes/laplace/options.h"

#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "kernels/laplace/mpi_job.h"
#include "app/scenes/laplace/iters_auto.h"
#include "base/ks_util.h"
#include "kernels/laplace/laplace_multi.h"

enum {
    KS_MAX_DIM = 1 << 16, /* points per axis */
    KS_MAX_ITERS = 1000000,
};

ks_laplace_opts *ks_laplace_opts_of(ks_options *o) { return ks_options_own(o, &ks_laplace_options); }
const ks_laplace_opts *ks_laplace_opts_get(const ks_options *o)
{
    return ks_options_own_const(o, &ks_laplace_options);
}

int ks_laplace_dims(const ks_options *o)
{
    const int *rank = o->scene ? o->scene->data : NULL;
    return rank && o->scene->options == &ks_laplace_options ? *rank : 3;
}

ks_grid ks_laplace_grid(const ks_options *o, int idx)
{
    const ks_laplace_opts *lp = ks_laplace_opts_get(o);
    ks_grid g;
    g.dims = ks_laplace_dims(o);
    g.nx = lp->grids[idx][0];
    g.ny = lp->grids[idx][1];
    g.nz = g.dims == 3 ? lp->grids[idx][2] : 1;
    return g;
}

/* ---- Flags ---- */

static ks_status add_grid(void *ctx, const char *name, const char *item)
{
    ks_laplace_opts *lp = ctx;
    if (lp->grid_count == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d grids", name, KS_MAX_LIST);
    int dims[3];
    int parts = parse_dims(item, 3, 3, KS_MAX_DIM, dims);
    if (parts < 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a grid size (N or NXxNY[xNZ], each 3..%d points)", name,
                       quoted(item), KS_MAX_DIM);
    memcpy(lp->grids[lp->grid_count], dims, sizeof dims);
    lp->grid_parts[lp->grid_count++] = parts;
    return KS_OK;
}
static ks_status set_grid(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return for_each_item(own, name, v, add_grid);
}
static ks_status set_bc(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ks_laplace_opts *lp = own;
    if (ks_bc_parse(v, &lp->bc) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: unknown boundary preset '%s' (seed, hot-top, sine)", name, quoted(v));
    return KS_OK;
}
static ks_status set_iters(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ks_laplace_opts *lp = own;
    lp->iters_set = 1;
    lp->iters_auto = v && strcmp(v, "auto") == 0;
    if (lp->iters_auto) {
        lp->iters = 0; /* the finish picks the starting count */
        return KS_OK;
    }
    return set_count(name, v, 1, KS_MAX_ITERS, &lp->iters);
}
static ks_status set_fps_target(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ks_laplace_opts *lp = own;
    lp->fps_target_set = 1;
    return set_count(name, v, 0, KS_ITERS_AUTO_MAX_FPS, &lp->fps_target);
}
static ks_status set_residual_every(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return set_count(name, v, 1, 100000, &((ks_laplace_opts *)own)->residual_every);
}
KS_FLAG_SETS(set_no_graph, ((ks_laplace_opts *)own)->no_graph)
KS_FLAG_SETS(set_weak, ((ks_laplace_opts *)own)->weak)
static ks_status add_gpus(void *ctx, const char *name, const char *item)
{
    ks_laplace_opts *lp = ctx;
    if (lp->gpus_count == (int)(sizeof lp->gpus / sizeof lp->gpus[0]))
        return ks_fail(KS_ERR_INVALID, "%s: at most %d values", name, (int)(sizeof lp->gpus / sizeof lp->gpus[0]));
    return set_count(name, item, 0, 1024, &lp->gpus[lp->gpus_count++]);
}
static ks_status set_gpus(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    ((ks_laplace_opts *)own)->gpus_count = 0;
    return for_each_item(own, name, v, add_gpus);
}

int ks_laplace_live_gpus(const ks_options *o, int devices[16])
{
    const ks_laplace_opts *lp = ks_laplace_opts_get(o);
    if (lp->gpus_count == 0) {
        devices[0] = 0;
        return 1;
    }
    if (lp->gpus_count == 1) { /* a count */
        for (int i = 0; i < lp->gpus[0] && i < 16; ++i) devices[i] = i;
        return lp->gpus[0];
    }
    for (int i = 0; i < lp->gpus_count; ++i) devices[i] = lp->gpus[i];
    return lp->gpus_count;
}
static ks_status set_kernel_file(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return ks_kernel_files_add(&((ks_laplace_opts *)own)->kernel_files, name, v);
}

static ks_status register_kernel_files(const ks_laplace_opts *lp, int dims)
{
    KS_TRY(ks_kernel_files_check(&lp->kernel_files, 0, NULL));
    for (int f = 0; f < lp->kernel_files.count; ++f) {
        if (ks_luser_add(dims, ks_path_base_name(lp->kernel_files.paths[f])) < 0) {
            ks_error_prefix("--kernel-file");
            return KS_ERR_INVALID;
        }
    }
    return KS_OK;
}

static void kernels3(char *buf, size_t len) { ks_lvariant_list(3, buf, len); }
static void kernels2(char *buf, size_t len) { ks_lvariant_list(2, buf, len); }
static void kernels_both(char *buf, size_t len)
{
    char k3[256], k2[256];
    kernels3(k3, sizeof k3);
    kernels2(k2, sizeof k2);
    snprintf(buf, len, "3D: %s; 2D: %s", k3, k2);
}
static void colormaps(char *buf, size_t len) { ks_colormap_list(buf, len); }

static const ks_flag_row ks_laplace_flags[] = {
    {"--grid", "N | NXxNY[xNZ]", "grid points (default 256^3 / 1024^2 on CUDA, 48^3 / 128^2 on CPU)",
     KS_IN_LIVE | KS_IN_BENCH, set_grid, NULL, NULL, 1},
    {"--bc", "seed|hot-top|sine", "boundary preset (default hot-top)", KS_IN_LIVE, set_bc},
    {"--kernel", "NAME", "%s", 0, NULL, NULL, kernels_both},
    {"--block", "BXxBY[xBZ]", "thread block (default: best measured, else the kernel's own)", 0, NULL},
    {"--iters", "K|auto",
     "Jacobi iterations per frame (default auto on CUDA: as many as fit\na frame at --fps-target; 64 (3D) / 256 (2D) "
     "on the CPU backend;\ntblock runs the nearest multiple of its 4-step\ntime block)",
     KS_IN_LIVE, set_iters},
    {"--fps-target", "N",
     "--iters auto's frame rate (default 60; lowered toward\n30 while the display costs over 5 % of the solver);\n0: "
     "the fastest solver, >= 97 % of a frame (10-40 fps)",
     KS_IN_LIVE, set_fps_target},
    {"--residual-every", "K", "residual every K frames (default: auto, <= 0.25 % of the solver time)", KS_IN_LIVE,
     set_residual_every},
    {"--no-graph", NULL, "launch the frame's kernels one by one (default: one CUDA graph)", KS_IN_LIVE, set_no_graph,
     "the CPU gold routine runs"},
    {"--kernel-file", "FILE",
     "your own kernel, one more variant named after the file\n(the contract below; kernelscope new-kernel writes a\n"
     "starter); compiled with NVRTC, checked in a child process,\nreloaded on every save; repeatable",
     KS_IN_LIVE | KS_IN_BENCH, set_kernel_file, NULL, NULL, 1},
    {"--gpus", "N | LIST",
     "several GPUs, the grid cut into slabs along z (3D) / y (2D),\nhalos exchanged with NCCL: N GPUs, or a list of "
     "device ids;\nbench: the GPU counts to compare (1,2,...); under mpirun\neach rank drives one GPU instead",
     KS_IN_LIVE | KS_IN_BENCH, set_gpus},
    {"--weak", NULL, "bench --gpus: the grid is each GPU's share (weak scaling;\ndefault: the whole grid, strong scaling)",
     KS_IN_BENCH, set_weak},
    {"--colormap", "NAME", "%s (default viridis)", 0, NULL, NULL, colormaps},
    {"--range", "LO:HI", "fixed colour range (default: auto)", 0, NULL},
    {"--dump-field", "FILE.npy", "write the final field (float32, shape (NZ,NY,NX) or (NY,NX))", 0, NULL},
};

const ks_option_group ks_laplace_options = {
    "Laplace scenes", sizeof(ks_laplace_opts), ks_laplace_flags,
    (int)(sizeof ks_laplace_flags / sizeof ks_laplace_flags[0]), NULL,
};
_Static_assert(sizeof(ks_laplace_opts) <= KS_OPTION_GROUP_BYTES, "fits its option storage");

/* ---- Checks and defaults ---- */

/* --gpus and --weak: the values, then what this build can do (without NCCL
 * --gpus 2 is refused here, before any device work). */
static ks_status check_gpus(const ks_options *o, const ks_laplace_opts *lp)
{
    if (lp->weak && !lp->gpus_count) return ks_fail(KS_ERR_INVALID, "--weak goes with --gpus (a list of GPU counts)");
    int most = 0;
    for (int i = 0; i < lp->gpus_count; ++i) {
        const int v = lp->gpus[i];
        if (o->mode == KS_MODE_BENCH || lp->gpus_count == 1) {
            if (v < 1) return ks_fail(KS_ERR_INVALID, "--gpus: %d GPUs (at least 1)", v);
            if (v > KS_LMULTI_MAX_GPUS)
                return ks_fail(KS_ERR_INVALID, "--gpus: %d GPUs; one process drives at most %d (use mpirun for more)", v,
                               KS_LMULTI_MAX_GPUS);
            if (v > most) most = v;
        } else {
            most = lp->gpus_count; /* device ids */
            for (int j = 0; j < i; ++j)
                if (lp->gpus[j] == v) return ks_fail(KS_ERR_INVALID, "--gpus: device %d is named twice", v);
        }
    }
    if (o->mode == KS_MODE_LIVE && lp->gpus_count > KS_LMULTI_MAX_GPUS)
        return ks_fail(KS_ERR_INVALID, "--gpus: at most %d devices", KS_LMULTI_MAX_GPUS);
    const char *why = NULL;
    if (most > 1 && !ks_lmulti_supported(&why)) return ks_fail(KS_ERR_UNSUPPORTED, "--gpus %d: %s", most, why);
    if (most > 1 && lp->kernel_files.count)
        return ks_fail(KS_ERR_INVALID, "--gpus %d: your own kernels (--kernel-file) run on one GPU", most);
    if (most > 1 && o->backend == KS_BACKEND_CPU)
        return ks_fail(KS_ERR_INVALID, "--gpus %d: several GPUs need the cuda backend", most);
    return KS_OK;
}

ks_status ks_laplace_finish_options(ks_options *o)
{
    ks_laplace_opts *lp = ks_laplace_opts_of(o);
    const int dims = ks_laplace_dims(o);
    if (lp->bc == KS_BC_DEFAULT) lp->bc = KS_BC_HOT_TOP;
    if (lp->fps_target_set && lp->iters_set && !lp->iters_auto)
        return ks_fail(KS_ERR_INVALID, "--fps-target: sizes --iters auto; --iters %d fixes the count", lp->iters);
    if (o->mode == KS_MODE_LIVE && lp->grid_count > 1)
        return ks_fail(KS_ERR_INVALID, "--grid: one grid for the live view (lists are for bench)");
    if (o->mode == KS_MODE_LIVE && (o->kernel_count > 1 || o->block_count > 1))
        return ks_fail(KS_ERR_INVALID, "--kernel/--block: one value each for the live view");
    for (int g = 0; g < lp->grid_count; ++g) {
        int parts = lp->grid_parts[g];
        if (parts == 1) {
            lp->grids[g][1] = lp->grids[g][0];
            lp->grids[g][2] = dims == 3 ? lp->grids[g][0] : 1;
        } else if (parts != dims) {
            return ks_fail(KS_ERR_INVALID, "--grid: %s needs %s, got %d sizes", o->scene->name,
                           dims == 3 ? "N or NXxNYxNZ" : "N or NXxNY", parts);
        }
        const double points = (double)lp->grids[g][0] * lp->grids[g][1] * lp->grids[g][2];
        if (points > 68719476736.0) /* 2^36 points = 256 GiB per field */
            return ks_fail(KS_ERR_INVALID, "--grid: %dx%dx%d is far too large (%.3g points)", lp->grids[g][0],
                           lp->grids[g][1], lp->grids[g][2], points);
    }
    KS_TRY(register_kernel_files(lp, dims));
    KS_TRY(check_gpus(o, lp));
    for (int k = 0; k < o->kernel_count; ++k) {
        if (ks_lvariant_find(dims, o->kernels[k]) < 0) {
            char names[256];
            ks_lvariant_list(dims, names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown %s kernel '%s' (%s)", o->scene->name,
                           quoted(o->kernels[k]), names);
        }
        for (int b = 0; b < o->block_count; ++b) { /* a block the named kernel cannot take */
            if (ks_lvariant_check_shape(ks_lvariant_find(dims, o->kernels[k]), o->blocks[b]) != KS_OK) {
                ks_error_prefix("--block %dx%dx%d", o->blocks[b][0], o->blocks[b][1], o->blocks[b][2]);
                return KS_ERR_INVALID;
            }
        }
    }
    return KS_OK;
}

/* The CPU backend's live defaults: a grid the heat from the hot top edge
 * crosses within the first second or two. Heat spreads about sqrt(k) cells
 * in k Jacobi iterations, so a frame needs hundreds of iterations on a small
 * grid, not a few on a large one (256^2 at 2 a frame stayed dark for
 * seconds): 48^3 at 64 a frame and 128^2 at 256 fill most of the picture in
 * 20 frames, at about 7 ms (3D) and 3 ms (2D) of solver a frame on two
 * loaded cores. */
enum {
    KS_LAPLACE_CPU_GRID_3D = 48,
    KS_LAPLACE_CPU_GRID_2D = 128,
    KS_LAPLACE_CPU_ITERS_3D = 64,
    KS_LAPLACE_CPU_ITERS_2D = 256,
};

void ks_laplace_backend_defaults(ks_options *o, int use_cuda)
{
    const int dims = ks_laplace_dims(o);
    ks_laplace_opts *lp = ks_laplace_opts_of(o);
    if (!lp->grid_count && o->mode == KS_MODE_LIVE) {
        const int n = dims == 3 ? (use_cuda ? 256 : KS_LAPLACE_CPU_GRID_3D)
                                : (use_cuda ? 1024 : KS_LAPLACE_CPU_GRID_2D);
        lp->grids[0][0] = lp->grids[0][1] = n;
        lp->grids[0][2] = dims == 3 ? n : 1;
        lp->grid_parts[0] = 1;
        lp->grid_count = 1;
    }
    /* no --iters: automatic on the CUDA backend, a fixed count on the CPU one */
    if (!lp->iters_set) lp->iters_auto = use_cuda;
    if (!lp->iters) lp->iters = use_cuda ? 20 : dims == 3 ? KS_LAPLACE_CPU_ITERS_3D : KS_LAPLACE_CPU_ITERS_2D;
    if (!lp->fps_target_set) lp->fps_target = (int)KS_ITERS_AUTO_FPS;
}

/* ---- What bench live, bench serve and main ask of the options ---- */

/* --grid as bench live and bench serve read it: N is both N^3 and N^2. */
ks_status ks_laplace_runner_finish(ks_options *o)
{
    ks_laplace_opts *lp = ks_laplace_opts_of(o);
    for (int g = 0; g < lp->grid_count; ++g) {
        if (lp->grid_parts[g] == 1) lp->grids[g][1] = lp->grids[g][2] = lp->grids[g][0];
        const double points = (double)lp->grids[g][0] * lp->grids[g][1] * lp->grids[g][2];
        if (points > 68719476736.0)
            return ks_fail(KS_ERR_INVALID, "--grid: %dx%dx%d is far too large (%.3g points)", lp->grids[g][0],
                           lp->grids[g][1], lp->grids[g][2], points);
    }
    return KS_OK;
}

const char *ks_laplace_kernel_file(const ks_options *o, int i)
{
    return ks_kernel_files_at(&ks_laplace_opts_get(o)->kernel_files, i);
}

/* --gpus against the machine: a CUDA device, and as many as asked (device ids that exist). */
ks_status ks_laplace_backend_check(const ks_options *o, int use_cuda, int device_count)
{
    const ks_laplace_opts *lp = ks_laplace_opts_get(o);
    if (!lp->gpus_count) return KS_OK;
    int devices[16], most = 0;
    if (o->mode == KS_MODE_LIVE) {
        const int n = ks_laplace_live_gpus(o, devices);
        for (int i = 0; i < n; ++i) most = devices[i] + 1 > most ? devices[i] + 1 : most;
    } else {
        for (int i = 0; i < lp->gpus_count; ++i) most = lp->gpus[i] > most ? lp->gpus[i] : most;
    }
    if (ks_mpi_active()) return KS_OK; /* each rank checks its own GPU */
    if (!use_cuda) return ks_fail(KS_ERR_NO_DEVICE, "--gpus: several GPUs need a CUDA device, and this machine has none");
    if (most > device_count)
        return ks_fail(KS_ERR_NO_DEVICE, "--gpus: %s %d GPU%s, this machine has %d CUDA device%s",
                       o->mode == KS_MODE_LIVE && lp->gpus_count > 1 ? "the ids need" : "asked for", most,
                       most == 1 ? "" : "s", device_count, device_count == 1 ? "" : "s");
    return KS_OK;
}
