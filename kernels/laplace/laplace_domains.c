/* Slabs and the N-domain CPU solver (laplace_domains.h). */
#include "laplace_domains.h"

#include <stdlib.h>
#include <string.h>

#include "laplace.h"

int ks_slab_axis_points(const ks_grid *g) { return g->dims == 3 ? g->nz : g->ny; }

size_t ks_slab_plane_points(const ks_grid *g) { return g->dims == 3 ? (size_t)g->nx * (size_t)g->ny : (size_t)g->nx; }

ks_status ks_slabs_split(const ks_grid *g, int count, int depth, ks_slab *out)
{
    const int n = ks_slab_axis_points(g), planes = n - 2;
    const char axis = g->dims == 3 ? 'z' : 'y';
    if (count < 1 || count > KS_DOMAINS_MAX)
        return ks_fail(KS_ERR_INVALID, "%d domains: 1 to %d", count, KS_DOMAINS_MAX);
    if (depth < 1) return ks_fail(KS_ERR_INVALID, "a halo depth of %d planes: at least 1", depth);
    if (count > planes)
        return ks_fail(KS_ERR_INVALID, "%d domains for %d interior planes along %c: at most one domain a plane", count,
                       planes, axis);
    const int base = planes / count, extra = planes % count;
    if (count > 1 && base < depth)
        return ks_fail(KS_ERR_INVALID, "%d domains of %d interior planes along %c are %d planes thin, less than the "
                       "halo depth %d (fewer domains or a shallower halo)",
                       count, planes, axis, base, depth);
    int first = 1;
    for (int i = 0; i < count; ++i) {
        ks_slab *s = &out[i];
        s->first = first;
        s->count = base + (i < extra);
        s->lo = first - depth < 0 ? 0 : first - depth;
        s->hi = first + s->count + depth > n ? n : first + s->count + depth;
        first += s->count;
    }
    return KS_OK;
}

ks_grid ks_slab_grid(const ks_grid *g, const ks_slab *s)
{
    ks_grid l = *g;
    if (g->dims == 3) l.nz = s->hi - s->lo;
    else l.ny = s->hi - s->lo;
    return l;
}

size_t ks_slab_offset(const ks_grid *g, const ks_slab *s, int plane)
{
    return (size_t)(plane - s->lo) * ks_slab_plane_points(g);
}

void ks_slab_reported_planes(const ks_grid *g, const ks_slab *s, int *g0, int *g1)
{
    const int n = ks_slab_axis_points(g);
    *g0 = s->first == 1 ? 0 : s->first;                               /* the first slab: plane 0 too */
    *g1 = s->first + s->count == n - 1 ? n : s->first + s->count;     /* the last one: plane n-1 */
}

ks_grid ks_slab_slice_grid(const ks_grid *g, ks_axis axis)
{
    ks_grid v = *g;
    if (v.dims == 2) return v;
    if (axis == KS_AXIS_X) v.nx = 3;
    else if (axis == KS_AXIS_Y) v.ny = 3;
    else v.nz = 3;
    return v;
}

int ks_slab_slice_copies(const ks_grid *g, const ks_slab *s, ks_axis axis, int index, ks_copy2d out[KS_SLICE_COPIES_MAX])
{
    int g0, g1;
    ks_slab_reported_planes(g, s, &g0, &g1);
    const size_t nx = (size_t)g->nx, ny = (size_t)g->ny, plane = ks_slab_plane_points(g), rows = (size_t)(g1 - g0);
    const size_t src = (size_t)(g0 - s->lo) * plane; /* the first reported plane in the slab's array */
    if (g->dims == 2) { /* the field's rows g0 .. g1 */
        out[0] = (ks_copy2d){src, nx, (size_t)g0 * nx, nx, nx, rows};
        return 1;
    }
    if (axis == KS_AXIS_Z && (index < g0 || index >= g1)) return 0;
    for (size_t c = 0; c < 3; ++c) {
        if (axis == KS_AXIS_Z) /* one plane, from its owner */
            out[c] = (ks_copy2d){(size_t)(index - s->lo) * plane, plane, c * plane, plane, plane, 1};
        else if (axis == KS_AXIS_Y) /* row j of each plane: (i, c, k) of the slice grid, nx x 3 planes */
            out[c] = (ks_copy2d){src + (size_t)index * nx, plane, c * nx + (size_t)g0 * 3 * nx, 3 * nx, nx, rows};
        else /* point i of each row: (c, j, k) of the slice grid, 3 x ny planes */
            out[c] = (ks_copy2d){src + (size_t)index, nx, c + (size_t)g0 * 3 * ny, 3, 1, rows * ny};
    }
    return 3;
}

typedef struct domain {
    ks_slab slab;
    ks_grid grid; /* what it holds */
    float *cur, *next;
} domain;

struct ks_ldomains {
    ks_grid grid;
    int count, depth;
    long long exchanges, planes_sent;
    domain d[];
};

ks_status ks_ldomains_create(const ks_grid *g, int count, int depth, const float *field, ks_ldomains **out)
{
    *out = NULL;
    ks_slab slabs[KS_DOMAINS_MAX] = {{0}};
    KS_TRY(ks_slabs_split(g, count, depth, slabs));
    ks_ldomains *d = calloc(1, sizeof *d + (size_t)count * sizeof(domain));
    if (!d) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for %d domains", count);
    d->grid = *g;
    d->count = count;
    d->depth = depth;
    const size_t plane = ks_slab_plane_points(g);
    for (int i = 0; i < count; ++i) {
        domain *m = &d->d[i];
        m->slab = slabs[i];
        m->grid = ks_slab_grid(g, &slabs[i]);
        const size_t bytes = ks_grid_bytes(&m->grid);
        m->cur = malloc(bytes);
        m->next = malloc(bytes);
        if (!m->cur || !m->next) {
            ks_ldomains_destroy(d);
            return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for domain %d (%zu bytes)", i, 2 * bytes);
        }
        /* both fields hold the boundary; the step copies it from one to the other anyway */
        memcpy(m->cur, field + (size_t)m->slab.lo * plane, bytes);
        memcpy(m->next, m->cur, bytes);
    }
    *out = d;
    return KS_OK;
}

/* Planes [from, to) of domain src into the same planes of dst (their current fields). */
static void copy_planes(ks_ldomains *d, domain *dst, const domain *src, int from, int to)
{
    if (to <= from) return;
    const size_t plane = ks_slab_plane_points(&d->grid);
    memcpy(dst->cur + ks_slab_offset(&d->grid, &dst->slab, from), src->cur + ks_slab_offset(&d->grid, &src->slab, from),
           (size_t)(to - from) * plane * sizeof(float));
    d->planes_sent += to - from;
}

/* Each domain's halo planes from the neighbour that owns them. */
static void exchange(ks_ldomains *d)
{
    for (int i = 0; i < d->count; ++i) {
        domain *m = &d->d[i];
        if (i > 0) copy_planes(d, m, &d->d[i - 1], m->slab.lo, m->slab.first);
        if (i + 1 < d->count) copy_planes(d, m, &d->d[i + 1], m->slab.first + m->slab.count, m->slab.hi);
    }
    ++d->exchanges;
}

ks_status ks_ldomains_iterate(ks_ldomains *d, int iters)
{
    if (iters < 0) return ks_fail(KS_ERR_INVALID, "iterations must be >= 0, got %d", iters);
    while (iters > 0) {
        const int block = iters < d->depth ? iters : d->depth;
        for (int i = 0; i < d->count; ++i) {
            domain *m = &d->d[i];
            for (int s = 0; s < block; ++s) {
                ks_laplace_gold_step(&m->grid, m->cur, m->next);
                float *t = m->cur;
                m->cur = m->next;
                m->next = t;
            }
        }
        if (d->count > 1) exchange(d);
        iters -= block;
    }
    return KS_OK;
}

void ks_ldomains_gather(const ks_ldomains *d, float *field)
{
    const size_t plane = ks_slab_plane_points(&d->grid);
    for (int i = 0; i < d->count; ++i) {
        const domain *m = &d->d[i];
        int from = m->slab.first, to = m->slab.first + m->slab.count;
        if (i == 0) from = 0; /* the boundary planes at the ends */
        if (i + 1 == d->count) to = ks_slab_axis_points(&d->grid);
        memcpy(field + (size_t)from * plane, m->cur + ks_slab_offset(&d->grid, &m->slab, from),
               (size_t)(to - from) * plane * sizeof(float));
    }
}

long long ks_ldomains_exchanges(const ks_ldomains *d) { return d->exchanges; }
long long ks_ldomains_planes_sent(const ks_ldomains *d) { return d->planes_sent; }
const ks_slab *ks_ldomains_slab(const ks_ldomains *d, int i) { return i >= 0 && i < d->count ? &d->d[i].slab : NULL; }

void ks_ldomains_destroy(ks_ldomains *d)
{
    if (!d) return;
    for (int i = 0; i < d->count; ++i) {
        free(d->d[i].cur);
        free(d->d[i].next);
    }
    free(d);
}
