/* The reduce scene through the binary on the CPU backend: the live view saves
 * its picture, bench reduce writes its CSV with exactly the documented columns
 * and a chart, and bad input is one line and exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_util.h"

static void test_live_picture(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "reduce-live");
    const char *argv[] = {NULL, "reduce", "--backend", "cpu", "--size", "100003", "--kernel", "scan_blocks",
                          "--frames", "3", "--save-every", "3", "--out", dir, NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "reduce_timings.csv", &r);
    assert_non_null(strstr(csv, "reduce")); /* the scene's own stage is timed */
    free(csv);
    char png[400];
    snprintf(png, sizeof png, "%s/reduce_000003.png", dir);
    assert_int_equal(access(png, R_OK), 0);
    /* the summary names what ran: on the CPU backend the op of the kernel asked for */
    assert_true(strstr(r.out, "cpu_scan of 100003 values") || strstr(r.err, "cpu_scan of 100003 values"));
}

static void test_bench_csv(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "reduce-bench");
    const char *argv[] = {NULL, "bench", "reduce", "--backend", "cpu", "--size", "64K,100003", "--out", dir, NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "bench_reduce.csv", &r);
    const char *header = "device,op,variant,n,ms,t_eff_gbs,t_peak_gbs,ratio,vs_cub,cc,min_ms,launches,cache,reps,se_pct,in_l2\n";
    assert_int_equal(strncmp(csv, header, strlen(header)), 0);
    assert_int_equal(ks_test_count_lines(csv), 5); /* sum and scan at each of the two sizes */
    assert_non_null(strstr(csv, ",sum,cpu,65536,"));
    assert_non_null(strstr(csv, ",scan,cpu,100003,"));
    /* the CPU has no device copy and no CUB: t_peak_gbs, ratio and vs_cub empty, and the table says
     * n/a where it used to print -1.000 and 0.0 (issue 34 item 12) */
    for (const char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        const char *end = strchr(line, '\n');
        if (!end || !strstr(line, ",,,,-,") || strstr(line, ",,,,-,") > end) fail_msg("CSV row %.*s", (int)(end ? end - line : 40), line);
        if (!strstr(line, ",1,warm,") || strstr(line, ",1,warm,") > end) /* one run a sample; no flush on the CPU */
            fail_msg("CSV row's timing %.*s", (int)(end ? end - line : 40), line);
    }
    if (strstr(r.out, "-1.000") || !strstr(r.out, "n/a     n/a     n/a")) fail_msg("table: %s", r.out);
    free(csv);
    char png[400];
    snprintf(png, sizeof png, "%s/bench_reduce.png", dir);
    assert_int_equal(access(png, R_OK), 0);
}

/* Bad input: one line on stderr, exit 2, before any work. */
static void refused(const char *const *args, const char *needle)
{
    const char *argv[16] = {NULL};
    int n = 1;
    for (; args[n - 1] && n < 15; ++n) argv[n] = args[n - 1];
    argv[n] = NULL;
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 2 || !strstr(r.err, needle) || ks_test_count_lines(r.err) != 1)
        fail_msg("%s: exit %d, stderr '%s' (want exit 2, one line with '%s')", args[0], r.exit_code, r.err, needle);
}

static void test_bad_input(void **state)
{
    (void)state;
    refused((const char *const[]){"reduce", "--size", "0", NULL}, "not an element count");
    refused((const char *const[]){"reduce", "--size", "3G", NULL}, "not an element count");
    refused((const char *const[]){"reduce", "--kernel", "sum_fast", NULL}, "unknown reduce kernel 'sum_fast'");
    refused((const char *const[]){"reduce", "--block", "100x1", NULL}, "a power of two in 32..1024");
    refused((const char *const[]){"reduce", "--block", "64x2", NULL}, "reduce blocks are B threads");
    refused((const char *const[]){"reduce", "--values", "ints", NULL}, "unknown values 'ints'");
    refused((const char *const[]){"reduce", "--grid", "64", NULL}, "--grid does not apply to the reduce view");
    refused((const char *const[]){"bench", "reduce", "--window", NULL}, "--window does not apply to bench reduce");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_picture),
        cmocka_unit_test(test_bench_csv),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
