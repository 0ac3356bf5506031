/* The matmul picture's cell mapping, shared by the CPU and GPU drawers so they
 * agree pixel for pixel. Pixel p of n along an axis of len cells covers cells
 * [c0, c1) with c0 = p*len/n, c1 = max((p+1)*len/n, c0 + 1): a mean when
 * downsampling, one cell repeated when enlarging. */
#ifndef KS_MATMUL_DRAW_H
#define KS_MATMUL_DRAW_H

#include "kernels/common/colormap.h"

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

#endif
