/* Which cells of a grid each pixel of a picture shows: the exact mapping
 * behind the live view's zoom and pan. render/viewport.h makes it from the
 * zoom and pan state; the Laplace picture kernel (CUDA) and its CPU reference
 * read it with the same inline functions, in integers only, so both backends
 * and the hover probe agree exactly.
 *
 * Per axis, positions are fixed point with 32 fractional bits (units of
 * 1/2^32 cell). Picture pixel p spans [origin + p*step, origin + (p+1)*step)
 * in cell coordinates; cell c spans [c, c + 1) and has its centre at c + 1/2.
 *   - zoomed out (step >= 1 cell): pixel p shows the cells whose centres lie
 *     in its span, [c0, c1) (never empty: a span of a cell or more holds a
 *     centre); neighbouring pixels share no cell and leave none out;
 *   - zoomed in (step < 1 cell): pixel p shows the one cell that holds its
 *     centre, so a cell becomes a block of pixels (nearest).
 * Ranges are clamped into [0, cells). The probe of pixel p (the cell named
 * under the cursor) is always one of the cells the pixel shows: the grid's
 * edge cell at an edge pixel, else the cell holding the pixel's centre. */
#ifndef KS_CELLMAP_H
#define KS_CELLMAP_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define KS_CELLMAP_FN static inline __host__ __device__
#else
#define KS_CELLMAP_FN static inline
#endif

#define KS_CELLMAP_SHIFT 32
#define KS_CELLMAP_ONE (1LL << KS_CELLMAP_SHIFT) /* one cell in fixed point */

enum {
    KS_CELLMAP_MAX_CELLS = 1 << 20,  /* cells per axis a map may have */
    KS_CELLMAP_MAX_PIXELS = 1 << 16, /* picture pixels per axis */
};

typedef struct ks_cellmap_axis {
    long long step;   /* cells per picture pixel, 1/2^32 cells (> 0) */
    long long origin; /* cell coordinate of pixel 0's left (bottom) edge, 1/2^32 cells (>= 0) */
    int cells;        /* grid cells along the axis (>= 1) */
    int pixels;       /* picture pixels along the axis (>= 1) */
} ks_cellmap_axis;

/* x: picture columns over the grid's first axis; y: picture rows (row 0 at
 * the bottom) over its second axis. */
typedef struct ks_cellmap {
    ks_cellmap_axis x, y;
} ks_cellmap;

/* The cells [*c0, *c1) that pixel p (0 <= p < pixels) shows; at least one. */
KS_CELLMAP_FN void ks_cellmap_range(const ks_cellmap_axis *m, int p, int *c0, int *c1)
{
    const long long left = m->origin + (long long)p * m->step;
    long long a, b;
    if (m->step >= KS_CELLMAP_ONE) {
        /* first centre >= left: ceil(left/ONE - 1/2) = floor((left + ONE/2 - 1) / ONE) */
        a = (left + KS_CELLMAP_ONE / 2 - 1) >> KS_CELLMAP_SHIFT;
        b = (left + m->step + KS_CELLMAP_ONE / 2 - 1) >> KS_CELLMAP_SHIFT;
    } else {
        a = (2 * left + m->step) >> (KS_CELLMAP_SHIFT + 1); /* the cell holding the centre */
        b = a + 1;
    }
    if (a > m->cells - 1) a = m->cells - 1;
    if (b > m->cells) b = m->cells;
    if (b <= a) b = a + 1;
    *c0 = (int)a;
    *c1 = (int)b;
}

/* The cell named by the probe at pixel p: a pixel that shows the grid's first
 * or last cell names it (so the picture's border always reads the boundary
 * values, however far out the view is zoomed); any other pixel names the cell
 * holding its centre, kept inside the pixel's own range. */
KS_CELLMAP_FN int ks_cellmap_probe(const ks_cellmap_axis *m, int p)
{
    int c0, c1;
    ks_cellmap_range(m, p, &c0, &c1);
    if (c0 == 0) return 0;
    if (c1 == m->cells) return m->cells - 1;
    const long long centre2 = 2 * (m->origin + (long long)p * m->step) + m->step;
    long long c = centre2 >> (KS_CELLMAP_SHIFT + 1);
    if (c < c0) c = c0;
    if (c > c1 - 1) c = c1 - 1;
    return (int)c;
}

/* KS_ERR_INVALID with a message unless both axes are within the limits above
 * and every pixel's span starts inside the grid. */
ks_status ks_cellmap_check(const ks_cellmap *m);

#ifdef __cplusplus
}
#endif
#endif
