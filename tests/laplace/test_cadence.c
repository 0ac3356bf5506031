/* The live Laplace view's frame plan, all on the CPU: how often the residual
 * and the field histogram run (ks_cadence), iterations per frame rounded to
 * whole time blocks, and the launches a frame makes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "app/scenes/laplace/cadence.h"
#include "kernels/laplace/laplace.h"

/* Frames out of n on which the cadence is due; first gets the first one. */
static int due_frames(ks_cadence *c, int n, int *first)
{
    int count = 0;
    *first = -1;
    for (int f = 0; f < n; ++f) {
        if (!ks_cadence_due(c)) continue;
        if (*first < 0) *first = f;
        ++count;
    }
    return count;
}

static void test_auto_every(void **state)
{
    (void)state;
    /* the measured 512^3 case: residual 0.30 ms, Jacobi 5.44 ms a frame */
    assert_int_equal(ks_cadence_auto_every(0.30, 5.44, 0.01), 6);
    assert_true(0.30 / (6 * 5.44) <= 0.01 && 0.30 / (5 * 5.44) > 0.01); /* the smallest such k */
    assert_int_equal(ks_cadence_auto_every(0.30, 5.44, 0.02), 3);
    assert_int_equal(ks_cadence_auto_every(1.0, 100.0, 0.01), 1);  /* exactly on budget */
    assert_int_equal(ks_cadence_auto_every(1.01, 100.0, 0.01), 2);
    assert_int_equal(ks_cadence_auto_every(0.001, 100.0, 0.01), 1); /* cheap: every frame */
    assert_int_equal(ks_cadence_auto_every(50.0, 1.0, 0.01), KS_CADENCE_MAX); /* capped */
    assert_int_equal(ks_cadence_auto_every(0.0, 5.0, 0.01), 1);  /* not measured yet */
    assert_int_equal(ks_cadence_auto_every(0.3, 0.0, 0.01), 1);
    assert_int_equal(ks_cadence_auto_every(0.3, 5.0, 0.0), 1);
}

static void test_due_pattern(void **state)
{
    (void)state;
    ks_cadence c;
    int first;
    ks_cadence_init(&c, 0);
    assert_int_equal(c.every, 1);
    assert_int_equal(due_frames(&c, 10, &first), 10); /* untuned: every frame */
    ks_cadence_tune(&c, 0.30, 20.0); /* 0.30 / (6 * 20) = 0.25 % */
    assert_int_equal(c.every, 6);
    /* every 6th frame from here: 5 waits, then due */
    assert_int_equal(due_frames(&c, 60, &first), 10);
    assert_int_equal(first, 5);
    /* restart: the very next frame is due, then every 6th again */
    ks_cadence_restart(&c);
    assert_int_equal(ks_cadence_due(&c), 1);
    assert_int_equal(due_frames(&c, 12, &first), 2);
    assert_int_equal(first, 5);
    /* a lower k after tuning takes effect at once */
    for (int f = 0; f < 3; ++f) ks_cadence_due(&c);
    ks_cadence_tune(&c, 0.0, 5.0);
    assert_int_equal(ks_cadence_due(&c), 1);
}

/* A cheap task far over its budget (the CPU's residual: one of two iterations a
 * frame) still runs at least every period_ms of frames; fixed cadences keep theirs. */
static void test_cap_period(void **state)
{
    (void)state;
    ks_cadence c;
    ks_cadence_init(&c, 0);
    ks_cadence_tune(&c, 0.05, 0.05); /* a residual as dear as the Jacobi steps of a frame */
    assert_int_equal(c.every, KS_CADENCE_MAX);
    ks_cadence_cap_period(&c, 20.0, 250.0); /* 20 ms frames: every 12 frames at most */
    assert_int_equal(c.every, 12);
    ks_cadence_cap_period(&c, 400.0, 250.0); /* slower frames than the period: every frame */
    assert_int_equal(c.every, 1);
    ks_cadence_tune(&c, 0.05, 0.05);
    ks_cadence_cap_period(&c, 0.0, 250.0); /* no frame median yet: as tuned */
    assert_int_equal(c.every, KS_CADENCE_MAX);
    ks_cadence_tune(&c, 0.001, 20.0); /* within the budget already: unchanged */
    ks_cadence_cap_period(&c, 1.0, 250.0);
    assert_int_equal(c.every, 1);
    ks_cadence_init(&c, 500); /* --residual-every 500 */
    ks_cadence_cap_period(&c, 20.0, 250.0);
    assert_int_equal(c.every, 500);
}

static void test_fixed(void **state)
{
    (void)state;
    ks_cadence c;
    int first;
    ks_cadence_init(&c, 4);
    assert_int_equal(c.fixed, 4);
    assert_int_equal(c.every, 4);
    ks_cadence_tune(&c, 0.001, 100.0); /* a flag's value is kept */
    assert_int_equal(c.every, 4);
    assert_int_equal(due_frames(&c, 13, &first), 4); /* frames 0, 4, 8, 12 */
    assert_int_equal(first, 0);
    ks_cadence_init(&c, 1000); /* above the automatic cap: still the first frame, then every 1000 */
    assert_int_equal(due_frames(&c, 2001, &first), 3);
    assert_int_equal(first, 0);
}

static void test_frame_iters(void **state)
{
    (void)state;
    const int tb = ks_lvariant_find(3, "tblock"), regq = ks_lvariant_find(3, "regq");
    const int vec = ks_lvariant_find(2, "vec2d");
    assert_true(tb >= 0 && regq >= 0 && vec >= 0);
    const int T = ks_lvariant_get(tb)->steps_per_launch;
    assert_int_equal(T, 4);
    /* nearest multiple of 4, halves up, at least one block */
    const int req[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 62, 64, 66, 1000000};
    const int want[] = {4, 4, 4, 4, 4, 8, 8, 8, 12, 20, 64, 64, 68, 1000000};
    for (size_t n = 0; n < sizeof req / sizeof req[0]; ++n) {
        assert_int_equal(ks_lvariant_frame_iters(tb, req[n]), want[n]);
        assert_int_equal(ks_lvariant_frame_iters(tb, req[n]) % T, 0);
        assert_int_equal(ks_lvariant_frame_iters(regq, req[n]), req[n]); /* one step a launch */
        assert_int_equal(ks_lvariant_frame_iters(vec, req[n]), req[n]);
    }
    /* + and - (doubling, halving) from a multiple stay multiples */
    for (int it = 4; it <= 4096; it *= 2) {
        assert_int_equal(ks_lvariant_frame_iters(tb, it * 2), it * 2);
        assert_int_equal(ks_lvariant_frame_iters(tb, it / 2) % T, 0);
    }
    assert_int_equal(ks_lvariant_frame_iters(-1, 7), 7);
    assert_int_equal(ks_lvariant_frame_iters(tb, 0), 0);
}

static void test_launches(void **state)
{
    (void)state;
    const int tb = ks_lvariant_find(3, "tblock"), regq = ks_lvariant_find(3, "regq");
    assert_int_equal(ks_lvariant_launches(regq, 20, 1), 20);
    assert_int_equal(ks_lvariant_launches(regq, 20, 0), 20);
    assert_int_equal(ks_lvariant_launches(tb, 64, 0), 16); /* whole blocks only */
    assert_int_equal(ks_lvariant_launches(tb, 64, 1), 17); /* 15 x 4 + 3, then one single step */
    assert_int_equal(ks_lvariant_launches(tb, 7, 0), 2);
    assert_int_equal(ks_lvariant_launches(tb, 1, 1), 1);
    assert_int_equal(ks_lvariant_launches(tb, 1, 0), 1);
    assert_int_equal(ks_lvariant_launches(tb, 5, 1), 2);
    assert_int_equal(ks_lvariant_launches(tb, 0, 0), 0);
    assert_int_equal(ks_lvariant_launches(99, 5, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_every),  cmocka_unit_test(test_due_pattern),
        cmocka_unit_test(test_fixed),       cmocka_unit_test(test_frame_iters),
        cmocka_unit_test(test_launches),    cmocka_unit_test(test_cap_period),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
