/* The course's kernels with their kernelscope: line, no GPU needed: each file
 * under examples/course/ compiles as kernelscope compiles it (the line read,
 * its launch values appended for the compiler to evaluate: the file's macros
 * too); a malformed line is one line of error naming the file and its line,
 * exit 2, in the live view's and the bench's start-up alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/nvrtc_compile.h"
#include "tests/test_util.h"

static ks_run_result r;

static void test_examples_compile(void **state)
{
    (void)state;
    const char *const files[][2] = {{"laplace3d", "laplace3d_kmarch.cu"},
                                    {"laplace3d", "laplace3d_block3d.cu"},
                                    {"laplace2d", "lap2d_multiple.cu"},
                                    {"laplace2d", "lap2d.cu"}};
    for (int f = 0; f < 4; ++f) {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/course/%s", KS_SOURCE_DIR, files[f][1]);
        ks_test_run((const char *const[]){NULL, files[f][0], "--backend", "cpu", "--kernel-file", path, NULL}, NULL,
                    &r);
        if (r.exit_code != 2 || ks_test_count_lines(r.err) != 1) fprintf(stderr, "%s: %s", files[f][1], r.err);
        assert_int_equal(r.exit_code, 2);
        assert_int_equal(ks_test_count_lines(r.err), 1);
        if (ks_nvrtc_built()) assert_non_null(strstr(r.err, "compiles (for sm_90, the default without a device)"));
    }
}

static void test_bad_line(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "kdecl");
    snprintf(path, sizeof path, "%s/bad.cu", dir);
    ks_test_write_file(path, "#define B 32\n"
                             "// kernelscope: lap(int nx, int ny, u, v) grid=rows block=B\n"
                             "__global__ void lap(int I, int J, const float *u1, float *u2) {}\n");
    /* the live view's start-up, then the bench's */
    const char *const live[] = {NULL, "laplace2d", "--backend", "cpu", "--kernel-file", path, NULL};
    const char *const bench[] = {NULL, "bench", "laplace2d", "--backend", "cpu", "--kernel-file", path, NULL};
    const char *const *const runs[] = {live, bench};
    for (int s = 0; s < 2; ++s) {
        ks_test_run(runs[s], NULL, &r);
        assert_int_equal(r.exit_code, 2);
        assert_int_equal(ks_test_count_lines(r.err), 1);
        assert_non_null(strstr(r.err, "bad.cu:2: kernelscope: grid=rows: the grid is interior, domain, columns, cover "
                                      "or sm:N"));
    }
    /* a second line */
    ks_test_write_file(path, "// kernelscope: lap(nx, ny, u, v)\n// kernelscope: lap(nx, ny, u, v)\n");
    ks_test_run((const char *const[]){NULL, "laplace2d", "--backend", "cpu", "--kernel-file", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "bad.cu:2: kernelscope: a second declaration (the first is on line 1)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_compile),
        cmocka_unit_test(test_bad_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
