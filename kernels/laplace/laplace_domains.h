/* A Laplace grid cut into slabs along its slowest axis (z in 3D, y in 2D),
 * one per GPU or process, and an in-memory solver of N such domains on the
 * CPU that exchanges halo planes between them: the layout of the multi-GPU
 * solver, checked here bit for bit against one domain (the gold).
 *
 * A slab owns the interior planes [first, first + count) of the slow axis and
 * holds [lo, hi): its own planes plus `depth` halo planes on each side,
 * clipped to the grid, so a slab at an end of the grid holds that end's
 * boundary plane (kept, never updated) instead of a halo. With depth T a
 * domain runs T iterations between two exchanges (its halo planes go stale
 * one plane an iteration, from the outside in, and its own stay right), so a
 * temporally blocked variant exchanges once a block, with messages T planes
 * deep. Plain C, no device. */
#ifndef KS_LAPLACE_DOMAINS_H
#define KS_LAPLACE_DOMAINS_H

#include <stddef.h>

#include "base/field.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_DOMAINS_MAX = 1024 }; /* slabs a grid may be cut into */

typedef struct ks_slab {
    int first, count; /* owned interior planes of the slow axis: [first, first + count) */
    int lo, hi;       /* planes held: [lo, hi), the owned ones and the halo (or boundary) planes */
} ks_slab;

/* Points of the slow axis (nz in 3D, ny in 2D) and of one of its planes (nx*ny, or nx). */
int ks_slab_axis_points(const ks_grid *g);
size_t ks_slab_plane_points(const ks_grid *g);
/* Cuts the interior planes 1 .. n-2 of the slow axis into `count` slabs, as
 * even as can be (the first planes % count slabs one plane more), with depth
 * halo planes a side. KS_ERR_INVALID with one line: count outside 1 ..
 * KS_DOMAINS_MAX, more slabs than interior planes, depth < 1, or a slab with
 * fewer planes than depth (with more than one slab: a halo must come from the
 * neighbour alone). */
ks_status ks_slabs_split(const ks_grid *g, int count, int depth, ks_slab *out);
/* The grid a slab holds: the global one with the slow axis hi - lo points. */
ks_grid ks_slab_grid(const ks_grid *g, const ks_slab *s);
/* Offset in floats of global plane `plane` in the slab's own array (lo <= plane < hi). */
size_t ks_slab_offset(const ks_grid *g, const ks_slab *s, int plane);

/* The planes a slab reports for the whole field (a download, a slice): its
 * own, and the grid's boundary plane at an end of the grid: [*g0, *g1). */
void ks_slab_reported_planes(const ks_grid *g, const ks_slab *s, int *g0, int *g1);

/* ---- A slice of the field gathered from the slabs ----
 * The live view draws a slice from a thin grid that holds just the slice:
 * three times over in 3D (the slice is its plane 1 along the slice's axis;
 * planes 0 and 2 repeat it), the whole field in 2D. */
ks_grid ks_slab_slice_grid(const ks_grid *g, ks_axis axis);
/* One rectangle of floats to copy: height rows of width floats, row r from
 * src + src_offset + r * src_pitch to dst + dst_offset + r * dst_pitch
 * (cudaMemcpy2D's shape, counted in floats). */
typedef struct ks_copy2d {
    size_t src_offset, src_pitch, dst_offset, dst_pitch, width, height;
} ks_copy2d;
enum { KS_SLICE_COPIES_MAX = 3 };
/* The copies that put the part of slice (axis, index) the slab reports from
 * its array (planes [lo, hi)) into the slice grid's array: one for each of
 * the slice grid's three planes in 3D, one in 2D (axis and index unused).
 * Returns how many (0: none of the slice is in this slab). */
int ks_slab_slice_copies(const ks_grid *g, const ks_slab *s, ks_axis axis, int index, ks_copy2d out[KS_SLICE_COPIES_MAX]);

typedef struct ks_ldomains ks_ldomains;

/* count domains of depth-deep halos, each holding its slab of field (the
 * global field, boundary included; copied). */
ks_status ks_ldomains_create(const ks_grid *g, int count, int depth, const float *field, ks_ldomains **out);
/* iters Jacobi iterations: blocks of depth iterations in every domain (the
 * last block may be shorter), each followed by a halo exchange. */
ks_status ks_ldomains_iterate(ks_ldomains *d, int iters);
/* The whole field: every domain's own planes, the boundary planes from the
 * domains at the ends. */
void ks_ldomains_gather(const ks_ldomains *d, float *field);
/* Halo exchanges so far, and the planes they copied. */
long long ks_ldomains_exchanges(const ks_ldomains *d);
long long ks_ldomains_planes_sent(const ks_ldomains *d);
const ks_slab *ks_ldomains_slab(const ks_ldomains *d, int i);
void ks_ldomains_destroy(ks_ldomains *d);

#ifdef __cplusplus
}
#endif

#endif
