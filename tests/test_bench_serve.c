/* `kernelscope bench serve`: the latency probe on made-up frames, the ratios
 * and writers on made-up rows, the WebSocket viewer against a port where no
 * server listens, a short real run on the CPU backend whose CSV is checked
 * row by row, and bad input (exit 2, one line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/bench/bench_serve.h"
#include "base/ks_util.h"
#include "serve/latency_probe.h"
#include "serve/ws_viewer.h"
#include "test_util.h"

#define KS_HEADER_LINE                                                                            \
    "device,scene,variant,size,case,encoder,frames,solver_ms_per_iter,solver_ratio,loop_fps,viewer_fps," \
    "viewer_mbit_s,latency_ms,latency_samples,cc\n"
static const char ks_header[] = KS_HEADER_LINE;

/* ---- the latency probe ---- */

static void test_probe_measures_first_changed_frame(void **state)
{
    (void)state;
    ks_latency_probe p;
    ks_latency_probe_init(&p, 2, 1.0);
    const char a[] = "picture A", b[] = "picture B", c[] = "picture C";
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 0.0), 0); /* not started: ignored */
    ks_latency_probe_start(&p);
    /* moving pictures never settle */
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 0.1), 0);
    assert_int_equal(ks_latency_probe_frame(&p, b, sizeof b, 0.2), 0);
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 0.3), 0);
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 0.4), 0);
    /* the third identical frame in a row: static, send the key */
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 0.5), 1);
    ks_latency_probe_sent(&p, 1.000);
    assert_int_equal(p.state, KS_LATENCY_WAIT);
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 1.010), 0); /* not yet changed */
    assert_int_equal(ks_latency_probe_frame(&p, b, sizeof b, 1.030), 0); /* changed: 30 ms */
    assert_int_equal(p.n, 1);
    assert_true(fabs(p.samples_ms[0] - 30.0) < 1e-6);
    /* the changed picture counts as the first of the next static run */
    assert_int_equal(ks_latency_probe_frame(&p, b, sizeof b, 1.04), 0);
    assert_int_equal(ks_latency_probe_frame(&p, b, sizeof b, 1.05), 1);
    ks_latency_probe_sent(&p, 2.0);
    assert_int_equal(ks_latency_probe_frame(&p, c, sizeof c - 1, 2.05), 0); /* another length: changed */
    assert_int_equal(p.state, KS_LATENCY_DONE);
    assert_true(fabs(ks_latency_probe_median(&p) - 40.0) < 1e-6); /* 30 and 50 */
    assert_int_equal(ks_latency_probe_frame(&p, a, sizeof a, 3.0), 0); /* done: ignored */
    ks_latency_probe_free(&p);
}

static void test_probe_timeout_and_no_samples(void **state)
{
    (void)state;
    ks_latency_probe p;
    ks_latency_probe_init(&p, 4, 0.5);
    assert_true(ks_latency_probe_median(&p) == 0.0);
    ks_latency_probe_sent(&p, 0.0); /* not ready: nothing happens */
    assert_int_equal(p.state, KS_LATENCY_IDLE);
    ks_latency_probe_start(&p);
    const char a[] = "same";
    for (int i = 0; i < 3; ++i) ks_latency_probe_frame(&p, a, sizeof a, 0.01 * i);
    assert_int_equal(p.state, KS_LATENCY_READY);
    ks_latency_probe_sent(&p, 1.0);
    ks_latency_probe_tick(&p, 1.4); /* within the time-out */
    assert_int_equal(p.state, KS_LATENCY_WAIT);
    ks_latency_probe_tick(&p, 1.6); /* the key changed nothing: given up, settles again */
    assert_int_equal(p.state, KS_LATENCY_SETTLE);
    assert_int_equal(p.timeouts, 1);
    assert_int_equal(p.n, 0);
    /* a late change after the time-out is no sample */
    ks_latency_probe_frame(&p, "other", 6, 1.7);
    assert_int_equal(p.n, 0);
    ks_latency_probe_free(&p);
    ks_latency_probe_init(&p, 100000, 0.0); /* clamped */
    assert_int_equal(p.want, KS_LATENCY_MAX_SAMPLES);
    assert_true(p.timeout_s == 5.0);
    ks_latency_probe_free(&p);
}

/* ---- rows and writers ---- */

static ks_serve_row row(const char *scene, const char *kase, double solver)
{
    ks_serve_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.device, sizeof r.device, "GPU \"X\"");
    snprintf(r.cc, sizeof r.cc, "9.0");
    snprintf(r.scene, sizeof r.scene, "%s", scene);
    snprintf(r.variant, sizeof r.variant, "binned");
    snprintf(r.size, sizeof r.size, "1920x1080");
    snprintf(r.kase, sizeof r.kase, "%s", kase);
    snprintf(r.encoder, sizeof r.encoder, "%s", strcmp(kase, "none") == 0 ? "-" : "nvjpeg");
    r.frames = 120;
    r.solver_ms_per_iter = solver;
    r.loop_fps = 200.0;
    r.viewer_fps = r.viewer_mbit_s = r.latency_ms = -1.0;
    return r;
}

static void test_ratios_and_csv(void **state)
{
    (void)state;
    ks_serve_row rows[4] = {row("spheres", "none", 2.0), row("spheres", "jpeg", 2.1), row("laplace3d", "jpeg", 1.0),
                            row("spheres", "record", 1.9)};
    rows[1].viewer_fps = 61.25;
    rows[1].viewer_mbit_s = 120.5;
    rows[1].latency_ms = 21.5;
    rows[1].latency_samples = 24;
    ks_bench_serve_ratios(rows, 4);
    assert_true(rows[0].solver_ratio == 1.0);
    assert_true(fabs(rows[1].solver_ratio - 1.05) < 1e-12);
    assert_true(rows[2].solver_ratio == 0.0); /* no none row of laplace3d */
    assert_true(fabs(rows[3].solver_ratio - 0.95) < 1e-12);
    char *csv = ks_bench_serve_csv(rows, 4);
    assert_non_null(csv);
    assert_memory_equal(csv, ks_header, strlen(ks_header));
    const char *l1 = csv + strlen(ks_header);
    assert_memory_equal(l1, "\"GPU \"\"X\"\"\",spheres,binned,1920x1080,none,-,120,2.000000,1.0000,200.00,-,-,-,0,9.0\n",
                        strlen("\"GPU \"\"X\"\"\",spheres,binned,1920x1080,none,-,120,2.000000,1.0000,200.00,-,-,-,0,9.0\n"));
    assert_non_null(strstr(csv, ",jpeg,nvjpeg,120,2.100000,1.0500,200.00,61.25,120.500,21.500,24,9.0\n"));
    assert_non_null(strstr(csv, "laplace3d,binned,1920x1080,jpeg,nvjpeg,120,1.000000,-,")); /* no ratio: "-" */
    free(csv);
    char *table = ks_bench_serve_table(rows, 4);
    assert_non_null(strstr(table, "viewer fps"));
    assert_non_null(strstr(table, "21.5 (n=24)"));
    free(table);
}

/* --replot's reader: the CSV the writer makes reads back to the same rows (a quoted device
 * name with a quote and a comma, "-" for what was not measured), and anything else is refused
 * with the line and what is wrong. */
static void test_csv_read_back(void **state)
{
    (void)state;
    ks_serve_row rows[3] = {row("spheres", "none", 2.0), row("spheres", "jpeg", 2.1), row("laplace3d", "record", 1.0)};
    snprintf(rows[0].device, sizeof rows[0].device, "GPU \"X\", rev 2");
    snprintf(rows[1].device, sizeof rows[1].device, "GPU \"X\", rev 2");
    rows[1].viewer_fps = 61.25;
    rows[1].viewer_mbit_s = 120.5;
    rows[1].latency_ms = 21.5;
    rows[1].latency_samples = 24;
    ks_bench_serve_ratios(rows, 3);
    char *csv = ks_bench_serve_csv(rows, 3);
    assert_non_null(csv);
    ks_serve_row back[4];
    int n = 0;
    assert_int_equal(ks_bench_serve_parse_csv(csv, back, 4, &n), KS_OK);
    assert_int_equal(n, 3);
    char *again = ks_bench_serve_csv(back, n);
    assert_string_equal(again, csv); /* every field as written */
    assert_string_equal(back[0].device, "GPU \"X\", rev 2");
    assert_true(back[1].viewer_fps == 61.25 && back[1].latency_samples == 24);
    assert_true(back[2].viewer_fps < 0.0 && back[2].latency_ms < 0.0); /* "-" */
    free(again);
    assert_int_equal(ks_bench_serve_parse_csv(csv, back, 2, &n), KS_ERR_INVALID); /* more rows than room */
    /* not what bench serve writes: each refused in one line naming the line */
    const char *const bad[] = {
        "",
        "device,scene\n",
        KS_HEADER_LINE,                                                                  /* no rows */
        KS_HEADER_LINE "\"GPU,spheres,binned,1920x1080,none,-,120,2.0,1.0,200.00,-,-,-,0,9.0\n", /* open quote */
        KS_HEADER_LINE "GPU,spheres,binned,1920x1080,none,-,120,2.0,1.0,200.00,-,-,-,0\n",        /* a field short */
        KS_HEADER_LINE "GPU,spheres,binned,1920x1080,nope,-,120,2.0,1.0,200.00,-,-,-,0,9.0\n",    /* no such case */
        KS_HEADER_LINE "GPU,spheres,binned,1920x1080,none,-,12x,2.0,1.0,200.00,-,-,-,0,9.0\n",    /* not a number */
        KS_HEADER_LINE "GPU,spheres,binned,1920x1080,none,-,120,-,1.0,200.00,-,-,-,0,9.0\n",      /* a needed figure */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        if (ks_bench_serve_parse_csv(bad[i], back, 4, &n) != KS_ERR_INVALID) fail_msg("case %zu was taken", i);
        assert_null(strchr(ks_error_message(), '\n'));
    }
    assert_non_null(strstr((ks_bench_serve_parse_csv(bad[4], back, 4, &n), ks_error_message()), "line 2"));
    free(csv);
}

/* bench serve --replot: an earlier run's CSV drawn again, nothing run; a bad file is one line, exit 2. */
static void test_replot(void **state)
{
    (void)state;
    char dir[256], csv_path[512], out[512], bad_path[512];
    ks_test_tmpdir(dir, sizeof dir, "replot");
    ks_serve_row rows[2] = {row("spheres", "none", 2.0), row("spheres", "jpeg", 2.1)};
    rows[1].viewer_fps = 60.0;
    rows[1].viewer_mbit_s = 100.0;
    char *csv = ks_bench_serve_csv(rows, 2);
    snprintf(csv_path, sizeof csv_path, "%s/in.csv", dir);
    ks_test_write_file(csv_path, csv);
    snprintf(out, sizeof out, "%s/out", dir);
    ks_run_result r;
    assert_int_equal(ks_test_run((const char *const[]){NULL, "bench", "serve", "--replot", csv_path, "--out", out, NULL},
                                 NULL, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "2 rows of"));
    assert_non_null(strstr(r.out, "nothing run"));
    char path[700];
    snprintf(path, sizeof path, "%s/bench_serve.png", out);
    char *png = ks_test_read_file(path);
    assert_non_null(png);
    assert_memory_equal(png, "\x89PNG", 4);
    free(png);
    snprintf(path, sizeof path, "%s/bench_serve.csv", out);
    char *written = ks_test_read_file(path);
    assert_non_null(written);
    assert_string_equal(written, csv);
    free(written);
    snprintf(bad_path, sizeof bad_path, "%s/bad.csv", dir);
    ks_test_write_file(bad_path, "device,scene\n");
    assert_int_equal(ks_test_run((const char *const[]){NULL, "bench", "serve", "--replot", bad_path, NULL}, NULL, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(ks_test_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "not a bench_serve.csv"));
    free(csv);
}

/* A viewer row whose viewer received nothing in the timed frames fails the
 * bench (the row stays in the table); rows without a viewer and rows with frames pass. */
static void test_viewer_row_without_frames(void **state)
{
    (void)state;
    ks_serve_row none = row("laplace2d", "none", 1.0), jpeg = row("laplace2d", "jpeg", 1.0);
    ks_serve_row browser = row("spheres", "browser-jpeg", 1.0);
    assert_int_equal(ks_bench_serve_check_row(&none), KS_OK); /* viewer_fps -1: no viewer */
    jpeg.viewer_fps = 58.9;
    assert_int_equal(ks_bench_serve_check_row(&jpeg), KS_OK);
    jpeg.viewer_fps = 0.0;
    assert_int_equal(ks_bench_serve_check_row(&jpeg), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), "laplace2d binned jpeg: the viewer received no frame"));
    browser.viewer_fps = 0.0;
    assert_int_equal(ks_bench_serve_check_row(&browser), KS_ERR_IO);
}

/* ---- the viewer where nothing listens: one line, no hang ---- */

static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return 1;
    close(fd); /* free again: nothing listens there now */
    return ntohs(a.sin_port);
}

static void test_viewer_cannot_connect(void **state)
{
    (void)state;
    ks_ws_viewer_desc d;
    memset(&d, 0, sizeof d);
    d.port = closed_port();
    ks_ws_viewer *v = NULL;
    assert_int_equal(ks_ws_viewer_start(&d, &v), KS_OK);
    ks_ws_viewer_counts c;
    do { /* until the viewer says it gave up, however long a loaded machine makes that */
        ks_test_sleep_ms(20);
        ks_ws_viewer_read(v, &c);
    } while (!c.closed);
    assert_false(c.connected);
    assert_non_null(strstr(c.error, "cannot open ws://127.0.0.1:"));
    ks_ws_viewer_stop(v);
    d.port = 0;
    assert_int_equal(ks_ws_viewer_start(&d, &v), KS_ERR_INVALID);
}

/* ---- a real run ---- */

/* Field i (0-based) of a CSV line whose first field is quoted and the rest are not. */
static void field(const char *line, int i, char *out, size_t cap)
{
    const char *p = line;
    if (*p == '"') { /* skip the quoted device */
        ++p;
        while (*p && !(p[0] == '"' && p[1] != '"')) p += p[0] == '"' ? 2 : 1;
        ++p;
    } else {
        p += strcspn(p, ",");
    }
    for (int k = 1; k <= i && *p; ++k) {
        ++p; /* the comma */
        if (k == i) break;
        p += strcspn(p, ",\n");
    }
    const size_t n = strcspn(p, ",\n");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
}

static void test_cpu_run(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "benchserve");
    const char *argv[] = {NULL, "bench", "serve", "--backend", "cpu", "--size", "256x160", "--frames", "20",
                          "--spheres", "16", "--grid", "64", "--out", dir, NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "bench_serve.csv", &r);
    assert_memory_equal(csv, ks_header, strlen(ks_header));
    int seen[2][4] = {{0}};
    static const char *const cases[4] = {"none", "jpeg", "h264", "record"};
    for (const char *line = csv + strlen(ks_header); *line; line = strchr(line, '\n') + 1) {
        char scene[32], kase[16], enc[32], f[32];
        field(line, 1, scene, sizeof scene);
        field(line, 4, kase, sizeof kase);
        field(line, 5, enc, sizeof enc);
        const int s = strcmp(scene, "spheres") == 0;
        assert_true(s || strcmp(scene, "laplace2d") == 0);
        int k = 0;
        while (k < 4 && strcmp(kase, cases[k]) != 0) ++k;
        assert_true(k < 4);
        ++seen[s][k];
        field(line, 7, f, sizeof f);
        assert_true(atof(f) > 0.0); /* solver ms per iteration */
        field(line, 8, f, sizeof f);
        assert_true(atof(f) > 0.0); /* ratio to the none row */
        field(line, 9, f, sizeof f);
        assert_true(atof(f) > 0.0); /* loop fps */
        field(line, 10, f, sizeof f);
        if (k == 1 || k == 2) assert_true(atof(f) > 0.0); /* viewer fps */
        else assert_string_equal(f, "-");
        field(line, 12, f, sizeof f);
        if (k == 1) {
            assert_string_equal(enc, "libjpeg-turbo");
            assert_true(atof(f) > 0.0); /* key to picture, ms */
            field(line, 13, f, sizeof f);
            assert_true(atoi(f) >= 20);
        } else {
            assert_string_equal(f, "-");
        }
        if (k >= 2) assert_string_equal(enc, "libx264");
        if (!strchr(line, '\n')) break;
    }
    for (int s = 0; s < 2; ++s) {
        assert_int_equal(seen[s][0], 1);
        assert_int_equal(seen[s][1], 1);
#ifdef KS_TEST_HAVE_VIDEO
        assert_int_equal(seen[s][2], 1);
        assert_int_equal(seen[s][3], 1);
#else
        assert_int_equal(seen[s][2], 0);
        assert_int_equal(seen[s][3], 0);
#endif
    }
    free(csv);
    snprintf(path, sizeof path, "%s/bench_serve.png", dir);
    assert_int_equal(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/bench_serve.txt", dir);
    assert_int_equal(access(path, R_OK), 0);
}

/* --browser: a real headless Chromium on the page reports the frames it drew (skipped without one). */
static void test_browser_rows(void **state)
{
    (void)state;
    static const char *const candidates[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"};
    const char *browser = NULL;
    for (int i = 0; i < 3 && !browser; ++i)
        if (access(candidates[i], X_OK) == 0) browser = candidates[i];
    if (!browser) skip();
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "benchservebrowser");
    const char *argv[] = {NULL, "bench", "serve", "--backend", "cpu", "--size", "256x160", "--frames", "30",
                          "--spheres", "16", "--grid", "64", "--browser", browser, "--out", dir, NULL};
    ks_run_result r;
    char *csv = ks_test_run_headless_read(argv, dir, "bench_serve.csv", &r);
    int jpeg = 0;
    for (const char *line = csv + strlen(ks_header); *line; line = strchr(line, '\n') + 1) {
        char kase[16], f[32];
        field(line, 4, kase, sizeof kase);
        if (strncmp(kase, "browser-", 8) == 0) {
            field(line, 10, f, sizeof f);
            assert_true(atof(f) > 0.0); /* the page's own frames a second */
            jpeg += strcmp(kase, "browser-jpeg") == 0;
        }
        if (!strchr(line, '\n')) break;
    }
    assert_int_equal(jpeg, 2); /* both scenes; browser-h264 only where the browser decodes H.264 */
    free(csv);
    /* a --browser that is no program: one line, exit 2 */
    const char *bad[] = {NULL, "bench", "serve", "--browser", "/nonexistent/chromium", NULL};
    assert_int_equal(ks_test_run(bad, NULL, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(ks_test_count_lines(r.err), 1);
}

/* Ctrl-C in the middle: the bench stops after the frame in progress, writes what it measured, exits 130. */
static void test_sigint(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "benchserveint");
    const char *argv[] = {NULL, "bench", "serve", "--backend", "cpu", "--size", "256x160", "--frames", "100000",
                          "--spheres", "16", "--grid", "64", "--out", dir, NULL};
    argv[0] = ks_test_binary();
    ks_test_proc *p = malloc(sizeof *p);
    assert_non_null(p);
    ks_test_start(p, argv);
    /* its header comes once the signal handler is in and the rows begin; then the first row's frames */
    if (ks_test_wait_for(p, 1, "kernelscope bench serve on ", KS_TEST_NO_DEADLINE) != 1) {
        kill(p->pid, SIGKILL);
        fail_msg("no header from bench serve; stderr: %s", p->text[1]);
    }
    kill(p->pid, SIGINT);
    const int code = ks_test_finish(p, KS_TEST_NO_DEADLINE);
    if (code != 130 && strstr(p->text[1], "EGL")) {
        free(p);
        skip();
    }
    if (code != 130) fail_msg("exit %d after SIGINT; stderr: %s", code, p->text[1]);
    assert_non_null(strstr(p->text[1], "kernelscope: stopping once this frame"));
    free(p);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *argv1[] = {NULL, "bench", "serve", "--frames", "0", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv1, NULL, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(ks_test_count_lines(r.err), 1);
    const char *argv2[] = {NULL, "bench", "serve", "--modes", "headless", NULL}; /* bench live's, not this one's */
    assert_int_equal(ks_test_run(argv2, NULL, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(ks_test_count_lines(r.err), 1);
}

int main(void)
{
    const char *only = getenv("KS_TEST_ONLY"); /* e.g. "*sig*": the tests to repeat under load */
    if (only && *only) cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_measures_first_changed_frame),
        cmocka_unit_test(test_probe_timeout_and_no_samples),
        cmocka_unit_test(test_ratios_and_csv),
        cmocka_unit_test(test_csv_read_back),
        cmocka_unit_test(test_replot),
        cmocka_unit_test(test_viewer_row_without_frames),
        cmocka_unit_test(test_viewer_cannot_connect),
        cmocka_unit_test(test_cpu_run),
        cmocka_unit_test(test_browser_rows),
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
