#include <stdio.h>
#include <string.h>

#include "laplace.h"

#define KS_LVARIANT_ROW(name, summary, dims, rank, bx, by, bz, steps) {#name, summary, dims, rank, {bx, by, bz}, steps},
static const ks_lvariant_info ks_lvariants[] = {KS_LVARIANT_ROWS(KS_LVARIANT_ROW)};
#undef KS_LVARIANT_ROW

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

int ks_lvariant_frame_iters(int id, int requested)
{
    const ks_lvariant_info *info = ks_lvariant_get(id);
    if (!info || info->steps_per_launch <= 1 || requested < 1) return requested;
    const int t = info->steps_per_launch;
    const int blocks = (requested + t / 2) / t; /* nearest, halves up */
    return (blocks < 1 ? 1 : blocks) * t;
}

int ks_lvariant_launches(int id, int iters, int exact_prev)
{
    const ks_lvariant_info *info = ks_lvariant_get(id);
    if (!info || iters < 1) return 0;
    const int t = info->steps_per_launch;
    if (t <= 1) return iters;
    if (!exact_prev) return (iters + t - 1) / t;
    return (iters - 1 + t - 1) / t + 1; /* then one single step */
}
