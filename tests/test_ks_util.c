/* base/ks_util: clock, medians, bounded appends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/cpu_threads.h"
#include "base/ks_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static void test_median(void **state)
{
    (void)state;
    double odd[] = {5.0, -1.0, 3.0};
    assert_true(ks_median_sort(odd, 3) == 3.0);
    assert_true(odd[0] == -1.0 && odd[2] == 5.0); /* sorted in place */
    double even[] = {4.0, 1.0, 3.0, 2.0};
    assert_true(ks_median_sort(even, 4) == 2.5);
    double one[] = {7.0};
    assert_true(ks_median_sort(one, 1) == 7.0);
    assert_true(ks_median_sort(NULL, 0) == 0.0);
}

static void test_clock_monotonic(void **state)
{
    (void)state;
    const double a = ks_now_seconds();
    const double b = ks_now_seconds();
    assert_true(a > 0.0);
    assert_true(b >= a);
}

static void test_text_append(void **state)
{
    (void)state;
    char buf[8];
    size_t used = 0;
    assert_int_equal(ks_text_append(buf, sizeof buf, &used, "%s", "abc"), 0);
    assert_int_equal(ks_text_append(buf, sizeof buf, &used, "%d", 12), 0);
    assert_string_equal(buf, "abc12");
    assert_int_equal(used, 5);
    /* Too long: cut, terminated, and later appends do nothing. */
    assert_int_equal(ks_text_append(buf, sizeof buf, &used, "%s", "wxyz"), -1);
    assert_string_equal(buf, "abc12wx");
    assert_int_equal(used, 7);
    assert_int_equal(ks_text_append(buf, sizeof buf, &used, "q"), -1);
    assert_string_equal(buf, "abc12wx");
}

static void test_text_measure(void **state)
{
    (void)state;
    size_t need = 0;
    ks_text_measure(NULL, 0, &need, "%s-%d", "ab", 123); /* measure only */
    assert_int_equal(need, 6);
    char buf[4];
    size_t used = 0;
    ks_text_measure(buf, sizeof buf, &used, "%s-%d", "ab", 123);
    assert_int_equal(used, 6); /* counts past the end */
    assert_string_equal(buf, "ab-");
}

static void test_csv_quote_and_utf8(void **state)
{
    (void)state;
    char out[32];
    ks_csv_quote("GPU \"X\", 80GB", out, sizeof out);
    assert_string_equal(out, "\"GPU \"\"X\"\", 80GB\"");
    ks_csv_quote("abcdefgh", out, 6); /* cut to fit, still quoted and terminated */
    assert_string_equal(out, "\"ab\"");
    const unsigned char e_acute[] = {0xC3, 0xA9}, overlong[] = {0xC0, 0xAF}, surrogate[] = {0xED, 0xA0, 0x80},
                        euro[] = {0xE2, 0x82, 0xAC};
    assert_int_equal(ks_utf8_seq_len(e_acute, 2), 2);
    assert_int_equal(ks_utf8_seq_len(e_acute, 1), 0); /* cut short */
    assert_int_equal(ks_utf8_seq_len(overlong, 2), 0);
    assert_int_equal(ks_utf8_seq_len(surrogate, 3), 0);
    assert_int_equal(ks_utf8_seq_len(euro, 3), 3);
}

/* The CPU backend's OpenMP policy: small regions on one thread, large ones on
 * every thread; a program that links it runs with passive waiting unless the
 * environment chose (it started itself again with OMP_WAIT_POLICY=passive). */
static void test_cpu_threads_policy(void **state)
{
    (void)state;
    assert_int_equal(ks_cpu_threads(0), 1);
    assert_int_equal(ks_cpu_threads(64 * 64), 1);   /* a 64^2 Jacobi step: microseconds of work */
    assert_int_equal(ks_cpu_threads(128 * 128), 1);
    char text[256];
    ks_cpu_policy_text(text, sizeof text);
#ifdef _OPENMP
    const int most = omp_get_max_threads();
    assert_int_equal(ks_cpu_threads((size_t)1 << 30), most);
    assert_true(ks_cpu_threads((size_t)2 * KS_CPU_ITEMS_PER_THREAD) == (most < 2 ? most : 2));
    /* unset here means the start-up did not add it; another value is the caller's own choice */
    const char *wait = getenv("OMP_WAIT_POLICY");
    if (!wait && !getenv("GOMP_SPINCOUNT")) fail_msg("OMP_WAIT_POLICY unset: the program did not choose passive waiting");
    if (wait && strcmp(wait, "passive") == 0) assert_non_null(strstr(text, "passive waiting"));
    char threads[32];
    snprintf(threads, sizeof threads, "%d OpenMP thread", most);
    assert_non_null(strstr(text, threads));
#else
    assert_non_null(strstr(text, "without OpenMP"));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_cpu_threads_policy),
        cmocka_unit_test(test_clock_monotonic),
        cmocka_unit_test(test_text_append),
        cmocka_unit_test(test_text_measure),
        cmocka_unit_test(test_csv_quote_and_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
