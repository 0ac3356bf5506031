/* base/bench_timing: the benches' one timing loop and its pure parts
 * (the SE of the median, the stopping rule, the cache policy, the CSV columns and
 * the "in L2" note). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/bench_timing.h"

/* 21 launches of a 4096^3 SGEMM as an H200 timed them back to back (ms): two
 * outliers (a clock step, a preempted launch) among a tight spread. */
static const double recorded[21] = {2.8033, 2.8101, 2.7988, 2.8412, 2.8050, 2.8077, 2.9930, 2.8019, 2.8064, 2.8091, 2.8040,
                                    2.8123, 2.8002, 2.8071, 2.8056, 3.4100, 2.8085, 2.8037, 2.8069, 2.8048, 2.8110};

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void sorted_copy(const double *in, int n, double *out)
{
    memcpy(out, in, (size_t)n * sizeof *out);
    qsort(out, (size_t)n, sizeof *out, cmp);
}

static void test_median_se_recorded(void **state)
{
    (void)state;
    double s[21];
    sorted_copy(recorded, 21, s);
    /* n = 21: order statistics 6 and 15 (1-based), 2.8037 .. 2.8088 */
    const double se = ks_median_se(s, 21);
    assert_true(fabs(se - (s[14] - s[5]) / (2.0 * 1.959964)) < 1e-12);
    assert_true(fabs(se - 0.0013010443) < 1e-9);
    /* the outliers are outside the window: making them wilder changes nothing */
    double wild[21];
    memcpy(wild, recorded, sizeof wild);
    wild[6] = 50.0;
    wild[15] = 1e6;
    double w[21];
    sorted_copy(wild, 21, w);
    assert_true(ks_median_se(w, 21) == se);
    /* scaling the times scales the SE */
    for (int i = 0; i < 21; ++i) w[i] = 1000.0 * s[i];
    assert_true(fabs(ks_median_se(w, 21) - 1000.0 * se) < 1e-9);
}

static void test_median_se_edges(void **state)
{
    (void)state;
    const double two[2] = {1.0, 2.0}, same[5] = {3.0, 3.0, 3.0, 3.0, 3.0};
    assert_true(ks_median_se(two, 2) < 0.0); /* no estimate from two */
    assert_true(ks_median_se(two, 0) < 0.0);
    assert_true(ks_median_se(same, 5) == 0.0);
    /* 1..101: order statistics 40 and 61, so (61 - 40) / 3.92 (the uniform's SE is 100 / (2 sqrt 101) = 4.98) */
    double u[101];
    for (int i = 0; i < 101; ++i) u[i] = i + 1;
    assert_true(fabs(ks_median_se(u, 101) - 21.0 / (2.0 * 1.959964)) < 1e-12);
    /* three samples: the whole range (the window is clamped to 1..n) */
    const double three[3] = {1.0, 2.0, 4.0};
    assert_true(fabs(ks_median_se(three, 3) - 3.0 / (2.0 * 1.959964)) < 1e-12);
}

static void test_stopping_rule(void **state)
{
    (void)state;
    const ks_timing_opts adaptive = {0}, fixed = {.reps = 5};
    /* fixed: exactly the count, whatever the spread or the clock */
    assert_int_equal(ks_timing_done(&fixed, 4, 50.0, 1e9), KS_TIMING_MORE);
    assert_int_equal(ks_timing_done(&fixed, 5, 50.0, 0.0), KS_TIMING_FIXED);
    /* adaptive: a tight spread still needs the minimum count */
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_MIN_REPS - 1, 0.1, 0.0), KS_TIMING_MORE);
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_MIN_REPS, 0.1, 0.0), KS_TIMING_CONVERGED);
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_MIN_REPS, 1.0, 0.0), KS_TIMING_MORE); /* under 1 %, not at */
    assert_int_equal(ks_timing_done(&adaptive, 50, -1.0, 0.0), KS_TIMING_MORE);               /* no estimate */
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_MAX_REPS, 5.0, 0.0), KS_TIMING_CAP_REPS);
    /* the budget: only after a few samples, so a kernel of seconds a run still gets a median */
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_SLOW_REPS - 1, 5.0, 1e9), KS_TIMING_MORE);
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_SLOW_REPS, 5.0, KS_TIMING_BUDGET_MS), KS_TIMING_CAP_TIME);
    assert_int_equal(ks_timing_done(&adaptive, KS_TIMING_SLOW_REPS, 5.0, KS_TIMING_BUDGET_MS - 1.0), KS_TIMING_MORE);
    /* the caller's target and budget */
    const ks_timing_opts loose = {.target_se_pct = 3.0, .budget_ms = 10.0};
    assert_int_equal(ks_timing_done(&loose, 12, 2.5, 0.0), KS_TIMING_CONVERGED);
    assert_int_equal(ks_timing_done(&loose, 12, 3.5, 10.0), KS_TIMING_CAP_TIME);
    assert_int_equal(ks_timing_done(NULL, 12, 0.5, 0.0), KS_TIMING_CONVERGED);
    assert_string_equal(ks_timing_stop_name(KS_TIMING_CONVERGED), "converged");
}

static void test_cache_policy(void **state)
{
    (void)state;
    const double l2 = 60.0 * 1048576.0;
    /* auto: cold under 4 x L2 (a 100 MiB histogram, a 256^3 field pair), warm from there (a 512^3 pair) */
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_AUTO, 100.0 * 1048576.0, l2, 1), KS_CACHE_COLD);
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_AUTO, 4.0 * l2 - 1.0, l2, 1), KS_CACHE_COLD);
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_AUTO, 4.0 * l2, l2, 1), KS_CACHE_WARM);
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_AUTO, 1024.0 * 1048576.0, l2, 1), KS_CACHE_WARM);
    /* the L2 unknown: warm; asked: as asked; nothing to flush with (the CPU): warm */
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_AUTO, 1.0, 0.0, 1), KS_CACHE_WARM);
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_COLD, 1e12, l2, 1), KS_CACHE_COLD);
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_WARM, 1.0, l2, 1), KS_CACHE_WARM);
    assert_int_equal(ks_cache_policy_resolve(KS_CACHE_COLD, 1.0, l2, 0), KS_CACHE_WARM);
    ks_cache_policy p = KS_CACHE_NUM;
    assert_int_equal(ks_cache_policy_parse("cold", &p), 0);
    assert_int_equal(p, KS_CACHE_COLD);
    assert_int_equal(ks_cache_policy_parse("warm", &p), 0);
    assert_int_equal(p, KS_CACHE_WARM);
    assert_int_equal(ks_cache_policy_parse("hot", &p), -1);
    assert_int_equal(ks_cache_policy_parse(NULL, &p), -1);
    assert_string_equal(ks_cache_policy_name(KS_CACHE_COLD), "cold");
}

/* A sample function that replays a recorded sequence (cycling), counting the
 * flushes and checking that one came before each cold sample. */
typedef struct replay {
    const double *ms;
    int n, next, flushes, unflushed_cold, fail_at;
    int pending_flush;
} replay;

static ks_status replay_sample(void *ctx, double *ms)
{
    replay *r = ctx;
    if (r->fail_at >= 0 && r->next == r->fail_at) return ks_fail(KS_ERR_CUDA, "sample %d failed", r->next);
    if (!r->pending_flush) ++r->unflushed_cold;
    r->pending_flush = 0;
    *ms = r->ms[r->next++ % r->n];
    return KS_OK;
}

static ks_status replay_flush(void *ctx)
{
    replay *r = ctx;
    ++r->flushes;
    r->pending_flush = 1;
    return KS_OK;
}

static void test_loop_fixed_and_policy(void **state)
{
    (void)state;
    replay r = {recorded, 21, 0, 0, 0, -1, 0};
    ks_timing_run run = {replay_sample, replay_flush, &r, 100.0 * 1048576.0, 60.0 * 1048576.0};
    const ks_timing_opts fixed = {.reps = 21, .warmup = -1};
    ks_timing t;
    assert_int_equal(ks_timing_measure(&run, &fixed, &t), KS_OK);
    /* auto -> cold: a flush before every sample, and the figures of the recorded run */
    assert_int_equal(t.cache, KS_CACHE_COLD);
    assert_int_equal(t.reps, 21);
    assert_int_equal(r.flushes, 21);
    assert_int_equal(r.unflushed_cold, 0);
    assert_int_equal(t.stop, KS_TIMING_FIXED);
    assert_true(t.median_ms == 2.8069);
    assert_true(t.min_ms == 2.7988);
    assert_true(fabs(t.se_pct - 100.0 * 0.0013010443 / 2.8069) < 1e-6);
    /* warm: no flush at all; the warm-up samples (default 2) are not counted */
    r = (replay){recorded, 21, 0, 0, 0, -1, 0};
    const ks_timing_opts warm = {.cache = KS_CACHE_WARM, .reps = 7};
    assert_int_equal(ks_timing_measure(&run, &warm, &t), KS_OK);
    assert_int_equal(t.cache, KS_CACHE_WARM);
    assert_int_equal(r.flushes, 0);
    assert_int_equal(r.next, 2 + 7);
    assert_int_equal(t.reps, 7);
    /* no flush function: warm whatever was asked */
    run.flush = NULL;
    r = (replay){recorded, 21, 0, 0, 0, -1, 0};
    const ks_timing_opts cold = {.cache = KS_CACHE_COLD, .reps = 3};
    assert_int_equal(ks_timing_measure(&run, &cold, &t), KS_OK);
    assert_int_equal(t.cache, KS_CACHE_WARM);
}

/* Adaptive: the loop stops at the first count (>= the minimum) whose prefix's SE is under 1 %. */
static void test_loop_adaptive(void **state)
{
    (void)state;
    /* a spread that shrinks: 10 % jitter for 15 samples, then tight */
    double seq[60];
    for (int i = 0; i < 60; ++i) seq[i] = i < 15 ? 1.0 + 0.1 * ((i * 7) % 5 - 2) : 1.0 + 0.001 * (i % 3);
    int want = -1;
    for (int n = KS_TIMING_MIN_REPS; n <= 60 && want < 0; ++n) {
        double s[60];
        sorted_copy(seq, n, s);
        const double med = (n & 1) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
        if (100.0 * ks_median_se(s, n) / med < KS_TIMING_TARGET_SE_PCT) want = n;
    }
    assert_true(want > KS_TIMING_MIN_REPS && want < 60);
    replay r = {seq, 60, 0, 0, 0, -1, 0};
    const ks_timing_run run = {replay_sample, replay_flush, &r, 1e12, 60.0 * 1048576.0};
    const ks_timing_opts adaptive = {.warmup = -1, .budget_ms = 1e12};
    ks_timing t;
    assert_int_equal(ks_timing_measure(&run, &adaptive, &t), KS_OK);
    assert_int_equal(t.cache, KS_CACHE_WARM); /* 1e12 bytes: far over 4 x L2 */
    assert_int_equal(t.reps, want);
    assert_int_equal(t.stop, KS_TIMING_CONVERGED);
    assert_true(t.se_pct >= 0.0 && t.se_pct < 1.0);
    /* a spread that never settles: the cap on repetitions */
    const double noisy[2] = {1.0, 2.0};
    r = (replay){noisy, 2, 0, 0, 0, -1, 0};
    assert_int_equal(ks_timing_measure(&run, &adaptive, &t), KS_OK);
    assert_int_equal(t.reps, KS_TIMING_MAX_REPS);
    assert_int_equal(t.stop, KS_TIMING_CAP_REPS);
}

static void test_loop_errors(void **state)
{
    (void)state;
    replay r = {recorded, 21, 0, 0, 0, 5, 0};
    const ks_timing_run run = {replay_sample, replay_flush, &r, 1.0, 60.0 * 1048576.0};
    const ks_timing_opts o = {.reps = 10, .warmup = -1};
    ks_timing t;
    assert_int_equal(ks_timing_measure(&run, &o, &t), KS_ERR_CUDA);
    assert_string_equal(ks_error_message(), "sample 5 failed");
}

static void test_csv_and_l2_note(void **state)
{
    (void)state;
    char buf[128];
    ks_timing t = {.median_ms = 1.0, .se_pct = 0.4123, .reps = 37, .cache = KS_CACHE_COLD,
                   .working_set_bytes = 100.0 * 1048576.0, .l2_bytes = 60.0 * 1048576.0};
    ks_timing_csv(&t, buf, sizeof buf);
    assert_string_equal(buf, "cold,37,0.412,0");
    t.cache = KS_CACHE_WARM;
    t.working_set_bytes = 32.0 * 1048576.0;
    t.se_pct = -1.0;
    t.reps = 2;
    ks_timing_csv(&t, buf, sizeof buf);
    assert_string_equal(buf, "warm,2,,1");
    assert_string_equal(KS_TIMING_CSV_HEADER, "cache,reps,se_pct,in_l2");
    /* the note: only where the working set fits the L2 */
    const double l2 = 60.0 * 1048576.0;
    assert_string_equal(ks_timing_l2_note(32.0 * 1048576.0, l2, 9000.0, 4300.0), "in L2");
    assert_string_equal(ks_timing_l2_note(32.0 * 1048576.0, l2, 3000.0, 4300.0), "fits L2");
    assert_string_equal(ks_timing_l2_note(512.0 * 1048576.0, l2, 9000.0, 4300.0), "");
    assert_string_equal(ks_timing_l2_note(32.0 * 1048576.0, 0.0, 9000.0, 4300.0), ""); /* L2 unknown */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_se_recorded), cmocka_unit_test(test_median_se_edges),
        cmocka_unit_test(test_stopping_rule),      cmocka_unit_test(test_cache_policy),
        cmocka_unit_test(test_loop_fixed_and_policy), cmocka_unit_test(test_loop_adaptive),
        cmocka_unit_test(test_loop_errors),        cmocka_unit_test(test_csv_and_l2_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
