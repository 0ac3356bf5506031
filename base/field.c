/* Grid sizes and slice geometry (field.h). */
#include "field.h"

size_t ks_grid_points(const ks_grid *g)
{
    return (size_t)g->nx * (size_t)g->ny * (size_t)(g->dims == 3 ? g->nz : 1);
}

size_t ks_grid_bytes(const ks_grid *g) { return ks_grid_points(g) * sizeof(float); }

void ks_slice_dims(const ks_grid *g, ks_axis axis, int *w, int *h)
{
    if (g->dims != 3 || axis == KS_AXIS_Z) {
        *w = g->nx;
        *h = g->ny;
    } else if (axis == KS_AXIS_Y) {
        *w = g->nx;
        *h = g->nz;
    } else {
        *w = g->ny;
        *h = g->nz;
    }
}

int ks_slice_max_index(const ks_grid *g, ks_axis axis)
{
    if (g->dims != 3) return 0;
    if (axis == KS_AXIS_X) return g->nx - 1;
    if (axis == KS_AXIS_Y) return g->ny - 1;
    return g->nz - 1;
}

void ks_slice_point(const ks_grid *g, ks_axis axis, int index, int a, int b, int ijk[3])
{
    if (g->dims != 3) {
        ijk[0] = a, ijk[1] = b, ijk[2] = 0;
    } else if (axis == KS_AXIS_Z) {
        ijk[0] = a, ijk[1] = b, ijk[2] = index;
    } else if (axis == KS_AXIS_Y) {
        ijk[0] = a, ijk[1] = index, ijk[2] = b;
    } else {
        ijk[0] = index, ijk[1] = a, ijk[2] = b;
    }
}
