/* The CPU backend's T_peak (base/host_peak.h) and what the panel and
 * the Laplace bench say of a ratio to it, from repetitions recorded on a 2-core
 * machine: steady (load 15, every repetition slowed alike), busy (load 15, the
 * repetitions 31 % apart). No timing here: the measurement itself is only
 * asked to give a positive rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/host_peak.h"
#include "render/view.h"
#include "app/scene_peak.h"
#include "app/scenes/laplace/bench.h"

static const double steady[9] = {2.99, 3.47, 3.58, 3.12, 3.45, 3.22, 3.23, 3.37, 3.09};
static const double busy[9] = {2.66, 3.79, 2.76, 3.73, 2.80, 5.41, 4.64, 2.67, 3.95};

static void test_judge(void **state)
{
    (void)state;
    ks_host_peak p;
    ks_host_peak_judge(steady, 9, &p);
    assert_int_equal(p.reps, 9);
    assert_float_equal(p.gbs, 3.58, 1e-12);        /* the best repetition */
    assert_float_equal(p.median_gbs, 3.23, 1e-12);
    assert_float_equal(p.spread, (3.58 - 3.23) / 3.58, 1e-12); /* 9.8 % */
    assert_int_equal(p.reliable, 1);
    ks_host_peak_judge(busy, 9, &p);
    assert_float_equal(p.gbs, 5.41, 1e-12);
    assert_float_equal(p.median_gbs, 3.73, 1e-12);
    assert_true(p.spread > KS_HOST_PEAK_MAX_SPREAD); /* 31 % */
    assert_int_equal(p.reliable, 0);
    /* rates that are no measurement are left out; none at all is no T_peak */
    const double some[4] = {0.0, 4.0, -1.0, 4.2};
    ks_host_peak_judge(some, 4, &p);
    assert_int_equal(p.reps, 2);
    assert_float_equal(p.gbs, 4.2, 1e-12);
    ks_host_peak_judge(some, 1, &p);
    assert_int_equal(p.reps, 0);
    assert_float_equal(p.gbs, 0.0, 0.0);
}

static void test_ratio(void **state)
{
    (void)state;
    ks_host_peak p;
    double ratio;
    ks_host_peak_judge(steady, 9, &p);
    assert_int_equal(ks_host_peak_ratio(&p, 1.79, &ratio), KS_PEAK_RATIO);
    assert_float_equal(ratio, 0.5, 1e-12);
    assert_int_equal(ks_host_peak_ratio(&p, 3.58, &ratio), KS_PEAK_RATIO); /* at T_peak: 1, shown */
    assert_float_equal(ratio, 1.0, 1e-12);
    /* the reported case: T_eff 1.35 x a steady-looking T_peak: no ratio above 1 */
    assert_int_equal(ks_host_peak_ratio(&p, 1.35 * 3.58, &ratio), KS_PEAK_EXCEEDED);
    assert_float_equal(ratio, -1.0, 0.0);
    ks_host_peak_judge(busy, 9, &p);
    assert_int_equal(ks_host_peak_ratio(&p, 1.0, &ratio), KS_PEAK_UNRELIABLE); /* even a ratio below 1 */
    assert_int_equal(ks_host_peak_ratio(&p, 0.0, &ratio), KS_PEAK_NONE);
    assert_int_equal(ks_host_peak_ratio(NULL, 1.0, &ratio), KS_PEAK_NONE);
    assert_string_equal(ks_peak_verdict_text(KS_PEAK_UNRELIABLE), "T_peak unreliable (busy CPU)");
    assert_string_equal(ks_peak_verdict_text(KS_PEAK_RATIO), "");
}

static const ks_vfield *field(const ks_view *v, const char *label) { return ks_view_find(v, label); }

/* The panel: a number where it can be trusted, else why not; the device's copy unjudged. */
static void test_panel(void **state)
{
    (void)state;
    ks_host_peak p;
    ks_host_peak_judge(steady, 9, &p);
    ks_scene_env env;
    memset(&env, 0, sizeof env);
    env.t_peak_gbs = p.gbs;
    env.host_peak = &p;
    ks_view *v = calloc(1, sizeof *v);
    assert_non_null(v);
    ks_scene_peak_ratio(v, &env, KS_VGROUP_KERNEL, "T_eff/T_peak", 1.79);
    ks_scene_peak_rows(v, &env, KS_VGROUP_KERNEL, "T_peak");
    const ks_vfield *f = field(v, "T_eff/T_peak");
    assert_non_null(f);
    assert_int_equal(f->is_text, 0);
    assert_float_equal(f->value, 0.5, 1e-12);
    assert_non_null(field(v, "T_peak"));
    assert_non_null(f = field(v, "T_peak spread"));
    assert_float_equal(f->value, p.spread, 1e-12);

    memset(v, 0, sizeof *v);
    ks_scene_peak_ratio(v, &env, KS_VGROUP_KERNEL, "T_eff/T_peak", 1.35 * 3.58);
    assert_non_null(f = field(v, "T_eff/T_peak"));
    assert_int_equal(f->is_text, 1);
    assert_string_equal(f->text, "n/a: T_eff above T_peak (cache, or busy CPU)");

    ks_host_peak_judge(busy, 9, &p);
    env.t_peak_gbs = p.gbs;
    memset(v, 0, sizeof *v);
    ks_scene_peak_ratio(v, &env, KS_VGROUP_KERNEL, "T_eff/T_peak", 1.0);
    assert_non_null(f = field(v, "T_eff/T_peak"));
    assert_string_equal(f->text, "n/a: T_peak unreliable (busy CPU)");

    /* CUDA: a device copy, exceeded by design (time blocks): the ratio as it is */
    env.use_cuda = 1;
    env.host_peak = NULL;
    env.t_peak_gbs = 3000.0;
    memset(v, 0, sizeof *v);
    ks_scene_peak_ratio(v, &env, KS_VGROUP_KERNEL, "T_eff/T_peak", 6000.0);
    assert_non_null(f = field(v, "T_eff/T_peak"));
    assert_float_equal(f->value, 2.0, 1e-12);
    ks_scene_peak_rows(v, &env, KS_VGROUP_KERNEL, "T_peak");
    assert_null(field(v, "T_peak spread"));
    free(v);
}

static ks_bench_row cpu_row(int n, double t_eff, const ks_host_peak *p)
{
    ks_bench_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.device, sizeof r.device, "host CPU");
    snprintf(r.cc, sizeof r.cc, "-");
    snprintf(r.variant, sizeof r.variant, "gold");
    r.grid[0] = r.grid[1] = n;
    r.grid[2] = 1;
    r.ms_per_iter = 2.0 * 4.0 * n * n / (t_eff * 1e9) * 1e3;
    r.t_eff_gbs = t_eff;
    r.host_peak = 1;
    r.t_peak_gbs = p->gbs;
    r.t_peak_spread = p->spread;
    r.verdict = (int)ks_host_peak_ratio(p, t_eff, &r.ratio);
    r.best = 1;
    r.timing = (ks_timing){.median_ms = r.ms_per_iter, .se_pct = 1.0, .reps = 5, .cache = KS_CACHE_WARM};
    return r;
}

/* The bench's table and CSV on the CPU: one T_peak for every row; a ratio only
 * where it can be given, the reason under the table, the spread in the CSV. */
static void test_bench_rows(void **state)
{
    (void)state;
    ks_host_peak p;
    ks_host_peak_judge(steady, 9, &p);
    ks_bench_row rows[2] = {cpu_row(64, 4.61, &p), cpu_row(2048, 1.79, &p)};
    char *csv = ks_bench_laplace_csv(rows, 2);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "occupancy,best,cc,t_peak_spread,cache,reps,se_pct,in_l2\n"));
    assert_non_null(strstr(csv, "\"host CPU\",gold,64x64x1,0x0x0,"));
    assert_non_null(strstr(csv, ",4.61,3.58,,0,0.000,1,-,0.098,warm,5,1.000,0\n"));      /* above T_peak: no ratio */
    assert_non_null(strstr(csv, ",1.79,3.58,0.5000,0,0.000,1,-,0.098,warm,5,1.000,0\n"));
    free(csv);
    char *t = ks_bench_laplace_table(rows, 2);
    assert_non_null(t);
    assert_non_null(strstr(t, "    n/a "));
    assert_non_null(strstr(t, "  0.500 "));
    assert_non_null(strstr(t, "ratio n/a: T_eff above T_peak (cache, or busy CPU) in 1 row"));
    free(t);

    ks_host_peak_judge(busy, 9, &p);
    rows[0] = cpu_row(64, 1.0, &p);
    rows[1] = cpu_row(2048, 2.0, &p);
    csv = ks_bench_laplace_csv(rows, 2);
    assert_non_null(strstr(csv, ",1.00,5.41,,0,0.000,1,-,0.311,warm,5,1.000,0\n"));
    assert_non_null(strstr(csv, ",2.00,5.41,,0,0.000,1,-,0.311,warm,5,1.000,0\n"));
    free(csv);
    t = ks_bench_laplace_table(rows, 2);
    assert_non_null(strstr(t, "ratio n/a: T_peak unreliable (busy CPU): T_peak's repetitions spread 31 % (more than 20 %)"));
    free(t);
}

/* The measurement gives a rate from every thread's copy (how fast is not asked). */
static void test_measure(void **state)
{
    (void)state;
    ks_host_peak p;
    const ks_host_peak_desc d = {.bytes = (size_t)4 << 20, .reps = 3, .min_seconds = 0.001};
    assert_int_equal(ks_host_peak_measure(&d, &p), KS_OK);
    assert_int_equal(p.reps, 3);
    assert_true(p.gbs > 0.0);
    assert_true(p.gbs >= p.median_gbs);
    assert_true(p.threads >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),   cmocka_unit_test(test_ratio),   cmocka_unit_test(test_panel),
        cmocka_unit_test(test_bench_rows), cmocka_unit_test(test_measure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
