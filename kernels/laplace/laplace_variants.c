#include <stdio.h>
#include <string.h>

#include "laplace.h"

#define KS_LVARIANT_ROW(name, summary, dims, rank, bx, by, bz, steps) {#name, summary, dims, rank, {bx, by, bz}, steps},
static const ks_lvariant_info ks_lvariants[] = {KS_LVARIANT_ROWS(KS_LVARIANT_ROW)};
#undef KS_LVARIANT_ROW

enum { KS_LVARIANT_BUILTIN = (int)(sizeof ks_lvariants / sizeof ks_lvariants[0]) };

/* Users' kernels (--kernel-file) follow the built-in rows: added at start-up,
 * before any solver or thread uses the table, and never removed. */
typedef struct ks_luser_row {
    ks_lvariant_info info;
    char name[KS_LUSER_NAME_MAX];
    char summary[KS_LUSER_NAME_MAX + 64];
} ks_luser_row;
static ks_luser_row ks_luser_rows[KS_LUSER_MAX];
static int ks_luser_count;

#define KS_LVARIANT_COUNT (KS_LVARIANT_BUILTIN + ks_luser_count)

int ks_lvariant_count(void) { return KS_LVARIANT_COUNT; }
int ks_lvariant_builtin_count(void) { return KS_LVARIANT_BUILTIN; }
int ks_lvariant_is_user(int id) { return id >= KS_LVARIANT_BUILTIN && id < KS_LVARIANT_COUNT; }

const ks_lvariant_info *ks_lvariant_get(int id)
{
    if (id >= 0 && id < KS_LVARIANT_BUILTIN) return &ks_lvariants[id];
    return ks_lvariant_is_user(id) ? &ks_luser_rows[id - KS_LVARIANT_BUILTIN].info : NULL;
}

int ks_lvariant_find(int dims, const char *name)
{
    for (int id = 0; id < KS_LVARIANT_COUNT; ++id) {
        const ks_lvariant_info *v = ks_lvariant_get(id);
        if (v->dims == dims && strcmp(v->name, name) == 0) return id;
    }
    return -1;
}

int ks_luser_add(int dims, const char *name)
{
    if (dims != 2 && dims != 3) return ks_fail(KS_ERR_INVALID, "a user's kernel is for 2D or 3D grids"), -1;
    if (!name || !name[0] || strlen(name) >= KS_LUSER_NAME_MAX)
        return ks_fail(KS_ERR_INVALID, "a kernel file's name must have 1..%d bytes", KS_LUSER_NAME_MAX - 1), -1;
    const int known = ks_lvariant_find(dims, name);
    if (known >= 0 && ks_lvariant_is_user(known)) return known; /* options parsed again: the same file */
    if (known >= 0) return ks_fail(KS_ERR_INVALID, "'%s' is the name of a built-in kernel", KS_QUOTED(name)), -1;
    if (ks_luser_count == KS_LUSER_MAX)
        return ks_fail(KS_ERR_INVALID, "at most %d kernel files", KS_LUSER_MAX), -1;
    ks_luser_row *r = &ks_luser_rows[ks_luser_count];
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->summary, sizeof r->summary, "your kernel from %s (--kernel-file)",
             KS_QUOTED(name));
    r->info.name = r->name;
    r->info.summary = r->summary;
    r->info.dims = dims;
    r->info.block_rank = dims;
    r->info.default_block[0] = 32; /* the contract's default (laplace_contract.h) */
    r->info.default_block[1] = dims == 3 ? 4 : 8;
    r->info.default_block[2] = dims == 3 ? 4 : 1;
    r->info.steps_per_launch = 1;
    return KS_LVARIANT_BUILTIN + ks_luser_count++;
}

int ks_lvariant_default(int dims) { return ks_lvariant_find(dims, dims == 3 ? "regq" : "vec2d"); }

const char *ks_lvariant_blocks_measured_on(int cc, int sm_count)
{
    /* regq 32x8 (chunk 4): the fastest block at 512^3 and 1024^3 (tests/laplace/perf_regq on an H200) */
    static const struct {
        int cc, sms;
        const char *name;
    } measured[] = {{90, 132, "H200"}};
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; ++i)
        if (measured[i].cc == cc && measured[i].sms == sm_count) return measured[i].name;
    return NULL;
}

int ks_lvariant_next(int id)
{
    const ks_lvariant_info *v = ks_lvariant_get(id);
    if (!v) return id;
    for (int step = 1; step <= KS_LVARIANT_COUNT; ++step) {
        int cand = (id + step) % KS_LVARIANT_COUNT;
        if (ks_lvariant_get(cand)->dims == v->dims) return cand;
    }
    return id;
}

void ks_lvariant_list(int dims, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int id = 0; id < KS_LVARIANT_COUNT && used < len; ++id) {
        if (ks_lvariant_get(id)->dims != dims) continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", ks_lvariant_get(id)->name);
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
