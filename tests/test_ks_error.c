/* ks_error: the escaped quoting every message that quotes input goes
 * through (ks_quote), and the host-memory check's arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/ks_error.h"

static const char *q(const char *in, size_t out_len)
{
    static char buf[512];
    assert_true(out_len <= sizeof buf);
    return ks_quote(in, buf, out_len);
}

static void test_quote_escapes(void **state)
{
    (void)state;
    assert_string_equal(q("plain 1.5e3", 64), "plain 1.5e3");
    assert_string_equal(q("1\r", 64), "1\\r");
    assert_string_equal(q("\x1b[31mRED", 64), "\\x1b[31mRED");
    assert_string_equal(q("a\tb\nc\x7f", 64), "a\\tb\\nc\\x7f");
    assert_string_equal(q("back\\slash", 64), "back\\\\slash");
    assert_string_equal(q("\xff\xfe", 64), "\\xff\\xfe");
    assert_string_equal(q("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82", 64), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
    assert_string_equal(q("\xc2\x9b" "2J", 64), "\\xc2\\x9b2J"); /* C1 CSI */
    assert_string_equal(q("\xc0\xaf", 64), "\\xc0\\xaf");          /* overlong '/' */
    assert_string_equal(q("\xed\xa0\x80", 64), "\\xed\\xa0\\x80"); /* a surrogate */
    assert_string_equal(q("\xe2\x82", 64), "\\xe2\\x82");          /* cut short */
    assert_string_equal(q(NULL, 64), "");
    char buf[8];
    assert_string_equal(ks_quote_n("a\0b", 3, buf, sizeof buf), "a\\x00b"); /* 6 bytes: fits */
}

static void test_quote_cuts_between_pieces(void **state)
{
    (void)state;
    assert_string_equal(q("abcdefgh", 9), "abcdefgh");
    assert_string_equal(q("abcdefghi", 9), "abcde...");
    assert_string_equal(q("ab\x1b" "cdefgh", 9), "ab...");   /* no half escape */
    assert_string_equal(q("ab\xe2\x82\xac" "cdefgh", 9), "ab\xe2\x82\xac..."); /* no half character */
    assert_string_equal(q("abc", 2), ""); /* no room for "..." either */
    assert_string_equal(q("abc", 1), "");
}

/* A library call's failure: the whole text for us, its cause alone for users (no call, file or line). */
static void test_call_cause(void **state)
{
    (void)state;
    assert_int_equal(ks_fail_call(KS_ERR_CUDA, "cudaMemcpyAsync(host, s->cur)", "an illegal memory access was encountered",
                                  "/build/kernels/laplace/laplace_gpu.cu", 156),
                     KS_ERR_CUDA);
    assert_string_equal(ks_error_message(), "cudaMemcpyAsync(host, s->cur) failed: an illegal memory access was "
                                            "encountered (/build/kernels/laplace/laplace_gpu.cu:156)");
    assert_string_equal(ks_error_cause(), "an illegal memory access was encountered");
    ks_error_prefix("running it");
    assert_string_equal(ks_error_cause(), "an illegal memory access was encountered");
    ks_fail(KS_ERR_INVALID, "a plain failure"); /* no library call: its whole text */
    assert_string_equal(ks_error_cause(), "a plain failure");
    ks_error_clear();
    assert_string_equal(ks_error_cause(), "");
}

static void test_host_memory_check(void **state)
{
    (void)state;
    const double avail = ks_host_memory_available();
    if (avail <= 0.0) skip();
    assert_int_equal(ks_host_memory_check(1024.0, "a kilobyte"), KS_OK);
    ks_error_clear();
    assert_int_equal(ks_host_memory_check(avail * 4.0, "grid 9x9x9"), KS_ERR_OUT_OF_MEMORY);
    assert_non_null(strstr(ks_error_message(), "grid 9x9x9 needs "));
    assert_non_null(strstr(ks_error_message(), "GiB of host memory, "));
    assert_non_null(strstr(ks_error_message(), "GiB available"));
    /* the margin: all of what is available is already too much */
    assert_int_equal(ks_host_memory_check(avail, "all of it"), KS_ERR_OUT_OF_MEMORY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_escapes),
        cmocka_unit_test(test_quote_cuts_between_pieces),
        cmocka_unit_test(test_host_memory_check),
        cmocka_unit_test(test_call_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
