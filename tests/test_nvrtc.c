/* app/kernel/nvrtc_compile.h: NVRTC's log as "file:line: message" lines
 * (every build), and where the toolkit has NVRTC a source that compiles, one
 * with a syntax error, and the default architecture. No GPU needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/nvrtc_compile.h"

static void test_log_lines(void **state)
{
    (void)state;
    const char *log = "mine.cu(3): error: identifier \"y\" is undefined\n"
                      "      v[0] = y;\n"
                      "             ^\n\n"
                      "mine.cu(7): warning #177-D: variable \"q\" was declared but never referenced\n"
                      "other.h(2): error: not ours\n"
                      "1 error detected in the compilation of \"mine.cu\".\n";
    int errors = -1;
    char *lines = ks_nvrtc_log_lines(log, "mine.cu", &errors);
    assert_non_null(lines);
    assert_string_equal(lines, "mine.cu:3: error: identifier \"y\" is undefined\n"
                               "mine.cu:7: warning #177-D: variable \"q\" was declared but never referenced\n");
    assert_int_equal(errors, 1);
    free(lines);
}

static void test_log_odd(void **state)
{
    (void)state;
    int errors = -1;
    char *lines = ks_nvrtc_log_lines("", "a.cu", &errors); /* empty: no lines */
    assert_string_equal(lines, "");
    assert_int_equal(errors, 0);
    free(lines);
    lines = ks_nvrtc_log_lines("nvrtc error: invalid option\n", "a.cu", &errors); /* no location */
    assert_string_equal(lines, "a.cu: nvrtc error: invalid option\n");
    assert_int_equal(errors, 1);
    free(lines);
    lines = ks_nvrtc_log_lines("a.cu(1): error: bad \x1b[31m byte\n", "a.cu", &errors); /* escaped */
    assert_string_equal(lines, "a.cu:1: error: bad \\x1b[31m byte\n");
    free(lines);
}

static void test_compile_ok(void **state)
{
    (void)state;
    if (!ks_nvrtc_built()) {
        ks_nvrtc_result r;
        assert_int_equal(ks_nvrtc_compile(&(ks_nvrtc_desc){.source = ""}, &r), KS_ERR_UNSUPPORTED);
        assert_non_null(strstr(ks_error_message(), "NVRTC is not in this"));
        skip();
    }
    const char *src = "extern \"C\" __global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n";
    ks_nvrtc_result r;
    assert_int_equal(ks_nvrtc_compile(&(ks_nvrtc_desc){.source = src, .name = "k.cu"}, &r), KS_OK);
    assert_int_equal(r.cc_major, 9); /* no device given: sm_90 */
    assert_int_equal(r.cc_minor, 0);
    assert_non_null(r.code);
    assert_non_null(strstr(r.code, ".entry k"));
    assert_non_null(strstr(r.code, ".target sm_90"));
    assert_int_equal(r.errors, 0);
    ks_nvrtc_result_free(&r);
    /* machine code for a named architecture */
    assert_int_equal(ks_nvrtc_compile(&(ks_nvrtc_desc){.source = src, .cc_major = 8, .cc_minor = 0, .cubin = 1}, &r),
                     KS_OK);
    assert_true(r.cubin && r.code_size > 4 && memcmp(r.code, "\x7f" "ELF", 4) == 0);
    ks_nvrtc_result_free(&r);
}

static void test_compile_errors(void **state)
{
    (void)state;
    if (!ks_nvrtc_built()) skip();
    const char *src = "extern \"C\" __global__ void k(float *p)\n"
                      "{\n"
                      "    p[threadIdx.x] = nope;\n"
                      "    p[0] = 1.0f\n"
                      "}\n";
    ks_nvrtc_result r;
    assert_int_equal(ks_nvrtc_compile(&(ks_nvrtc_desc){.source = src, .name = "bad.cu"}, &r), KS_ERR_PARSE);
    assert_null(r.code);
    assert_int_equal(r.errors, 2);
    assert_string_equal(r.lines, "bad.cu:3: error: identifier \"nope\" is undefined\n"
                                 "bad.cu:5: error: expected a \";\"\n");
    assert_string_equal(ks_error_message(), "bad.cu: 2 errors");
    ks_nvrtc_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_lines),
        cmocka_unit_test(test_log_odd),
        cmocka_unit_test(test_compile_ok),
        cmocka_unit_test(test_compile_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
