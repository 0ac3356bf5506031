/* Stage timer on the host clock: medians, minima, frame order, missing stages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cmocka.h>

#include "kernels/common/stage_timer.h"

static void sleep_ms(double ms)
{
    struct timespec ts = {0, (long)(ms * 1e6)};
    nanosleep(&ts, NULL);
}

static void test_host_timing(void **state)
{
    (void)state;
    ks_stage_timer *t = NULL;
    assert_int_equal(ks_stage_timer_create(0, NULL, &t), KS_OK);
    const int a = ks_stage_timer_stage(t, "a"), b = ks_stage_timer_stage(t, "b");
    assert_int_equal(ks_stage_timer_stage(t, "a"), a);
    assert_int_equal(ks_stage_timer_stage_count(t), 2);
    for (int f = 0; f < 5; ++f) {
        assert_int_equal(ks_stage_timer_frame_begin(t), KS_OK);
        ks_stage_timer_begin(t, a);
        sleep_ms(f == 2 ? 12.0 : 2.0);
        ks_stage_timer_end(t, a);
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
    assert_true(sa.median_ms >= 2.0 && sa.median_ms < 10.0); /* the 12 ms outlier does not move it */
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

static void test_stage_limit(void **state)
{
    (void)state;
    ks_stage_timer *t = NULL;
    assert_int_equal(ks_stage_timer_create(0, NULL, &t), KS_OK);
    char name[16];
    for (int i = 0; i < KS_TIMER_MAX_STAGES; ++i) {
        snprintf(name, sizeof name, "s%d", i);
        assert_int_equal(ks_stage_timer_stage(t, name), i);
    }
    assert_int_equal(ks_stage_timer_stage(t, "one too many"), -1);
    assert_int_equal(ks_stage_timer_begin(t, -1), KS_OK); /* ignored, not a crash */
    ks_stage_timer_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_timing),
        cmocka_unit_test(test_stage_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
