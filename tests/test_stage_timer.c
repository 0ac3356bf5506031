/* Stage timer on the host clock: medians, minima, frame order, missing stages,
 * the solver share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/stage_timer.h"

static void sleep_ms(double ms)
{
    struct timespec ts = {0, (long)(ms * 1e6)};
    nanosleep(&ts, NULL);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void test_host_timing(void **state)
{
    (void)state;
    ks_stage_timer *t = NULL;
    assert_int_equal(ks_stage_timer_create(NULL, &t), KS_ERR_INVALID); /* no desc */
    assert_null(t);
    assert_int_equal(ks_stage_timer_create(&(ks_stage_timer_desc){0}, &t), KS_OK); /* zero: host clock */
    const int a = ks_stage_timer_stage(t, "a"), b = ks_stage_timer_stage(t, "b");
    assert_int_equal(ks_stage_timer_stage(t, "a"), a);
    assert_int_equal(ks_stage_timer_stage_count(t), 2);
    /* what stage a took, seen from outside its begin and end: on a loaded
     * machine a 2 ms sleep can last much longer, so the bounds are measured */
    double outer[5];
    for (int f = 0; f < 5; ++f) {
        assert_int_equal(ks_stage_timer_frame_begin(t), KS_OK);
        const double t0 = now_ms();
        ks_stage_timer_begin(t, a);
        sleep_ms(f == 2 ? 12.0 : 2.0);
        ks_stage_timer_end(t, a);
        outer[f] = now_ms() - t0;
        if (f % 2 == 0) {
            ks_stage_timer_begin(t, b);
            sleep_ms(1.0);
            ks_stage_timer_end(t, b);
        }
        assert_int_equal(ks_stage_timer_frame_end(t), KS_OK);
    }
    ks_stage_stats sa, sb;
    ks_stage_timer_stats(t, a, &sa);
    ks_stage_timer_stats(t, b, &sb);
    assert_int_equal(sa.samples, 5);
    assert_int_equal(sb.samples, 3);
    /* the median lies between the sleeps' median (2 ms) and the median of the
     * outer times: below the 4 ms a mean with the 12 ms outlier would give
     * wherever the machine is not so loaded that the outer median passes it */
    double sorted[5];
    memcpy(sorted, outer, sizeof sorted);
    qsort(sorted, 5, sizeof sorted[0], cmp_double);
    if (!(sa.median_ms >= 2.0 && sa.median_ms <= sorted[2] + 1e-6))
        fail_msg("median %.3f ms outside 2 .. %.3f ms (the outer times' median)", sa.median_ms, sorted[2]);
    assert_true(sa.min_ms >= 2.0 && sa.min_ms <= sa.median_ms);
    assert_true(sb.median_ms >= 1.0);
    long long frame;
    double ms[KS_TIMER_MAX_STAGES];
    for (int f = 0; f < 5; ++f) {
        assert_true(ks_stage_timer_pop_frame(t, &frame, ms));
        assert_int_equal(frame, f);
        assert_true(ms[a] >= 2.0);
        if (f % 2) assert_true(ms[b] < 0); /* did not run in that frame */
        else assert_true(ms[b] >= 1.0);
    }
    assert_false(ks_stage_timer_pop_frame(t, &frame, ms));
    ks_stage_timer_destroy(t);
}

/* A stage timed elsewhere: its value is the frame's sample, as given; outside
 * a frame, for a bad stage or a negative time nothing is kept. */
static void test_record(void **state)
{
    (void)state;
    ks_stage_timer *t = NULL;
    assert_int_equal(ks_stage_timer_create(&(ks_stage_timer_desc){0}, &t), KS_OK);
    const int a = ks_stage_timer_stage(t, "run"), b = ks_stage_timer_stage(t, "other");
    ks_stage_timer_record(t, a, 9.0); /* no frame yet */
    for (int f = 0; f < 3; ++f) {
        assert_int_equal(ks_stage_timer_frame_begin(t), KS_OK);
        ks_stage_timer_record(t, a, 1.5 + f);
        ks_stage_timer_record(t, b, -1.0);
        ks_stage_timer_record(t, -1, 4.0);
        ks_stage_timer_record(t, KS_TIMER_MAX_STAGES, 4.0);
        assert_int_equal(ks_stage_timer_frame_end(t), KS_OK);
    }
    ks_stage_stats sa, sb;
    ks_stage_timer_stats(t, a, &sa);
    ks_stage_timer_stats(t, b, &sb);
    assert_int_equal(sa.samples, 3);
    assert_true(sa.median_ms == 2.5 && sa.min_ms == 1.5 && sa.last_ms == 3.5);
    assert_int_equal(sb.samples, 0);
    long long frame;
    double ms[KS_TIMER_MAX_STAGES];
    for (int f = 0; f < 3; ++f) {
        assert_true(ks_stage_timer_pop_frame(t, &frame, ms));
        assert_true(ms[a] == 1.5 + f);
        assert_true(ms[b] < 0);
    }
    ks_stage_timer_destroy(t);
}

static void test_stage_limit(void **state)
{
    (void)state;
    ks_stage_timer *t = NULL;
    assert_int_equal(ks_stage_timer_create(&(ks_stage_timer_desc){0}, &t), KS_OK);
    char name[16];
    for (int i = 0; i < KS_TIMER_MAX_STAGES; ++i) {
        snprintf(name, sizeof name, "s%d", i);
        assert_int_equal(ks_stage_timer_stage(t, name), i);
    }
    assert_int_equal(ks_stage_timer_stage(t, "one too many"), -1);
    assert_int_equal(ks_stage_timer_begin(t, -1), KS_OK); /* ignored, not a crash */
    ks_stage_timer_destroy(t);
}

/* The share formula: a ratio of medians, clamped to 0..1, 0 without an interval. */
static void test_share_formula(void **state)
{
    (void)state;
    assert_true(ks_stage_share_of(3.0, 4.0) == 0.75);
    assert_true(ks_stage_share_of(5.0, 4.0) == 1.0);
    assert_true(ks_stage_share_of(1.0, 0.0) == 0.0);
    assert_true(ks_stage_share_of(0.0, 5.0) == 0.0);
    assert_true(ks_stage_share_of(-1.0, 5.0) == 0.0);
}

/* Solver stages against the wall-clock frame interval: the time outside the
 * solver stage (a timed draw stage, untimed host work between frames) counts
 * against the share; frames without the solver stage (paused) count as 0. */
static void test_solver_share(void **state)
{
    (void)state;
    ks_stage_timer *t = NULL;
    assert_int_equal(ks_stage_timer_create(&(ks_stage_timer_desc){0}, &t), KS_OK);
    const int draw = ks_stage_timer_stage(t, "draw");
    ks_stage_share sh;
    assert_int_equal(ks_stage_timer_share(t, &sh), 0); /* no solver stage marked */
    const int solver = ks_stage_timer_solver_stage(t, "jacobi");
    assert_int_equal(ks_stage_timer_stage(t, "jacobi"), solver); /* the same stage */
    assert_int_equal(ks_stage_timer_share(t, &sh), 0);          /* no frames yet */
    for (int f = 0; f < 7; ++f) {
        assert_int_equal(ks_stage_timer_frame_begin(t), KS_OK);
        ks_stage_timer_begin(t, solver);
        sleep_ms(6.0);
        ks_stage_timer_end(t, solver);
        ks_stage_timer_begin(t, draw);
        sleep_ms(2.0);
        ks_stage_timer_end(t, draw);
        assert_int_equal(ks_stage_timer_frame_end(t), KS_OK);
        sleep_ms(2.0); /* the host between frames */
    }
    assert_int_equal(ks_stage_timer_share(t, &sh), 1);
    assert_int_equal(sh.frames, 7);
    assert_true(sh.solver_ms >= 6.0);
    assert_true(sh.interval_ms >= sh.solver_ms + 2.0); /* 4 ms outside the solver, some slack */
    assert_true(sh.share == ks_stage_share_of(sh.solver_ms, sh.interval_ms));
    assert_true(sh.share > 0.0 && sh.share < 1.0);
    /* paused: frames without the solver stage outnumber the others */
    for (int f = 0; f < 9; ++f) {
        assert_int_equal(ks_stage_timer_frame_begin(t), KS_OK);
        ks_stage_timer_begin(t, draw);
        sleep_ms(1.0);
        ks_stage_timer_end(t, draw);
        assert_int_equal(ks_stage_timer_frame_end(t), KS_OK);
    }
    assert_int_equal(ks_stage_timer_share(t, &sh), 1);
    assert_true(sh.solver_ms == 0.0 && sh.share == 0.0);
    ks_stage_timer_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_timing), cmocka_unit_test(test_record),
        cmocka_unit_test(test_stage_limit),
        cmocka_unit_test(test_share_formula),
        cmocka_unit_test(test_solver_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
