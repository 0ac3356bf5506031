/* The app's side of the hardware counters, without a GPU: the live Hardware
 * panel's text from a recorded measurement (tests/hw_recorded.h), its "no
 * counters" words on the CPU backend and for a scene without a kernel, and
 * bench --counters: the CSV's nine columns, empty with one line why when
 * there are no counters (the CPU backend; this build's own case: no CUDA, no
 * CUPTI, no device), and `bench SCENE --counters --backend cpu` for every
 * scene through the CLI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/bench/bench_counters.h"
#include "app/live/live_counters.h"
#include "app/options.h"
#include "counters/counters.h"
#include "hw_recorded.h"
#include "test_util.h"

static const char *const columns[] = {"dram_read_bytes",    "dram_write_bytes", "bytes_vs_model",
                                      "l2_hit",             "sectors_per_request", "bank_conflicts",
                                      "occupancy_achieved", "sm_clock_mhz",     "stall_top"};
enum { NCOLS = (int)(sizeof columns / sizeof columns[0]) };

static const ks_vhw_row *row_of(const ks_vhardware *h, const char *key)
{
    for (int i = 0; i < h->nrows; ++i)
        if (strcmp(h->rows[i].key, key) == 0) return &h->rows[i];
    fail_msg("the panel has no row %s", key);
    return NULL;
}

/* The recorded kmarch launch, as the panel shows it: every figure from the
 * values, the launch's theoretical occupancy and access widths included. */
static void test_panel_from_recorded(void **state)
{
    (void)state;
    ks_counter_set s;
    ks_scene_counters sc;
    hw_recorded(&s, &sc);
    ks_vhardware h;
    memset(&h, 0, sizeof h);
    ks_live_counters_fill(&h, &s, &sc, 312.4, 120, 3);
    assert_string_equal(row_of(&h, "dram_read")->value, "551.00");
    assert_string_equal(row_of(&h, "dram_read")->unit, "MB");
    assert_string_equal(row_of(&h, "dram_write")->value, "537.00");
    /* (551 + 537) MB against the model's 2 x 512^3 x 4 bytes */
    const ks_vhw_row *m = row_of(&h, "bytes_vs_model");
    assert_string_equal(m->value, "1.013");
    assert_true(fabs(m->number - 1088e6 / sc.model_bytes) < 1e-9);
    assert_non_null(strstr(m->hover, "dram__bytes_read.sum"));
    assert_string_equal(row_of(&h, "l2_hit")->value, "71.2"); /* 71.25 rounded to even */
    assert_string_equal(row_of(&h, "dram_peak")->value, "49.5");
    /* L1's metric absent on this recording: said, never 0 */
    const ks_vhw_row *l1 = row_of(&h, "l1_hit");
    assert_false(l1->present);
    assert_string_equal(l1->value, "absent");
    /* 4 sectors a request for 4-byte accesses: coalesced, from the launch's widths */
    const ks_vhw_row *ld = row_of(&h, "gld_sectors_per_request");
    assert_string_equal(ld->value, "4.00");
    assert_non_null(strstr(ld->words, "coalesced"));
    /* the theoretical occupancy the launch gave (75 %), the achieved against it */
    const ks_vhw_row *th = row_of(&h, "occupancy_theoretical");
    assert_true(th->present);
    assert_string_equal(th->value, "75.0");
    assert_non_null(strstr(th->hover, "cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
    const ks_vhw_row *oa = row_of(&h, "occupancy_achieved");
    assert_string_equal(oa->value, "61.5");
    assert_non_null(strstr(oa->words, "75"));
    assert_string_equal(row_of(&h, "sm_clock")->value, "1980");
    /* the top stall first, in words, with its ncu metric on hover */
    const ks_vhw_row *st = row_of(&h, "stall_1");
    assert_non_null(strstr(st->label, "waiting for data from global memory"));
    assert_string_equal(st->value, "21.00");
    assert_non_null(strstr(st->hover, "long_scoreboard"));
    assert_non_null(strstr(row_of(&h, "stall_2")->label, "LG throttle"));
    /* what was measured, the kernel, the status line */
    assert_string_equal(h.what, sc.what);
    assert_string_equal(h.kernel, "jacobi3d_kmarch_kernel");
    assert_string_equal(h.status, "measured after frame 120 in 312 ms (7 replay passes of one launch)");
    assert_int_equal(h.measurements, 3);
    assert_int_equal(h.frame, 120);
}

/* The live loop on the CPU backend: K asks, the panel says why in words, one line on stderr. */
static void test_panel_cpu_backend(void **state)
{
    (void)state;
    ks_scene_api api;
    memset(&api, 0, sizeof api);
    ks_live_counters hw;
    const ks_live_counters_desc d = {.api = &api, .use_cuda = 0};
    ks_live_counters_init(&hw, &d);
    ks_view v;
    memset(&v, 0, sizeof v);
    ks_live_counters_view(&hw, &v);
    assert_true(v.hw.on);
    assert_false(v.hw.open); /* not asked yet */
    assert_string_equal(v.hw.why, ks_counters_why_short(KS_CTRS_CPU_BACKEND));
    assert_false(ks_live_counters_due(&hw, 0.0));
    ks_live_counters_ask(&hw);
    assert_true(ks_live_counters_due(&hw, 0.0));
    ks_live_counters_measure(&hw, 5, 0.0);
    assert_int_equal(hw.noticed, 1);
    assert_non_null(strstr(hw.why, "the CPU backend runs no GPU kernels"));
    assert_null(strstr(hw.why, "hardware counters: ")); /* the panel's words, without the line's prefix */
    ks_live_counters_measure(&hw, 6, 1.0); /* again: the line went out once */
    assert_int_equal(hw.noticed, 1);
    memset(&v, 0, sizeof v);
    ks_live_counters_view(&hw, &v);
    assert_true(v.hw.open);
    assert_int_equal(v.hw.nrows, 0);
    assert_non_null(strstr(v.hw.why, "the CPU backend runs no GPU kernels"));
    ks_live_counters_destroy(&hw);
}

/* A GPU run of a scene whose api has no counters hook: the panel says so. */
static void test_panel_scene_without_kernel(void **state)
{
    (void)state;
    ks_scene_api api;
    memset(&api, 0, sizeof api);
    ks_live_counters hw;
    const ks_live_counters_desc d = {.api = &api, .use_cuda = 1};
    ks_live_counters_init(&hw, &d);
    ks_live_counters_ask(&hw);
    assert_true(ks_live_counters_due(&hw, 0.0));
    ks_live_counters_measure(&hw, 1, 0.0);
    ks_view v;
    memset(&v, 0, sizeof v);
    ks_live_counters_view(&hw, &v);
    assert_string_equal(v.hw.why, "this scene has no kernel the counters can measure");
    ks_live_counters_destroy(&hw);
}

/* --counters-every: kept under 5 % of the run, and said so. */
static void test_panel_every(void **state)
{
    (void)state;
    assert_true(fabs(ks_live_counters_interval(1.0, 0.31) - 6.2) < 1e-9);
    assert_true(fabs(ks_live_counters_interval(10.0, 0.31) - 10.0) < 1e-9);
    char buf[KS_VIEW_TEXT];
    ks_live_counters_every_text(1.0, 6.2, 0.31, buf, sizeof buf);
    assert_non_null(strstr(buf, "one measurement costs 310 ms, kept under 5 %"));
    ks_live_counters_every_text(0.0, 0.0, 0.0, buf, sizeof buf);
    assert_string_equal(buf, "");
}

/* The header's nine columns, exactly these names, in this order. */
static void test_csv_columns(void **state)
{
    (void)state;
    char want[512] = "";
    size_t used = 0;
    for (int i = 0; i < NCOLS; ++i) used += (size_t)snprintf(want + used, sizeof want - used, ",%s", columns[i]);
    assert_string_equal(ks_bench_counters_header(), want);
    assert_string_equal(ks_bench_counters_values(NULL, 0), ",,,,,,,,,");
}

/* Captures stdout around fn(arg) into buf. */
static void capture(void (*fn)(void *), void *arg, char *buf, size_t cap)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    const int saved = dup(fileno(stdout));
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), fileno(stdout)) >= 0);
    fn(arg);
    fflush(stdout);
    assert_true(dup2(saved, fileno(stdout)) >= 0);
    close(saved);
    rewind(tmp);
    const size_t n = fread(buf, 1, cap - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
}

typedef struct bench_case {
    int use_cuda;
    ks_bench_counters *bc;
    ks_status begin, row1, row2;
    int launched;
} bench_case;

static ks_status no_launch(void *user, void *stream)
{
    (void)stream;
    ++((bench_case *)user)->launched;
    return KS_OK;
}

static void bench_rows(void *arg)
{
    bench_case *c = arg;
    ks_options opt;
    memset(&opt, 0, sizeof opt);
    opt.counters = 1;
    c->begin = ks_bench_counters_begin(&opt, c->use_cuda, &c->bc);
    c->row1 = ks_bench_counters_row(c->bc, 0, "first", no_launch, c, NULL, 1e6, NULL);
    c->row2 = ks_bench_counters_row(c->bc, 1, "second", no_launch, c, NULL, 1e6, NULL);
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) ++n;
    return n;
}

/* Two rows' CSV with the columns: present, blank, and the table's line says why. */
static void check_blank(const ks_bench_counters *bc, const char *why)
{
    char *csv = ks_bench_counters_csv(bc, "a,b\n1,2\n3,4\n");
    assert_non_null(csv);
    char want[512];
    snprintf(want, sizeof want, "a,b%s\n1,2,,,,,,,,,\n3,4,,,,,,,,,\n", ks_bench_counters_header());
    assert_string_equal(csv, want);
    free(csv);
    assert_true(isnan(ks_bench_counters_dram_bytes(bc, 0)));
    char table[1024];
    ks_bench_counters_table(bc, table, sizeof table);
    assert_non_null(strstr(table, "hardware counters: none: "));
    assert_non_null(strstr(table, why));
}

/* bench --counters on the CPU backend: one line, the columns blank, nothing launched. */
static void test_bench_cpu_backend(void **state)
{
    (void)state;
    bench_case c = {.use_cuda = 0};
    char out[4096];
    capture(bench_rows, &c, out, sizeof out);
    assert_int_equal(c.begin, KS_OK);
    assert_int_equal(c.row1, KS_OK);
    assert_int_equal(c.row2, KS_OK);
    assert_int_equal(c.launched, 0);
    assert_int_equal(count(out, "\n"), 1);
    assert_non_null(strstr(out, "kernelscope: hardware counters: the CPU backend runs no GPU kernels"));
    assert_non_null(strstr(out, "the counter columns stay empty"));
    check_blank(c.bc, "the CPU backend runs no GPU kernels");
    ks_bench_counters_destroy(c.bc);
}

/* bench --counters on the CUDA backend where this build or machine has no
 * counters (no CUDA, no CUPTI, no device, no libcupti): the line is
 * ks_counters_create's own, once, for all rows. Skipped where the counters
 * work (a GPU machine with CUPTI). */
static void test_bench_no_counters_here(void **state)
{
    (void)state;
    ks_counters *probe = NULL;
    const ks_counters_desc d = {.device = -1};
    if (ks_counters_create(&d, &probe) == KS_OK) {
        ks_counters_destroy(probe);
        skip();
    }
    const ks_counters_why why = ks_counters_last_why();
    char line[512];
    snprintf(line, sizeof line, "%s", ks_error_message());
    ks_error_clear();
#if !KS_HAVE_CUPTI
    /* a build without CUPTI (no CUDA, or -DKS_CUPTI=OFF) says which */
    assert_true(why == KS_CTRS_NO_CUDA_BUILD || why == KS_CTRS_NO_CUPTI_BUILD);
    assert_non_null(strstr(line, "kernelscope was built without CU"));
#else
    assert_true(why != KS_CTRS_OK);
#endif
    bench_case c = {.use_cuda = 1};
    char out[4096];
    capture(bench_rows, &c, out, sizeof out);
    assert_int_equal(c.begin, KS_OK);
    assert_int_equal(c.row1, KS_OK);
    assert_int_equal(c.row2, KS_OK);
    assert_int_equal(count(out, "\n"), 1); /* one line, not one a row */
    char want[600];
    snprintf(want, sizeof want, "kernelscope: %s; the counter columns stay empty\n", line);
    assert_string_equal(out, want);
    check_blank(c.bc, line + strlen("hardware counters: "));
    ks_bench_counters_destroy(c.bc);
}

/* bench SCENE --counters --backend cpu for every scene: the CSV's last nine
 * columns named as above and empty on every row, one line why. */
static void test_bench_cli_every_scene(void **state)
{
    (void)state;
    static const char *const runs[][10] = {
        {"laplace3d", "--grid", "24", "--reps", "2", NULL},
        {"laplace2d", "--grid", "48", "--reps", "2", NULL},
        {"spheres", "--spheres", "16", "--size", "64x48", "--reps", "2", NULL},
        {"matmul", "--size", "32", NULL},
        {"histogram", "--size", "64K", "--reps", "1", NULL},
        {"reduce", "--size", "64K", NULL},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
        char dir[256], path[600];
        ks_test_tmpdir(dir, sizeof dir, "hwbench");
        const char *argv[20] = {NULL, "bench"};
        int n = 2;
        for (int i = 0; runs[k][i]; ++i) argv[n++] = runs[k][i];
        const char *tail[] = {"--backend", "cpu", "--counters", "--out", dir};
        for (size_t i = 0; i < sizeof tail / sizeof tail[0]; ++i) argv[n++] = tail[i];
        argv[n] = NULL;
        ks_run_result r;
        assert_int_equal(ks_test_run(argv, NULL, &r), 0);
        if (r.exit_code != 0) fail_msg("bench %s: exit %d: %s", runs[k][0], r.exit_code, r.err);
        const char *both = r.out;
        const int lines = count(both, "counter columns stay empty") + count(r.err, "counter columns stay empty");
        if (lines != 1) fail_msg("bench %s: %d lines saying why, not 1:\n%s\n%s", runs[k][0], lines, r.out, r.err);
        if (!strstr(r.out, "the CPU backend runs no GPU kernels"))
            fail_msg("bench %s: no line why:\n%s", runs[k][0], r.out);
        snprintf(path, sizeof path, "%s/bench_%s.csv", dir, runs[k][0]);
        FILE *f = fopen(path, "r");
        if (!f) fail_msg("bench %s: no %s", runs[k][0], path);
        char line[4096];
        int rows = 0;
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (rows++ == 0) {
                const size_t len = strlen(line), hl = strlen(ks_bench_counters_header());
                if (len < hl || strcmp(line + len - hl, ks_bench_counters_header()) != 0)
                    fail_msg("bench %s: header %s", runs[k][0], line);
            } else {
                const size_t len = strlen(line);
                if (len < NCOLS || strcmp(line + len - NCOLS, ",,,,,,,,,") != 0)
                    fail_msg("bench %s: row %s", runs[k][0], line);
            }
        }
        fclose(f);
        if (rows < 2) fail_msg("bench %s: %d lines in %s", runs[k][0], rows, path);
        snprintf(path, sizeof path, "%s/counters_%s.csv", dir, runs[k][0]);
        assert_null(fopen(path, "r")); /* nothing measured: no counters_<scene>.csv */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_panel_from_recorded),   cmocka_unit_test(test_panel_cpu_backend),
        cmocka_unit_test(test_panel_scene_without_kernel), cmocka_unit_test(test_panel_every),
        cmocka_unit_test(test_csv_columns),           cmocka_unit_test(test_bench_cpu_backend),
        cmocka_unit_test(test_bench_no_counters_here), cmocka_unit_test(test_bench_cli_every_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
