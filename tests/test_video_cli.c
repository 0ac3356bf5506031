/* --record end to end on the CPU backend (headless, EGL): the file checked
 * with ffprobe (codec, size, frame count, duration), also after SIGINT in the
 * middle of the run (complete, valid, no temporary name left) and after a
 * second SIGINT (no file, no temporary); bad names, folders and --fps values
 * refused in one line with exit 2 before the run starts. Exits 77 when
 * ffprobe is not installed. With the argument "gpu" the recordings (not the
 * refusals, not the double SIGINT, which needs slow frames) run on the CUDA
 * backend, and it exits 77 without a CUDA device. */
#include <dirent.h>
#include <math.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

/* "cpu", or "cuda" for the gpu run of the same checks (argv[1] = gpu): the
 * frames then come from the interop path of the CUDA backend. */
static const char *ks_backend = "cpu";

typedef struct probe_info {
    char codec[32];
    int width, height;
    long frames;
    double duration;
} probe_info;

/* ffprobe's view of the first video stream; 0 when it could read the file. */
static int ffprobe(const char *path, probe_info *p)
{
    memset(p, 0, sizeof *p);
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
             "stream=codec_name,width,height,nb_read_frames -show_entries format=duration -of default=nw=1 '%s' 2>&1",
             path);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    char line[512];
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "codec_name=%31s", p->codec) == 1) ++got;
        else if (sscanf(line, "width=%d", &p->width) == 1) ++got;
        else if (sscanf(line, "height=%d", &p->height) == 1) ++got;
        else if (sscanf(line, "nb_read_frames=%ld", &p->frames) == 1) ++got;
        else if (sscanf(line, "duration=%lf", &p->duration) == 1) ++got;
        else print_message("ffprobe: %s", line);
    }
    const int rc = pclose(f);
    return rc == 0 && got == 5 ? 0 : -1;
}

/* No "*.tmp-*" in dir; the number of entries. */
static int entries_without_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (strstr(e->d_name, ".tmp-")) fail_msg("temporary file left: %s/%s", dir, e->d_name);
        ++n;
    }
    closedir(d);
    return n;
}

/* A headless run of `asked` frames recorded at fps: one video frame per live
 * frame, each 1/fps long. The loop never waits for the encoder, so on a busy
 * machine some frames may be dropped: the summary says how many, the file
 * holds the rest, and the timestamps stay on the clock. */
static void check_headless_video(const char *out, const char *path, long asked, int fps, int w, int h)
{
    const char *at = strstr(out, "wrote video in ");
    if (!at) fail_msg("no 'video in' in the summary: %s", out);
    at = strstr(at, " (");
    assert_non_null(at);
    long written = -1, dropped = 0;
    double seconds = 0;
    if (sscanf(at, " (%ld frames, %lf s", &written, &seconds) != 2) fail_msg("summary: %s", out);
    const char *drop = strstr(at, " s, ");
    if (drop && sscanf(drop, " s, %ld dropped", &dropped) != 1) fail_msg("summary: %s", out);
    if (written + dropped != asked) fail_msg("%ld written + %ld dropped for %ld frames: %s", written, dropped, asked, out);
    if (fabs(seconds - (double)asked / fps) > 1e-6 && dropped == 0) fail_msg("summary says %.2f s: %s", seconds, out);
    assert_true(written >= 1);
    probe_info p;
    if (ffprobe(path, &p) != 0) fail_msg("ffprobe could not read %s", path);
    assert_string_equal(p.codec, "h264");
    assert_int_equal(p.width, w);
    assert_int_equal(p.height, h);
    assert_int_equal(p.frames, written);
    const double lo = (double)written / fps - 0.01, hi = (double)asked / fps + 0.04;
    if (p.duration < lo || p.duration > hi)
        fail_msg("%s: %.3f s for %ld frames of %ld at %d fps", path, p.duration, written, asked, fps);
}

static void test_record_headless(void **state)
{
    (void)state;
    char dir[256], path[400];
    ks_test_tmpdir(dir, sizeof dir, "rec");
    snprintf(path, sizeof path, "%s/run.mp4", dir);
    const char *argv[] = {NULL, "laplace2d", "--backend", ks_backend, "--headless", "--grid", "96", "--size", "320x200",
                          "--frames", "30", "--record", path, NULL};
    ks_run_result r;
    ks_test_run(argv, NULL, &r);
    if (r.exit_code != 0) fail_msg("exit %d; stderr: %s", r.exit_code, r.err);
    check_headless_video(r.out, path, 30, 60, 320, 200);
    assert_int_equal(entries_without_tmp(dir), 1);

    /* .mkv, another rate, an odd size (rounded down to even) */
    snprintf(path, sizeof path, "%s/run.mkv", dir);
    const char *argv2[] = {NULL, "laplace2d", "--backend", ks_backend, "--headless", "--grid", "64", "--size", "161x101",
                           "--frames", "12", "--fps", "24", "--record", path, "--no-overlay", NULL};
    ks_test_run(argv2, NULL, &r);
    if (r.exit_code != 0) fail_msg("exit %d; stderr: %s", r.exit_code, r.err);
    check_headless_video(r.out, path, 12, 24, 160, 100);
    assert_int_equal(entries_without_tmp(dir), 2);
}

/* Reads progress lines ("kernelscope: frame N ...", --progress) until one
 * reports at least `frames` frames: the run is that far in, however loaded
 * the machine is (no deadline: an ASan build on a loaded machine took from
 * 85 s to over 120 s to get there; ctest's TIMEOUT is the limit). */
static void wait_for_frames(ks_test_proc *p, long frames)
{
    for (;;) {
        const int got = ks_test_wait_for(p, 2, "kernelscope: frame ", KS_TEST_NO_DEADLINE);
        if (got != 1) fail_msg("no progress line (the run ended); stderr: %s", p->text[1]);
        long n = 0;
        if (sscanf(p->text[1] + p->seen[1], "%ld", &n) == 1 && n >= frames) return;
    }
}

static int finish(ks_test_proc *p)
{
    const int code = ks_test_finish(p, KS_TEST_NO_DEADLINE);
    return code;
}

static void test_record_sigint(void **state)
{
    (void)state;
    char dir[256], path[400];
    ks_test_tmpdir(dir, sizeof dir, "recsig");
    const char *const names[] = {"stop.mp4", "stop.mkv"};
    ks_test_proc *p = malloc(sizeof *p);
    assert_non_null(p);
    for (int k = 0; k < 2; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        const char *argv[] = {"kernelscope", "laplace2d", "--backend", ks_backend, "--headless", "--grid", "96",
                              "--size", "320x200", "--frames", "1000000", "--progress", "--record", path, NULL};
        ks_test_start(p, argv);
        wait_for_frames(p, 10); /* some frames in */
        kill(p->pid, SIGINT);
        const int code = finish(p);
        if (code != 130) fail_msg("exit %d after SIGINT; stderr: %s", code, p->text[1]);
        probe_info pi;
        if (ffprobe(path, &pi) != 0) fail_msg("ffprobe could not read %s after SIGINT", path);
        assert_string_equal(pi.codec, "h264");
        assert_int_equal(pi.width, 320);
        assert_int_equal(pi.height, 200);
        assert_true(pi.frames >= 2);
        /* headless: one frame per 1/60 s of video (more when frames were dropped) */
        const double want = (double)pi.frames / 60.0;
        if (pi.duration < want - 0.02)
            fail_msg("%s: %ld frames but %.3f s", path, pi.frames, pi.duration);
        assert_int_equal(entries_without_tmp(dir), k + 1);
    }

    /* twice: quit at once, the temporary file removed, no video. Slow frames
     * (seconds of CPU time each; the test's reaction to the line, a read and
     * a kill, is far shorter);
     * the second signal goes once the run has said it is stopping after the
     * frame in progress, so the two never merge into one. A sanitizer build's
     * solver is ten times slower: the same CPU time from a tenth of the work
     * (a 2048^2 field there took over 10 minutes a frame on a loaded machine) */
    snprintf(path, sizeof path, "%s/quit.mp4", dir);
#ifdef __SANITIZE_ADDRESS__
    const char *grid = "512", *iters = "500";
#else
    const char *grid = "1024", *iters = "1000";
#endif
    const char *argv[] = {"kernelscope", "laplace2d", "--backend", "cpu", "--headless", "--grid", grid,
                          "--iters", iters, "--size", "320x200", "--frames", "1000000", "--progress", "--record",
                          path, NULL};
    ks_test_start(p, argv);
    wait_for_frames(p, 1); /* the first frame is done: the signal lands in a later one */
    kill(p->pid, SIGINT);
    if (ks_test_wait_for(p, 2, "kernelscope: stopping once this frame", KS_TEST_NO_DEADLINE) != 1)
        fail_msg("no 'stopping' line after SIGINT (the run ended); stderr: %s", p->text[1]);
    kill(p->pid, SIGINT);
    const int code = finish(p);
    if (code != 130) fail_msg("exit %d after two SIGINTs; stderr: %s", code, p->text[1]);
    if (!strstr(p->text[1], "kernelscope: stopped at once"))
        fail_msg("the second SIGINT did not stop the run at once; stderr: %s", p->text[1]);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(entries_without_tmp(dir), 2);
    free(p);
}

static void refused(const char *const *args, const char *expect)
{
    const char *argv[24] = {NULL};
    int n = 1;
    for (; args[n - 1] && n < 23; ++n) argv[n] = args[n - 1];
    ks_run_result r;
    ks_test_run(argv, NULL, &r);
    if (r.exit_code != 2) fail_msg("exit %d for %s ...; stderr: %s", r.exit_code, args[0], r.err);
    if (ks_test_count_lines(r.err) != 1) fail_msg("expected one line, got: %s", r.err);
    if (!strstr(r.err, expect)) fail_msg("expected '%s' in: %s", expect, r.err);
    assert_string_equal(r.out, "");
}

static void test_record_bad_input(void **state)
{
    (void)state;
    char dir[256], sub[400], file[400];
    ks_test_tmpdir(dir, sizeof dir, "recbad");
    snprintf(sub, sizeof sub, "%s/missing/v.mp4", dir);
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    char under_file[500];
    snprintf(under_file, sizeof under_file, "%s/v.mkv", file);
    const char *base[] = {"laplace2d", "--backend", "cpu", "--headless", "--frames", "2"};
#define ARGS(...) (const char *const[]){base[0], base[1], base[2], base[3], base[4], base[5], __VA_ARGS__, NULL}
    refused(ARGS("--record", "video.avi"), "--record: 'video.avi' must name a .mp4 or .mkv file");
    refused(ARGS("--record", "dir/.mp4"), "must name a .mp4 or .mkv file");
    refused(ARGS("--record", ""), "--record: empty file name");
    refused(ARGS("--record", sub), "No such file or directory");
    refused(ARGS("--record", under_file), "Not a directory");
    /* a folder that takes no file although access() says yes (sysfs, for root): refused
     * before the run, not found out when the recorder opens (it was exit 1) */
    char ro[400], in_ro[500];
    if (geteuid() == 0) {
        snprintf(ro, sizeof ro, "/sys/kernel");
    } else {
        snprintf(ro, sizeof ro, "%s/readonly", dir);
        assert_int_equal(mkdir(ro, 0500), 0);
    }
    snprintf(in_ro, sizeof in_ro, "%s/v.mp4", ro);
    struct stat sb;
    if (stat(ro, &sb) == 0 && S_ISDIR(sb.st_mode)) refused(ARGS("--record", in_ro), "--record");
    if (geteuid() != 0) rmdir(ro);
    refused(ARGS("--fps", "0"), "--fps: '0' is not a count of 1..240");
    refused(ARGS("--fps", "abc"), "--fps");
    refused((const char *const[]){"bench", "laplace2d", "--record", "a.mp4", NULL}, "--record does not apply to bench");
#undef ARGS
    /* nothing was made */
    assert_int_equal(entries_without_tmp(dir), 1);

    /* --record inside the --out folder the run makes is fine */
    char out[400], inside[500];
    snprintf(out, sizeof out, "%s/made", dir);
    snprintf(inside, sizeof inside, "%s/v.mp4", out);
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--frames", "3", "--grid", "64",
                          "--size", "128x96", "--out", out, "--record", inside, NULL};
    ks_run_result r;
    ks_test_run(argv, NULL, &r);
    if (r.exit_code != 0) fail_msg("exit %d; stderr: %s", r.exit_code, r.err);
    assert_int_equal(access(inside, F_OK), 0);
}

int main(int argc, char **argv)
{
    const char *only = getenv("KS_TEST_ONLY"); /* e.g. "*sig*": the tests to repeat under load */
    if (only && *only) cmocka_set_test_filter(only);
    if (system("ffprobe -version >/dev/null 2>&1") != 0) {
        printf("ffprobe is not installed: skipped\n");
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        if (!ks_test_have_cuda()) {
            printf("no CUDA device: skipped\n");
            return 77;
        }
        ks_backend = "cuda";
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_headless),
        cmocka_unit_test(test_record_sigint),
        cmocka_unit_test(test_record_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
