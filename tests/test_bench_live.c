/* `kernelscope bench live`: its derived columns and writers on made-up stats,
 * a short real run on the CPU backend (headless) whose CSV is checked column
 * by column, and its bad input (exit 2, one line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>

#include "app/bench/bench_live.h"
#include "test_util.h"

static const char ks_header[] = "device,scene,variant,grid,block,path,mode,iters_per_frame,live_ms_per_iter,"
                                "bench_ms_per_iter,ratio,frame_ms,solver_share,map_unmap_ms,fps,cc,sizing\n";

static void add_stage(ks_live_stats *s, const char *name, double ms)
{
    ks_live_stage_median *m = &s->stages[s->nstages++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->median_ms = ms;
    m->samples = 64;
}

static ks_live_row laplace_row(void)
{
    ks_live_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.device, sizeof r.device, "GPU \"X\", rev 2");
    snprintf(r.cc, sizeof r.cc, "9.0");
    snprintf(r.scene, sizeof r.scene, "laplace3d");
    snprintf(r.variant, sizeof r.variant, "regq");
    snprintf(r.grid, sizeof r.grid, "512x512x512");
    snprintf(r.block, sizeof r.block, "32x8x1");
    snprintf(r.mode, sizeof r.mode, "headless");
    r.bench_ms_per_iter = 0.25;
    return r;
}

static void test_fill_from_stats(void **state)
{
    (void)state;
    ks_live_stats s;
    memset(&s, 0, sizeof s);
    s.interval_ms = 6.0;
    s.fps = 1000.0 / 6.0;
    s.iters_per_frame = 20;
    snprintf(s.path, sizeof s.path, "pbo");
    add_stage(&s, "frame", 5.9);
    add_stage(&s, "interop map", 0.25);
    add_stage(&s, "interop unmap", 0.05);
    add_stage(&s, "jacobi", 5.4);
    add_stage(&s, "residual", 0.3);
    ks_live_row r = laplace_row();
    ks_bench_live_fill(&r, &s);
    assert_string_equal(r.path, "pbo");
    assert_true(r.live_ms_per_iter == 6.0 / 20.0);
    assert_true(r.ratio == (6.0 / 20.0) / 0.25);
    assert_true(r.frame_ms == 6.0);
    assert_true(r.solver_share == 5.4 / 6.0);
    assert_true(r.map_unmap_ms == 0.25 + 0.05);
    assert_int_equal(r.nstages, 5);
    /* the table's stage line names the frame stage as the panels do ("frame work", issue 23
     * item 9); the stages CSV keeps the stage's own name for programs that read it */
    char *table = ks_bench_live_table(&r, 1);
    assert_non_null(table);
    const char *line = strstr(table, "stages (median ms): ");
    assert_non_null(line);
    const char want[] = "stages (median ms): frame work 5.900, interop map 0.250,";
    if (strncmp(line, want, strlen(want)) != 0) fail_msg("table line '%.80s', expected '%s'", line, want);
    free(table);
    char *stages = ks_bench_live_stages_csv(&r, 1);
    assert_non_null(stages);
    assert_non_null(strstr(stages, ",\"frame\",5.9"));
    assert_null(strstr(stages, "frame work"));
    free(stages);
    /* spheres: the render stage is the solver; the CPU backend's host upload stage */
    memset(&s, 0, sizeof s);
    s.interval_ms = 2.0;
    s.iters_per_frame = 1;
    add_stage(&s, "host upload", 0.3);
    add_stage(&s, "render", 1.5);
    add_stage(&s, "jacobi", 99.0); /* not a spheres stage */
    snprintf(r.scene, sizeof r.scene, "spheres");
    ks_bench_live_fill(&r, &s);
    assert_true(r.solver_share == 1.5 / 2.0);
    assert_true(r.map_unmap_ms == 0.3);
    assert_true(r.live_ms_per_iter == 2.0);
    assert_true(ks_live_stats_stage(&s, "upload") < 0.0);
}

static void test_csv_columns_and_quoting(void **state)
{
    (void)state;
    ks_live_row rows[2] = {laplace_row(), laplace_row()};
    snprintf(rows[1].mode, sizeof rows[1].mode, "window");
    rows[1].cc[0] = '\0';
    char *csv = ks_bench_live_csv(rows, 2);
    assert_non_null(csv);
    assert_memory_equal(csv, ks_header, strlen(ks_header));
    const char *line = csv + strlen(ks_header);
    assert_memory_equal(line, "\"GPU \"\"X\"\", rev 2\",laplace3d,regq,512x512x512,32x8x1,", 50);
    const char *second = strchr(line, '\n') + 1;
    assert_non_null(strstr(second, ",window,"));
    /* no compute capability: "-"; no sizing given: "-" (the last column) */
    assert_memory_equal(second + strlen(second) - 5, ",-,-\n", 5);
    free(csv);
    char *stages = ks_bench_live_stages_csv(rows, 2); /* no stages: the header alone */
    assert_string_equal(stages, "device,scene,variant,grid,block,path,mode,stage,median_ms,samples,cc,sizing\n");
    free(stages);
    char *table = ks_bench_live_table(rows, 2);
    assert_non_null(strstr(table, "live ms/it"));
    free(table);
    /* the sizing of each row, last in the CSV and the table: the 60 fps row and the fastest */
    snprintf(rows[0].sizing, sizeof rows[0].sizing, "fps60");
    snprintf(rows[1].sizing, sizeof rows[1].sizing, "fastest");
    csv = ks_bench_live_csv(rows, 2);
    line = csv + strlen(ks_header);
    second = strchr(line, '\n') + 1;
    assert_memory_equal(second - 11, ",9.0,fps60\n", 11);
    assert_memory_equal(second + strlen(second) - 11, ",-,fastest\n", 11);
    free(csv);
    table = ks_bench_live_table(rows, 2);
    assert_non_null(strstr(table, "sizing"));
    assert_non_null(strstr(table, "fps60"));
    assert_non_null(strstr(table, "fastest"));
    free(table);
}

static int count_fields(const char *line, size_t len)
{
    int fields = 1, quoted = 0;
    for (size_t i = 0; i < len; ++i) {
        if (line[i] == '"') quoted = !quoted;
        else if (line[i] == ',' && !quoted) ++fields;
    }
    return fields;
}

static void test_cpu_run_headless(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "benchlive");
    const char *argv[] = {NULL,      "bench",  "live",    "--backend", "cpu", "--modes", "headless", "--frames", "3",
                          "--grid",  "16x16x16,24x20", "--spheres", "8",  "--size", "64x48", "--reps", "2",
                          "--out",   dir,      NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "bench_live.csv", &r);
    assert_memory_equal(csv, ks_header, strlen(ks_header));
    /* exactly one row per scene: the CPU backend runs the gold routine, at the live view's own
     * iterations a frame (64 in 3D, 256 in 2D) */
    const char *want[] = {"\"host CPU\",laplace3d,gold,16x16x16,-,cpu,headless,64,",
                          "\"host CPU\",laplace2d,gold,24x20,-,cpu,headless,256,",
                          "\"host CPU\",spheres,gold,64x48/8,-,cpu,headless,1,"};
    const char *line = csv + strlen(ks_header);
    int rows = 0;
    while (*line) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        if (rows < 3 && strncmp(line, want[rows], strlen(want[rows])) != 0)
            fail_msg("row %d is '%.*s', expected it to start '%s'", rows, (int)(end - line), line, want[rows]);
        assert_int_equal(count_fields(line, (size_t)(end - line)), 17);
        /* cc "-"; the CPU backend's fixed 2 iterations, and spheres without a count */
        if (rows < 2) assert_memory_equal(end - 8, ",-,fixed", 8);
        else assert_memory_equal(end - 4, ",-,-", 4);
        ++rows;
        line = end + 1;
    }
    assert_int_equal(rows, 3);
    free(csv);
    snprintf(path, sizeof path, "%s/bench_live_stages.csv", dir);
    char *stages = ks_test_read_file(path);
    assert_non_null(stages);
    assert_non_null(strstr(stages, "laplace3d,gold,16x16x16,-,cpu,headless,\"jacobi\","));
    assert_non_null(strstr(stages, "spheres,gold,64x48/8,-,cpu,headless,\"render\","));
    /* the medians cover the 3 timed frames, not the warm-up before them */
    for (const char *l = strchr(stages, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n');
        const char *j = strstr(l, "\"jacobi\""), *rd = strstr(l, "\"render\"");
        if ((j && j < end) || (rd && rd < end))
            if (!strstr(l, ",3,-,") || strstr(l, ",3,-,") > end) fail_msg("not 3 samples: %.*s", (int)(end - l), l);
    }
    free(stages);
    snprintf(path, sizeof path, "%s/bench_live_headless.png", dir);
    char *png = ks_test_read_file(path);
    assert_non_null(png);
    assert_memory_equal(png, "\x89PNG", 4);
    free(png);
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp-")) fail_msg("temporary file left: %s", e->d_name);
    closedir(d);
    assert_non_null(strstr(r.out, "live ms/it"));
}

/* --iters K fixes every Laplace row's count, on whichever backend runs (on
 * CUDA the default would be --iters auto; 8: a whole number of tblock's time
 * blocks) */
static void test_fixed_iters(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "benchlive-iters");
    const char *argv[] = {NULL,     "bench",   "live",  "--modes", "headless", "--frames", "2",
                          "--iters", "8",      "--grid", "16x16x16,24x20",      "--spheres", "8",
                          "--size", "64x48",   "--reps", "2",      "--out",    dir,        NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "bench_live.csv", &r);
    int laplace_rows = 0;
    for (const char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n');
        if (!strstr(l, ",laplace") || strstr(l, ",laplace") > end) continue;
        const char *f = l; /* field 8: iters_per_frame (the device name has no comma here) */
        for (int k = 0; k < 7; ++k) f = strchr(f, ',') + 1;
        if (strncmp(f, "8,", 2) != 0) fail_msg("a Laplace row without 8 iterations a frame: %.*s", (int)(end - l), l);
        ++laplace_rows;
    }
    assert_true(laplace_rows >= 2);
    free(csv);
}

/* --iters auto: each Laplace configuration runs at the frame-rate target and
 * at the fastest sizing (the sizing column); --fps-target 0 the fastest alone */
static void test_auto_sizings(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "benchlive-sizing");
    const char *argv[] = {NULL,          "bench",       "live",   "--backend", "cpu",   "--modes", "headless",
                          "--frames",    "2",           "--iters", "auto",     "--fps-target", "30",
                          "--grid",      "16x16x16",    "--spheres", "8",      "--size", "64x48", "--reps", "2",
                          "--out",       dir,           NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "bench_live.csv", &r);
    const char *want[] = {"laplace3d,gold,16x16x16,-,cpu,headless,", ",fps30\n",
                          "laplace3d,gold,16x16x16,-,cpu,headless,", ",fastest\n",
                          "spheres,gold,64x48/8,-,cpu,headless,", ",-\n"};
    int rows = 0;
    for (const char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1, ++rows) {
        const char *end = strchr(l, '\n');
        if (rows >= 3) fail_msg("more than 3 rows: %.*s", (int)(end - l), l);
        const char *head = want[2 * rows], *tail = want[2 * rows + 1];
        const char *at = strstr(l, head);
        if (!at || at > end || memcmp(end + 1 - strlen(tail), tail, strlen(tail)) != 0)
            fail_msg("row %d is '%.*s', expected '%s' ... '%s'", rows, (int)(end - l), l, head, tail);
    }
    assert_int_equal(rows, 3);
    free(csv);
    assert_non_null(strstr(r.out, "fps30"));
}

static void expect_usage(const char *needle, const char *const *argv)
{
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 2) fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    if (ks_test_count_lines(r.err) != 1) fail_msg("stderr is not one line: %s", r.err);
    if (!strstr(r.err, needle)) fail_msg("stderr '%s' lacks '%s'", r.err, needle);
}

#define USAGE(needle, ...)                                                                         \
    do {                                                                                           \
        const char *argv_[] = {NULL, __VA_ARGS__, NULL};                                          \
        expect_usage(needle, argv_);                                                               \
    } while (0)

static void test_bad_input_exit_2(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "benchlive-bad");
    USAGE("unknown mode 'vr'", "bench", "live", "--backend", "cpu", "--modes", "headless,vr", "--out", dir);
    USAGE("given twice", "bench", "live", "--backend", "cpu", "--modes", "headless,headless", "--out", dir);
    USAGE("--modes window: no display", "bench", "live", "--backend", "cpu", "--modes", "window", "--out", dir);
    USAGE("not a grid size", "bench", "live", "--backend", "cpu", "--grid", "16,0", "--out", dir);
    USAGE("is not WxH", "bench", "live", "--backend", "cpu", "--size", "64", "--out", dir);
    USAGE("unknown kernel 'warp9'", "bench", "live", "--backend", "cpu", "--kernel", "warp9", "--out", dir);
    USAGE("--block does not apply to bench live", "bench", "live", "--backend", "cpu", "--block", "32x8", "--out", dir);
    USAGE("--modes does not apply", "bench", "laplace3d", "--backend", "cpu", "--modes", "headless", "--out", dir);
    USAGE("run kernelscope bench live", "live", "--backend", "cpu");
    /* --help names it (scripts look for "bench live" there) and lists no live view called "live" */
    const char *help[] = {NULL, "--help", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(help, NULL, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "kernelscope bench live ("));
    /* the views in the usage line: every scene with a view, and not "live" */
    const char *usage = strstr(r.out, "usage: kernelscope [laplace3d|laplace2d|spheres|matmul|histogram");
    assert_non_null(usage);
    const char *end = strchr(usage, ']');
    assert_non_null(end);
    const char *live = strstr(usage, "|live");
    assert_true(live == NULL || live > end);
    /* nothing was measured, so nothing written */
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) files += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 0);
}

/* Under a display (ctest runs it in Xvfb): both modes, a row each. */
static void test_cpu_run_window(void **state)
{
    (void)state;
    const char *display = getenv("DISPLAY");
    if (!display || !*display) skip();
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "benchlive-window");
    const char *argv[] = {NULL, "bench", "live", "--backend", "cpu", "--frames", "2", "--grid", "12x12x12",
                          "--kernel", "regq", "--spheres", "4", "--size", "160x120", "--reps", "2", "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("bench live: exit %d: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "modes: headless window"));
    snprintf(path, sizeof path, "%s/bench_live.csv", dir);
    char *csv = ks_test_read_file(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "laplace3d,gold,12x12x12,-,cpu,headless,"));
    assert_non_null(strstr(csv, "laplace3d,gold,12x12x12,-,cpu,window,"));
    assert_non_null(strstr(csv, "spheres,gold,160x120/4,-,cpu,window,"));
    assert_int_equal(ks_test_count_lines(csv), 1 + 4); /* no 2D grid given: laplace2d has no row */
    free(csv);
    snprintf(path, sizeof path, "%s/bench_live_window.png", dir);
    char *png = ks_test_read_file(path);
    assert_non_null(png);
    assert_memory_equal(png, "\x89PNG", 4);
    free(png);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "window") == 0) {
        const struct CMUnitTest window[] = {cmocka_unit_test(test_cpu_run_window)};
        return cmocka_run_group_tests(window, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_from_stats),
        cmocka_unit_test(test_csv_columns_and_quoting),
        cmocka_unit_test(test_cpu_run_headless),
        cmocka_unit_test(test_fixed_iters),
        cmocka_unit_test(test_auto_sizings),
        cmocka_unit_test(test_bad_input_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
