/* Overlay text helpers without GL: measuring, column alignment, tick values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/text.h"

static void test_measure(void **state)
{
    (void)state;
    int c = -1, l = -1;
    ks_text_measure(NULL, &c, &l);
    assert_int_equal(c, 0);
    assert_int_equal(l, 0);
    ks_text_measure("abc\nde\n", &c, &l);
    assert_int_equal(c, 3);
    assert_int_equal(l, 2);
    ks_text_measure("a\n\nlonger", &c, &l);
    assert_int_equal(c, 6);
    assert_int_equal(l, 3);
}

static void test_align_columns(void **state)
{
    (void)state;
    char *s = ks_text_align_columns("variant\tms\tGB/s\nsmem\t1.5\t300\nnaive_long\t12.25\t40");
    assert_non_null(s);
    assert_string_equal(s, "variant     ms     GB/s\n"
                           "smem        1.5    300\n"
                           "naive_long  12.25  40");
    free(s);
}

static void expect_ticks(double lo, double hi, const double *want, int n)
{
    double t[16];
    int got = ks_nice_ticks(lo, hi, t, 16);
    assert_int_equal(got, n);
    for (int i = 0; i < n; ++i) {
        double tol = fabs(want[i]) * 1e-9 + 1e-300;
        if (fabs(t[i] - want[i]) > tol) fail_msg("tick %d: %.17g, want %.17g", i, t[i], want[i]);
    }
}

static void test_ticks(void **state)
{
    (void)state;
    const double unit[] = {0, 0.2, 0.4, 0.6, 0.8, 1.0};
    expect_ticks(0, 1, unit, 6);
    expect_ticks(1, 0, unit, 6); /* reversed range: same values */
    const double tiny[] = {-3e-5, -2e-5, -1e-5, 0, 1e-5, 2e-5};
    expect_ticks(-3e-5, 2e-5, tiny, 6);
    /* the same range as floats (the overlay's lo/hi): ends not lost to rounding */
    double t6[16];
    assert_int_equal(ks_nice_ticks(-3e-5f, 2e-5f, t6, 16), 6);
    assert_true(fabs(t6[0] + 3e-5) < 1e-11 && fabs(t6[5] - 2e-5) < 1e-11);
    const double zero[] = {0};
    expect_ticks(0, 0, zero, 1);
    const double flat[] = {3.5};
    expect_ticks(3.5, 3.5, flat, 1);
    const double big[] = {0, 200, 400, 600, 800, 1000};
    expect_ticks(-13, 1013, big, 6);
    const double odd[] = {-5, 0, 5, 10, 15};
    expect_ticks(-7.2, 17.9, odd, 5);
    double t[16];
    assert_int_equal(ks_nice_ticks(NAN, 1, t, 16), 0);
    assert_int_equal(ks_nice_ticks(0, INFINITY, t, 16), 1);
    /* every range gives 4..7 values, in order, inside the range */
    for (int k = 0; k < 2000; ++k) {
        double lo = -1e3 + k * 1.37, hi = lo + pow(10.0, (k % 19) - 9) * (1 + k % 7);
        int n = ks_nice_ticks(lo, hi, t, 16);
        /* spans below 1e-12 of the values are rounding noise: one tick */
        if (hi - lo < fabs(lo) * 1e-12) {
            assert_int_equal(n, 1);
            continue;
        }
        assert_true(n >= 4 && n <= 7);
        for (int i = 0; i < n; ++i) {
            assert_true(t[i] >= lo - (hi - lo) * 1e-9 && t[i] <= hi + (hi - lo) * 1e-9);
            if (i > 0) assert_true(t[i] > t[i - 1]);
        }
    }
}

static void test_draw_geometry(void **state)
{
    (void)state;
    ks_vertex_list l = {0};
    const unsigned char c[4] = {1, 2, 3, 4};
    ks_text_draw(&l, 10, 100, "A b", 2, c);
    assert_true(l.n > 0 && l.n % 6 == 0);
    /* glyphs stay inside their cells: two cells of 7 units at scale 2, 12 units tall */
    for (size_t i = 0; i < l.n; ++i) {
        assert_true(l.v[i].x >= 10 && l.v[i].x <= 10 + 3 * KS_TEXT_CELL_W * 2);
        assert_true(l.v[i].y <= 100 && l.v[i].y >= 100 - KS_TEXT_LINE_H * 2);
        /* integer scale at integer origin: pixel-aligned, crisp */
        assert_true(l.v[i].x == floorf(l.v[i].x) && l.v[i].y == floorf(l.v[i].y));
    }
    size_t before = l.n;
    ks_text_draw(&l, 0, 0, "\x01\xff", 1, c); /* unprintable -> '?' glyphs */
    assert_true(l.n > before);
    ks_vlist_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measure),
        cmocka_unit_test(test_align_columns),
        cmocka_unit_test(test_ticks),
        cmocka_unit_test(test_draw_geometry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
