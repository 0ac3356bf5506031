/* Laplace: boundary presets, the CPU gold Jacobi step and the
 * CPU slice renderer. The gold arithmetic order is the contract every GPU
 * variant reproduces bit for bit: sum (i-1, i+1, j-1, j+1[, k-1, k+1]) left
 * to right in float, then one multiply by the float constant 1/6 (1/4 in 2D). */
#include "laplace.h"

#include <math.h>
#include <string.h>

#include "base/cpu_threads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define KS_PI 3.14159265358979323846

static const char *const ks_bc_names[KS_BC_NUM] = {"hot-top", "seed", "hot-top", "sine"};

const char *ks_bc_name(ks_bc bc) { return (bc >= 0 && bc < KS_BC_NUM) ? ks_bc_names[bc] : "?"; }

int ks_bc_parse(const char *name, ks_bc *bc)
{
    for (int b = KS_BC_SEED; b < KS_BC_NUM; ++b) {
        if (strcmp(name, ks_bc_names[b]) == 0) {
            *bc = (ks_bc)b;
            return 0;
        }
    }
    return -1;
}

/* ---- presets ---- */

/* sin(pi x) on grid index i of n points, exactly 0 at both ends (sin(pi) in
 * double is 1.2e-16, which would leave a speck of non-zero on the edges). */
static double sinpi_at(int i, int n)
{
    if (i == 0 || i == n - 1) return 0.0;
    return sin(KS_PI * (double)i / (double)(n - 1));
}

void ks_laplace_fill_initial(const ks_grid *g, ks_bc bc, float *u)
{
    if (bc == KS_BC_DEFAULT) bc = KS_BC_HOT_TOP;
    const int nx = g->nx, ny = g->ny, nz = g->dims == 3 ? g->nz : 1;
    const int dims = g->dims;
    memset(u, 0, ks_grid_bytes(g));
    for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                const size_t ind = (size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k);
                const int on_x = i == 0 || i == nx - 1;
                const int on_y = j == 0 || j == ny - 1;
                const int on_z = dims == 3 && (k == 0 || k == nz - 1);
                if (!(on_x || on_y || on_z)) continue;
                /* The "top" is face k=nz-1 (3D) or edge j=ny-1 (2D); it owns its
                 * own edges and corners, so hot-top sets them all to 1. */
                const int top = dims == 3 ? k == nz - 1 : j == ny - 1;
                switch (bc) {
                case KS_BC_SEED: u[ind] = 1.0f; break;
                case KS_BC_HOT_TOP: u[ind] = top ? 1.0f : 0.0f; break;
                case KS_BC_SINE:
                    if (!top) break;
                    u[ind] = dims == 3 ? (float)(sinpi_at(i, nx) * sinpi_at(j, ny))
                                       : (float)sinpi_at(i, nx);
                    break;
                default: break;
                }
            }
        }
    }
}

double ks_laplace_exact_sine(const ks_grid *g, int i, int j, int k)
{
    if (g->dims == 3) {
        const double z = (double)k / (double)(g->nz - 1);
        const double s2 = sqrt(2.0) * KS_PI;
        return sinpi_at(i, g->nx) * sinpi_at(j, g->ny) * sinh(s2 * z) / sinh(s2);
    }
    const double y = (double)j / (double)(g->ny - 1);
    return sinpi_at(i, g->nx) * sinh(KS_PI * y) / sinh(KS_PI);
}

/* ---- gold step ---- */

static void gold_step3d(const ks_grid *g, const float *u1, float *u2)
{
    const long long nx = g->nx, ny = g->ny, nz = g->nz;
    const long long kstride = nx * ny;
    const float sixth = 1.0f / 6.0f;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads(ks_grid_points(g)))
#endif
    for (long long k = 0; k < nz; ++k) {
        for (long long j = 0; j < ny; ++j) {
            for (long long i = 0; i < nx; ++i) {
                const long long ind = i + nx * j + kstride * k;
                if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
                    u2[ind] = u1[ind];
                } else {
                    u2[ind] = (u1[ind - 1] + u1[ind + 1] + u1[ind - nx] + u1[ind + nx] +
                               u1[ind - kstride] + u1[ind + kstride]) *
                              sixth;
                }
            }
        }
    }
}

static void gold_step2d(const ks_grid *g, const float *u1, float *u2)
{
    const long long nx = g->nx, ny = g->ny;
    const float quarter = 0.25f;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads(ks_grid_points(g)))
#endif
    for (long long j = 0; j < ny; ++j) {
        for (long long i = 0; i < nx; ++i) {
            const long long ind = i + nx * j;
            if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1)
                u2[ind] = u1[ind];
            else
                u2[ind] = (u1[ind - 1] + u1[ind + 1] + u1[ind - nx] + u1[ind + nx]) * quarter;
        }
    }
}

void ks_laplace_gold_step(const ks_grid *g, const float *u1, float *u2)
{
    if (g->dims == 3)
        gold_step3d(g, u1, u2);
    else
        gold_step2d(g, u1, u2);
}

double ks_laplace_gold_sumsq_diff(const ks_grid *g, const float *a, const float *b)
{
    const long long n = (long long)ks_grid_points(g);
    double sum = 0.0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(ks_cpu_threads((size_t)n))
#endif
    for (long long p = 0; p < n; ++p) {
        const double d = (double)a[p] - (double)b[p];
        sum += d * d;
    }
    return sum;
}

/* ---- slices ---- */

static float slice_value(const ks_grid *g, const float *u, ks_axis axis, int index, int a, int b)
{
    int p[3];
    ks_slice_point(g, axis, index, a, b, p);
    return u[(size_t)p[0] + (size_t)g->nx * ((size_t)p[1] + (size_t)g->ny * (size_t)p[2])];
}

void ks_laplace_cpu_render_slice(const ks_grid *g, const float *u, ks_axis axis, int index,
                                 ks_colormap map, float lo, float hi, unsigned char *rgba)
{
    unsigned char table[256][4];
    ks_colormap_table_rgba(map, table);
    const float inv_span = ks_colormap_inv_span(lo, hi);
    int w, h;
    ks_slice_dims(g, axis, &w, &h);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads((size_t)w * (size_t)h))
#endif
    for (int b = 0; b < h; ++b) {
        for (int a = 0; a < w; ++a) {
            const int e = ks_colormap_index(slice_value(g, u, axis, index, a, b), lo, inv_span);
            memcpy(rgba + ((size_t)b * (size_t)w + (size_t)a) * 4, table[e], 4);
        }
    }
}

void ks_laplace_cpu_slice_minmax(const ks_grid *g, const float *u, ks_axis axis, int index,
                                 float *lo, float *hi)
{
    int w, h;
    ks_slice_dims(g, axis, &w, &h);
    float mn = INFINITY, mx = -INFINITY;
    for (int b = 0; b < h; ++b) {
        for (int a = 0; a < w; ++a) {
            const float v = slice_value(g, u, axis, index, a, b);
            if (v < mn) mn = v; /* NaN compares false both ways: skipped */
            if (v > mx) mx = v;
        }
    }
    *lo = mn;
    *hi = mx;
}

/* ---- the live view's picture ---- */

/* Index steps of a slice: cell (a, b) is u[base + a*sa + b*sb]. */
typedef struct slice_walk {
    size_t base, sa, sb;
} slice_walk;

static slice_walk slice_steps(const ks_grid *g, ks_axis axis, int index)
{
    int p0[3], pa[3], pb[3];
    ks_slice_point(g, axis, index, 0, 0, p0);
    ks_slice_point(g, axis, index, 1, 0, pa);
    ks_slice_point(g, axis, index, 0, 1, pb);
    const size_t s[3] = {1, (size_t)g->nx, (size_t)g->nx * (size_t)g->ny};
    slice_walk st = {0, 0, 0};
    for (int d = 0; d < 3; ++d) {
        st.base += (size_t)p0[d] * s[d];
        st.sa += (size_t)(pa[d] - p0[d]) * s[d];
        st.sb += (size_t)(pb[d] - p0[d]) * s[d];
    }
    return st;
}

/* The mean of the cells pixel (p, q) shows, in the order laplace.h states. */
static float view_mean(const float *u, const slice_walk *st, const ks_cellmap *m, int p, int q)
{
    int x0, x1, y0, y1;
    ks_cellmap_range(&m->x, p, &x0, &x1);
    ks_cellmap_range(&m->y, q, &y0, &y1);
    double sum = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float *row = u + st->base + (size_t)y * st->sb;
        for (int x = x0; x < x1; ++x) sum += (double)row[(size_t)x * st->sa];
    }
    return (float)(sum / (double)((long long)(x1 - x0) * (long long)(y1 - y0)));
}

float ks_laplace_view_value(const ks_grid *g, const float *u, ks_axis axis, int index,
                            const ks_cellmap *m, int p, int q)
{
    const slice_walk st = slice_steps(g, axis, index);
    return view_mean(u, &st, m, p, q);
}

ks_status ks_laplace_check_view(const ks_grid *g, ks_axis axis, int index, const ks_cellmap *m)
{
    if (axis < 0 || axis >= KS_AXIS_NUM) return ks_fail(KS_ERR_INVALID, "bad slice axis %d", axis);
    const int last = ks_slice_max_index(g, axis);
    if (index < 0 || index > last) return ks_fail(KS_ERR_INVALID, "slice index %d outside 0..%d", index, last);
    KS_TRY(ks_cellmap_check(m));
    int w, h;
    ks_slice_dims(g, axis, &w, &h);
    if (m->x.cells != w || m->y.cells != h)
        return ks_fail(KS_ERR_INVALID, "view of %d x %d cells over a %d x %d slice", m->x.cells, m->y.cells, w, h);
    return KS_OK;
}

ks_status ks_laplace_cpu_render_view(const ks_grid *g, const float *u, ks_axis axis, int index,
                                     const ks_cellmap *m, ks_colormap map, float lo, float hi,
                                     unsigned char *rgba)
{
    KS_TRY(ks_laplace_check_view(g, axis, index, m));
    unsigned char table[256][4];
    ks_colormap_table_rgba(map, table);
    const float inv_span = ks_colormap_inv_span(lo, hi);
    const slice_walk st = slice_steps(g, axis, index);
    const int w = m->x.pixels, h = m->y.pixels;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) \
    num_threads(ks_cpu_threads((size_t)w * (size_t)h + (size_t)m->x.cells * (size_t)m->y.cells))
#endif
    for (int q = 0; q < h; ++q) {
        for (int p = 0; p < w; ++p) {
            const int e = ks_colormap_index(view_mean(u, &st, m, p, q), lo, inv_span);
            memcpy(rgba + ((size_t)q * (size_t)w + (size_t)p) * 4, table[e], 4);
        }
    }
    return KS_OK;
}

/* ---- the difference view (laplace.h) ---- */

ks_status ks_laplace_diff_render_view(const float *diff, int w, int h, const ks_cellmap *m, float max,
                                      unsigned char *rgba)
{
    KS_TRY(ks_cellmap_check(m));
    if (!diff || !rgba) return ks_fail(KS_ERR_INVALID, "difference picture: no values or no picture");
    if (m->x.cells != w || m->y.cells != h)
        return ks_fail(KS_ERR_INVALID, "view of %d x %d cells over a %d x %d difference slice", m->x.cells, m->y.cells,
                       w, h);
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_DIFF_CMAP, table);
    const float inv_span = ks_colormap_inv_span(0.0f, max);
    const int pw = m->x.pixels, ph = m->y.pixels;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads((size_t)pw * (size_t)ph + (size_t)w * (size_t)h))
#endif
    for (int q = 0; q < ph; ++q) {
        int y0, y1;
        ks_cellmap_range(&m->y, q, &y0, &y1);
        for (int p = 0; p < pw; ++p) {
            int x0, x1;
            ks_cellmap_range(&m->x, p, &x0, &x1);
            float v = 0.0f; /* the largest of the cells: a lone wrong one must not average away */
            for (int y = y0; y < y1; ++y)
                for (int x = x0; x < x1; ++x) {
                    const float d = diff[(size_t)y * (size_t)w + (size_t)x];
                    if (d > v) v = d;
                }
            memcpy(rgba + ((size_t)q * (size_t)pw + (size_t)p) * 4, ks_diff_colour_of(table, v, max, inv_span), 4);
        }
    }
    return KS_OK;
}
