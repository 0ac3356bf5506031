#include <stdio.h>
#include <string.h>

#include "laplace.h"

/* The order here is the Tab order in the live view. Launchers live in
 * laplace_cuda.cu (Oxford Practical 3 styles) and laplace_fast.cu (optimised ones). */
static const ks_lvariant_info ks_lvariants[] = {
    /* default blocks: best of the perf_laplace sweep on an H200 (docs/laplace-perf.md) */
    {"kmarch", "2D thread blocks marching in k, one column per thread (Oxford Practical 3)", 3, 2,
     {128, 2, 1}, 1},
    {"block3d", "3D thread blocks, one point per thread (Oxford Practical 3)", 3, 3, {32, 8, 2}, 1},
    {"regq",
     "float4 rows marching 4 planes in k, register queue, x-neighbours by shuffles, "
     "interior-only launch",
     3, 2, {32, 8, 1}, 1},
    {"tblock",
     "temporally blocked: 4 iterations per launch; 32xW block = W warps of 128 x-points x 4 "
     "rows, level planes in shared memory, split barriers, halo recomputed on chip",
     3, 2, {32, 12, 1}, 4},
    {"block2d", "2D thread blocks, one point per thread", 2, 2, {128, 2, 1}, 1},
    {"smem2d", "shared-memory tile with halo, one point per thread", 2, 2, {32, 8, 1}, 1},
    {"vec2d", "float4 x 2 rows per thread, all loads up front, bands of rows streamed in order",
     2, 2, {64, 4, 1}, 1},
};

enum { KS_LVARIANT_COUNT = (int)(sizeof ks_lvariants / sizeof ks_lvariants[0]) };

int ks_lvariant_count(void) { return KS_LVARIANT_COUNT; }

const ks_lvariant_info *ks_lvariant_get(int id)
{
    return (id >= 0 && id < KS_LVARIANT_COUNT) ? &ks_lvariants[id] : NULL;
}

int ks_lvariant_find(int dims, const char *name)
{
    for (int id = 0; id < KS_LVARIANT_COUNT; ++id)
        if (ks_lvariants[id].dims == dims && strcmp(ks_lvariants[id].name, name) == 0) return id;
    return -1;
}

int ks_lvariant_default(int dims) { return ks_lvariant_find(dims, dims == 3 ? "regq" : "vec2d"); }

int ks_lvariant_next(int id)
{
    const int dims = ks_lvariants[id].dims;
    for (int step = 1; step <= KS_LVARIANT_COUNT; ++step) {
        int cand = (id + step) % KS_LVARIANT_COUNT;
        if (ks_lvariants[cand].dims == dims) return cand;
    }
    return id;
}

void ks_lvariant_list(int dims, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int id = 0; id < KS_LVARIANT_COUNT && used < len; ++id) {
        if (ks_lvariants[id].dims != dims) continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", ks_lvariants[id].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

ks_status ks_lvariant_check_shape(int id, const int block[3])
{
    const ks_lvariant_info *info = ks_lvariant_get(id);
    if (!info) return ks_fail(KS_ERR_INVALID, "no kernel variant %d", id);
    if (info->block_rank == 2 && block[2] != 1)
        return ks_fail(KS_ERR_UNSUPPORTED, "kernel %s takes a 2-part block (BXxBY), got %dx%dx%d",
                       info->name, block[0], block[1], block[2]);
    return KS_OK;
}
