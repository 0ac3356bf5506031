/* The counters of a build without CUPTI (counters_none.c, compiled into this
 * test in every build): each entry point refuses with the build's case and
 * one line that says how to get counters, and nothing crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "counters/counters.h"
#include "counters/timeline.h"

static ks_status no_launch(void *user, void *stream)
{
    (void)user;
    (void)stream;
    return KS_OK;
}

static void check_refusal(ks_status st)
{
    assert_int_equal(st, KS_ERR_UNSUPPORTED);
    const char *msg = ks_error_message();
    if (KS_HAVE_CUDA) {
        assert_int_equal(ks_counters_last_why(), KS_CTRS_NO_CUPTI_BUILD);
        assert_non_null(strstr(msg, "hardware counters: kernelscope was built without CUPTI"));
        assert_non_null(strstr(msg, "-DKS_CUPTI=ON"));
    } else {
        assert_int_equal(ks_counters_last_why(), KS_CTRS_NO_CUDA_BUILD);
        assert_non_null(strstr(msg, "hardware counters: kernelscope was built without CUDA"));
        assert_non_null(strstr(msg, "-DKS_CUDA=ON"));
    }
    ks_counters_set_last_why(KS_CTRS_OK);
}

static void test_none(void **state)
{
    (void)state;
    assert_int_equal(ks_counters_built(), 0);
    char path[64] = "x";
    check_refusal(ks_counters_library(path, sizeof path));
    assert_string_equal(path, "");
    ks_counters *c = (ks_counters *)&c;
    check_refusal(ks_counters_create(NULL, &c));
    assert_null(c);
    ks_counters_desc d = {0};
    d.cpu_backend = 1; /* the build's reason comes first: it is what to fix */
    check_refusal(ks_counters_create(&d, &c));
    ks_counter_set s;
    memset(&s, 0xA5, sizeof s);
    check_refusal(ks_counters_measure(NULL, no_launch, NULL, NULL, &s));
    assert_int_equal(s.nkernels, 0);
    ks_counters_describe(NULL, &s);
    assert_string_equal(s.chip, "");
    ks_counters_destroy(NULL);
    check_refusal(ks_counters_list_metrics(0, 0, NULL, NULL, NULL));

    ks_timeline *tl = (ks_timeline *)&tl;
    check_refusal(ks_timeline_create(NULL, &tl));
    assert_null(tl);
    check_refusal(ks_timeline_start(NULL));
    check_refusal(ks_timeline_stop(NULL));
    check_refusal(ks_timeline_flush(NULL));
    int ns = 7, nsp = 7;
    check_refusal(ks_timeline_read(NULL, NULL, 0, &ns, NULL, 0, &nsp));
    assert_int_equal(ns, 0);
    assert_int_equal(nsp, 0);
    ks_timeline_info info;
    ks_timeline_get_info(NULL, &info);
    assert_int_equal(info.samples, 0);
    ks_timeline_destroy(NULL);
    /* the CSV of a run without counters: blanks */
    char row[64];
    ks_counters_csv_values(NULL, 0, 0.0, row, sizeof row);
    assert_string_equal(row, ",,,,,,,,");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_none)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
