/* The scaling bench's derived figures and writers (bench_scaling.h): the
 * speed-up and efficiency of strong and weak rows against their 1-GPU row,
 * the CSV's exact columns, the table, and the chart's PNG. No device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/scenes/laplace/bench_scaling.h"
#include "tests/test_util.h"

static ks_scaling_row row(const char *variant, int gpus, int weak, int n, double ms)
{
    ks_scaling_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.device, sizeof r.device, "NVIDIA H200");
    snprintf(r.cc, sizeof r.cc, "9.0");
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    r.gpus = gpus;
    r.ranks = 1;
    r.weak = weak;
    r.share[0] = r.share[1] = r.share[2] = n;
    r.grid[0] = r.grid[1] = n;
    r.grid[2] = weak ? (n - 2) * gpus + 2 : n;
    r.block[0] = 32;
    r.block[1] = 8;
    r.block[2] = 1;
    r.ms_per_iter = ms;
    r.t_eff_gbs = 8.0 * n * (double)n * r.grid[2] / (ms * 1e-3) / 1e9;
    r.halo_ms = gpus > 1 ? 0.25 : 0.0;
    r.hidden_share = gpus > 1 ? 0.97 : 0.0;
    return r;
}

static void test_derive(void **state)
{
    (void)state;
    ks_scaling_row rows[] = {row("regq", 1, 0, 1024, 3.0), row("regq", 2, 0, 1024, 1.6), row("tblock", 2, 0, 1024, 0.6),
                             row("regq", 1, 1, 512, 0.36), row("regq", 2, 1, 512, 0.37), row("tblock", 1, 0, 1024, 1.1)};
    ks_scaling_derive(rows, 6);
    assert_true(fabs(rows[0].speedup - 1.0) < 1e-12);
    assert_true(fabs(rows[1].speedup - 3.0 / 1.6) < 1e-12);
    assert_true(fabs(rows[1].efficiency - 3.0 / 3.2) < 1e-12);
    assert_true(fabs(rows[2].speedup - 1.1 / 0.6) < 1e-12); /* its own 1-GPU row, listed after it */
    /* weak: time per iteration kept means efficiency 1; the speed-up counts the GPUs */
    assert_true(fabs(rows[4].efficiency - 0.36 / 0.37) < 1e-12);
    assert_true(fabs(rows[4].speedup - 2.0 * 0.36 / 0.37) < 1e-12);
    /* no 1-GPU row: no figures */
    ks_scaling_row lone = row("vec2d", 2, 0, 16384, 0.4);
    ks_scaling_derive(&lone, 1);
    assert_true(lone.speedup == 0.0 && lone.efficiency == 0.0);
}

static void test_csv_and_table(void **state)
{
    (void)state;
    ks_scaling_row rows[] = {row("regq", 1, 0, 1024, 3.0), row("regq", 2, 0, 1024, 1.6)};
    rows[1].ranks = 2;
    ks_scaling_derive(rows, 2);
    char *csv = ks_scaling_csv(rows, 2);
    assert_non_null(csv);
    const char *header = "device,gpus,ranks,variant,grid,block,ms_per_iter,t_eff_gbs,speedup,efficiency,halo_ms,"
                         "hidden_share,cc\n";
    assert_memory_equal(csv, header, strlen(header));
    assert_non_null(strstr(csv, "\"NVIDIA H200\",2,2,regq,1024x1024x1024,32x8x1,1.600000,"));
    assert_non_null(strstr(csv, ",1.8750,0.9375,0.250000,0.9700,9.0\n"));
    assert_int_equal(ks_test_count_lines(csv), 3);
    free(csv);
    char *table = ks_scaling_table(rows, 2);
    assert_non_null(table);
    assert_non_null(strstr(table, "speedup"));
    assert_non_null(strstr(table, "97%"));
    assert_non_null(strstr(table, "1.875"));
    free(table);
}

static void test_chart(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "scaling-chart");
    ks_scaling_row rows[] = {row("regq", 1, 0, 1024, 3.0), row("regq", 2, 0, 1024, 1.6), row("tblock", 1, 0, 1024, 1.1),
                             row("tblock", 2, 0, 1024, 0.6)};
    ks_scaling_derive(rows, 4);
    assert_int_equal(ks_scaling_chart(rows, 4, "laplace3d", dir), KS_OK);
    snprintf(path, sizeof path, "%s/bench_laplace3d_scaling.png", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char sig[8] = {0};
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
    /* nothing to draw: no file, no error */
    ks_scaling_row one = row("regq", 2, 0, 1024, 1.6);
    assert_int_equal(ks_scaling_chart(&one, 1, "laplace2d", dir), KS_OK);
    snprintf(path, sizeof path, "%s/bench_laplace2d_scaling.png", dir);
    assert_null(fopen(path, "rb"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_derive), cmocka_unit_test(test_csv_and_table),
                                       cmocka_unit_test(test_chart)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
