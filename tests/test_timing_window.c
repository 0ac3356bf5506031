/* base/timing_window: the ring, its medians, minimum and rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "base/timing_window.h"

static void test_empty(void **state)
{
    (void)state;
    ks_timing_window w;
    memset(&w, 0, sizeof w);
    ks_timing_stats s = {.n = 9, .median_ms = 1.0};
    assert_int_equal(ks_timing_window_stats(&w, &s), 0);
    assert_int_equal(s.n, 0);
    assert_true(s.median_ms == 0.0 && s.min_ms == 0.0 && s.median_gbs == 0.0);
}

static void test_median_min_rate(void **state)
{
    (void)state;
    ks_timing_window w;
    memset(&w, 0, sizeof w);
    ks_timing_window_push(&w, 4.0, 4e6); /* 1 GB/s */
    ks_timing_window_push(&w, 1.0, 3e6); /* 3 GB/s */
    ks_timing_window_push(&w, 2.0, 4e6); /* 2 GB/s */
    ks_timing_stats s;
    assert_int_equal(ks_timing_window_stats(&w, &s), 1);
    assert_int_equal(s.n, 3);
    assert_true(s.median_ms == 2.0);
    assert_true(s.min_ms == 1.0);
    assert_true(s.median_gbs == 2.0);
    ks_timing_window_push(&w, 3.0, 0.0); /* even count: mean of the middle two */
    assert_int_equal(ks_timing_window_stats(&w, &s), 1);
    assert_true(s.median_ms == 2.5);
    assert_true(s.median_gbs == 1.5); /* rates 0, 1, 2, 3 */
    assert_true(w.ms[0] == 4.0);      /* stats leave the window as it was */
}

static void test_ring_keeps_newest(void **state)
{
    (void)state;
    ks_timing_window w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < KS_TIMING_WINDOW + 5; ++i) ks_timing_window_push(&w, 1000.0 + i, 0.0);
    ks_timing_stats s;
    assert_int_equal(ks_timing_window_stats(&w, &s), 1);
    assert_int_equal(s.n, KS_TIMING_WINDOW);
    assert_true(s.min_ms == 1005.0); /* the first five are gone */
    ks_timing_window_push(&w, 1.0, 0.0);
    assert_int_equal(ks_timing_window_stats(&w, &s), 1);
    assert_true(s.min_ms == 1.0);
    ks_timing_window_clear(&w);
    assert_int_equal(ks_timing_window_stats(&w, &s), 0);
    ks_timing_window_push(&w, 0.0, 5.0); /* a zero time has no rate, not an infinite one */
    assert_int_equal(ks_timing_window_stats(&w, &s), 1);
    assert_true(s.median_gbs == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_empty), cmocka_unit_test(test_median_min_rate),
                                       cmocka_unit_test(test_ring_keeps_newest)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
