/* Each scene's own options: checks and defaults, in one place per scene
 * (called through the scene registry, app/scenes.c). The flag table, the
 * parsing and the common defaults are in options.c. */
#include "app/options.h"
#include "app/options_parse.h"
#include "app/scenes.h"

#include <ctype.h>
#include <string.h>

#include "kernels/matmul/matmul.h"
#include "kernels/spheres/spheres.h"

static ks_status add_mm_size(ks_options *o, const char *name, const char *item)
{
    ks_matmul_size s;
    if (ks_matmul_size_parse(item, &s) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a matmul size (M or MxNxK, each 1..%d)", name,
                       quoted(item), KS_MATMUL_MAX_DIM);
    KS_TRY(ks_matmul_size_check(&s));
    if (o->matmul.size_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    o->matmul.sizes[o->matmul.size_n][0] = s.m;
    o->matmul.sizes[o->matmul.size_n][1] = s.n;
    o->matmul.sizes[o->matmul.size_n][2] = s.k;
    ++o->matmul.size_n;
    return KS_OK;
}
/* One --size item in bytes: a count with an optional K, M or G (binary) suffix. */
static ks_status add_hist_size(ks_options *o, const char *name, const char *item)
{
    char buf[64];
    size_t len = strlen(item);
    if (len == 0 || len >= sizeof buf) goto bad;
    strcpy(buf, item);
    unsigned long long mult = 1;
    const char last = (char)toupper((unsigned char)buf[len - 1]);
    if (last == 'K' || last == 'M' || last == 'G') {
        mult = last == 'K' ? 1ull << 10 : last == 'M' ? 1ull << 20 : 1ull << 30;
        buf[--len] = '\0';
    }
    long long v;
    if (parse_int(buf, 1, 4294967295ll, &v) != 0 || (unsigned long long)v > 4294967295ull / mult)
        goto bad;
    if (o->histogram.size_n == KS_MAX_LIST)
        return ks_fail(KS_ERR_INVALID, "%s: at most %d sizes", name, KS_MAX_LIST);
    o->histogram.sizes[o->histogram.size_n++] = (unsigned long long)v * mult;
    return KS_OK;
bad:
    return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a byte count of 1..4294967295 (suffix K, M, G allowed)",
                   name, quoted(item));
}
/* The histogram scene's checks (sizes in bytes, bins, input). */
ks_status ks_options_finish_histogram(ks_options *o)
{
    if (o->size_text) KS_TRY(for_each_item(o, "--size", o->size_text, add_hist_size));
    if (o->histogram.size_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--size: one size for the live view (lists are for bench)");
    if (o->histogram.bins_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--bins: one count for the live view (lists are for bench)");
    if (o->kernel_count > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--kernel: one value for the live view (lists are for bench)");
    if (o->histogram.input && o->size_text)
        return ks_fail(KS_ERR_INVALID, "--size and --input exclude each other (the file sets the size)");
    if (!o->histogram.size_n) o->histogram.sizes[o->histogram.size_n++] = 100ull << 20;
    return KS_OK;
}

/* The matmul scene's checks (sizes, tiles, variant names). */
ks_status ks_options_finish_matmul(ks_options *o)
{
    if (o->size_text) {
        o->matmul.size_n = 0;
        KS_TRY(for_each_item(o, "--size", o->size_text, add_mm_size));
    }
    if (o->mode == KS_MODE_LIVE && (o->matmul.size_n > 1 || o->matmul.tile_n > 1 || o->kernel_count > 1))
        return ks_fail(KS_ERR_INVALID,
                       "--size/--tile/--kernel: one value each for the live view (lists are for bench)");
    for (int k = 0; k < o->kernel_count; ++k) {
        ks_matmul_variant v;
        if (ks_matmul_variant_parse(o->kernels[k], &v) != 0) {
            char names[128];
            ks_matmul_variant_list(names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown matmul kernel '%s' (%s)",
                           quoted(o->kernels[k]), names);
        }
    }
    return KS_OK;
}

/* ---- Each scene's own options: checks and defaults, in one place per scene
 * (called through the scene registry, app/scenes.c) ---- */

ks_status ks_options_finish_spheres(ks_options *o)
{
    ks_spheres_opts *sp = &o->spheres;
    if (!o->size_set) { /* the picture: the bench's is larger */
        o->width = o->mode == KS_MODE_BENCH ? 2048 : 1024;
        o->height = o->mode == KS_MODE_BENCH ? 2048 : 768;
    }
    if (sp->count_n && o->mode == KS_MODE_LIVE) sp->count = sp->counts[0];
    if (sp->count_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--spheres: one count for the live view (lists are for bench)");
    if (!sp->count) sp->count = 256;
    if (sp->file && sp->count_n)
        return ks_fail(KS_ERR_INVALID, "--scene and --spheres exclude each other (the file fixes the spheres)");
    for (int b = 0; b < o->block_count; ++b)
        if (o->blocks[b][2] != 1)
            return ks_fail(KS_ERR_INVALID, "--block: %dx%dx%d: spheres blocks are 2D (BXxBY)", o->blocks[b][0],
                           o->blocks[b][1], o->blocks[b][2]);
    if (o->mode == KS_MODE_LIVE && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: one value for the live view");
    if (o->mode == KS_MODE_BENCH && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: bench spheres takes one block size");
    ks_spheres_mem m;
    if (sp->mem && ks_spheres_mem_parse(sp->mem, &m) != 0) { /* here, before any notice or folder */
        char list[128];
        ks_spheres_mem_list(list, sizeof list);
        return ks_fail(KS_ERR_INVALID, "%sspheres: unknown --mem '%s' (one of: %s)",
                       o->mode == KS_MODE_BENCH ? "bench " : "", quoted(sp->mem), list);
    }
    return KS_OK;
}

ks_status ks_options_finish_laplace(ks_options *o)
{
    ks_laplace_opts *lp = &o->laplace;
    const int dims = ks_scene_dims(o->scene);
    if (lp->bc == KS_BC_DEFAULT) lp->bc = KS_BC_HOT_TOP;
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
            return ks_fail(KS_ERR_INVALID, "--grid: %s needs %s, got %d sizes", ks_scene_name(o->scene),
                           dims == 3 ? "N or NXxNYxNZ" : "N or NXxNY", parts);
        }
        const double points = (double)lp->grids[g][0] * lp->grids[g][1] * lp->grids[g][2];
        if (points > 68719476736.0) /* 2^36 points = 256 GiB per field */
            return ks_fail(KS_ERR_INVALID, "--grid: %dx%dx%d is far too large (%.3g points)", lp->grids[g][0],
                           lp->grids[g][1], lp->grids[g][2], points);
    }
    for (int k = 0; k < o->kernel_count; ++k) {
        if (ks_lvariant_find(dims, o->kernels[k]) < 0) {
            char names[256];
            ks_lvariant_list(dims, names, sizeof names);
            return ks_fail(KS_ERR_INVALID, "--kernel: unknown %s kernel '%s' (%s)", ks_scene_name(o->scene),
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

void ks_options_laplace_backend_defaults(ks_options *o, int use_cuda)
{
    const int dims = ks_scene_dims(o->scene);
    ks_laplace_opts *lp = &o->laplace;
    if (!lp->grid_count && o->mode == KS_MODE_LIVE) {
        const int n = dims == 3 ? (use_cuda ? 256 : 64) : (use_cuda ? 1024 : 256);
        lp->grids[0][0] = lp->grids[0][1] = n;
        lp->grids[0][2] = dims == 3 ? n : 1;
        lp->grid_parts[0] = 1;
        lp->grid_count = 1;
    }
    /* no --iters: automatic on the CUDA backend, 2 a frame on the (slow) CPU one */
    if (!lp->iters_set) lp->iters_auto = use_cuda;
    if (!lp->iters) lp->iters = use_cuda ? 20 : 2;
}

/* `bench live`: the grids (N: both N^3 and N^2; three sizes: a 3D grid; two: a 2D grid),
 * the kernel names of either Laplace scene or spheres, and the frames to time. */
ks_status ks_options_finish_live(ks_options *o)
{
    if (!o->frames) o->frames = 120;
    ks_laplace_opts *lp = &o->laplace;
    for (int g = 0; g < lp->grid_count; ++g) {
        if (lp->grid_parts[g] == 1) lp->grids[g][1] = lp->grids[g][2] = lp->grids[g][0];
        const double points = (double)lp->grids[g][0] * lp->grids[g][1] * lp->grids[g][2];
        if (points > 68719476736.0)
            return ks_fail(KS_ERR_INVALID, "--grid: %dx%dx%d is far too large (%.3g points)", lp->grids[g][0],
                           lp->grids[g][1], lp->grids[g][2], points);
    }
    for (int k = 0; k < o->kernel_count; ++k) {
        ks_spheres_mem m;
        if (ks_lvariant_find(3, o->kernels[k]) >= 0 || ks_lvariant_find(2, o->kernels[k]) >= 0 ||
            ks_spheres_mem_parse(o->kernels[k], &m) == 0)
            continue;
        char k3[256], k2[256], mems[128];
        ks_lvariant_list(3, k3, sizeof k3);
        ks_lvariant_list(2, k2, sizeof k2);
        ks_spheres_mem_list(mems, sizeof mems);
        return ks_fail(KS_ERR_INVALID, "--kernel: unknown kernel '%s' (laplace3d: %s; laplace2d: %s; spheres: %s)",
                       quoted(o->kernels[k]), k3, k2, mems);
    }
    return KS_OK;
}

/* `bench live`: the sphere count when none was given (the CPU gold is far slower). */
void ks_options_live_backend_defaults(ks_options *o, int use_cuda)
{
    if (!o->spheres.count_n) o->spheres.counts[o->spheres.count_n++] = use_cuda ? 2048 : 64;
}

/* `bench serve`: the frames to time, and the --kernel names (either Laplace scene or spheres). */
ks_status ks_options_finish_serve(ks_options *o)
{
    return ks_options_finish_live(o); /* the same checks; its frames default is the same */
}

/* `bench serve`: the picture, 1920x1080 on the CUDA backend and 1280x800 on the CPU one. */
void ks_options_serve_backend_defaults(ks_options *o, int use_cuda)
{
    if (o->size_set) return;
    o->width = use_cuda ? 1920 : 1280;
    o->height = use_cuda ? 1080 : 800;
}
