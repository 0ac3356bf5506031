/* Matmul inputs, size parsing, CPU gold, variant table and DRAM model (matmul.h). */
#include "matmul.h"
#include "matmul_draw.h"
#include "matmul_tiles.h"
#include "base/diff_colour.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

float ks_matmul_a(const ks_matmul_size *s, int i, int k)
{
    const long long x = ((long long)i * s->k + k) % 17;
    return (float)(x - 8) / 8.0f;
}

float ks_matmul_b(const ks_matmul_size *s, int k, int j)
{
    const long long x = ((long long)k * s->n + j) % 13;
    return (float)(x - 6) / 4.0f;
}

void ks_matmul_fill(const ks_matmul_size *s, float *a, float *b)
{
    const long long na = (long long)s->m * s->k, nb = (long long)s->k * s->n;
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < na; ++e) a[e] = (float)(e % 17 - 8) / 8.0f;
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < nb; ++e) b[e] = (float)(e % 13 - 6) / 4.0f;
}

ks_status ks_matmul_size_check(const ks_matmul_size *s)
{
    if (s->m < 1 || s->n < 1 || s->k < 1 || s->m > KS_MATMUL_MAX_DIM || s->n > KS_MATMUL_MAX_DIM ||
        s->k > KS_MATMUL_MAX_DIM)
        return ks_fail(KS_ERR_INVALID, "matmul: size %dx%dx%d: each side must be 1..%d", s->m, s->n, s->k,
                       KS_MATMUL_MAX_DIM);
    const double elems = (double)s->m * s->k + (double)s->k * s->n + (double)s->m * s->n;
    if (elems > KS_MATMUL_MAX_ELEMS)
        return ks_fail(KS_ERR_INVALID, "matmul: size %dx%dx%d is too large (%.3g elements in A, B and C; at most %.3g)",
                       s->m, s->n, s->k, elems, KS_MATMUL_MAX_ELEMS);
    return KS_OK;
}

int ks_matmul_size_parse(const char *text, ks_matmul_size *s)
{
    int v[3], parts = 0;
    const char *p = text;
    if (!p || !*p) return -1;
    for (;;) {
        if (parts == 3 || !isdigit((unsigned char)*p)) return -1;
        errno = 0;
        char *end = NULL;
        const long x = strtol(p, &end, 10);
        if (errno || x < 1 || x > KS_MATMUL_MAX_DIM) return -1;
        v[parts++] = (int)x;
        if (*end == '\0') break;
        if (*end != 'x' && *end != 'X') return -1;
        p = end + 1;
    }
    if (parts == 2) return -1; /* M or MxNxK, nothing in between */
    s->m = v[0];
    s->n = parts == 3 ? v[1] : v[0];
    s->k = parts == 3 ? v[2] : v[0];
    return 0;
}

void ks_matmul_gold(const ks_matmul_size *s, const float *a, const float *b, float *c)
{
    const int M = s->m, N = s->n, K = s->k;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M; ++i) {
        float *ci = c + (size_t)i * N;
        for (int j = 0; j < N; ++j) ci[j] = 0.0f;
        const float *ai = a + (size_t)i * K;
        for (int k = 0; k < K; ++k) {
            const float x = ai[k];
            const float *bk = b + (size_t)k * N;
            for (int j = 0; j < N; ++j) ci[j] += x * bk[j];
        }
    }
}

long long ks_matmul_first_diff(const float *want, const float *got, size_t n)
{
    for (size_t e = 0; e < n; ++e)
        if (memcmp(&want[e], &got[e], sizeof(float)) != 0) return (long long)e;
    return -1;
}

double ks_matmul_flops(const ks_matmul_size *s)
{
    return 2.0 * s->m * s->n * s->k;
}

static const ks_matmul_variant_info ks_matmul_variants[KS_MATMUL_NUM] = {
    [KS_MATMUL_NAIVE] = {"naive", "one thread per C element, operands straight from global memory", {0}},
    [KS_MATMUL_TILED] = {"tiled", "TxT shared-memory tiles of A and B, one C element per thread", {8, 16, 32}},
    [KS_MATMUL_REGTILE] = {"regtile", "warp-tiled: 8x8 or 8x16 C per thread in registers, block tile per size "
                           "and GPU, BK 16, cp.async double buffering", {0}},
    [KS_MATMUL_CUBLAS] = {"cublas", "cublasSgemm, FP32 (no tensor cores, no TF32): the reference", {0}},
};

const ks_matmul_variant_info *ks_matmul_variant_get(ks_matmul_variant v)
{
    return (v >= 0 && v < KS_MATMUL_NUM) ? &ks_matmul_variants[v] : NULL;
}

int ks_matmul_variant_parse(const char *name, ks_matmul_variant *out)
{
    for (int v = 0; v < KS_MATMUL_NUM; ++v)
        if (name && strcmp(name, ks_matmul_variants[v].name) == 0) {
            *out = (ks_matmul_variant)v;
            return 0;
        }
    return -1;
}

void ks_matmul_variant_list(char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int v = 0; v < KS_MATMUL_NUM && used < len; ++v) {
        const int n = snprintf(buf + used, len - used, "%s%s", v ? ", " : "", ks_matmul_variants[v].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

ks_matmul_tile ks_matmul_block_tile(ks_matmul_variant v, int tile, int rt_config)
{
    switch (v) {
    case KS_MATMUL_NAIVE: return (ks_matmul_tile){16, 16};
    case KS_MATMUL_TILED: return (ks_matmul_tile){tile, tile};
    case KS_MATMUL_REGTILE: return ks_matmul_rt_tile(rt_config);
    default: return (ks_matmul_tile){0, 0};
    }
}

double ks_matmul_model_bytes(ks_matmul_variant v, ks_matmul_tile bt, const ks_matmul_size *s)
{
    const double mnk = (double)s->m * s->n * s->k, c = 4.0 * s->m * s->n;
    if (v == KS_MATMUL_NAIVE) return 2.0 * mnk * 4.0 + c;
    if (v == KS_MATMUL_CUBLAS || bt.m < 1 || bt.n < 1) bt = (ks_matmul_tile){128, 128};
    return 4.0 * mnk * (1.0 / bt.n + 1.0 / bt.m) + c;
}

void ks_matmul_draw_cpu(const ks_matmul_size *s, const float *c, int w, int h, const unsigned char lut[256][4],
                        float lo, float hi, ks_matmul_tile grid, unsigned char *rgba)
{
    const float inv = hi > lo ? 1.0f / (hi - lo) : 1.0f;
#pragma omp parallel for schedule(static)
    for (int py = 0; py < h; ++py) {
        const int row_pic = h - 1 - py;
        long long i0, i1;
        ks_matmul_cells(row_pic, s->m, h, &i0, &i1);
        const int edge_row = grid.m > 0 && ks_matmul_edge(row_pic, s->m, h, grid.m);
        for (int px = 0; px < w; ++px) {
            long long j0, j1;
            ks_matmul_cells(px, s->n, w, &j0, &j1);
            double sum = 0.0;
            for (long long i = i0; i < i1; ++i)
                for (long long j = j0; j < j1; ++j) sum += c[i * s->n + j];
            const float mean = (float)(sum / (double)((i1 - i0) * (j1 - j0)));
            unsigned char *out = rgba + 4 * ((size_t)py * w + px);
            if (edge_row || (grid.n > 0 && ks_matmul_edge(px, s->n, w, grid.n))) {
                out[0] = out[1] = out[2] = out[3] = 255;
            } else {
                memcpy(out, lut[ks_colormap_index(mean, lo, inv)], 4);
            }
        }
    }
}

void ks_matmul_draw_diff_cpu(const ks_matmul_size *s, const float *diff, int w, int h, float max, unsigned char *rgba)
{
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_DIFF_CMAP, table);
    const float inv_span = ks_colormap_inv_span(0.0f, max);
#pragma omp parallel for schedule(static)
    for (int py = 0; py < h; ++py) {
        long long i0, i1;
        ks_matmul_cells(h - 1 - py, s->m, h, &i0, &i1);
        for (int px = 0; px < w; ++px) {
            long long j0, j1;
            ks_matmul_cells(px, s->n, w, &j0, &j1);
            float v = 0.0f; /* the largest: a lone wrong element must not average away */
            for (long long j = j0; j < j1; ++j)
                for (long long i = i0; i < i1; ++i) {
                    const float d = diff[i + j * s->m];
                    if (d > v) v = d;
                }
            memcpy(rgba + 4 * ((size_t)py * w + px), ks_diff_colour_of(table, v, max, inv_span), 4);
        }
    }
}

void ks_matmul_picture_size(const ks_matmul_size *s, int max_side, int *w, int *h)
{
    const int big = s->m > s->n ? s->m : s->n;
    if (big <= max_side) {
        const int f = max_side / big;
        *w = s->n * f;
        *h = s->m * f;
    } else {
        *w = (int)((long long)s->n * max_side / big);
        *h = (int)((long long)s->m * max_side / big);
    }
    if (*w < 1) *w = 1;
    if (*h < 1) *h = 1;
}

/* ---- how the work was done ---- */

const char *ks_matmul_picture_name(ks_matmul_picture p)
{
    switch (p) {
    case KS_MATMUL_PIC_UNIT: return "SM / thread";
    case KS_MATMUL_PIC_TIME: return "finish time";
    default: return "values";
    }
}

void ks_matmul_tile_grid(const ks_matmul_size *s, ks_matmul_tile bt, int *tiles_x, int *tiles_y)
{
    if (bt.m < 1) bt.m = 1;
    if (bt.n < 1) bt.n = 1;
    *tiles_x = (s->n + bt.n - 1) / bt.n;
    *tiles_y = (s->m + bt.m - 1) / bt.m;
}

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void ks_matmul_gold_tiles(const ks_matmul_size *s, const float *a, const float *b, float *c, int bt,
                          ks_matmul_tile_rec *rec)
{
    const int M = s->m, N = s->n, K = s->k;
    int tx, ty;
    ks_matmul_tile_grid(s, (ks_matmul_tile){bt, bt}, &tx, &ty);
    const long long nt = (long long)tx * ty;
    /* dynamic: a free thread takes the next tile, as a free SM takes the next block; each
     * element still sums its k in order, so C is the row gold's bit for bit */
#pragma omp parallel for schedule(dynamic, 1)
    for (long long t = 0; t < nt; ++t) {
        const int i0 = (int)(t / tx) * bt, j0 = (int)(t % tx) * bt;
        const int i1 = i0 + bt < M ? i0 + bt : M, j1 = j0 + bt < N ? j0 + bt : N;
        for (int i = i0; i < i1; ++i) {
            float *ci = c + (size_t)i * N;
            for (int j = j0; j < j1; ++j) ci[j] = 0.0f;
            const float *ai = a + (size_t)i * K;
            for (int k = 0; k < K; ++k) {
                const float x = ai[k];
                const float *bk = b + (size_t)k * N;
                for (int j = j0; j < j1; ++j) ci[j] += x * bk[j];
            }
        }
        if (rec) {
#ifdef _OPENMP
            rec[t].unit = (unsigned int)omp_get_thread_num();
#else
            rec[t].unit = 0;
#endif
            rec[t].done = 1;
            rec[t].t_ns = now_ns();
        }
    }
}

void ks_matmul_unit_palette(unsigned char pal[256][4])
{
    /* hues a golden angle apart, three lightness steps in turn: units 0, 1, 2 ... differ
     * clearly, and colours repeat only after many units */
    for (int u = 0; u < 256; ++u) {
        const double hue = fmod(u * 137.508, 360.0) / 60.0;
        const double val = u % 3 == 0 ? 0.95 : u % 3 == 1 ? 0.75 : 0.55, sat = u % 2 ? 0.55 : 0.85;
        const int sector = (int)hue;
        const double f = hue - sector, p = val * (1.0 - sat), q = val * (1.0 - sat * f),
                     r = val * (1.0 - sat * (1.0 - f));
        double rgb[3];
        switch (sector % 6) {
        case 0: rgb[0] = val, rgb[1] = r, rgb[2] = p; break;
        case 1: rgb[0] = q, rgb[1] = val, rgb[2] = p; break;
        case 2: rgb[0] = p, rgb[1] = val, rgb[2] = r; break;
        case 3: rgb[0] = p, rgb[1] = q, rgb[2] = val; break;
        case 4: rgb[0] = r, rgb[1] = p, rgb[2] = val; break;
        default: rgb[0] = val, rgb[1] = p, rgb[2] = q; break;
        }
        for (int ch = 0; ch < 3; ++ch) pal[u][ch] = (unsigned char)(rgb[ch] * 255.0 + 0.5);
        pal[u][3] = 255;
    }
}

void ks_matmul_tile_span(const ks_matmul_tile_rec *rec, int n, unsigned long long *first, unsigned long long *last)
{
    int any = 0;
    *first = *last = 0;
    for (int r = 0; r < n; ++r) {
        if (!rec[r].done) continue;
        if (!any || rec[r].t_ns < *first) *first = rec[r].t_ns;
        if (!any || rec[r].t_ns > *last) *last = rec[r].t_ns;
        any = 1;
    }
}

void ks_matmul_draw_tiles_cpu(const ks_matmul_size *s, ks_matmul_tile bt, const ks_matmul_tile_rec *rec,
                              ks_matmul_picture pic, const unsigned char pal[256][4],
                              const unsigned char lut[256][4], unsigned long long first,
                              unsigned long long last, int w, int h, unsigned char *rgba)
{
    static const unsigned char edge[4] = {20, 20, 20, 255}, none[4] = {96, 96, 96, 255};
    const float inv = ks_colormap_inv_span(0.0f, (float)(last - first));
    const int edges = ks_matmul_tile_edges(s->m, s->n, bt, w, h);
    const unsigned char(*table)[4] = pic == KS_MATMUL_PIC_UNIT ? pal : lut;
    const int tiles_x = (s->n + bt.n - 1) / bt.n;
    /* ks_matmul_tile_code, with its per-column part (tile column, edge) worked out once */
    int *col = malloc((size_t)w * sizeof *col);
    if (!col) { /* no memory for the shortcut: pixel by pixel */
        for (int py = 0; py < h; ++py)
            for (int px = 0; px < w; ++px) {
                const int code = ks_matmul_tile_code(px, h - 1 - py, s->m, s->n, w, h, bt, edges, rec, (int)pic, first, inv);
                const unsigned char *c = code == KS_MATMUL_TILE_EDGE ? edge : code == KS_MATMUL_TILE_NONE ? none : table[code];
                memcpy(rgba + 4 * ((size_t)py * w + px), c, 4);
            }
        return;
    }
    for (int px = 0; px < w; ++px) {
        long long j0, j1;
        ks_matmul_cells(px, s->n, w, &j0, &j1);
        col[px] = edges && ks_matmul_edge(px, s->n, w, bt.n) ? -1 : (int)(j0 / bt.n);
    }
#pragma omp parallel for schedule(static)
    for (int py = 0; py < h; ++py) {
        const int row_pic = h - 1 - py;
        long long i0, i1;
        ks_matmul_cells(row_pic, s->m, h, &i0, &i1);
        const int edge_row = edges && ks_matmul_edge(row_pic, s->m, h, bt.m);
        const ks_matmul_tile_rec *r0 = rec + (i0 / bt.m) * tiles_x;
        for (int px = 0; px < w; ++px) {
            const unsigned char *c;
            if (edge_row || col[px] < 0) {
                c = edge;
            } else {
                const ks_matmul_tile_rec *r = r0 + col[px];
                if (!r->done) c = none;
                else if (pic == KS_MATMUL_PIC_UNIT) c = table[r->unit & 255u];
                else c = table[ks_colormap_index((float)(r->t_ns > first ? r->t_ns - first : 0ull), 0.0f, inv)];
            }
            memcpy(rgba + 4 * ((size_t)py * w + px), c, 4);
        }
    }
    free(col);
}

void ks_matmul_band_of(const ks_matmul_size *s, ks_matmul_tile bt, int i, int j, ks_matmul_band *b)
{
    if (bt.m < 1) bt.m = 1;
    if (bt.n < 1) bt.n = 1;
    b->i0 = i / bt.m * bt.m;
    b->j0 = j / bt.n * bt.n;
    b->i1 = b->i0 + bt.m < s->m ? b->i0 + bt.m : s->m;
    b->j1 = b->j0 + bt.n < s->n ? b->j0 + bt.n : s->n;
}

void ks_matmul_shade_bands_cpu(const ks_matmul_size *s, const ks_matmul_band *b, int w, int h, unsigned char *rgba)
{
#pragma omp parallel for schedule(static)
    for (int py = 0; py < h; ++py)
        for (int px = 0; px < w; ++px)
            ks_matmul_band_shade(ks_matmul_band_code(px, h - 1 - py, s->m, s->n, w, h, b->i0, b->i1, b->j0, b->j1),
                                 rgba + 4 * ((size_t)py * w + px));
}
