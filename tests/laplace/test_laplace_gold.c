/* CPU gold of the Laplace solver: presets, one step by hand, convergence to
 * the exact sine solution, sumsq, slice helpers, CPU render, variant table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/laplace/laplace.h"

#define KS_TEST_PI 3.14159265358979323846

static size_t at(const ks_grid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}

static int on_boundary(const ks_grid *g, int i, int j, int k)
{
    return i == 0 || i == g->nx - 1 || j == 0 || j == g->ny - 1 ||
           (g->dims == 3 && (k == 0 || k == g->nz - 1));
}

static void test_grid_and_names(void **state)
{
    (void)state;
    ks_grid g3 = {3, 5, 6, 7}, g2 = {2, 9, 4, 1};
    assert_int_equal(ks_grid_points(&g3), 210);
    assert_int_equal(ks_grid_bytes(&g3), 840);
    assert_int_equal(ks_grid_points(&g2), 36);
    ks_grid big = {3, 2048, 2048, 2048};
    assert_true(ks_grid_bytes(&big) == (size_t)32 * 1024 * 1024 * 1024);
    ks_bc bc;
    assert_int_equal(ks_bc_parse("seed", &bc), 0);
    assert_int_equal(bc, KS_BC_SEED);
    assert_int_equal(ks_bc_parse("hot-top", &bc), 0);
    assert_int_equal(bc, KS_BC_HOT_TOP);
    assert_int_equal(ks_bc_parse("sine", &bc), 0);
    assert_int_equal(bc, KS_BC_SINE);
    assert_int_equal(ks_bc_parse("cold", &bc), -1);
    assert_string_equal(ks_bc_name(KS_BC_SINE), "sine");
    assert_string_equal(ks_bc_name(KS_BC_DEFAULT), "hot-top");
}

static void check_preset3d(ks_bc bc)
{
    ks_grid g = {3, 7, 6, 5};
    float *u = malloc(ks_grid_bytes(&g));
    ks_laplace_fill_initial(&g, bc, u);
    for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
            for (int i = 0; i < g.nx; ++i) {
                const float v = u[at(&g, i, j, k)];
                float want = 0.0f;
                if (on_boundary(&g, i, j, k)) {
                    if (bc == KS_BC_SEED) want = 1.0f;
                    if (bc == KS_BC_HOT_TOP || bc == KS_BC_DEFAULT) want = k == g.nz - 1 ? 1.0f : 0.0f;
                    if (bc == KS_BC_SINE && k == g.nz - 1)
                        want = (float)(sin(KS_TEST_PI * i / (g.nx - 1.0)) * sin(KS_TEST_PI * j / (g.ny - 1.0)));
                }
                assert_true(fabsf(v - want) <= 1e-7f);
            }
    /* corners and edges of the top face belong to it (hot-top) */
    if (bc == KS_BC_HOT_TOP) {
        assert_true(u[at(&g, 0, 0, g.nz - 1)] == 1.0f);
        assert_true(u[at(&g, g.nx - 1, g.ny - 1, g.nz - 1)] == 1.0f);
        assert_true(u[at(&g, 0, g.ny - 1, g.nz - 2)] == 0.0f);
    }
    if (bc == KS_BC_SINE) assert_true(u[at(&g, 3, 0, g.nz - 1)] == 0.0f);
    free(u);
}

static void check_preset2d(ks_bc bc)
{
    ks_grid g = {2, 9, 5, 1};
    float *u = malloc(ks_grid_bytes(&g));
    ks_laplace_fill_initial(&g, bc, u);
    for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
            const float v = u[at(&g, i, j, 0)];
            float want = 0.0f;
            if (on_boundary(&g, i, j, 0)) {
                if (bc == KS_BC_SEED) want = 1.0f;
                if (bc == KS_BC_HOT_TOP || bc == KS_BC_DEFAULT) want = j == g.ny - 1 ? 1.0f : 0.0f;
                if (bc == KS_BC_SINE && j == g.ny - 1) want = (float)sin(KS_TEST_PI * i / (g.nx - 1.0));
            }
            assert_true(fabsf(v - want) <= 1e-7f);
        }
    free(u);
}

static void test_presets(void **state)
{
    (void)state;
    for (int bc = KS_BC_DEFAULT; bc < KS_BC_NUM; ++bc) {
        check_preset3d((ks_bc)bc);
        check_preset2d((ks_bc)bc);
    }
}

static void test_step_by_hand(void **state)
{
    (void)state;
    /* 3D 4x3x3: interior points (1,1,1), (2,1,1) */
    ks_grid g = {3, 4, 3, 3};
    float u1[36], u2[36];
    for (int n = 0; n < 36; ++n) u1[n] = (float)(n * n % 17) * 0.5f + 1.0f;
    ks_laplace_gold_step(&g, u1, u2);
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 4; ++i) {
                const size_t c = at(&g, i, j, k);
                if (on_boundary(&g, i, j, k)) {
                    assert_true(u2[c] == u1[c]);
                } else {
                    const float want = (u1[c - 1] + u1[c + 1] + u1[c - 4] + u1[c + 4] + u1[c - 12] +
                                        u1[c + 12]) *
                                       (1.0f / 6.0f);
                    assert_true(u2[c] == want);
                    double exact = (u1[c - 1] + u1[c + 1] + u1[c - 4] + u1[c + 4] +
                                    (double)u1[c - 12] + u1[c + 12]) /
                                   6.0;
                    assert_true(fabs(u2[c] - exact) < 1e-5);
                }
            }
    /* hand value: 2D 3x3 with centre neighbours 1, 2, 3, 4 -> 2.5 */
    ks_grid g2 = {2, 3, 3, 1};
    float a[9] = {9, 3, 9, 1, 7, 2, 9, 4, 9}, b[9];
    ks_laplace_gold_step(&g2, a, b);
    assert_true(b[4] == 2.5f);
    assert_true(b[0] == 9.0f && b[3] == 1.0f);
    /* 3D hand value: 3x3x3 all boundary 1 except a centre of 5 -> 1 */
    ks_grid g3 = {3, 3, 3, 3};
    float c[27], d[27];
    for (int n = 0; n < 27; ++n) c[n] = 1.0f;
    c[13] = 5.0f;
    ks_laplace_gold_step(&g3, c, d);
    assert_true(d[13] == 1.0f);
}

/* Runs Jacobi to convergence; returns max |u - exact| over the grid. */
static double converge_sine_error(const ks_grid *g)
{
    const size_t n = ks_grid_points(g);
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    ks_laplace_fill_initial(g, KS_BC_SINE, a);
    memcpy(b, a, n * sizeof(float));
    for (int it = 0; it < 200000; ++it) {
        ks_laplace_gold_step(g, a, b);
        float *t = a;
        a = b;
        b = t;
        if (it % 100 == 99 && ks_laplace_gold_sumsq_diff(g, a, b) < 1e-22 * (double)n) break;
    }
    double err = 0.0;
    const int nz = g->dims == 3 ? g->nz : 1;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < g->ny; ++j)
            for (int i = 0; i < g->nx; ++i) {
                const double e = fabs(a[at(g, i, j, k)] - ks_laplace_exact_sine(g, i, j, k));
                if (e > err) err = e;
            }
    free(a);
    free(b);
    return err;
}

static void test_converges_to_sine(void **state)
{
    (void)state;
    ks_grid c2 = {2, 17, 17, 1}, f2 = {2, 33, 33, 1};
    const double e_c2 = converge_sine_error(&c2), e_f2 = converge_sine_error(&f2);
    print_message("2D sine: max error %.3g (17^2), %.3g (33^2)\n", e_c2, e_f2);
    assert_true(e_f2 < 2e-3);
    assert_true(e_f2 < e_c2 / 2.5); /* O(h^2): about /4 per halving of h */
    ks_grid c3 = {3, 9, 9, 9}, f3 = {3, 17, 17, 17};
    const double e_c3 = converge_sine_error(&c3), e_f3 = converge_sine_error(&f3);
    print_message("3D sine: max error %.3g (9^3), %.3g (17^3)\n", e_c3, e_f3);
    assert_true(e_f3 < 1e-2);
    assert_true(e_f3 < e_c3 / 2.5);
}

static void test_sumsq(void **state)
{
    (void)state;
    ks_grid g = {3, 3, 4, 5};
    float a[60], b[60];
    double want = 0.0;
    for (int n = 0; n < 60; ++n) {
        a[n] = (float)n * 0.25f;
        b[n] = (float)(60 - n) * 0.125f;
        want += ((double)a[n] - b[n]) * ((double)a[n] - b[n]);
    }
    assert_true(fabs(ks_laplace_gold_sumsq_diff(&g, a, b) - want) < 1e-9 * want);
    assert_true(ks_laplace_gold_sumsq_diff(&g, a, a) == 0.0);
}

static void test_slices(void **state)
{
    (void)state;
    ks_grid g = {3, 5, 6, 7};
    int w, h, p[3];
    ks_slice_dims(&g, KS_AXIS_Z, &w, &h);
    assert_true(w == 5 && h == 6);
    ks_slice_dims(&g, KS_AXIS_Y, &w, &h);
    assert_true(w == 5 && h == 7);
    ks_slice_dims(&g, KS_AXIS_X, &w, &h);
    assert_true(w == 6 && h == 7);
    assert_int_equal(ks_slice_max_index(&g, KS_AXIS_X), 4);
    assert_int_equal(ks_slice_max_index(&g, KS_AXIS_Y), 5);
    assert_int_equal(ks_slice_max_index(&g, KS_AXIS_Z), 6);
    ks_slice_point(&g, KS_AXIS_Z, 3, 1, 2, p);
    assert_true(p[0] == 1 && p[1] == 2 && p[2] == 3);
    ks_slice_point(&g, KS_AXIS_Y, 4, 1, 2, p);
    assert_true(p[0] == 1 && p[1] == 4 && p[2] == 2);
    ks_slice_point(&g, KS_AXIS_X, 2, 1, 5, p);
    assert_true(p[0] == 2 && p[1] == 1 && p[2] == 5);
    ks_grid g2 = {2, 8, 3, 1};
    ks_slice_dims(&g2, KS_AXIS_X, &w, &h);
    assert_true(w == 8 && h == 3);
    assert_int_equal(ks_slice_max_index(&g2, KS_AXIS_Z), 0);
    ks_slice_point(&g2, KS_AXIS_X, 0, 7, 2, p);
    assert_true(p[0] == 7 && p[1] == 2 && p[2] == 0);
}

static void test_render_and_minmax(void **state)
{
    (void)state;
    /* hot-top 2D: the top edge (j = ny-1) is 1, so image row b = ny-1 (the
     * top of the picture, last in memory) shows the table's last entry */
    ks_grid g = {2, 6, 4, 1};
    float u[24];
    ks_laplace_fill_initial(&g, KS_BC_HOT_TOP, u);
    u[at(&g, 2, 1, 0)] = 0.5f;
    unsigned char rgba[24 * 4], table[256][4];
    ks_colormap_table_rgba(KS_CMAP_VIRIDIS, table);
    ks_laplace_cpu_render_slice(&g, u, KS_AXIS_Z, 0, KS_CMAP_VIRIDIS, 0.0f, 1.0f, rgba);
    assert_memory_equal(rgba + (3 * 6 + 1) * 4, table[255], 4);
    assert_memory_equal(rgba + (0 * 6 + 1) * 4, table[0], 4);
    assert_memory_equal(rgba + (1 * 6 + 2) * 4, table[ks_colormap_index(0.5f, 0.0f, 1.0f)], 4);
    assert_int_equal(ks_colormap_index(0.5f, 0.0f, 1.0f), 128);
    for (int n = 0; n < 24; ++n) assert_int_equal(rgba[n * 4 + 3], 255);
    float lo, hi;
    ks_laplace_cpu_slice_minmax(&g, u, KS_AXIS_Z, 0, &lo, &hi);
    assert_true(lo == 0.0f && hi == 1.0f);
    /* 3D axis x slice: pixel (a, b) = point (i, a, b) */
    ks_grid g3 = {3, 4, 5, 6};
    float *v = malloc(ks_grid_bytes(&g3));
    for (size_t n = 0; n < ks_grid_points(&g3); ++n) v[n] = (float)n / 120.0f;
    unsigned char img[5 * 6 * 4];
    ks_laplace_cpu_render_slice(&g3, v, KS_AXIS_X, 2, KS_CMAP_GRAY, 0.0f, 1.0f, img);
    for (int b = 0; b < 6; ++b)
        for (int a = 0; a < 5; ++a) {
            const int e = ks_colormap_index(v[at(&g3, 2, a, b)], 0.0f, 1.0f);
            assert_int_equal(img[(b * 5 + a) * 4], e);
        }
    ks_laplace_cpu_slice_minmax(&g3, v, KS_AXIS_Y, 1, &lo, &hi);
    assert_true(lo == v[at(&g3, 0, 1, 0)] && hi == v[at(&g3, 3, 1, 5)]);
    free(v);
}

static void test_variant_table(void **state)
{
    (void)state;
    const char *names3[] = {"kmarch", "block3d", "regq", "tblock"};
    const char *names2[] = {"block2d", "smem2d", "vec2d"};
    for (int n = 0; n < 4; ++n) {
        const int id = ks_lvariant_find(3, names3[n]);
        assert_true(id >= 0);
        assert_int_equal(ks_lvariant_get(id)->dims, 3);
        assert_int_equal(ks_lvariant_find(2, names3[n]), -1);
    }
    for (int n = 0; n < 3; ++n) assert_true(ks_lvariant_find(2, names2[n]) >= 0);
    assert_null(ks_lvariant_get(-1));
    assert_null(ks_lvariant_get(ks_lvariant_count()));
    assert_string_equal(ks_lvariant_get(ks_lvariant_default(3))->name, "regq");
    assert_string_equal(ks_lvariant_get(ks_lvariant_default(2))->name, "vec2d");
    /* regq's default block is the one measured fastest on an H200 (cc 9.0, 132 SMs); other GPUs are told so */
    const int *rb = ks_lvariant_get(ks_lvariant_find(3, "regq"))->default_block;
    assert_true(rb[0] == 32 && rb[1] == 8 && rb[2] == 1);
    assert_string_equal(ks_lvariant_blocks_measured_on(90, 132), "H200");
    assert_null(ks_lvariant_blocks_measured_on(90, 114)); /* an H100 PCIe: another SM count */
    assert_null(ks_lvariant_blocks_measured_on(86, 84));
    const int tb = ks_lvariant_find(3, "tblock");
    assert_true(ks_lvariant_get(tb)->steps_per_launch > 1);
    /* next cycles through the same dims */
    int id = ks_lvariant_default(2), seen = 0;
    do {
        assert_int_equal(ks_lvariant_get(id)->dims, 2);
        id = ks_lvariant_next(id);
        ++seen;
    } while (id != ks_lvariant_default(2) && seen < 20);
    assert_int_equal(seen, 3);
    char buf[128];
    ks_lvariant_list(2, buf, sizeof buf);
    assert_string_equal(buf, "block2d, smem2d, vec2d");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_and_names), cmocka_unit_test(test_presets),
        cmocka_unit_test(test_step_by_hand),   cmocka_unit_test(test_converges_to_sine),
        cmocka_unit_test(test_sumsq),          cmocka_unit_test(test_slices),
        cmocka_unit_test(test_render_and_minmax), cmocka_unit_test(test_variant_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
