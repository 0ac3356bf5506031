/* The life of a run, its outputs (the kernelscope binary on the CPU backend,
 * headless): outputs are checked before anything runs and a rejected run
 * makes nothing; an error after the UI stands alone; the summary, "wrote" and
 * progress lines and the file names; the last frame of a headless run; a
 * bench's default results folder; a CSV kept on an error. Part of
 * test_run_lifecycle (its main is in test_run_lifecycle.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_run_lifecycle.h"
#include "test_util.h"

void test_dump_into_missing_folder(void **state)
{
    (void)state;
    char dir[256], out_dir[300], dump[300];
    ks_test_tmpdir(dir, sizeof dir, "dump");
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    snprintf(dump, sizeof dump, "%s/missing/u.npy", dir);
    const char *argv[] = {NULL, "laplace3d", "--backend", "cpu", "--headless", "--frames", "1",
                          "--save-every", "1", "--out", out_dir, "--dump-field", dump, NULL};
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 2) fail_msg("exit %d; stderr %s", r.exit_code, r.err);
    assert_int_equal(ks_test_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "--dump-field"));
    assert_string_equal(r.out, "");
    assert_false(file_exists(out_dir)); /* rejected before anything was made */
}

/* A folder that takes no new file whatever access() says of it: for root, sysfs
 * (every permission check passes there, yet no file can be made); for anyone
 * else a folder without write permission. 0 when there is none to use. */
static int unwritable_folder(char *buf, size_t len, const char *dir)
{
    struct stat sb;
    if (geteuid() == 0) {
        snprintf(buf, len, "/sys/kernel");
        return stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode);
    }
    snprintf(buf, len, "%s/readonly", dir);
    return mkdir(buf, 0700) == 0;
}

/* Every output path is tried before the first frame (issue 34: a --dump-field
 * that could not be written was found out after the whole run, exit 1, no
 * summary): an output that cannot be written is bad input, one line, exit 2,
 * nothing on stdout (the run never started). */
void test_unwritable_outputs_refused(void **state)
{
    (void)state;
    char dir[256], ro[300], dump[400], frames[400], bench_out[400], kernel[400];
    ks_test_tmpdir(dir, sizeof dir, "unwritable");
    if (!unwritable_folder(ro, sizeof ro, dir)) skip();
    snprintf(dump, sizeof dump, "%s/f.npy", ro);
    snprintf(frames, sizeof frames, "%s/frames", ro);
    snprintf(bench_out, sizeof bench_out, "%s/bench", ro);
    if (geteuid() == 0) {
        snprintf(kernel, sizeof kernel, "%s/profiling", ro); /* a small readable file there */
    } else {
        snprintf(kernel, sizeof kernel, "%s/mine.cu", ro);
        ks_test_write_file(kernel, "__global__ void k() {}\n");
        assert_int_equal(chmod(ro, 0500), 0);
    }
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    const struct {
        const char *needle;
        const char *argv[20];
    } cases[] = {
        {"--dump-field", {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "40", "--grid", "64",
                          "--dump-field", dump, NULL}},
        {"--dump-field", {NULL, "laplace3d", "--backend", "cpu", "--headless", "--frames", "2", "--grid", "16",
                          "--dump-field", dump, NULL}},
        {"--out", {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "2", "--grid", "64",
                   "--save-every", "1", "--out", frames, NULL}},
        {"--out", {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "2", "--grid", "64", "--out",
                   ro, "--save-every", "1", NULL}},
        {"--out", {NULL, "bench", "laplace2d", "--backend", "cpu", "--grid", "64", "--reps", "2", "--out", bench_out,
                   NULL}},
        {"--out", {NULL, "bench", "laplace2d", "--backend", "cpu", "--grid", "64", "--reps", "2", "--out", ro, NULL}},
        {"--edit", {NULL, "laplace3d", "--backend", "cpu", "--headless", "--serve", "127.0.0.1:0", "--edit",
                    "--kernel-file", kernel, NULL}},
    };
    const int have_kernel = file_exists(kernel);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        if (!have_kernel && strcmp(cases[c].needle, "--edit") == 0) continue;
        ks_run_result r;
        assert_int_equal(ks_test_run(cases[c].argv, env, &r), 0);
        if (r.exit_code != 2 || ks_test_count_lines(r.err) != 1 || !strstr(r.err, cases[c].needle) ||
            !strstr(r.err, ro) || r.out[0])
            fail_msg("case %zu (%s): exit %d\nstdout: %s\nstderr: %s", c, cases[c].needle, r.exit_code, r.out, r.err);
    }
    if (geteuid() != 0) chmod(ro, 0700);
}

/* Input refused during set-up: one line on stderr (no notices before it), exit 2, no folder. */
static void refused(const char *needle, const char *const *argv, const char *made)
{
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 2 || ks_test_count_lines(r.err) != 1 || !strstr(r.err, needle))
        fail_msg("%s %s: exit %d, stderr: %s", argv[1], argv[2], r.exit_code, r.err);
    if (made && file_exists(made)) fail_msg("a refused run made %s", made);
}

void test_rejected_run_creates_no_folder(void **state)
{
    (void)state;
    char dir[256], out_dir[300], a[300], scene[300];
    ks_test_tmpdir(dir, sizeof dir, "rej");
    snprintf(out_dir, sizeof out_dir, "%s/a/b", dir);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(scene, sizeof scene, "%s/bad.txt", dir);
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fputs("0 0 0 10 1 1 nope\n", f);
    fclose(f);
    /* no --backend: on a machine without a GPU the CPU-fallback notice must not come first */
    const char *grid[] = {NULL, "laplace3d", "--headless", "--frames", "1", "--grid", "4000x4000x4000",
                          "--save-every", "1", "--out", out_dir, NULL};
    refused("GiB", grid, a);
    const char *mem[] = {NULL, "spheres", "--mem", "nope", "--frames", "1", "--out", out_dir, NULL};
    refused("--mem", mem, a);
    const char *file[] = {NULL, "spheres", "--scene", scene, "--frames", "1", "--out", out_dir, NULL};
    refused("bad.txt", file, a);
}

/* A headless --frames run saves its last frame, once, named like the other
 * saved pictures, also when --save-every K is longer than the run (issue 23). */
void test_headless_saves_last_frame(void **state)
{
    (void)state;
    char dir[256], path[400], line[500];
    ks_test_tmpdir(dir, sizeof dir, "lastframe");
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    const char *argv[] = {NULL, "spheres", "--backend", "cpu", "--headless", "--frames", "5",
                          "--save-every", "20", "--out", dir, "--size", "160x120", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d; stderr %s", r.exit_code, r.err);
    snprintf(path, sizeof path, "%s/spheres_000005.png", dir);
    if (!file_exists(path)) fail_msg("missing %s; stdout %s", path, r.out);
    snprintf(line, sizeof line, "kernelscope: wrote %s\n", path);
    assert_non_null(strstr(r.out, line));
    assert_int_equal(scan_dir(dir, ".png"), 1);
    assert_non_null(strstr(r.out, "wrote 1 picture in "));

    /* the last frame is a K-th frame: saved once, not twice */
    char dir2[256];
    ks_test_tmpdir(dir2, sizeof dir2, "lastframe-k");
    const char *argv2[] = {NULL, "spheres", "--backend", "cpu", "--headless", "--frames", "6",
                           "--save-every", "3", "--out", dir2, "--size", "160x120", NULL};
    assert_int_equal(ks_test_run(argv2, env, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d; stderr %s", r.exit_code, r.err);
    snprintf(path, sizeof path, "%s/spheres_000006.png", dir2);
    snprintf(line, sizeof line, "kernelscope: wrote %s\n", path);
    const char *at = strstr(r.out, line);
    if (!at) fail_msg("no '%s' in %s", line, r.out);
    assert_null(strstr(at + 1, line));
    assert_int_equal(scan_dir(dir2, ".png"), 2);
    assert_non_null(strstr(r.out, "wrote 2 pictures in "));
}

/* An error that ends set-up after the UI is made (--serve on a port in use)
 * stands alone on stderr, even where the UI's font is missing and it falls
 * back to the built-in one: the font notice waits until the run starts. */
void test_error_after_ui_stands_alone(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    char port[16];
    snprintf(port, sizeof port, "%d", ntohs(a.sin_port));
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "1", "--serve", port, NULL};
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", "KERNELSCOPE_FONT=/nonexistent/ks-font.ttf", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    close(fd);
    if (r.exit_code != 0 && strstr(r.err, "EGL")) skip(); /* no headless GL: the UI is never made */
    if (r.exit_code != 2 || ks_test_count_lines(r.err) != 1)
        fail_msg("--serve on a busy port: exit %d, stderr: %s", r.exit_code, r.err);
    assert_null(strstr(r.err, "font"));

    /* a run that starts still says it */
    const char *ok[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "1", "--grid", "32", NULL};
    assert_int_equal(ks_test_run(ok, env, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.err, "ui: font /nonexistent/ks-font.ttf not found"));
}

/* The naming scheme, the wrote lines, the summary and --progress. */
void test_names_summary_progress(void **state)
{
    (void)state;
    char dir[256], dump[300];
    ks_test_tmpdir(dir, sizeof dir, "names");
    snprintf(dump, sizeof dump, "%s/u.npy", dir);
    const char *argv[] = {NULL, "spheres", "--backend", "cpu", "--headless", "--frames", "4",
                          "--save-every", "2", "--out", dir, "--progress", "--size", "320x240", NULL};
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d; stderr %s", r.exit_code, r.err);
    const char *names[] = {"spheres_000002.png", "spheres_000004.png", "spheres_timings.csv"};
    for (int i = 0; i < 3; ++i) {
        char path[400], line[500];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!file_exists(path)) fail_msg("missing %s; stdout %s", path, r.out);
        snprintf(line, sizeof line, "kernelscope: wrote %s\n", path);
        const char *at = strstr(r.out, line);
        if (!at) fail_msg("no '%s' in %s", line, r.out);
        assert_null(strstr(at + 1, line)); /* named once */
    }
    assert_int_equal(scan_dir(dir, ".png"), 2);
    assert_non_null(strstr(r.out, "kernelscope: spheres: 4 frames, "));
    assert_non_null(strstr(r.out, "median ms: "));
    /* the render stage is the spheres scene's solver: its share of the frame, after the medians */
    const char *share = strstr(r.out, "; solver share ");
    assert_non_null(share);
    int pct = -1;
    assert_int_equal(sscanf(share, "; solver share %d %% of a", &pct), 1);
    assert_true(pct >= 0 && pct <= 100);
    assert_true(strstr(r.out, "median ms: ") < share);
    /* two frame figures, named apart (issue 23 item 9): the frame stage's span is "frame work", the
     * wall clock between frames the "frame interval"; the CSV keeps its frame_ms column */
    assert_non_null(strstr(strstr(r.out, "median ms: "), "frame work "));
    for (const char *f = strstr(r.out, "median ms: "); (f = strstr(f, "frame ")) != NULL && f < share; ++f)
        assert_true(strncmp(f, "frame work ", 11) == 0); /* no bare "frame 5.247" */
    double interval = 0.0;
    assert_int_equal(sscanf(share, "; solver share %d %% of a %lf ms frame interval;", &pct, &interval), 2);
    char csv[400], head[200] = "";
    snprintf(csv, sizeof csv, "%s/spheres_timings.csv", dir);
    FILE *fcsv = fopen(csv, "r");
    assert_non_null(fcsv);
    assert_non_null(fgets(head, sizeof head, fcsv));
    fclose(fcsv);
    assert_non_null(strstr(head, "frame_ms"));
    assert_null(strstr(head, "frame work"));
    assert_non_null(strstr(r.out, "wrote 2 pictures in "));

    /* Laplace, one frame: the singular, the field dump and a progress line (the run outlasts a second) */
    const char *argv2[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "1",
                           "--out", dir, "--dump-field", dump, "--progress", NULL};
    assert_int_equal(ks_test_run(argv2, env, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d; stderr %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "kernelscope: laplace2d: 1 frame, "));
    char line[500];
    snprintf(line, sizeof line, "kernelscope: wrote %s\n", dump);
    assert_non_null(strstr(r.out, line));
    assert_true(file_exists(dump));

    /* about three seconds of frames: progress lines at most once a second (a
     * sanitizer build's solver is ten times slower: an eighth of the work) */
#ifdef __SANITIZE_ADDRESS__
    const char *grid3 = "64";
#else
    const char *grid3 = "128";
#endif
    const char *argv3[] = {NULL, "laplace3d", "--backend", "cpu", "--headless", "--grid", grid3,
                           "--iters", "100", "--frames", "20", "--progress", NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(ks_test_run(argv3, env, &r), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    assert_int_equal(r.exit_code, 0);
    if (!strstr(r.err, "kernelscope: frame ") || !strstr(r.err, "fps"))
        fail_msg("no progress line in: %s", r.err);
    const int lines = ks_test_count_lines(r.err);
    if (lines < 1 || lines > (int)secs + 1) fail_msg("%d progress lines in %.1f s: %s", lines, secs, r.err);
    assert_non_null(strstr(r.out, "wrote nothing"));
}

/* A run that fails half-way (frame 5 cannot be saved: a folder has its name) still completes
 * the timings CSV with the frames it measured, and leaves no temporary file. */
void test_csv_kept_on_error(void **state)
{
    (void)state;
    char dir[256], blocker[400], csv[400];
    ks_test_tmpdir(dir, sizeof dir, "err");
    snprintf(blocker, sizeof blocker, "%s/laplace2d_000005.png", dir);
    assert_int_equal(mkdir(blocker, 0755), 0);
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "20",
                          "--save-every", "1", "--out", dir, NULL};
    const char *env[] = {"DISPLAY=", "WAYLAND_DISPLAY=", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 1 || !strstr(r.err, "laplace2d_000005.png"))
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    snprintf(csv, sizeof csv, "%s/laplace2d_timings.csv", dir);
    const int rows = check_csv_whole(csv);
    if (rows < 4) fail_msg("%d timing rows kept of the 4 frames before the failure", rows);
    scan_dir(dir, ".png");
}

/* bench with no --out: results/<scene>-<YYYYmmdd-HHMMSS>/, made when it starts, named on stdout. */
void test_bench_default_results_folder(void **state)
{
    (void)state;
    char dir[256], cwd[1024];
    ks_test_tmpdir(dir, sizeof dir, "res");
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    const char *argv[] = {NULL, "bench", "laplace2d", "--backend", "cpu", "--grid", "64", "--reps", "2", NULL};
    ks_run_result r;
    const int ran = ks_test_run(argv, NULL, &r);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(ran, 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    const char *at = strstr(r.out, "kernelscope: results go to results/laplace2d-");
    if (!at) fail_msg("no results folder named in: %s", r.out);
    char stamp[32] = "";
    assert_int_equal(sscanf(at, "kernelscope: results go to results/laplace2d-%31[0-9-]/", stamp), 1);
    assert_int_equal(strlen(stamp), 15); /* YYYYmmdd-HHMMSS */
    char csv[600];
    snprintf(csv, sizeof csv, "%s/results/laplace2d-%s/bench_laplace2d.csv", dir, stamp);
    assert_true(check_csv_whole(csv) == 1);
    char wrote[200];
    snprintf(wrote, sizeof wrote, "kernelscope: wrote results/laplace2d-%s/bench_laplace2d.csv\n", stamp);
    assert_non_null(strstr(r.out, wrote));
}
