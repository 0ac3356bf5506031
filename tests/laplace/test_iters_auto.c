/* --iters auto (app/scenes/laplace/iters_auto.h): the count that makes the solver 97 % of a
 * frame, its limits, rounding to time blocks, when it re-sizes, and the
 * frames whose solver runs alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "app/scenes/laplace/iters_auto.h"

static void test_target(void **state)
{
    (void)state;
    /* 20 iterations take 1 ms, 2 ms more for the rest of the frame: the
     * solver must reach 2 * 97 / 3 = 64.67 ms, i.e. 1294 iterations (64.7 / 66.7 = 0.97) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 3.0, 0.0, 1, 1000000), 1294);
    /* tiny overhead: at least KS_ITERS_AUTO_MIN_MS of solver (25 ms = 500 iterations) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 1.01, 0.0, 1, 1000000), 500);
    /* huge overhead: at most KS_ITERS_AUTO_MAX_MS (100 ms = 2000 iterations) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 51.0, 0.0, 1, 1000000), 2000);
    /* whole time blocks of 4, rounded up: 20 iterations of 0.3 ms, 2 ms more: 64.67 / 0.015 = 4311.1 -> 4312 */
    assert_int_equal(ks_iters_auto_target(20, 0.3, 2.3, 0.0, 4, 1000000), 4312);
    /* the largest count, a multiple of the block */
    assert_int_equal(ks_iters_auto_target(4, 1e-6, 1.0, 0.0, 4, 1001), 1000);
    /* never below one block */
    assert_int_equal(ks_iters_auto_target(400, 10000.0, 10000.5, 0.0, 4, 1000000), 4);
    /* unknown medians: unchanged */
    assert_int_equal(ks_iters_auto_target(20, 0.0, 1.5, 0.0, 1, 1000000), 20);
    assert_int_equal(ks_iters_auto_target(20, 1.0, -1.0, 0.0, 1, 1000000), 20);
}

/* What GL's slices add inside the solver's span counts as overhead once the
 * solver's undisturbed time per iteration is known. */
static void test_target_alone(void **state)
{
    (void)state;
    /* 50 iterations in 26 ms of a 26.1 ms frame: by the share alone the 25 ms
     * floor holds (0.1 ms of overhead): 25 / 0.52 = 48.1 -> 49 ... */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 26.1, 0.0, 1, 1000000), 49);
    /* ... but alone an iteration takes 0.5 ms: 1.1 ms of the frame is not
     * the solver's own, 1.1 * 97 / 3 = 35.57 ms of solver: 72 iterations */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 26.1, 0.5, 1, 1000000), 72);
    /* an alone figure above the median's own is noise, not a faster solver */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 26.1, 0.6, 1, 1000000), 49);
    /* the 100 ms cap still holds: 200 iterations of 0.5 ms */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 36.0, 0.5, 1, 1000000), 200);
    /* whole time blocks: 35.57 / 0.5 = 71.1 -> 72, a multiple of 4 */
    assert_int_equal(ks_iters_auto_target(48, 24.96, 25.06, 0.5, 4, 1000000) % 4, 0);
}

/* Alone frames come only before a settled sizing, KS_ITERS_AUTO_ALONE of
 * them; their fastest sample is what the sizing takes; a restart forgets it. */
static void test_alone_frames(void **state)
{
    (void)state;
    ks_iters_auto a;
    int iters = 50;
    ks_iters_auto_init(&a, 1);
    int alone = 0;
    /* the first sizing, from the share alone: no alone frames before it */
    for (int f = 0; f <= KS_ITERS_AUTO_FIRST; ++f) {
        ks_iters_auto_step(&a, &iters, 26.0, 26.1, 1, 1000000);
        alone += ks_iters_auto_wants_alone(&a);
    }
    assert_int_equal(alone, 0);
    assert_int_equal(iters, 50);
    /* the settle before the second: its last KS_ITERS_AUTO_ALONE frames */
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f) {
        assert_int_equal(ks_iters_auto_step(&a, &iters, 26.0, 26.1, 1, 1000000), 0);
        if (ks_iters_auto_wants_alone(&a)) {
            assert_true(f >= KS_ITERS_AUTO_SETTLE - KS_ITERS_AUTO_ALONE);
            ks_iters_auto_alone(&a, alone == 1 ? 25.0 : 26.0, 50); /* the fastest: 0.5 ms an iteration */
            ++alone;
        }
    }
    assert_int_equal(alone, KS_ITERS_AUTO_ALONE);
    assert_true(a.alone_ms_per_iter > 0.499 && a.alone_ms_per_iter < 0.501);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 26.0, 26.1, 1, 1000000), 1);
    assert_int_equal(iters, 72);
    /* sized twice: no more alone frames */
    for (int f = 0; f < 2 * KS_ITERS_AUTO_SETTLE; ++f) {
        ks_iters_auto_step(&a, &iters, 36.0, 36.1, 1, 1000000);
        assert_int_equal(ks_iters_auto_wants_alone(&a), 0);
    }
    /* nonsense samples are ignored; a restart forgets the sample */
    ks_iters_auto_alone(&a, -1.0, 50);
    ks_iters_auto_alone(&a, 10.0, 0);
    assert_true(a.alone_ms_per_iter > 0.499 && a.alone_ms_per_iter < 0.501);
    ks_iters_auto_restart(&a);
    assert_true(a.alone_ms_per_iter == 0.0);
    /* and a fixed count (+ / -) never asks */
    ks_iters_auto_init(&a, 0);
    for (int f = 0; f < 2 * KS_ITERS_AUTO_SETTLE; ++f) {
        ks_iters_auto_step(&a, &iters, 36.0, 36.1, 1, 1000000);
        assert_int_equal(ks_iters_auto_wants_alone(&a), 0);
    }
}

static void test_step(void **state)
{
    (void)state;
    ks_iters_auto a;
    int iters = 20;
    ks_iters_auto_init(&a, 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 3.0, 1, 1000000), 0); /* off */
    assert_int_equal(iters, 20);
    ks_iters_auto_init(&a, 1);
    for (int f = 0; f < KS_ITERS_AUTO_FIRST; ++f) /* the first frames only measure */
        assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 3.0, 1, 1000000), 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 3.0, 1, 1000000), 1);
    assert_int_equal(iters, 1294);
    /* then it waits until the medians are the new count's own */
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 64.7, 76.7, 1, 1000000), 0);
    /* the second sizing: the frame got dearer outside the solver (12 ms):
     * 12 * 97 / 3 = 388 ms of solver, capped at 100 ms: 2000 iterations of 0.05 ms */
    assert_int_equal(ks_iters_auto_step(&a, &iters, 64.7, 76.7, 1, 1000000), 1);
    assert_int_equal(iters, 2000);
    /* after two sizings the count stays, whatever the medians say */
    for (int f = 0; f < 4 * KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 90.0, 1, 1000000), 0);
    assert_int_equal(iters, 2000);
    /* a restart (pause, new kernel or block) sizes again after a full settle */
    ks_iters_auto_restart(&a);
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 100.0, 100.5, 1, 1000000), 0);
    /* 100 ms of 100.5: the 25 ms floor (16.2 ms wanted): 500 iterations */
    assert_int_equal(ks_iters_auto_step(&a, &iters, 100.0, 100.5, 1, 1000000), 1);
    assert_int_equal(iters, 500);
    /* on target: no change */
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f) ks_iters_auto_step(&a, &iters, 25.0, 25.5, 1, 1000000);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 25.0, 25.5, 1, 1000000), 0);
    assert_int_equal(iters, 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_target), cmocka_unit_test(test_step),
                                       cmocka_unit_test(test_target_alone), cmocka_unit_test(test_alone_frames)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
