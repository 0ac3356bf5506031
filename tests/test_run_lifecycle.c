/* The life of a run, end to end with the kernelscope binary on the CPU
 * backend (headless, EGL): stopping by SIGINT / SIGTERM at random moments
 * keeps every output whole and leaves no temporary file; a second SIGINT quits
 * at once and still cleans up; benches stopped by a signal write what they
 * measured. The outputs checked before anything runs, the summary, "wrote",
 * progress lines and the file names are in test_run_outputs.c (one program:
 * the tests run one after the other, never beside each other's runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_run_lifecycle.h"
#include "test_util.h"

static unsigned ks_seed;

int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static pid_t spawn(const char *const *argv, const char *out_path, const char *err_path)
{
    pid_t pid = ks_test_spawn(argv, out_path, err_path);
    assert_true(pid > 0);
    return pid;
}

static int wait_exit(pid_t pid)
{
    return ks_test_wait_exit(pid, KS_TEST_NO_DEADLINE);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* No "*.tmp-*" anywhere in dir; returns the number of entries with suffix. */
int scan_dir(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strstr(e->d_name, ".tmp-")) fail_msg("temporary file left: %s/%s", dir, e->d_name);
        const size_t l = strlen(e->d_name), s = strlen(suffix);
        if (l >= s && strcmp(e->d_name + l - s, suffix) == 0) ++n;
    }
    closedir(d);
    return n;
}

/* Every row has as many fields as the header, and the file ends with '\n'. */
int check_csv_whole(const char *path)
{
    char *text = slurp(path);
    if (!text) fail_msg("missing %s", path);
    const size_t n = strlen(text);
    if (n == 0 || text[n - 1] != '\n') fail_msg("%s does not end with a whole line", path);
    int rows = -1, header_commas = -1;
    for (char *line = text; *line; ) {
        char *end = strchr(line, '\n');
        int commas = 0;
        for (char *p = line; p < end; ++p) commas += *p == ',';
        if (header_commas < 0) header_commas = commas;
        else if (commas != header_commas) fail_msg("%s: a row of %d fields under a header of %d", path, commas + 1, header_commas + 1);
        ++rows;
        line = end + 1;
    }
    free(text);
    return rows;
}

/* A PNG that was written whole ends with its IEND chunk. */
static void check_pngs_whole(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 4, ".png") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        unsigned char tail[8];
        fseek(f, -8, SEEK_END);
        assert_int_equal(fread(tail, 1, 8, f), 8);
        fclose(f);
        if (memcmp(tail, "IEND\xae\x42\x60\x82", 8) != 0) fail_msg("%s is cut short", path);
    }
    closedir(d);
}

static void stop_run_once(int sig, int cpu_ms)
{
    char dir[256], out[512], err[512], dump[512], csv[512];
    ks_test_tmpdir(dir, sizeof dir, "sig");
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(err, sizeof err, "%s.err", dir);
    snprintf(dump, sizeof dump, "%s/frames/u.npy", dir);
    snprintf(csv, sizeof csv, "%s/frames/laplace3d_timings.csv", dir);
    char frames[300];
    snprintf(frames, sizeof frames, "%s/frames", dir);
    const char *argv[] = {"kernelscope", "laplace3d", "--backend", "cpu", "--headless", "--grid", "64",
                          "--frames", "100000", "--save-every", "1", "--out", frames,
                          "--dump-field", dump, NULL};
    pid_t pid = spawn(argv, out, err);
    /* the moment is counted in the run's own CPU time from the installed
     * handler on, so that load (which stretches the wall clock) moves no
     * signal out of the run or into its start-up */
    if (!ks_test_wait_handler(pid, sig, KS_TEST_NO_DEADLINE))
        fail_msg("the run ended before it installed its signal handler (exit %d)", wait_exit(pid));
    const double base = ks_test_cpu_seconds(pid);
    if (!ks_test_wait_cpu(pid, base + cpu_ms * 1e-3, KS_TEST_NO_DEADLINE)) fail_msg("the run ended before %d ms of CPU", cpu_ms);
    kill(pid, sig);
    const int code = wait_exit(pid);
    char *e = slurp(err);
    if (code != 128 + sig) fail_msg("exit %d after signal %d at %d ms of CPU; stderr: %s", code, sig, cpu_ms, e);
    free(e);
    /* the signal may come before the out folder exists (during start-up): then nothing was made */
    if (file_exists(frames)) {
        scan_dir(frames, ".png");
        check_pngs_whole(frames);
        const int rows = check_csv_whole(csv);
        const int pngs = scan_dir(frames, ".png");
        if (rows < pngs - 1) fail_msg("%d timing rows for %d saved frames", rows, pngs);
        /* 64^3 floats and the 128-byte header */
        assert_int_equal(file_size(dump), 128 + 64 * 64 * 64 * 4);
        char *o = slurp(out);
        assert_non_null(strstr(o, "kernelscope: laplace3d: "));
        free(o);
    }
    scan_dir(dir, ".none");
    unlink(out);
    unlink(err);
}

static void test_signal_stops_after_the_frame(void **state)
{
    (void)state;
    /* CPU time after the handler is installed: start-up (memcpy bandwidth,
     * EGL) is a few hundred ms of it; a few at its start, the rest into the run */
    const int cpu_ms[] = {0, 150, 600, 1000, 1500, 2000};
    for (int i = 0; i < 6; ++i) {
        const int sig = i % 2 ? SIGTERM : SIGINT;
        stop_run_once(sig, cpu_ms[i] + (int)(rand() % 400));
    }
}

static void test_second_sigint_quits_at_once(void **state)
{
    (void)state;
    char dir[256], out[512], err[512], frames[300];
    ks_test_tmpdir(dir, sizeof dir, "sig2");
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(err, sizeof err, "%s.err", dir);
    snprintf(frames, sizeof frames, "%s/frames", dir);
    /* slow frames (seconds of CPU time each; the test's reaction to the line,
     * a read and a kill, is far shorter); the first signal once a frame is
     * done, the second once the run said it is stopping, so that it lands in
     * the frame in progress and never merges with the first. A sanitizer
     * build's solver is ten times slower: the same CPU time from a tenth of
     * the work */
#ifdef __SANITIZE_ADDRESS__
    const char *grid = "56";
#else
    const char *grid = "128";
#endif
    const char *argv[] = {"kernelscope", "laplace3d", "--backend", "cpu", "--headless", "--grid", grid,
                          "--iters", "500", "--frames", "100000", "--save-every", "1", "--progress", "--out",
                          frames, NULL};
    ks_test_proc *p = malloc(sizeof *p);
    assert_non_null(p);
    ks_test_start(p, argv);
    if (ks_test_wait_for(p, 2, "kernelscope: frame ", KS_TEST_NO_DEADLINE) != 1)
        fail_msg("no progress line (the run ended); stderr: %s", p->text[1]);
    kill(p->pid, SIGINT);
    if (ks_test_wait_for(p, 2, "kernelscope: stopping once this frame", KS_TEST_NO_DEADLINE) != 1)
        fail_msg("no 'stopping' line after SIGINT (the run ended); stderr: %s", p->text[1]);
    kill(p->pid, SIGINT);
    const int code = ks_test_finish(p, KS_TEST_NO_DEADLINE);
    if (code != 130) fail_msg("exit %d after two SIGINTs; stderr: %s", code, p->text[1]);
    assert_non_null(strstr(p->text[1], "stopped at once"));
    free(p);
    if (file_exists(frames)) {
        scan_dir(frames, ".png");
        check_pngs_whole(frames);
    }
    unlink(out);
    unlink(err);
}

static void bench_stopped(const char *scene, const char *list_flag, const char *list, const char *reps,
                          const char *size, const char *csv_name, int sig)
{
    char dir[256], out[512], err[512], csv[512];
    ks_test_tmpdir(dir, sizeof dir, "bsig");
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(err, sizeof err, "%s.err", dir);
    snprintf(csv, sizeof csv, "%s/%s", dir, csv_name);
    const char *argv[] = {"kernelscope", "bench", scene, "--backend", "cpu", "--out", dir, list_flag, list,
                          "--reps", reps, size ? "--size" : NULL, size, NULL};
    pid_t pid = spawn(argv, out, err);
    /* after 0.5 s of the bench's own CPU time (not of the wall clock, which
     * load stretches) its first row is measured or in progress: the signal
     * lets that row finish */
    if (!ks_test_wait_handler(pid, sig, KS_TEST_NO_DEADLINE))
        fail_msg("bench %s ended before it installed its signal handler (exit %d)", scene, wait_exit(pid));
    /* a sanitizer build spends seconds of CPU starting (shadow memory, the gold check) */
#ifdef __SANITIZE_ADDRESS__
    const double settle = 4.0;
#else
    const double settle = 0.5;
#endif
    if (!ks_test_wait_cpu(pid, ks_test_cpu_seconds(pid) + settle + (double)(rand() % 500) * 1e-3, KS_TEST_NO_DEADLINE))
        fail_msg("bench %s ended before %.1f s of CPU", scene, settle);
    kill(pid, sig);
    const int code = wait_exit(pid);
    char *o = slurp(out), *e = slurp(err);
    if (code != 128 + sig) fail_msg("bench %s: exit %d; stdout %s; stderr %s", scene, code, o, e);
    const int rows = check_csv_whole(csv);
    if (rows < 1) fail_msg("bench %s stopped with %d rows written", scene, rows);
    char wrote[600];
    snprintf(wrote, sizeof wrote, "kernelscope: wrote %s\n", csv);
    assert_non_null(strstr(o, wrote));
    scan_dir(dir, ".csv");
    free(o);
    free(e);
    unlink(out);
    unlink(err);
}

static void test_bench_stopped_by_signal(void **state)
{
    (void)state;
    /* growing rows: the first ones finish within the wait on a slow machine,
     * the whole sweep takes far longer than it on a fast one */
    bench_stopped("laplace3d", "--grid", "64,128,192,256,320,384,448,512,512,512,512,512,512,512,512,512",
                  "40", NULL, "bench_laplace3d.csv", SIGTERM);
    /* a 256x256 picture: the first count's renders fit in the wait also in a sanitizer
     * build (at the bench's 2048x2048 one render of the CPU gold can outlast it) */
    bench_stopped("spheres", "--spheres", "64,128,256,512,1024,2048,4096,8192,16384", "5", "256x256",
                  "bench_spheres.csv", SIGINT);
}


int main(void)
{
    const char *only = getenv("KS_TEST_ONLY"); /* e.g. "*sig*": the tests to repeat under load */
    if (only && *only) cmocka_set_test_filter(only);
    const char *s = getenv("KS_TEST_SEED");
    ks_seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
    printf("# seed %u (KS_TEST_SEED to repeat)\n", ks_seed);
    srand(ks_seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_into_missing_folder),
        cmocka_unit_test(test_unwritable_outputs_refused),
        cmocka_unit_test(test_rejected_run_creates_no_folder),
        cmocka_unit_test(test_error_after_ui_stands_alone),
        cmocka_unit_test(test_names_summary_progress),
        cmocka_unit_test(test_headless_saves_last_frame),
        cmocka_unit_test(test_bench_default_results_folder),
        cmocka_unit_test(test_csv_kept_on_error),
        cmocka_unit_test(test_signal_stops_after_the_frame),
        cmocka_unit_test(test_second_sigint_quits_at_once),
        cmocka_unit_test(test_bench_stopped_by_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
