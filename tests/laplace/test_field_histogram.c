/* The float field histogram's gold (kernels/laplace/field_histogram.h: the
 * colour bar's histogram of the Laplace field): bins over a range, values out
 * of range clamped to the end bins, NaN skipped, the scale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernels/laplace/field_histogram.h"

static void test_float_bins(void **state)
{
    (void)state;
    /* [0, 1] in 4 bins: 0.25 steps; out of range clamped; NaN skipped */
    const float v[] = {0.0f, 0.1f, 0.25f, 0.49f, 0.5f, 0.75f, 0.99f, 1.0f, -3.0f, 7.0f, NAN, -INFINITY, INFINITY};
    uint64_t h[4] = {0};
    ks_field_hist_gold(v, sizeof v / sizeof v[0], 0.0f, 1.0f, 4, h);
    assert_int_equal(h[0], 4); /* 0, 0.1, -3, -inf */
    assert_int_equal(h[1], 2); /* 0.25, 0.49 */
    assert_int_equal(h[2], 1); /* 0.5 */
    assert_int_equal(h[3], 5); /* 0.75, 0.99, 1.0, 7, inf */
    uint64_t one = 0;
    ks_field_hist_gold(v, sizeof v / sizeof v[0], -1.0f, 2.0f, 1, &one);
    assert_int_equal(one, 12);
    assert_true(ks_field_hist_scale(0.0f, 2.0f, 8) == 4.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_bins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
