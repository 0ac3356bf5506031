/* The live view's zoom and pan (render/viewport.h), the cell map behind it
 * (base/cellmap.h) and the Laplace view picture on the CPU
 * (ks_laplace_cpu_render_view), each against a naive reference written from
 * the stated rules on odd sizes:
 *   - pixel p shows the cells whose centres lie in its span (zoomed out) or
 *     the cell holding its centre (zoomed in), clamped into the grid;
 *   - the fit shows every cell, the probe names a cell of the pixel it is in,
 *     exact at the first and last pixel;
 *   - zooming keeps the cell under the cursor under it unless the view had to
 *     be clamped; zoom stops at 64 pixels per cell and at the fit; a drag
 *     pans, clamped so the grid always covers the area;
 *   - the picture is the mean of the covered cells (double, row-major),
 *     bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/laplace/laplace.h"
#include "render/viewport.h"

#define ONE KS_CELLMAP_ONE

/* ks_status calls that must succeed, with the message when they do not */
#define assert_ok(call)                                                                            \
    do {                                                                                           \
        ks_status st_ = (call);                                                                    \
        if (st_ != KS_OK) fail_msg("%s: %s", #call, ks_error_message());                          \
    } while (0)

static const int k_grids[][2] = {{1, 1}, {3, 3}, {17, 33}, {33, 17}, {1000, 999}, {4097, 5}, {2, 3000}};
static const int k_areas[][2] = {{1, 1}, {7, 5}, {64, 64}, {640, 400}, {1279, 801}, {2000, 2000}};
#define N_GRIDS ((int)(sizeof k_grids / sizeof k_grids[0]))
#define N_AREAS ((int)(sizeof k_areas / sizeof k_areas[0]))

/* ---- naive references ---- */

/* The cells pixel p covers, found by testing every cell of the axis: its
 * centre (c + 1/2) inside [left, right), else the cell holding the pixel's
 * centre; clamped into [0, cells). */
static void naive_range(const ks_cellmap_axis *m, int p, int *c0, int *c1)
{
    const long long left = m->origin + (long long)p * m->step, right = left + m->step;
    int first = -1, last = -1;
    for (int c = 0; c < m->cells; ++c) {
        const long long centre2 = (2LL * c + 1) * ONE; /* twice the centre */
        if (centre2 >= 2 * left && centre2 < 2 * right) {
            if (first < 0) first = c;
            last = c;
        }
    }
    if (first < 0) {
        /* no centre inside: the cell whose [c, c+1) holds the pixel's centre */
        const long long mid2 = 2 * left + m->step;
        first = m->cells - 1;
        for (int c = 0; c < m->cells; ++c)
            if (2LL * c * ONE <= mid2 && mid2 < 2LL * (c + 1) * ONE) first = c;
        last = first;
    }
    *c0 = first;
    *c1 = last + 1;
}

/* The cell holding the centre of pixel p (what stays under a zooming cursor). */
static int centre_cell(const ks_cellmap_axis *m, int p)
{
    const long long mid2 = 2 * (m->origin + (long long)p * m->step) + m->step;
    const long long c = mid2 / (2 * ONE);
    return (int)(c < m->cells ? c : m->cells - 1);
}

static unsigned g_rng = 12345u;
static unsigned rnd(void)
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return g_rng >> 8;
}

/* ---- the cell map ---- */

static void check_axis_against_naive(const ks_cellmap_axis *m)
{
    /* every pixel for small pictures, a sample of them (with both ends) else */
    const int stride = m->pixels > 600 ? m->pixels / 300 : 1;
    for (int p = 0; p < m->pixels; p += stride) {
        for (int pass = 0; pass < 2; ++pass) {
            const int at = pass ? m->pixels - 1 - p : p;
            int a0, a1, b0, b1;
            ks_cellmap_range(m, at, &a0, &a1);
            naive_range(m, at, &b0, &b1);
            if (a0 != b0 || a1 != b1)
                fail_msg("pixel %d (step %lld, origin %lld, %d cells): [%d, %d) but naive [%d, %d)", at, m->step,
                         m->origin, m->cells, a0, a1, b0, b1);
            const int probe = ks_cellmap_probe(m, at);
            assert_true(probe >= a0 && probe < a1);
        }
    }
}

/* Zoomed out the pixels split the cells among them: in order, no gap, no
 * overlap; zoomed in each pixel shows one cell, in order, each cell a block
 * of floor or ceil(pixels per cell) pixels (the ends may be cut). */
static void check_axis_partition(const ks_cellmap_axis *m, int whole)
{
    const double ppc = (double)ONE / (double)m->step;
    int prev0 = -1, prev1 = 0, run = 0, runs = 0;
    for (int p = 0; p < m->pixels; ++p) {
        int c0, c1;
        ks_cellmap_range(m, p, &c0, &c1);
        assert_true(c0 >= 0 && c1 <= m->cells && c1 > c0);
        if (p == 0 && whole) assert_int_equal(c0, 0);
        if (m->step >= ONE) {
            if (p > 0) assert_int_equal(c0, prev1);
        } else {
            assert_int_equal(c1, c0 + 1);
            if (p > 0) assert_true(c0 == prev0 || c0 == prev0 + 1);
            if (p > 0 && c0 != prev0) {
                /* a whole block ended (the first may be cut by the view) */
                if (runs > 0) assert_true(run >= (int)floor(ppc) && run <= (int)ceil(ppc));
                ++runs;
                run = 0;
            }
            ++run;
        }
        prev0 = c0;
        prev1 = c1;
    }
    if (whole) assert_int_equal(prev1, m->cells);
}

static void test_fit_every_size(void **state)
{
    (void)state;
    for (int gi = 0; gi < N_GRIDS; ++gi) {
        for (int ai = 0; ai < N_AREAS; ++ai) {
            ks_viewport v;
            ks_viewport_init(&v);
            ks_viewport_set_area(&v, k_areas[ai][0], k_areas[ai][1]);
            ks_viewport_set_grid(&v, k_grids[gi][0], k_grids[gi][1]);
            ks_cellmap m;
            ks_viewport_map(&v, &m);
            assert_ok(ks_cellmap_check(&m));
            /* never larger than the area, and the binding axis fills it (to a pixel) */
            assert_true(m.x.pixels <= v.area_w && m.y.pixels <= v.area_h);
            assert_true(m.x.pixels >= v.area_w - 1 || m.y.pixels >= v.area_h - 1);
            assert_true(fabs(ks_viewport_zoom_factor(&v) - 1.0) < 1e-12);
            check_axis_partition(&m.x, 1);
            check_axis_partition(&m.y, 1);
            check_axis_against_naive(&m.x);
            check_axis_against_naive(&m.y);
            int x0, x1, y0, y1;
            ks_viewport_shown(&v, &x0, &x1, &y0, &y1);
            assert_int_equal(x0, 0);
            assert_int_equal(y0, 0);
            assert_int_equal(x1, v.grid_w);
            assert_int_equal(y1, v.grid_h);
            /* exact at the edges: the corner pixels name the corner cells */
            int ox, oy, cx, cy;
            ks_viewport_offset(&v, &ox, &oy);
            assert_true(ks_viewport_cell_at(&v, ox, oy, &cx, &cy));
            assert_int_equal(cx, 0);
            assert_int_equal(cy, 0);
            assert_true(ks_viewport_cell_at(&v, ox + m.x.pixels - 1, oy + m.y.pixels - 1, &cx, &cy));
            /* (a one-pixel picture shows both edges: it names the first) */
            assert_int_equal(cx, m.x.pixels > 1 ? v.grid_w - 1 : 0);
            assert_int_equal(cy, m.y.pixels > 1 ? v.grid_h - 1 : 0);
            /* just off the picture: nothing */
            assert_false(ks_viewport_cell_at(&v, ox - 1, oy, &cx, &cy));
            assert_false(ks_viewport_cell_at(&v, ox, oy + m.y.pixels, &cx, &cy));
        }
    }
}

/* 1:1 exactly: a grid the size of the area shows one cell per pixel. */
static void test_identity(void **state)
{
    (void)state;
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, 65, 49);
    ks_viewport_set_grid(&v, 65, 49);
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.step, ONE);
    assert_int_equal(m.x.pixels, 65);
    assert_int_equal(m.y.pixels, 49);
    for (int p = 0; p < 65; ++p) {
        int c0, c1;
        ks_cellmap_range(&m.x, p, &c0, &c1);
        assert_int_equal(c0, p);
        assert_int_equal(c1, p + 1);
    }
    /* two cells per pixel: pairs */
    ks_viewport_set_area(&v, 200, 200);
    ks_viewport_set_grid(&v, 400, 10);
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.step, 2 * ONE);
    assert_int_equal(m.x.pixels, 200);
    assert_int_equal(m.y.pixels, 5);
    for (int p = 0; p < 200; ++p) {
        int c0, c1;
        ks_cellmap_range(&m.x, p, &c0, &c1);
        assert_int_equal(c0, 2 * p);
        assert_int_equal(c1, 2 * p + 2);
    }
}

static int axis_clamped(const ks_cellmap_axis *a)
{
    return a->origin == 0 || a->origin + (long long)a->pixels * a->step == (long long)a->cells * ONE;
}

static void test_zoom_keeps_cell_under_cursor(void **state)
{
    (void)state;
    for (int gi = 0; gi < N_GRIDS; ++gi) {
        for (int ai = 2; ai < N_AREAS; ++ai) {
            ks_viewport v;
            ks_viewport_init(&v);
            ks_viewport_set_area(&v, k_areas[ai][0], k_areas[ai][1]);
            ks_viewport_set_grid(&v, k_grids[gi][0], k_grids[gi][1]);
            for (int t = 0; t < 60; ++t) {
                ks_cellmap m;
                ks_viewport_map(&v, &m);
                int ox, oy;
                ks_viewport_offset(&v, &ox, &oy);
                const int ax = ox + (int)(rnd() % (unsigned)m.x.pixels), ay = oy + (int)(rnd() % (unsigned)m.y.pixels);
                int px, py;
                assert_true(ks_viewport_pick(&v, ax, ay, &px, &py));
                const int bx = centre_cell(&m.x, px), by = centre_cell(&m.y, py);
                const int steps = (t % 7 == 6) ? -2 : 1 + (int)(rnd() % 3u);
                const int level = v.level;
                const int changed = ks_viewport_zoom(&v, steps, ax, ay);
                ks_viewport_map(&v, &m);
                assert_ok(ks_cellmap_check(&m));
                check_axis_against_naive(&m.x);
                check_axis_against_naive(&m.y);
                check_axis_partition(&m.x, 0);
                check_axis_partition(&m.y, 0);
                assert_true(m.x.pixels <= v.area_w && m.y.pixels <= v.area_h);
                assert_true(ks_viewport_px_per_cell(&v) <= KS_VIEWPORT_MAX_PX_PER_CELL + 1e-9 ||
                            v.level == 0);
                if (!changed) {
                    assert_int_equal(v.level, level);
                    continue;
                }
                assert_int_equal(v.level, level + (steps > 0 ? 1 : -1) * abs(v.level - level));
                /* the same cell under the cursor along an axis that pans, unless
                 * the view had to be clamped there; an axis that fits is centred */
                const int pans_x = m.x.pixels == v.area_w && m.x.step * (long long)v.area_w < (long long)v.grid_w * ONE;
                const int pans_y = m.y.pixels == v.area_h && m.y.step * (long long)v.area_h < (long long)v.grid_h * ONE;
                if (pans_x && !axis_clamped(&m.x)) {
                    const int cx = centre_cell(&m.x, ax);
                    if (cx != bx)
                        fail_msg("grid %dx%d area %dx%d: zoom %+d at x %d moved the cell %d -> %d", v.grid_w,
                                 v.grid_h, v.area_w, v.area_h, steps, ax, bx, cx);
                }
                if (pans_y && !axis_clamped(&m.y)) {
                    const int cy = centre_cell(&m.y, ay);
                    if (cy != by)
                        fail_msg("grid %dx%d area %dx%d: zoom %+d at y %d moved the cell %d -> %d", v.grid_w,
                                 v.grid_h, v.area_w, v.area_h, steps, ay, by, cy);
                }
            }
        }
    }
}

static void test_zoom_limits(void **state)
{
    (void)state;
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, 1280, 800);
    ks_viewport_set_grid(&v, 8192, 8192);
    assert_int_equal(ks_viewport_zoom(&v, -3, 10, 10), 0); /* out of the fit: nothing */
    assert_int_equal(v.level, 0);
    ks_viewport_zoom(&v, 1000, 640, 400);
    assert_int_equal(v.step, ONE / KS_VIEWPORT_MAX_PX_PER_CELL);
    assert_true(fabs(ks_viewport_px_per_cell(&v) - KS_VIEWPORT_MAX_PX_PER_CELL) < 1e-12);
    const int top = v.level;
    assert_int_equal(ks_viewport_zoom(&v, 1, 640, 400), 0); /* the limit: nothing more */
    assert_int_equal(v.level, top);
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.pixels, 1280); /* zoomed in: the picture fills the area */
    assert_int_equal(m.y.pixels, 800);
    int x0, x1, y0, y1;
    ks_viewport_shown(&v, &x0, &x1, &y0, &y1);
    assert_true(x1 - x0 == 20 || x1 - x0 == 21); /* 1280 / 64 cells, the ends maybe cut */
    assert_true(y1 - y0 == 13 || y1 - y0 == 14); /* 12.5 cells */
    /* one level out of the top, then all the way */
    assert_int_equal(ks_viewport_zoom(&v, -1, 0, 0), 1);
    assert_int_equal(v.level, top - 1);
    ks_viewport_zoom(&v, -10000, 0, 0);
    assert_int_equal(v.level, 0);
    ks_viewport_map(&v, &m);
    assert_int_equal(m.y.pixels, 800);
    assert_int_equal(m.x.pixels, 800);
    /* a tiny grid already fits at more than 64 px per cell: it does not zoom in */
    ks_viewport_set_grid(&v, 3, 3);
    assert_int_equal(ks_viewport_zoom(&v, 1, 400, 400), 0);
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.pixels, 800);
    /* reset from anywhere */
    ks_viewport_set_grid(&v, 999, 1001);
    ks_viewport_zoom(&v, 12, 17, 300);
    ks_viewport_pan(&v, 40, -33);
    ks_viewport_reset(&v);
    assert_int_equal(v.level, 0);
    ks_viewport_shown(&v, &x0, &x1, &y0, &y1);
    assert_true(x0 == 0 && y0 == 0 && x1 == 999 && y1 == 1001);
}

static void test_pan(void **state)
{
    (void)state;
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, 640, 400);
    ks_viewport_set_grid(&v, 1000, 999);
    /* at the fit nothing pans */
    assert_int_equal(ks_viewport_pan(&v, 50, 50), 0);
    ks_viewport_zoom(&v, 8, 320, 200);
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    assert_true(m.x.step < 2 * ONE); /* zoomed: both axes pan now */
    int bx, by, cx, cy;
    assert_true(ks_viewport_cell_at(&v, 320, 200, &bx, &by));
    /* drag right by 10 px: the picture follows, the cell under a fixed point moves left */
    assert_int_equal(ks_viewport_pan(&v, 10, 0), 1);
    assert_true(ks_viewport_cell_at(&v, 330, 200, &cx, &cy));
    assert_int_equal(cx, bx);
    assert_int_equal(cy, by);
    /* drag far: clamped at the grid's edges */
    for (int i = 0; i < 100; ++i) ks_viewport_pan(&v, 640, 400);
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.origin, 0);
    assert_int_equal(m.y.origin, 0);
    assert_true(ks_viewport_cell_at(&v, 0, 0, &cx, &cy));
    assert_true(cx == 0 && cy == 0);
    assert_int_equal(ks_viewport_pan(&v, 5, 5), 0); /* already at the edge */
    for (int i = 0; i < 100; ++i) ks_viewport_pan(&v, -640, -400);
    int x0, x1, y0, y1;
    ks_viewport_shown(&v, &x0, &x1, &y0, &y1);
    assert_int_equal(x1, 1000);
    assert_int_equal(y1, 999);
    assert_true(ks_viewport_cell_at(&v, 639, 399, &cx, &cy));
    assert_true(cx == 999 && cy == 998);
    ks_viewport_map(&v, &m);
    check_axis_against_naive(&m.x);
    check_axis_against_naive(&m.y);
    /* a grid that fits one way pans only the other */
    ks_viewport_set_grid(&v, 100, 4000);
    ks_viewport_zoom(&v, 4, 320, 200);
    ks_viewport_map(&v, &m);
    const long long ox = m.x.origin;
    ks_viewport_pan(&v, 30, 30);
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.origin, ox);
}

static void test_area_and_grid_changes(void **state)
{
    (void)state;
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, 800, 600);
    ks_viewport_set_grid(&v, 4096, 4096);
    ks_viewport_zoom(&v, 10, 123, 456);
    const int level = v.level;
    int bx, by, cx, cy;
    ks_viewport_cell_at(&v, 400, 300, &bx, &by);
    /* the same grid again changes nothing */
    ks_viewport_set_grid(&v, 4096, 4096);
    assert_int_equal(v.level, level);
    /* a resized area keeps the level and the cell at the centre (near enough) */
    ks_viewport_set_area(&v, 1000, 700);
    assert_int_equal(v.level, level);
    ks_viewport_cell_at(&v, 500, 350, &cx, &cy);
    assert_true(abs(cx - bx) <= 2 && abs(cy - by) <= 2);
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    assert_ok(ks_cellmap_check(&m));
    /* another grid (a slice axis change): back to the fit */
    ks_viewport_set_grid(&v, 4096, 200);
    assert_int_equal(v.level, 0);
    /* degenerate areas are clamped, never a zero-size picture */
    ks_viewport_set_area(&v, 0, -5);
    ks_viewport_map(&v, &m);
    assert_int_equal(m.x.pixels, 1);
    assert_int_equal(m.y.pixels, 1);
    assert_ok(ks_cellmap_check(&m));
}

static void test_cellmap_check(void **state)
{
    (void)state;
    ks_cellmap m = {{ONE, 0, 10, 10}, {ONE, 0, 5, 5}};
    assert_ok(ks_cellmap_check(&m));
    m.x.pixels = 11; /* pixel 10 would start past the grid */
    assert_int_equal(ks_cellmap_check(&m), KS_ERR_INVALID);
    m.x.pixels = 10;
    m.x.step = 0;
    assert_int_equal(ks_cellmap_check(&m), KS_ERR_INVALID);
    m.x.step = ONE;
    m.y.origin = -1;
    assert_int_equal(ks_cellmap_check(&m), KS_ERR_INVALID);
    m.y.origin = 0;
    m.y.cells = 0;
    assert_int_equal(ks_cellmap_check(&m), KS_ERR_INVALID);
    m.y.cells = 5;
    m.y.step = ONE / 2;
    m.y.origin = 4 * ONE + ONE / 4; /* pixel 1 starts at 4.75: inside; pixel 2 at 5.25 is not */
    m.y.pixels = 2;
    assert_ok(ks_cellmap_check(&m));
    m.y.pixels = 3;
    assert_int_equal(ks_cellmap_check(&m), KS_ERR_INVALID);
}

/* ---- the picture: mean of the covered cells ---- */

static void fill_random(float *u, size_t n)
{
    for (size_t i = 0; i < n; ++i) u[i] = 0.25f + (float)(rnd() % 1000000u) / 1000000.0f; /* never zero */
}

/* The naive mean: the cells of the naive ranges, in row-major order,
 * addressed through ks_slice_point. */
static float naive_mean(const ks_grid *g, const float *u, ks_axis axis, int index, const ks_cellmap *m, int p,
                        int q)
{
    int x0, x1, y0, y1;
    naive_range(&m->x, p, &x0, &x1);
    naive_range(&m->y, q, &y0, &y1);
    double sum = 0.0;
    long long n = 0;
    for (int b = y0; b < y1; ++b) {
        for (int a = x0; a < x1; ++a) {
            int ijk[3];
            ks_slice_point(g, axis, index, a, b, ijk);
            sum += (double)u[(size_t)ijk[0] + (size_t)g->nx * ((size_t)ijk[1] + (size_t)g->ny * (size_t)ijk[2])];
            ++n;
        }
    }
    return (float)(sum / (double)n);
}

static void check_picture(const ks_grid *g, const float *u, ks_axis axis, int index, const ks_cellmap *m)
{
    const size_t pixels = (size_t)m->x.pixels * (size_t)m->y.pixels;
    unsigned char *got = malloc(pixels * 4);
    assert_non_null(got);
    memset(got, 0xa5, pixels * 4); /* poisoned */
    const float lo = 0.3f, hi = 1.2f;
    assert_ok(ks_laplace_cpu_render_view(g, u, axis, index, m, KS_CMAP_TURBO, lo, hi, got));
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_CMAP_TURBO, table);
    const float inv = ks_colormap_inv_span(lo, hi);
    for (int q = 0; q < m->y.pixels; ++q) {
        for (int p = 0; p < m->x.pixels; ++p) {
            const float want = naive_mean(g, u, axis, index, m, p, q);
            const float have = ks_laplace_view_value(g, u, axis, index, m, p, q);
            if (memcmp(&want, &have, sizeof want) != 0)
                fail_msg("pixel (%d, %d): mean %.9g, naive %.9g", p, q, have, want);
            const unsigned char *px = got + ((size_t)q * (size_t)m->x.pixels + (size_t)p) * 4;
            if (memcmp(px, table[ks_colormap_index(want, lo, inv)], 4) != 0)
                fail_msg("pixel (%d, %d) of %dx%d: colour differs from the naive mean's", p, q, m->x.pixels,
                         m->y.pixels);
        }
    }
    free(got);
}

static void test_picture_mean(void **state)
{
    (void)state;
    const ks_grid grids[] = {{2, 17, 33, 1}, {2, 97, 61, 1}, {3, 17, 13, 9}, {3, 5, 3, 4}};
    const int areas[][2] = {{1, 1}, {7, 5}, {40, 30}, {300, 200}};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi) {
        const ks_grid *g = &grids[gi];
        float *u = malloc(ks_grid_bytes(g));
        fill_random(u, ks_grid_points(g));
        for (int ax = 0; ax < (g->dims == 3 ? 3 : 1); ++ax) {
            const ks_axis axis = g->dims == 3 ? (ks_axis)ax : KS_AXIS_Z;
            const int index = ks_slice_max_index(g, axis) / 3;
            int w, h;
            ks_slice_dims(g, axis, &w, &h);
            for (size_t ai = 0; ai < sizeof areas / sizeof areas[0]; ++ai) {
                ks_viewport v;
                ks_viewport_init(&v);
                ks_viewport_set_area(&v, areas[ai][0], areas[ai][1]);
                ks_viewport_set_grid(&v, w, h);
                ks_cellmap m;
                ks_viewport_map(&v, &m);
                check_picture(g, u, axis, index, &m); /* the fit */
                ks_viewport_zoom(&v, 3, areas[ai][0] / 3, areas[ai][1] / 2);
                ks_viewport_pan(&v, 2, -1);
                ks_viewport_map(&v, &m);
                check_picture(g, u, axis, index, &m); /* zoomed and panned */
                ks_viewport_zoom(&v, 40, 0, areas[ai][1] - 1);
                ks_viewport_map(&v, &m);
                check_picture(g, u, axis, index, &m); /* all the way in, at a corner */
            }
        }
        free(u);
    }
}

/* The rule on a case worked by hand: 2 x 2 cells per pixel of 0, 1 / 1, 0
 * average to 0.5, the middle entry of the map (gray: 128). */
static void test_mean_by_hand(void **state)
{
    (void)state;
    const ks_grid g = {2, 4, 4, 1};
    float u[16];
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) u[i + 4 * j] = (float)((i + j) % 2);
    u[3 + 4 * 3] = 3.0f; /* pixel (1, 1) holds 0, 1, 1, 3: mean 1.25, clamps to white */
    ks_cellmap m = {{2 * ONE, 0, 4, 2}, {2 * ONE, 0, 4, 2}};
    unsigned char rgba[2 * 2 * 4];
    assert_int_equal(ks_laplace_cpu_render_view(&g, u, KS_AXIS_Z, 0, &m, KS_CMAP_GRAY, 0.0f, 1.0f, rgba), KS_OK);
    assert_int_equal(rgba[0], 128);
    assert_int_equal(rgba[4], 128);
    assert_int_equal(rgba[8], 128);
    assert_int_equal(rgba[12], 255);
    assert_true(ks_laplace_view_value(&g, u, KS_AXIS_Z, 0, &m, 1, 1) == 1.25f);
    /* a view that does not cover the slice is refused */
    m.x.cells = 5;
    assert_int_equal(ks_laplace_cpu_render_view(&g, u, KS_AXIS_Z, 0, &m, KS_CMAP_GRAY, 0.0f, 1.0f, rgba),
                     KS_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_every_size),   cmocka_unit_test(test_identity),
        cmocka_unit_test(test_zoom_keeps_cell_under_cursor), cmocka_unit_test(test_zoom_limits),
        cmocka_unit_test(test_pan),              cmocka_unit_test(test_area_and_grid_changes),
        cmocka_unit_test(test_cellmap_check),    cmocka_unit_test(test_picture_mean),
        cmocka_unit_test(test_mean_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
