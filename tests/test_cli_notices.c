/* What a run says besides its work (issue 34 item 12): no OpenMP line on a
 * live run (a bench still says it: its figures depend on it), no NVENC line
 * where there is no NVIDIA driver (the device probe has said so, in one
 * line), and `kernelscope SCENE --help` that scene's options, not all 240
 * lines. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) ++n;
    return n;
}

static void test_live_run_has_no_openmp_line(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "notices");
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--grid", "33", "--size", "64x64",
                          "--frames", "2", "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0 && strstr(r.err, "EGL")) skip();
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    if (strstr(r.out, "OpenMP") || strstr(r.err, "OpenMP")) fail_msg("a live run names OpenMP: %s%s", r.out, r.err);
    assert_non_null(strstr(r.out, "laplace2d: 2 frames"));
}

/* Without libcuda.so.1 nothing can open an NVENC session: libx264 is the encoder and nothing
 * is said of it (a CUDA build has said "no NVIDIA driver found" once already). */
static void test_no_nvenc_line_without_driver(void **state)
{
    (void)state;
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver) {
        dlclose(driver);
        skip(); /* a machine with the driver: NVENC may open, or say why not */
    }
    char dir[256], video[320];
    ks_test_tmpdir(dir, sizeof dir, "nvenc");
    snprintf(video, sizeof video, "%s/run.mp4", dir);
    const char *argv[] = {NULL, "laplace2d", "--headless", "--grid", "33", "--size", "64x64", "--frames", "3",
                          "--record", video, "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0 && (strstr(r.err, "EGL") || strstr(r.err, "without video"))) skip();
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    if (strstr(r.err, "NVENC")) fail_msg("an NVENC line without a driver: %s", r.err);
    if (count(r.err, "NVIDIA") > 1) fail_msg("the missing driver said more than once: %s", r.err);
    assert_true(strstr(r.out, "run.mp4") || strstr(r.err, "run.mp4"));
}

static void run_help(const char *const *args, ks_run_result *r)
{
    const char *argv[8] = {NULL};
    for (int i = 0; args[i] && i < 6; ++i) argv[i + 1] = args[i];
    assert_int_equal(ks_test_run(argv, NULL, r), 0);
    assert_int_equal(r->exit_code, 0);
}

static void test_scene_help(void **state)
{
    (void)state;
    ks_run_result *all = malloc(sizeof *all), *r = malloc(sizeof *r);
    assert_non_null(all);
    assert_non_null(r);
    run_help((const char *const[]){"--help", NULL}, all);
    run_help((const char *const[]){"laplace2d", "--help", NULL}, r);
    const int lines = ks_test_count_lines(r->out), all_lines = ks_test_count_lines(all->out);
    if (lines * 2 > all_lines) fail_msg("laplace2d --help: %d lines of --help's %d", lines, all_lines);
    assert_non_null(strstr(r->out, "usage: kernelscope laplace2d [options]"));
    assert_non_null(strstr(r->out, "  --grid N"));             /* its own flags in full */
    assert_non_null(strstr(r->out, "  --iters K|auto "));
    assert_non_null(strstr(r->out, "  --backend cuda|cpu  ")); /* every view's, in brief */
    assert_non_null(strstr(r->out, "laplace2d kernel contract"));
    assert_non_null(strstr(r->out, "Tab        next kernel variant")); /* its keys */
    assert_non_null(strstr(r->out, "kernelscope --help"));     /* and how to get all */
    assert_null(strstr(r->out, "--spheres"));                  /* no other scene's */
    assert_null(strstr(r->out, "laplace3d kernel contract"));
    assert_null(strstr(r->out, "--weak"));                     /* a bench's flag */
    assert_non_null(strstr(all->out, "--spheres"));            /* --help alone: everything */
    assert_non_null(strstr(all->out, "laplace3d kernel contract"));
    /* a bench's: its flags, in its own words (reduce's --kernel names reduce's variants) */
    run_help((const char *const[]){"bench", "reduce", "--help", NULL}, r);
    assert_non_null(strstr(r->out, "usage: kernelscope bench reduce [options]"));
    assert_non_null(strstr(r->out, "sum_atomic"));
    assert_null(strstr(r->out, "kmarch"));
    assert_non_null(strstr(r->out, "  --reps N"));
    free(all);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_run_has_no_openmp_line),
        cmocka_unit_test(test_no_nvenc_line_without_driver),
        cmocka_unit_test(test_scene_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
