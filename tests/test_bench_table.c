/* The bench's table and CSV writers and its best-block marking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include "app/scenes/laplace/bench.h"
#include "app/bench/bench_roofline.h"

static ks_bench_row row(const char *variant, int n, int bx, double ms)
{
    ks_bench_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.device, sizeof r.device, "NVIDIA H100 80GB HBM3");
    snprintf(r.cc, sizeof r.cc, "9.0");
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    r.grid[0] = r.grid[1] = r.grid[2] = n;
    r.block[0] = bx;
    r.block[1] = 8;
    r.block[2] = 1;
    r.ms_per_iter = ms;
    r.t_peak_gbs = 3000.0;
    r.t_eff_gbs = 2.0 * 4.0 * n * n * (double)n / (ms * 1e-3) / 1e9;
    r.ratio = r.t_eff_gbs / r.t_peak_gbs;
    r.registers = 32;
    r.occupancy = 0.75;
    /* timed cold, 20 runs; the two fields against an H100's 50 MB L2 */
    r.timing = (ks_timing){.median_ms = 4.0 * ms, .min_ms = 4.0 * ms, .se_pct = 0.3, .reps = 20, .cache = KS_CACHE_COLD,
                           .working_set_bytes = 2.0 * 4.0 * n * n * (double)n, .l2_bytes = 50e6};
    return r;
}

static void test_mark_best(void **state)
{
    (void)state;
    ks_bench_row rows[5] = {row("regq", 512, 32, 0.20), row("regq", 512, 64, 0.18),
                            row("kmarch", 512, 32, 0.50), row("regq", 256, 32, 0.03),
                            row("regq", 512, 128, 0.18)};
    ks_bench_mark_best(rows, 5);
    assert_int_equal(rows[0].best, 0);
    assert_int_equal(rows[1].best, 1); /* first of the two equal fastest */
    assert_int_equal(rows[2].best, 1);
    assert_int_equal(rows[3].best, 1);
    assert_int_equal(rows[4].best, 0);
}

static void test_csv(void **state)
{
    (void)state;
    ks_bench_row rows[2] = {row("regq", 512, 32, 0.2), row("kmarch", 512, 32, 0.5)};
    ks_bench_mark_best(rows, 2);
    char *csv = ks_bench_laplace_csv(rows, 2);
    assert_non_null(csv);
    const char *header = "device,variant,grid,block,ms_per_iter,t_eff_gbs,t_peak_gbs,ratio,";
    assert_memory_equal(csv, header, strlen(header));
    char *line2 = strchr(csv, '\n') + 1;
    assert_non_null(strstr(line2, "\"NVIDIA H100 80GB HBM3\",regq,512x512x512,32x8x1,0.200000,"));
    /* 2 x 512^3 x 4 bytes / 0.2 ms = 5368.71 GB/s; ratio vs 3000 = 1.7896 */
    /* a device copy: no spread; then the timing: cold, 20 runs, the SE, 1 GiB not in the L2 */
    assert_non_null(strstr(line2, ",5368.71,3000.00,1.7896,32,0.750,1,9.0,,cold,20,0.300,0\n"));
    assert_non_null(strstr(csv, "occupancy,best,cc,t_peak_spread,cache,reps,se_pct,in_l2\n"));
    int lines = 0;
    for (char *p = csv; *p; ++p) lines += *p == '\n';
    assert_int_equal(lines, 3);
    free(csv);
}

static void test_table(void **state)
{
    (void)state;
    ks_bench_row rows[2] = {row("regq", 512, 32, 0.2), row("regq", 512, 64, 0.3)};
    ks_bench_mark_best(rows, 2);
    char *t = ks_bench_laplace_table(rows, 2);
    assert_non_null(t);
    assert_non_null(strstr(t, "ms/iter"));
    assert_non_null(strstr(t, "T_eff GB/s"));
    char *first = strchr(t, '\n') + 1;
    char *second = strchr(first, '\n') + 1;
    assert_true(strstr(first, "<- best") && strstr(first, "<- best") < second);
    assert_null(strstr(second, "<- best"));
    assert_non_null(strstr(first, "75%"));
    assert_non_null(strstr(first, " cold    20   0.30"));
    assert_null(strstr(t, "in L2")); /* 1 GiB of fields: the ratio above 1 stands bare (an H100 row's made-up time) */
    free(t);
    /* 128^3: 16 MiB of fields fit an L2 of 50 MB, and the rate above T_peak says it is the cache's */
    ks_bench_row small = row("regq", 128, 32, 0.002);
    t = ks_bench_laplace_table(&small, 1);
    assert_non_null(t);
    assert_true(small.ratio > 1.0);
    assert_non_null(strstr(t, " in L2 "));
    free(t);
    small.timing.l2_bytes = 0.0; /* L2 unknown: nothing said */
    t = ks_bench_laplace_table(&small, 1);
    assert_null(strstr(t, "in L2"));
    free(t);
}

/* CPU gold rows: no launch, so no block, registers or occupancy ("-"); 2D grids as NXxNY. */
static void test_table_cpu_and_2d(void **state)
{
    (void)state;
    ks_bench_row r = row("gold", 64, 0, 1.5);
    r.block[0] = r.block[1] = r.block[2] = 0;
    r.registers = 0;
    r.occupancy = 0.0;
    r.grid[2] = 1;
    char *t = ks_bench_laplace_table(&r, 1);
    assert_non_null(t);
    const char *line = strchr(t, '\n') + 1;
    assert_non_null(strstr(line, "gold     64x64 "));
    assert_null(strstr(line, "64x64x1"));
    assert_null(strstr(line, " 0%"));
    assert_non_null(strstr(line, "     -      -"));
    free(t);
    char g[32];
    const int cube[3] = {512, 512, 512}, square[3] = {8192, 8192, 1}, box[3] = {64, 32, 16}, rect[3] = {64, 32, 1};
    ks_bench_grid_text(cube, g, sizeof g);
    assert_string_equal(g, "512^3");
    ks_bench_grid_text(square, g, sizeof g);
    assert_string_equal(g, "8192^2");
    ks_bench_grid_text(box, g, sizeof g);
    assert_string_equal(g, "64x32x16");
    ks_bench_grid_text(rect, g, sizeof g);
    assert_string_equal(g, "64x32");
}

/* The roofline chart: bad points left out, nothing written without points,
 * a PNG at DIR/roofline_<scene>.png otherwise (no temporary left). */
static void test_roofline_chart(void **state)
{
    (void)state;
    static ks_roof_chart c;
    memset(&c, 0, sizeof c);
    c.peak_gbs = 3000.0;
    c.peak_gflops = 50000.0;
    const char *tmp = getenv("TMPDIR");
    char dir[256], path[512];
    snprintf(dir, sizeof dir, "%s", tmp && *tmp ? tmp : "/tmp");
    assert_int_equal(ks_roof_chart_write(&c, dir, "nothing", "dev", path, sizeof path), KS_OK);
    assert_string_equal(path, "");
    ks_roof_chart_add(&c, "regq", 7e8, 8e8, 0.3);
    ks_roof_chart_add(&c, "regq", 7e9, 8e9, 2.9);
    ks_roof_chart_add(&c, "tblock", 7e8, 2e8, 0.1);
    ks_roof_chart_add(&c, "bad", -1.0, 8e8, 0.3); /* negative flops */
    ks_roof_chart_add(&c, "bad", 7e8, 8e8, -1.0); /* no time */
    ks_roof_chart_add(&c, "bad", 7e8, 0.0, 0.3);  /* no bytes */
    assert_int_equal(c.n, 3);
    assert_true(c.pts[2].flops == 7e8 && c.pts[2].bytes == 2e8 && c.pts[2].ms == 0.1);
    ks_roof_chart_add(&c, "histogram", 0.0, 1e8, 0.05); /* no flops: kept, drawn at the left edge */
    assert_int_equal(c.n, 4);
    char scene[64];
    snprintf(scene, sizeof scene, "test%d", (int)getpid());
    assert_int_equal(ks_roof_chart_write(&c, dir, scene, "NVIDIA H200", path, sizeof path), KS_OK);
    char want[512];
    snprintf(want, sizeof want, "%s/roofline_%s.png", dir, scene);
    assert_string_equal(path, want);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char sig[8] = {0};
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fseek(f, 0, SEEK_END);
    assert_true(ftell(f) > 2000);
    fclose(f);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
    remove(path);
    /* the CPU backend: no FMA ceiling, still a chart */
    c.peak_gflops = 0.0;
    assert_int_equal(ks_roof_chart_write(&c, dir, scene, "host CPU", path, sizeof path), KS_OK);
    assert_int_equal(access(path, R_OK), 0);
    remove(path);
    /* an unwritable place: an error, not a crash */
    assert_int_not_equal(ks_roof_chart_write(&c, "/nonexistent/dir", scene, "x", path, sizeof path), KS_OK);
    assert_true(ks_roof_host_copy_gbs((size_t)1 << 20) > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_cpu_and_2d),
        cmocka_unit_test(test_mark_best),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_roofline_chart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
