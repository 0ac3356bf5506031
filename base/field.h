/* Fields on a regular grid and the 2D slices a picture shows of them: the
 * plain types every scene with a float field shares (the Laplace solver
 * today). Bodies in field.c.
 *
 * Grid points i = 0..nx-1 (x = i/(nx-1)), likewise j, k; i fastest in memory:
 * index = i + nx*(j + ny*k). In 2D nz == 1 and k is always 0. */
#ifndef KS_FIELD_H
#define KS_FIELD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_grid {
    int dims;       /* 2 or 3 */
    int nx, ny, nz; /* points per axis, each >= 3; nz == 1 when dims == 2 */
} ks_grid;

typedef enum ks_axis { KS_AXIS_X = 0, KS_AXIS_Y, KS_AXIS_Z, KS_AXIS_NUM } ks_axis;

size_t ks_grid_points(const ks_grid *g);
size_t ks_grid_bytes(const ks_grid *g); /* one float32 field */

/* ---- Slices (what the picture shows) ----
 * 3D axis z at index k: image w = nx, h = ny, pixel (a, b) = point (a, b, k)
 * 3D axis y at index j: image w = nx, h = nz, pixel (a, b) = point (a, j, b)
 * 3D axis x at index i: image w = ny, h = nz, pixel (a, b) = point (i, a, b)
 * 2D: the whole field, w = nx, h = ny, axis/index ignored.
 * Image row b = 0 is the bottom row of the picture (OpenGL order), RGBA8. */
void ks_slice_dims(const ks_grid *g, ks_axis axis, int *w, int *h);
int ks_slice_max_index(const ks_grid *g, ks_axis axis); /* last valid index */
/* Grid point shown at image pixel (a, b). */
void ks_slice_point(const ks_grid *g, ks_axis axis, int index, int a, int b, int ijk[3]);

#ifdef __cplusplus
}
#endif
#endif
