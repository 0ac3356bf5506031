/* regtile's shapes and the choice among them (matmul_tiles.h). */
#include "matmul_tiles.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KS_MM_RT_ROW(name, BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, VEC)                           \
    {name, BM, BN, BK, WM, WN, 4 * MI, 4 * NI, THREADS, MINB, VEC},
static const ks_matmul_rt_config ks_mm_rt_configs[] = {KS_MM_RT_CONFIGS(KS_MM_RT_ROW)};
#undef KS_MM_RT_ROW

enum { KS_MM_RT_COUNT = (int)(sizeof ks_mm_rt_configs / sizeof ks_mm_rt_configs[0]) };

/* Measured (tests/matmul/perf_sgemm, every shape at 1024..8192 against cuBLAS in one run;
 * docs/perf-limits.md): the fastest shape per size on a GPU known by compute capability and
 * SM count. The H100 SXM has the H200's chip (cc 9.0, 132 SMs) and takes its rows. */
typedef struct ks_mm_rt_measured {
    int cc, sms;
    const char *device;
    int size; /* M = N = K */
    const char *config;
} ks_mm_rt_measured;
static const ks_mm_rt_measured ks_mm_rt_table[] = {
    {90, 132, "H200", 1024, "128x64x16/64x32/8x8"},
    {90, 132, "H200", 2048, "128x256x16/64x64/8x16"},
    {90, 132, "H200", 4096, "128x256x16/64x64/8x16"},
    {90, 132, "H200", 8192, "128x256x16/64x64/8x16"},
};

int ks_matmul_rt_count(void) { return KS_MM_RT_COUNT; }

const ks_matmul_rt_config *ks_matmul_rt_get(int i)
{
    return i >= 0 && i < KS_MM_RT_COUNT ? &ks_mm_rt_configs[i] : NULL;
}

int ks_matmul_rt_find(const char *name)
{
    for (int i = 0; name && i < KS_MM_RT_COUNT; ++i)
        if (strcmp(ks_mm_rt_configs[i].name, name) == 0) return i;
    return -1;
}

int ks_matmul_rt_vec_ok(const ks_matmul_size *s)
{
    return s->k % 4 == 0 && s->n % 4 == 0;
}

ks_matmul_tile ks_matmul_rt_tile(int i)
{
    const ks_matmul_rt_config *c = ks_matmul_rt_get(i);
    return c ? (ks_matmul_tile){c->bm, c->bn} : (ks_matmul_tile){0, 0};
}

/* Waves: the share of the SMs' block slots the last wave fills, for each 16-byte shape; ties go
 * to the larger tile (more FMAs per shared-memory read). */
static int heuristic(const ks_matmul_size *s, int sm_count)
{
    int best = -1;
    double best_score = -1.0;
    for (int i = 0; i < KS_MM_RT_COUNT; ++i) {
        const ks_matmul_rt_config *c = &ks_mm_rt_configs[i];
        if (!c->vec) continue;
        const double tiles = (double)((s->m + c->bm - 1) / c->bm) * (double)((s->n + c->bn - 1) / c->bn);
        const double slots = (double)(sm_count > 0 ? sm_count : 1) * c->min_blocks;
        const double waves = ceil(tiles / slots);
        const double score = tiles / (waves * slots) * (1.0 + 1e-6 * c->bm * c->bn);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return best;
}

static int any_shape(void)
{
    for (int i = 0; i < KS_MM_RT_COUNT; ++i)
        if (!ks_mm_rt_configs[i].vec) return i;
    return KS_MM_RT_COUNT - 1;
}

int ks_matmul_rt_choose(const ks_matmul_size *s, int cc, int sm_count, ks_matmul_rt_choice *out)
{
    memset(out, 0, sizeof *out);
    if (!ks_matmul_rt_vec_ok(s)) {
        out->config = any_shape();
        out->how = KS_MM_RT_ANY_SHAPE;
        return 1;
    }
    const double size = cbrt((double)s->m * (double)s->n * (double)s->k);
    double nearest = 0.0;
    for (size_t r = 0; r < sizeof ks_mm_rt_table / sizeof ks_mm_rt_table[0]; ++r) {
        const ks_mm_rt_measured *w = &ks_mm_rt_table[r];
        const int i = ks_matmul_rt_find(w->config);
        if (w->cc != cc || w->sms != sm_count || i < 0) continue;
        const double d = fabs(log2(size / w->size));
        if (d <= 1.0 && (out->device == NULL || d < nearest)) {
            nearest = d;
            out->config = i;
            out->how = KS_MM_RT_TABLE;
            out->device = w->device;
            out->measured_size = w->size;
        }
    }
    if (out->device) return 1;
    out->config = heuristic(s, sm_count);
    out->how = KS_MM_RT_HEURISTIC;
    return 0;
}

void ks_matmul_rt_choice_text(const ks_matmul_rt_choice *c, char *buf, size_t len)
{
    const ks_matmul_rt_config *cf = ks_matmul_rt_get(c->config);
    char shape[32];
    if (cf) snprintf(shape, sizeof shape, "%dx%dx%d", cf->bm, cf->bn, cf->bk);
    else snprintf(shape, sizeof shape, "?");
    switch (c->how) {
    case KS_MM_RT_TABLE:
        snprintf(buf, len, "tile %s (measured table, %s at %d^3)", shape, c->device ? c->device : "?",
                 c->measured_size);
        break;
    case KS_MM_RT_TUNED: snprintf(buf, len, "tile %s (tuned here: fastest of %d)", shape, c->tuned_of); break;
    case KS_MM_RT_ANY_SHAPE: snprintf(buf, len, "tile %s (any shape: K or N not a multiple of 4)", shape); break;
    case KS_MM_RT_ASKED: snprintf(buf, len, "tile %s (asked)", shape); break;
    default: snprintf(buf, len, "tile %s (heuristic)", shape); break;
    }
}
