/* --iters auto (app/iters_auto.h): the count that makes the solver 95 % of a
 * frame, its limits, rounding to time blocks, and when it re-sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "app/iters_auto.h"

static void test_target(void **state)
{
    (void)state;
    /* 20 iterations take 1 ms, 0.5 ms more for the rest of the frame: the
     * solver must reach 0.5 * 19 = 9.5 ms, i.e. 190 iterations */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 1.5, 1, 1000000), 190);
    /* the share that gives: 9.5 / (9.5 + 0.5) = 0.95 */
    /* tiny overhead: at least KS_ITERS_AUTO_MIN_MS of solver (8 ms = 160 iterations) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 1.01, 1, 1000000), 160);
    /* huge overhead: at most KS_ITERS_AUTO_MAX_MS (100 ms = 2000 iterations) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 51.0, 1, 1000000), 2000);
    /* whole time blocks of 4, rounded up: 190 -> 192 */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 1.5, 4, 1000000), 192);
    /* the largest count, a multiple of the block */
    assert_int_equal(ks_iters_auto_target(4, 1e-6, 1.0, 4, 1001), 1000);
    /* never below one block */
    assert_int_equal(ks_iters_auto_target(400, 1000.0, 1000.5, 4, 1000000), 4);
    /* unknown medians: unchanged */
    assert_int_equal(ks_iters_auto_target(20, 0.0, 1.5, 1, 1000000), 20);
    assert_int_equal(ks_iters_auto_target(20, 1.0, -1.0, 1, 1000000), 20);
}

static void test_step(void **state)
{
    (void)state;
    ks_iters_auto a;
    int iters = 20;
    ks_iters_auto_init(&a, 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 1.5, 1, 1000000), 0); /* off */
    assert_int_equal(iters, 20);
    ks_iters_auto_init(&a, 1);
    for (int f = 0; f < KS_ITERS_AUTO_FIRST; ++f) /* the first frames only measure */
        assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 1.5, 1, 1000000), 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 1.5, 1, 1000000), 1);
    assert_int_equal(iters, 190);
    /* then it waits until the medians are the new count's own */
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 1.5, 1, 1000000), 0);
    /* at the target (9.5 ms of 10): within 20 %, unchanged */
    assert_int_equal(ks_iters_auto_step(&a, &iters, 9.5, 10.0, 1, 1000000), 0);
    assert_int_equal(iters, 190);
    /* the frame got dearer outside the solver: more iterations */
    assert_int_equal(ks_iters_auto_step(&a, &iters, 9.5, 11.5, 1, 1000000), 1);
    assert_int_equal(iters, 760); /* 2 ms * 19 = 38 ms at 0.05 ms an iteration */
    /* a restart (pause, new kernel) waits a full settle again */
    ks_iters_auto_restart(&a);
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 100.0, 1, 1000000), 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 38.0, 40.0, 1, 1000000), 0); /* 38/40 = 0.95 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_target), cmocka_unit_test(test_step)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
