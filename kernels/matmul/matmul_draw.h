/* The matmul picture's cell mapping, shared by the CPU and GPU drawers so they
 * agree pixel for pixel. Pixel p of n along an axis of len cells covers cells
 * [c0, c1) with c0 = p*len/n, c1 = max((p+1)*len/n, c0 + 1): a mean when
 * downsampling, one cell repeated when enlarging. */
#ifndef KS_MATMUL_DRAW_H
#define KS_MATMUL_DRAW_H

#include "base/colormap.h"
#include "kernels/matmul/matmul.h"

static inline KS_HOST_DEVICE void ks_matmul_cells(int p, int len, int n, long long *c0, long long *c1)
{
    *c0 = (long long)p * len / n;
    const long long e = (long long)(p + 1) * len / n;
    *c1 = e > *c0 + 1 ? e : *c0 + 1;
}

/* 1 when a tile (side grid) starts inside this pixel's cells (not at cell 0), counted
 * once where several pixels show the same cell: a thin grid line. */
static inline KS_HOST_DEVICE int ks_matmul_edge(int p, int len, int n, int grid)
{
    long long c0, c1;
    ks_matmul_cells(p, len, n, &c0, &c1);
    const long long b = (c0 + grid - 1) / grid * grid;
    if (b <= 0 || b >= c1) return 0;
    if (b == c0 && p > 0 && (long long)(p - 1) * len / n == c0) return 0;
    return 1;
}


/* ---- the tile picture (records per block tile of C) ---- */
enum {
    KS_MATMUL_TILE_EDGE_PX = 6, /* tile edges drawn only where a tile is at least this many pixels */
    KS_MATMUL_TILE_EDGE = -1,   /* pixel codes besides a table index: a tile edge (dark) */
    KS_MATMUL_TILE_NONE = -2,   /* ... a tile with no record (gray) */
};

/* 1 when tiles bt (bt.m rows by bt.n columns) are wide and tall enough in a w x h picture of C for edges. */
static inline KS_HOST_DEVICE int ks_matmul_tile_edges(int m, int n, ks_matmul_tile bt, int w, int h)
{
    return (long long)w * bt.n >= (long long)KS_MATMUL_TILE_EDGE_PX * n &&
           (long long)h * bt.m >= (long long)KS_MATMUL_TILE_EDGE_PX * m;
}

/* The code of one pixel (px, row_pic with row 0 C's top row): a table index 0..255 (pal for
 * PIC_UNIT, lut for PIC_TIME) or a code above. The
 * pixel shows the tile of its first cell. inv_span: ks_colormap_inv_span(0, last - first). */
static inline KS_HOST_DEVICE int ks_matmul_tile_code(int px, int row_pic, int m, int n, int w, int h, ks_matmul_tile bt,
                                                     int edges, const ks_matmul_tile_rec *rec, int pic,
                                                     unsigned long long first, float inv_span)
{
    if (edges && (ks_matmul_edge(row_pic, m, h, bt.m) || ks_matmul_edge(px, n, w, bt.n))) return KS_MATMUL_TILE_EDGE;
    long long i0, i1, j0, j1;
    ks_matmul_cells(row_pic, m, h, &i0, &i1);
    ks_matmul_cells(px, n, w, &j0, &j1);
    const int tiles_x = (n + bt.n - 1) / bt.n;
    const long long r = (i0 / bt.m) * tiles_x + j0 / bt.n;
    if (!rec[r].done) return KS_MATMUL_TILE_NONE;
    if (pic == KS_MATMUL_PIC_UNIT) return (int)(rec[r].unit & 255u);
    const unsigned long long t = rec[r].t_ns;
    return ks_colormap_index((float)(t > first ? t - first : 0ull), 0.0f, inv_span);
}

/* ---- the hovered tile: its row band and column band of C ---- */
enum {
    KS_MATMUL_BAND_DIM = 80, /* outside both bands a pixel keeps DIM/256 of its colour */
    KS_MATMUL_BAND_KEEP = 0, /* band codes: a pixel in a band, as drawn */
    KS_MATMUL_BAND_OUT = 1,  /* ... outside both bands: dimmed */
    KS_MATMUL_BAND_EDGE = 2, /* ... the hovered tile's outline: white */
};

/* 1 when pixel p (of n, along an axis of len cells) shows a cell of [c0, c1). */
static inline KS_HOST_DEVICE int ks_matmul_px_in(int p, int len, int n, int c0, int c1)
{
    long long a, b;
    ks_matmul_cells(p, len, n, &a, &b);
    return a < c1 && b > c0;
}

/* 1 when pixel p is the first or last one along its axis to show [c0, c1): the outline. */
static inline KS_HOST_DEVICE int ks_matmul_px_rim(int p, int len, int n, int c0, int c1)
{
    return ks_matmul_px_in(p, len, n, c0, c1) && (p == 0 || p == n - 1 || !ks_matmul_px_in(p - 1, len, n, c0, c1) ||
                                                  !ks_matmul_px_in(p + 1, len, n, c0, c1));
}

/* The band code of one pixel (px, row_pic with row 0 C's top row) for the tile [i0, i1) x [j0, j1). */
static inline KS_HOST_DEVICE int ks_matmul_band_code(int px, int row_pic, int m, int n, int w, int h, int i0, int i1,
                                                     int j0, int j1)
{
    const int in_row = ks_matmul_px_in(row_pic, m, h, i0, i1), in_col = ks_matmul_px_in(px, n, w, j0, j1);
    if (!in_row && !in_col) return KS_MATMUL_BAND_OUT;
    if (in_row && in_col && (ks_matmul_px_rim(row_pic, m, h, i0, i1) || ks_matmul_px_rim(px, n, w, j0, j1)))
        return KS_MATMUL_BAND_EDGE;
    return KS_MATMUL_BAND_KEEP;
}

/* One RGBA pixel shaded by its band code. */
static inline KS_HOST_DEVICE void ks_matmul_band_shade(int code, unsigned char *rgba)
{
    if (code == KS_MATMUL_BAND_EDGE) {
        rgba[0] = rgba[1] = rgba[2] = 255;
    } else if (code == KS_MATMUL_BAND_OUT) {
        for (int c = 0; c < 3; ++c) rgba[c] = (unsigned char)(rgba[c] * KS_MATMUL_BAND_DIM >> 8);
    }
}

#endif
