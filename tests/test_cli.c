/* The kernelscope binary on bad input: exit status 2 and exactly one line on
 * stderr, nothing left behind. Also --help/--version and the no-GPU paths. */
#include <setjmp.h>
#include <stdlib.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

static void expect_usage_error(const char *needle, const char *const *argv)
{
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 2) fail_msg("exit %d for %s %s; stderr: %s", r.exit_code, argv[1], argv[2] ? argv[2] : "", r.err);
    if (ks_test_count_lines(r.err) != 1) fail_msg("stderr is not one line: %s", r.err);
    if (!strstr(r.err, needle)) fail_msg("stderr '%s' lacks '%s'", r.err, needle);
    assert_non_null(strstr(r.err, "kernelscope: error: "));
}

#define USAGE(needle, ...)                                                                         \
    do {                                                                                           \
        const char *argv_[] = {NULL, __VA_ARGS__, NULL};                                          \
        expect_usage_error(needle, argv_);                                                         \
    } while (0)

static void test_bad_flags_exit_2(void **state)
{
    (void)state;
    USAGE("unknown option", "--nope");
    USAGE("not a grid size", "--grid", "0");
    USAGE("not a grid size", "--grid", "-4");
    USAGE("far too large", "--grid", "60000x60000x60000");
    USAGE("unknown boundary", "--bc", "x");
    USAGE("unknown laplace3d kernel", "--kernel", "fast");
    USAGE("not a block size", "--block", "4096x4096");
    USAGE("unknown backend", "--backend", "metal");
    USAGE("unknown colormap", "--colormap", "rainbow");
    USAGE("LO must be below HI", "--range", "3:3");
    USAGE("not WxH", "--size", "1x1");
    USAGE("unknown image format", "--format", "gif");
    USAGE("needs a value", "--out");
}

static void test_unwritable_out_exit_2(void **state)
{
    (void)state;
    /* Under a regular file: not creatable even for root. */
    USAGE("--out", "laplace2d", "--backend", "cpu", "--headless", "--frames", "1", "--save-every",
          "1", "--out", "/etc/hostname/frames");
}

static void test_block_rank_mismatch_exit_2(void **state)
{
    (void)state;
    USAGE("2-part block", "laplace3d", "--backend", "cpu", "--headless", "--frames", "1",
          "--kernel", "kmarch", "--block", "8x8x8");
}

static void test_grid_too_large_for_host_exit_2(void **state)
{
    (void)state;
    USAGE("GiB of host memory", "--backend", "cpu", "--headless", "--frames", "1", "--grid",
          "4000x4000x4000");
}

static void test_cuda_backend_without_device(void **state)
{
    (void)state;
    if (ks_test_have_cuda()) skip();
    USAGE("--backend cuda", "--backend", "cuda", "--headless", "--frames", "1");
}

static void test_window_without_display(void **state)
{
    (void)state;
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--window", "--frames", "1", NULL};
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "no display"));
    assert_int_equal(ks_test_count_lines(r.err), 1);
}


static int file_starts_with(const char *path, const char *prefix)
{
    char buf[256] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return n >= strlen(prefix) && memcmp(buf, prefix, strlen(prefix)) == 0;
}

static void test_bench_cpu_backend(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "bench");
    ks_run_result r;
    const char *lap[] = {NULL, "bench", "laplace2d", "--backend", "cpu", "--grid", "64,96",
                         "--reps", "3", "--out", dir, NULL};
    assert_int_equal(ks_test_run(lap, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("bench laplace2d: exit %d: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "host CPU"));
    assert_non_null(strstr(r.out, "96x96 ")); /* a 2D grid, not 96x96x1 */
    assert_null(strstr(r.out, "96x96x1"));
    snprintf(path, sizeof path, "%s/bench_laplace2d.csv", dir);
    assert_true(file_starts_with(path, "device,variant,grid,block,ms_per_iter,t_eff_gbs,t_peak_gbs,ratio"));
    snprintf(path, sizeof path, "%s/bench_laplace2d.png", dir);
    assert_true(file_starts_with(path, "\x89PNG"));
    snprintf(path, sizeof path, "%s/roofline_laplace2d.png", dir);
    assert_true(file_starts_with(path, "\x89PNG"));
    const char *sph[] = {NULL, "bench", "spheres", "--backend", "cpu", "--spheres", "16,32",
                         "--size", "96x64", "--reps", "2", "--out", dir, NULL};
    assert_int_equal(ks_test_run(sph, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("bench spheres: exit %d: %s", r.exit_code, r.err);
    DIR *d = opendir(dir);
    int csv = 0, png = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strstr(e->d_name, "spheres") && strstr(e->d_name, ".csv")) ++csv;
        if (strstr(e->d_name, "spheres") && strstr(e->d_name, ".png")) ++png;
        if (strstr(e->d_name, ".tmp-")) fail_msg("temporary file left: %s", e->d_name);
    }
    closedir(d);
    assert_int_equal(csv, 1);
    assert_int_equal(png, 2); /* bench_spheres.png and roofline_spheres.png */
    snprintf(path, sizeof path, "%s/roofline_spheres.png", dir);
    assert_true(file_starts_with(path, "\x89PNG"));
}

/* The last line of a file (without its newline) into buf. */
static int last_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char line[4096];
    buf[0] = '\0';
    while (fgets(line, sizeof line, f)) snprintf(buf, cap, "%s", line);
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Every bench's CSV ends with the timing's columns (cache, reps, se_pct, in_l2), every row
 * filled: on the CPU, with --cache cold asked, the rows say warm (no L2 to flush, and a
 * notice says so) and hold the --reps count. */
static void test_bench_timing_columns(void **state)
{
    (void)state;
    static const struct {
        const char *scene, *size_flag, *size;
    } runs[] = {
        {"laplace3d", "--grid", "24"},     {"laplace2d", "--grid", "48"},  {"spheres", "--spheres", "16"},
        {"matmul", "--size", "48"},        {"histogram", "--size", "16K"}, {"reduce", "--size", "16K"},
    };
    char dir[256], path[512], line[4096];
    ks_test_tmpdir(dir, sizeof dir, "bench-timing");
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        const char *argv[] = {NULL, "bench", runs[i].scene, "--backend", "cpu", runs[i].size_flag, runs[i].size,
                              "--reps", "3", "--cache", "cold", "--out", dir, NULL};
        ks_run_result r;
        assert_int_equal(ks_test_run(argv, NULL, &r), 0);
        if (r.exit_code != 0) fail_msg("bench %s: exit %d: %s", runs[i].scene, r.exit_code, r.err);
        if (!strstr(r.err, "--cache has no effect on the cpu backend"))
            fail_msg("bench %s: no notice for --cache on the CPU: %s", runs[i].scene, r.err);
        snprintf(path, sizeof path, "%s/bench_%s.csv", dir, runs[i].scene);
        FILE *f = fopen(path, "rb");
        if (!f) fail_msg("no %s", path);
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        const size_t hl = strlen(line), tl = strlen(",cache,reps,se_pct,in_l2");
        if (hl < tl || strcmp(line + hl - tl, ",cache,reps,se_pct,in_l2") != 0)
            fail_msg("bench %s: header '%s' does not end with the timing's columns", runs[i].scene, line);
        assert_int_equal(last_line(path, line, sizeof line), 0);
        /* ...,warm,3,<se>,0: the SE of 3 samples is their range / 3.92, a number */
        const char *w = strstr(line, ",warm,3,");
        if (!w) fail_msg("bench %s: last row '%s' lacks warm,3", runs[i].scene, line);
        char *end = NULL;
        const double se = strtod(w + strlen(",warm,3,"), &end);
        if (end == w + strlen(",warm,3,") || se < 0.0 || strcmp(end, ",0") != 0)
            fail_msg("bench %s: last row '%s' has no se_pct and in_l2 0", runs[i].scene, line);
    }
}

static void test_bench_bad_values_exit_2(void **state)
{
    (void)state;
    USAGE("unknown laplace3d kernel", "bench", "laplace3d", "--backend", "cpu", "--kernel", "warp9");
    USAGE("not a grid size", "bench", "laplace2d", "--backend", "cpu", "--grid", "64,0");
    USAGE("--out", "bench", "laplace2d", "--backend", "cpu", "--grid", "64", "--out", "/etc/hostname/x");
    USAGE("not a sphere count", "bench", "spheres", "--backend", "cpu", "--spheres", "16,-2");
}

static void test_help_version(void **state)
{
    (void)state;
    ks_run_result r;
    const char *help[] = {NULL, "--help", NULL};
    assert_int_equal(ks_test_run(help, NULL, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "--grid N | NXxNY[xNZ]"));
    assert_non_null(strstr(r.out, "--dump-field"));
    const char *version[] = {NULL, "--version", NULL};
    assert_int_equal(ks_test_run(version, NULL, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "kernelscope "));
}

static void test_no_gpu_notice_and_cpu_fallback(void **state)
{
    (void)state;
    if (ks_test_have_cuda()) skip();
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "cli");
    const char *argv[] = {NULL, "laplace2d", "--headless", "--grid", "33", "--frames", "2", "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code == 77) skip();
    if (strstr(r.err, "EGL")) skip(); /* no EGL display on this machine: covered elsewhere */
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "using the cpu backend"));
}

/* The CPU backend says how it runs its OpenMP regions as the run starts (stdout),
 * and follows a wait policy the user set. */
static void test_cpu_policy_line(void **state)
{
    (void)state;
    const char *argv[] = {NULL, "bench", "laplace2d", "--backend", "cpu", "--grid", "64", "--reps", "2", "--out", NULL, NULL};
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "cpupolicy");
    argv[10] = dir;
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    const char *line = strstr(r.out, "kernelscope: cpu backend: ");
    if (!line || !strstr(line, "OpenMP thread") || !strstr(line, "passive waiting"))
        fail_msg("no start-up line with the threads and passive waiting: %s", r.out);
    const char *env[] = {"OMP_WAIT_POLICY=active", NULL};
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "waiting as OMP_WAIT_POLICY=active says"));
}

/* laplace2d on the CPU: the residual comes often enough to fill the
 * Convergence panel within seconds (each progress line's residual is of an
 * iteration at most a few hundred ms of frames old), and after Ctrl-C the
 * summary has the residual of the final field: that of a run of exactly as
 * many frames, whose last frame always computes it. */
static void test_cpu_residual_fresh_and_final(void **state)
{
    (void)state;
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--grid", "64", "--iters", "2",
                          "--frames", "1000000", "--progress", NULL};
    argv[0] = ks_test_binary();
    ks_test_proc *p = malloc(sizeof *p);
    assert_non_null(p);
    ks_test_start(p, argv);
    for (int line = 0; line < 3; ++line) {
        if (ks_test_wait_for(p, 2, "kernelscope: frame ", KS_TEST_NO_DEADLINE) != 1) {
            kill(p->pid, SIGKILL);
            fail_msg("no progress line: %s", p->text[1]);
        }
        long long frame = 0, n = 0, at = -1;
        double res = 0, fps = 0;
        const char *l = p->text[1] + p->seen[1];
        if (sscanf(l, "%lld/%*d %lld iterations, residual %lf", &frame, &n, &res) != 3) {
            if (strstr(l, "EGL")) {
                kill(p->pid, SIGKILL);
                skip();
            }
            fail_msg("progress line without a residual: %.200s", l);
        }
        const char *a = strstr(l, " at iteration ");
        const char *eol = strchr(l, '\n');
        if (a && (!eol || a < eol)) sscanf(a, " at iteration %lld", &at);
        else at = n;
        const char *f = strstr(l, " fps");
        for (const char *q = f; q && q > l && (q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9')); --q) fps = atof(q - 1);
        /* two iterations a frame; a residual at least every 250 ms of frames (twice that, and 4 frames, of slack) */
        const double most = 2.0 * (fps * 0.5 + 4.0);
        if ((double)(n - at) > most) fail_msg("residual of iteration %lld at iteration %lld (%.1f fps): %.200s", at, n, fps, l);
    }
    kill(p->pid, SIGINT);
    const int code = ks_test_finish(p, KS_TEST_NO_DEADLINE);
    if (code != 130) fail_msg("exit %d after SIGINT: %s", code, p->text[1]);
    long long frames = 0, iters = 0;
    char res[32] = "";
    const char *sum = strstr(p->text[0], "kernelscope: laplace2d: ");
    if (!sum || sscanf(sum, "kernelscope: laplace2d: %lld frames, %lld iterations, residual %31[^;]", &frames, &iters, res) != 3)
        fail_msg("no summary with a residual: %s", p->text[0]);
    assert_int_equal(iters, 2 * frames);

    char count[32];
    snprintf(count, sizeof count, "%lld", frames);
    const char *again[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--grid", "64", "--iters", "2",
                           "--frames", count, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(again, NULL, &r), 0);
    assert_int_equal(r.exit_code, 0);
    char want[96];
    snprintf(want, sizeof want, "%lld iterations, residual %s;", iters, res);
    if (!strstr(r.out, want)) fail_msg("stopped run's summary '%s' is not the final field's: %s", want, r.out);
    free(p);
}

/* Issue 23 item 6: the CPU backend's defaults (no --grid, no --iters) show the
 * heat moving at once: after 20 frames the middle of the field (row NY/2 in
 * 2D, plane NZ/2 in 3D; the hot edge is the last) holds a visible share of
 * the heat. The old defaults (256^2 and 64^3 at 2 a frame) left it at 0. */
static void test_cpu_defaults_fill(void **state)
{
    (void)state;
    const struct {
        const char *scene;
        int n, dims;
    } cases[] = {{"laplace2d", 128, 2}, {"laplace3d", 48, 3}};
    for (int c = 0; c < 2; ++c) {
        char dir[256], npy[512];
        ks_test_tmpdir(dir, sizeof dir, "cpu_defaults");
        snprintf(npy, sizeof npy, "%s/u.npy", dir);
        const char *argv[] = {NULL, cases[c].scene, "--backend", "cpu", "--headless", "--frames", "20",
                              "--dump-field", npy, "--out", dir, NULL};
        ks_run_result r;
        assert_int_equal(ks_test_run(argv, NULL, &r), 0);
        if (r.exit_code != 0) fail_msg("%s: exit %d: %s", cases[c].scene, r.exit_code, r.err);
        const int n = cases[c].n;
        const size_t plane = (size_t)n * n, points = cases[c].dims == 3 ? plane * n : plane;
        FILE *f = fopen(npy, "rb");
        assert_non_null(f);
        float *u = malloc(points * sizeof *u);
        assert_non_null(u);
        assert_int_equal(fseek(f, 128, SEEK_SET), 0); /* the 128-byte .npy header */
        if (fread(u, sizeof *u, points, f) != points) fail_msg("%s: not a %d-point field (the default grid)", cases[c].scene, n);
        assert_int_equal(fgetc(f), EOF);
        fclose(f);
        const size_t stride = cases[c].dims == 3 ? plane : (size_t)n, count = cases[c].dims == 3 ? plane : (size_t)n;
        double mid = 0.0;
        for (size_t k = 0; k < count; ++k) mid += u[(size_t)(n / 2) * stride + k];
        mid /= (double)count;
        if (!(mid > 0.03)) fail_msg("%s: mean %.4f half way from the hot edge after 20 frames", cases[c].scene, mid);
        free(u);
        const char *iters = strstr(r.out, " iterations");
        assert_non_null(iters); /* 20 frames at the default count: 5120 (2D: 256 a frame), 1280 (3D: 64) */
        const char *want = cases[c].dims == 3 ? "20 frames, 1280 iterations" : "20 frames, 5120 iterations";
        if (!strstr(r.out, want)) fail_msg("%s: no '%s' in %s", cases[c].scene, want, r.out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_flags_exit_2),
        cmocka_unit_test(test_unwritable_out_exit_2),
        cmocka_unit_test(test_block_rank_mismatch_exit_2),
        cmocka_unit_test(test_grid_too_large_for_host_exit_2),
        cmocka_unit_test(test_cuda_backend_without_device),
        cmocka_unit_test(test_window_without_display),
        cmocka_unit_test(test_help_version),
        cmocka_unit_test(test_bench_cpu_backend),
        cmocka_unit_test(test_bench_bad_values_exit_2),
        cmocka_unit_test(test_bench_timing_columns),
        cmocka_unit_test(test_no_gpu_notice_and_cpu_fallback),
        cmocka_unit_test(test_cpu_policy_line),
        cmocka_unit_test(test_cpu_residual_fresh_and_final),
        cmocka_unit_test(test_cpu_defaults_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
