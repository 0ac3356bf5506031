/* --iters auto (app/scenes/laplace/iters_auto.h), on made-up timings: the
 * count for a frame-rate target (--fps-target, default 60), the rate lowered
 * toward 30 fps while the display costs more than 5 % of the solver, and the
 * fastest sizing (--fps-target 0: the solver 97 % of a frame), their limits,
 * rounding to time blocks, when it re-sizes, and the frames whose solver
 * runs alone. */
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
    assert_int_equal(ks_iters_auto_target(20, 1.0, 3.0, 0.0, 0.0, 1, 1000000, NULL), 1294);
    /* tiny overhead: at least KS_ITERS_AUTO_MIN_MS of solver (25 ms = 500 iterations) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 1.01, 0.0, 0.0, 1, 1000000, NULL), 500);
    /* huge overhead: at most KS_ITERS_AUTO_MAX_MS (100 ms = 2000 iterations) */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 51.0, 0.0, 0.0, 1, 1000000, NULL), 2000);
    /* whole time blocks of 4, rounded up: 20 iterations of 0.3 ms, 2 ms more: 64.67 / 0.015 = 4311.1 -> 4312 */
    assert_int_equal(ks_iters_auto_target(20, 0.3, 2.3, 0.0, 0.0, 4, 1000000, NULL), 4312);
    /* the largest count, a multiple of the block */
    assert_int_equal(ks_iters_auto_target(4, 1e-6, 1.0, 0.0, 0.0, 4, 1001, NULL), 1000);
    /* never below one block */
    assert_int_equal(ks_iters_auto_target(400, 10000.0, 10000.5, 0.0, 0.0, 4, 1000000, NULL), 4);
    /* unknown medians: unchanged */
    assert_int_equal(ks_iters_auto_target(20, 0.0, 1.5, 0.0, 0.0, 1, 1000000, NULL), 20);
    assert_int_equal(ks_iters_auto_target(20, 1.0, -1.0, 0.0, 0.0, 1, 1000000, NULL), 20);
}

/* What GL's slices add inside the solver's span counts as overhead once the
 * solver's undisturbed time per iteration is known. */
static void test_target_alone(void **state)
{
    (void)state;
    /* 50 iterations in 26 ms of a 26.1 ms frame: by the share alone the 25 ms
     * floor holds (0.1 ms of overhead): 25 / 0.52 = 48.1 -> 49 ... */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 26.1, 0.0, 0.0, 1, 1000000, NULL), 49);
    /* ... but alone an iteration takes 0.5 ms: 1.1 ms of the frame is not
     * the solver's own, 1.1 * 97 / 3 = 35.57 ms of solver: 72 iterations */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 26.1, 0.5, 0.0, 1, 1000000, NULL), 72);
    /* an alone figure above the median's own is noise, not a faster solver */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 26.1, 0.6, 0.0, 1, 1000000, NULL), 49);
    /* the 100 ms cap still holds: 200 iterations of 0.5 ms */
    assert_int_equal(ks_iters_auto_target(50, 26.0, 36.0, 0.5, 0.0, 1, 1000000, NULL), 200);
    /* whole time blocks: 35.57 / 0.5 = 71.1 -> 72, a multiple of 4 */
    assert_int_equal(ks_iters_auto_target(48, 24.96, 25.06, 0.5, 0.0, 4, 1000000, NULL) % 4, 0);
}

/* Alone frames come only before a settled sizing, KS_ITERS_AUTO_ALONE of
 * them; their fastest sample is what the sizing takes; a restart forgets it. */
static void test_alone_frames(void **state)
{
    (void)state;
    ks_iters_auto a;
    int iters = 50;
    ks_iters_auto_init(&a, 1, 0.0); /* the fastest */
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
    ks_iters_auto_init(&a, 0, 0.0);
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
    ks_iters_auto_init(&a, 0, 0.0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 1.0, 3.0, 1, 1000000), 0); /* off */
    assert_int_equal(iters, 20);
    ks_iters_auto_init(&a, 1, 0.0); /* the fastest */
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

/* After the first sizing a count grows at most KS_ITERS_AUTO_GROWTH times a
 * sizing: a solver time that came out far too short (the frames around a
 * kernel swap) costs a few slower frames, never a frame of minutes. */
static void test_growth_capped(void **state)
{
    (void)state;
    ks_iters_auto a;
    int iters = 20;
    ks_iters_auto_init(&a, 1, 60.0);
    for (int f = 0; f < KS_ITERS_AUTO_FIRST; ++f) ks_iters_auto_step(&a, &iters, 0.5, 1.0, 1, 1000000);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 0.5, 1.0, 1, 1000000), 1); /* the first: any jump */
    assert_int_equal(iters, 646); /* (16.67 - 0.5) / 0.025 */
    ks_iters_auto_restart(&a);
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f) ks_iters_auto_step(&a, &iters, 0.01, 0.5, 4, 1000000);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 0.01, 0.5, 4, 1000000), 1);
    assert_int_equal(iters, 2584); /* 4 x 646, whole blocks of 4 (the timing asked for 64 times more) */
    ks_iters_auto_restart(&a);
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f) ks_iters_auto_step(&a, &iters, 400.0, 400.5, 4, 1000000);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 400.0, 400.5, 4, 1000000), 1); /* shrinking: no cap */
    assert_int_equal(iters, 104); /* (16.67 - 0.5) / (400 / 2584), whole blocks of 4 */
}

static int near(double a, double b) { return a > b - 1e-6 && a < b + 1e-6; }

/* The rate aimed at: the target while the display costs at most 5 % of the
 * solver there, else the rate where it is 5 % (the frame 21 times the
 * display's cost), never below 30 fps (a target under 30 stays). */
static void test_aim_fps(void **state)
{
    (void)state;
    assert_true(near(ks_iters_auto_aim_fps(60.0, 0.5), 60.0));   /* 0.5 of 16.17 ms: 3.1 % */
    assert_true(near(ks_iters_auto_aim_fps(60.0, 1.0), 1000.0 / 21.0)); /* 47.6 fps: 1 ms of 20 */
    assert_true(near(ks_iters_auto_aim_fps(60.0, 2.0), 30.0));   /* 42 ms wanted: held at 30 fps */
    assert_true(near(ks_iters_auto_aim_fps(60.0, 100.0), 30.0));
    assert_true(near(ks_iters_auto_aim_fps(24.0, 2.0), 24.0));   /* below 30: never lowered */
    assert_true(near(ks_iters_auto_aim_fps(120.0, 0.1), 120.0));
    assert_true(near(ks_iters_auto_aim_fps(120.0, 0.5), 1000.0 / 10.5)); /* 95 fps */
    assert_true(near(ks_iters_auto_aim_fps(60.0, -1.0), 60.0));
    assert_true(ks_iters_auto_aim_fps(0.0, 1.0) == 0.0); /* the fastest: no rate */
}

/* The count for a frame rate: what the display leaves of the frame, in whole
 * iterations (time blocks) rounded down so the frame fits. */
static void test_target_fps(void **state)
{
    (void)state;
    double aim = -1.0;
    /* 20 iterations of 0.25 ms, 0.5 ms more a frame: (16.67 - 0.5) / 0.25 = 64.7 -> 64 (16.5 ms, 60.6 fps) */
    assert_int_equal(ks_iters_auto_target(20, 5.0, 5.5, 0.0, 60.0, 1, 1000000, &aim), 64);
    assert_true(near(aim, 60.0));
    /* 1 ms more: 6.4 % of the solver at 60 fps; at 47.6 fps (21 ms) 5 %: (21 - 1) / 0.25 = 80 */
    assert_int_equal(ks_iters_auto_target(20, 5.0, 6.0, 0.0, 60.0, 1, 1000000, &aim), 80);
    assert_true(near(aim, 1000.0 / 21.0));
    /* 2 ms more: 5 % would need 42 ms; held at 30 fps: (33.33 - 2) / 0.25 = 125.3 -> 125 */
    assert_int_equal(ks_iters_auto_target(20, 5.0, 7.0, 0.0, 60.0, 1, 1000000, &aim), 125);
    assert_true(near(aim, 30.0));
    /* a target below 30 is not lowered: (41.67 - 2) / 0.25 = 158.7 -> 158 */
    assert_int_equal(ks_iters_auto_target(20, 5.0, 7.0, 0.0, 24.0, 1, 1000000, &aim), 158);
    assert_true(near(aim, 24.0));
    /* 120 fps: (8.33 - 0.1) / 0.25 = 32.9 -> 32 */
    assert_int_equal(ks_iters_auto_target(20, 5.0, 5.1, 0.0, 120.0, 1, 1000000, &aim), 32);
    /* whole time blocks of 4, rounded down: (16.67 - 0.5) / 0.3 = 53.9 -> 52, not 56 */
    assert_int_equal(ks_iters_auto_target(20, 6.0, 6.5, 0.0, 60.0, 4, 1000000, &aim), 52);
    /* a display dearer than the 30 fps frame: one block */
    assert_int_equal(ks_iters_auto_target(20, 5.0, 45.0, 0.0, 60.0, 4, 1000000, &aim), 4);
    assert_true(near(aim, 30.0));
    /* the largest count still holds */
    assert_int_equal(ks_iters_auto_target(4, 1e-6, 1.0, 0.0, 60.0, 4, 1001, &aim), 1000);
    /* undisturbed iterations of 0.25 ms (the median's 0.26): 13.1 - 12.5 = 0.6 ms of display,
     * (16.67 - 0.6) / 0.25 = 64.3 -> 64 */
    assert_int_equal(ks_iters_auto_target(50, 13.0, 13.1, 0.25, 60.0, 1, 1000000, &aim), 64);
    /* unknown medians: unchanged, no rate */
    assert_int_equal(ks_iters_auto_target(20, 0.0, 1.5, 0.0, 60.0, 1, 1000000, &aim), 20);
    assert_true(aim == 0.0);
    /* the fastest sizing says no rate either */
    assert_int_equal(ks_iters_auto_target(20, 1.0, 3.0, 0.0, 0.0, 1, 1000000, &aim), 1294);
    assert_true(aim == 0.0);
}

/* A frame-rate run: sized at 60 fps, held within 5 %, lowered toward 30 fps
 * after a restart finds the display dearer, and back to 60 when it is cheap
 * again; the target survives every restart. */
static void test_step_fps(void **state)
{
    (void)state;
    ks_iters_auto a;
    int iters = 20;
    ks_iters_auto_init(&a, 1, 60.0);
    assert_true(a.aim_fps == 0.0);
    for (int f = 0; f < KS_ITERS_AUTO_FIRST; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 5.0, 5.5, 1, 1000000), 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 5.0, 5.5, 1, 1000000), 1);
    assert_int_equal(iters, 64);
    assert_true(near(a.aim_fps, 60.0));
    /* the second sizing: 0.7 ms of display wants 63, 1.6 % off: the count stays */
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 16.0, 16.7, 1, 1000000), 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 16.0, 16.7, 1, 1000000), 0);
    assert_int_equal(iters, 64);
    /* a restart that finds the display dearer */
    ks_iters_auto_restart(&a);
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f) ks_iters_auto_step(&a, &iters, 16.0, 19.0, 1, 1000000);
    /* 3 ms of display: 42 ms frame wanted for 5 %, so 30 fps: (33.33 - 3) / 0.25 = 121.3 -> 121 */
    assert_int_equal(ks_iters_auto_step(&a, &iters, 16.0, 19.0, 1, 1000000), 1);
    assert_int_equal(iters, 121);
    assert_true(near(a.aim_fps, 30.0));
    assert_true(a.fps_target == 60.0);
    /* a restart (pause, kernel, block) with a cheap display again: back to 60 fps */
    ks_iters_auto_restart(&a);
    assert_true(a.fps_target == 60.0);
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 30.25, 30.75, 1, 1000000), 0);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 30.25, 30.75, 1, 1000000), 1);
    assert_int_equal(iters, 64);
    assert_true(near(a.aim_fps, 60.0));
    /* the display at 1 ms: 47.6 fps, 80 iterations (25 % more) */
    for (int f = 0; f < KS_ITERS_AUTO_SETTLE; ++f) ks_iters_auto_step(&a, &iters, 16.0, 17.0, 1, 1000000);
    assert_int_equal(ks_iters_auto_step(&a, &iters, 16.0, 17.0, 1, 1000000), 1);
    assert_int_equal(iters, 80);
    assert_true(near(a.aim_fps, 1000.0 / 21.0));
    /* two sizings since the restart: the count stays */
    for (int f = 0; f < 4 * KS_ITERS_AUTO_SETTLE; ++f)
        assert_int_equal(ks_iters_auto_step(&a, &iters, 20.0, 60.0, 1, 1000000), 0);
    assert_int_equal(iters, 80);
    /* a negative or zero target is the fastest */
    ks_iters_auto_init(&a, 1, -5.0);
    assert_true(a.fps_target == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_target), cmocka_unit_test(test_step), cmocka_unit_test(test_growth_capped),
                                       cmocka_unit_test(test_target_alone), cmocka_unit_test(test_alone_frames),
                                       cmocka_unit_test(test_aim_fps),      cmocka_unit_test(test_target_fps),
                                       cmocka_unit_test(test_step_fps)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
