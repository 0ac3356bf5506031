/* The course's kernels with their kernelscope: line, no GPU needed: each file
 * under examples/course/ compiles as kernelscope compiles it (the line read,
 * its launch values appended for the compiler to evaluate: the file's macros
 * too); a malformed line is one line of error naming the file and its line,
 * exit 2, in the live view's and the bench's start-up alike. The reduce and
 * histogram examples' lines are accepted by their scenes, and lines those
 * scenes cannot launch are refused, each in one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/user/kernel_decl.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/histogram/histogram_user.h"
#include "kernels/reduce/reduce_user.h"
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

/* Lecture 4's sum and the slides' three histograms (examples/course/): each compiles as kernelscope
 * compiles it, and its scene accepts its line (roles, grid, block, shared memory) as written. */
static void test_reduce_histogram_examples(void **state)
{
    (void)state;
    const char *const files[][2] = {{"reduce", "reduce_sum.cu"},
                                    {"histogram", "histo_global.cu"},
                                    {"histogram", "histo_stride.cu"},
                                    {"histogram", "histo_shared.cu"}};
    for (int f = 0; f < 4; ++f) {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/course/%s", KS_SOURCE_DIR, files[f][1]);
        ks_test_run((const char *const[]){NULL, files[f][0], "--backend", "cpu", "--kernel-file", path, NULL}, NULL,
                    &r);
        if (r.exit_code != 2 || ks_test_count_lines(r.err) != 1) fprintf(stderr, "%s: %s", files[f][1], r.err);
        assert_int_equal(r.exit_code, 2);
        assert_int_equal(ks_test_count_lines(r.err), 1);
        if (ks_nvrtc_built()) assert_non_null(strstr(r.err, "compiles (for sm_90, the default without a device)"));
        char *text = ks_test_read_file(path);
        assert_non_null(text);
        ks_kdecl d;
        assert_int_equal(ks_kdecl_parse(text, files[f][1], &d), KS_OK);
        free(text);
        assert_true(d.present);
        const ks_status st = f == 0 ? ks_reduce_decl_check(&d, files[f][1]) : ks_hist_decl_check(&d, files[f][1]);
        if (st != KS_OK) fprintf(stderr, "%s\n", ks_error_message());
        assert_int_equal(st, KS_OK);
        if (f == 0) { /* sum(float *d_sum, float *d_data): partials first, no n */
            assert_string_equal(d.entry, "sum");
            assert_int_equal(ks_kdecl_arg_index(&d, "partials"), 0);
            assert_int_equal(ks_kdecl_arg_index(&d, "x"), 1);
            assert_int_equal(ks_kdecl_arg_index(&d, "n"), -1);
            assert_int_equal(d.grid, KS_KDECL_GRID_COVER);
            assert_int_equal(ks_kdecl_shared(&d, 256), 1024); /* a float a thread */
            assert_true(d.multiple);
            assert_int_equal(ks_reduce_decl_round(&d, 256, 100003), 100096);
            assert_int_equal(ks_reduce_decl_round(&d, 256, 1), 256);
        } else { /* (unsigned char *buffer, long size, unsigned int *histo) */
            assert_int_equal(ks_kdecl_arg_bytes(&d.args[1]), 8);
            assert_int_equal(d.grid, f == 1 ? KS_KDECL_GRID_COVER : KS_KDECL_GRID_SM);
            if (f > 1) {
                assert_int_equal(d.value[KS_KDECL_V_SM], 2);
                assert_int_equal(d.value[KS_KDECL_V_BX], 256);
            }
        }
    }
}

/* Lines the reduce and histogram scenes refuse, each in one line that says why. */
static void test_reduce_histogram_lines_refused(void **state)
{
    (void)state;
    static const struct {
        int histogram;
        const char *line, *says;
    } bad[] = {
        {0, "sum(partials, x, out) grid=cover", "names one of out (it adds into *out) or partials (one float a block, "
                                               "added up by kernelscope), not both"},
        {0, "sum(x, n) grid=cover", "and has neither"},
        {0, "sum(partials) grid=cover", "this scene needs the argument 'x'"},
        {0, "sum(partials, x) grid=domain", "grid=domain is not a launch of this scene"},
        {0, "sum(partials, x, int nx) grid=cover", "'nx' is not one of this scene's arguments (x n out partials)"},
        {0, "sum(partials, x) grid=cover block=16,16", "a reduce kernel's block is one number"},
        {1, "h(data, n) grid=cover", "this scene needs the argument 'bins'"},
        {1, "h(data, long n, bins) grid=cover multiple", "no multiple"},
        {1, "h(data, n, bins) grid=columns", "grid=columns is not a launch of this scene"},
        {1, "h(data, n, bins) grid=sm:2 block=16,16", "a histogram kernel's block is one number"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        ks_kdecl d;
        assert_int_equal(ks_kdecl_parse_line(bad[k].line, "bad.cu", 1, &d), KS_OK);
        const ks_status st = bad[k].histogram ? ks_hist_decl_check(&d, "bad.cu") : ks_reduce_decl_check(&d, "bad.cu");
        assert_int_equal(st, KS_ERR_INVALID);
        if (!strstr(ks_error_message(), bad[k].says)) fprintf(stderr, "%s: %s\n", bad[k].line, ks_error_message());
        assert_non_null(strstr(ks_error_message(), bad[k].says));
        assert_non_null(strstr(ks_error_message(), "bad.cu: "));
    }
    /* not multiple: sizes as they are */
    ks_kdecl d;
    assert_int_equal(ks_kdecl_parse_line("sum(partials, x) grid=cover", "ok.cu", 1, &d), KS_OK);
    assert_int_equal(ks_reduce_decl_round(&d, 256, 100003), 100003);
    assert_int_equal(ks_reduce_decl_round(NULL, 256, 37), 37);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_compile),
        cmocka_unit_test(test_bad_line),
        cmocka_unit_test(test_reduce_histogram_examples),
        cmocka_unit_test(test_reduce_histogram_lines_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
