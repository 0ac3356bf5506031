/* Hardware counters on the CPU, when there are none: the words of every "no
 * counters" case, CUPTI's results mapped onto them, and create's refusals
 * where no device can be profiled (CUDA_VISIBLE_DEVICES is emptied first, so
 * this holds on a GPU machine too); the library's path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counters/counters.h"
#include "counters/timeline.h"

static void assert_contains(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL) fail_msg("\"%s\" lacks \"%s\"", text, needle);
}

static void test_why_words(void **state)
{
    (void)state;
    char line[768];
    for (int w = 0; w < KS_CTRS_NUM; ++w) {
        ks_counters_why_line((ks_counters_why)w, NULL, line, sizeof line);
        assert_true(strncmp(line, "hardware counters: ", 19) == 0);
        assert_true(ks_counters_why_short((ks_counters_why)w)[0] != '\0');
    }
    const struct {
        ks_counters_why why;
        const char *needle;
    } words[] = {
        {KS_CTRS_NO_CUDA_BUILD, "built without CUDA"},
        {KS_CTRS_NO_CUPTI_BUILD, "built without CUPTI"},
        {KS_CTRS_NO_CUPTI_BUILD, "-DKS_CUPTI=ON"},
        {KS_CTRS_CPU_BACKEND, "CPU backend"},
        {KS_CTRS_NO_DEVICE, "no usable CUDA device"},
        {KS_CTRS_NO_LIBRARY, "KS_CUPTI_LIBRARY"},
        {KS_CTRS_PERMISSION, "NVreg_RestrictProfilingToAdminUsers"},
        {KS_CTRS_PERMISSION, "run as root"},
        {KS_CTRS_OTHER_PROFILER, "Nsight Compute"},
        {KS_CTRS_OTHER_PROFILER, "Nsight Systems"},
        {KS_CTRS_BUSY, "the timeline"},
        {KS_CTRS_DEVICE_UNSUPPORTED, "MIG"},
        {KS_CTRS_DRIVER, "driver"},
        {KS_CTRS_METRIC_ABSENT, "none of the counters"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
        assert_contains(ks_counters_why_line(words[i].why, NULL, line, sizeof line), words[i].needle);
    /* a detail is quoted into the line */
    ks_counters_why_line(KS_CTRS_OTHER_PROFILER, "CUPTI names it \"Nsight Compute\"\n", line, sizeof line);
    assert_contains(line, "(CUPTI names it \"Nsight Compute\"\\n); run kernelscope without it");
    /* small buffers are cut, not overrun */
    char tiny[8];
    ks_counters_why_line(KS_CTRS_PERMISSION, NULL, tiny, sizeof tiny);
    assert_string_equal(tiny, "hardwar");
}

static void test_why_from_cupti(void **state)
{
    (void)state;
    const struct {
        int code;
        ks_counters_why why;
    } map[] = {
        {0, KS_CTRS_OK},
        {35, KS_CTRS_PERMISSION},        /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES */
        {40, KS_CTRS_PERMISSION},        /* ..._VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES */
        {39, KS_CTRS_OTHER_PROFILER},    /* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED */
        {23, KS_CTRS_OTHER_PROFILER},    /* CUPTI_ERROR_DISABLED */
        {36, KS_CTRS_OTHER_PROFILER},    /* CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED */
        {26, KS_CTRS_BUSY},              /* CUPTI_ERROR_HARDWARE_BUSY */
        {27, KS_CTRS_DEVICE_UNSUPPORTED}, /* CUPTI_ERROR_NOT_SUPPORTED */
        {33, KS_CTRS_DEVICE_UNSUPPORTED}, {41, KS_CTRS_DEVICE_UNSUPPORTED}, {42, KS_CTRS_DEVICE_UNSUPPORTED},
        {43, KS_CTRS_DEVICE_UNSUPPORTED}, {44, KS_CTRS_DEVICE_UNSUPPORTED}, {45, KS_CTRS_DEVICE_UNSUPPORTED},
        {46, KS_CTRS_DEVICE_UNSUPPORTED}, {38, KS_CTRS_DEVICE_UNSUPPORTED},
        {15, KS_CTRS_DRIVER},            /* CUPTI_ERROR_NOT_INITIALIZED */
        {17, KS_CTRS_METRIC_ABSENT},     /* CUPTI_ERROR_INVALID_METRIC_NAME */
        {1, KS_CTRS_FAILED},             {999, KS_CTRS_FAILED},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
        assert_int_equal(ks_counters_why_from_cupti(map[i].code), map[i].why);
}

static void test_fail_sets_case(void **state)
{
    (void)state;
    assert_int_equal(ks_counters_fail(KS_CTRS_PERMISSION, "cuptiRangeProfilerEnable returned X"),
                     KS_ERR_UNSUPPORTED);
    assert_int_equal(ks_counters_last_why(), KS_CTRS_PERMISSION);
    assert_contains(ks_error_message(), "NVreg_RestrictProfilingToAdminUsers");
    assert_contains(ks_error_message(), "(cuptiRangeProfilerEnable returned X)");
    assert_int_equal(ks_counters_fail(KS_CTRS_NO_DEVICE, NULL), KS_ERR_NO_DEVICE);
    assert_int_equal(ks_counters_fail(KS_CTRS_FAILED, "x"), KS_ERR_CUDA);
    assert_int_equal(ks_counters_fail(KS_CTRS_OK, "x"), KS_ERR_CUDA); /* never a failure that says OK */
    assert_int_equal(ks_counters_last_why(), KS_CTRS_FAILED);
    ks_counters_set_last_why(KS_CTRS_OK);
}

/* create refuses with its case and words: the CPU backend, and a machine
 * whose devices are all hidden; a build without CUPTI says so instead. */
static void test_create_refusals(void **state)
{
    (void)state;
    assert_int_equal(ks_counters_built(), KS_HAVE_CUPTI);
    const char *build_words = KS_HAVE_CUDA ? "built without CUPTI" : "built without CUDA";
    const ks_counters_why build_why = KS_HAVE_CUDA ? KS_CTRS_NO_CUPTI_BUILD : KS_CTRS_NO_CUDA_BUILD;

    ks_counters *c = (ks_counters *)&c; /* set to NULL on failure */
    ks_counters_desc d = {0};
    d.cpu_backend = 1;
    assert_int_not_equal(ks_counters_create(&d, &c), KS_OK);
    assert_null(c);
    assert_contains(ks_error_message(), KS_HAVE_CUPTI ? "CPU backend" : build_words);
    assert_int_equal(ks_counters_last_why(), KS_HAVE_CUPTI ? KS_CTRS_CPU_BACKEND : build_why);

    d.cpu_backend = 0;
    d.max_kernels = KS_COUNTERS_MAX_KERNELS + 1;
    assert_int_equal(ks_counters_create(&d, &c), KS_HAVE_CUPTI ? KS_ERR_INVALID : KS_ERR_UNSUPPORTED);

    d.max_kernels = 0;
    assert_int_not_equal(ks_counters_create(&d, &c), KS_OK);
    assert_null(c);
    assert_contains(ks_error_message(), KS_HAVE_CUPTI ? "no usable CUDA device" : build_words);
    assert_int_equal(ks_counters_last_why(), KS_HAVE_CUPTI ? KS_CTRS_NO_DEVICE : build_why);

    ks_timeline *tl = (ks_timeline *)&tl;
    ks_timeline_desc td = {0};
    assert_int_not_equal(ks_timeline_create(&td, &tl), KS_OK);
    assert_null(tl);
    assert_contains(ks_error_message(), KS_HAVE_CUPTI ? "no usable CUDA device" : build_words);
    td.interval_us = 10; /* outside 20..100 */
    if (KS_HAVE_CUPTI) assert_int_equal(ks_timeline_create(&td, &tl), KS_ERR_INVALID);
}

/* The library: a path that is not there is one line naming it; the toolkit's loads (no GPU needed). */
static void test_library(void **state)
{
    (void)state;
    char path[512] = "x";
    setenv("KS_CUPTI_LIBRARY", "/nonexistent/libcupti.so.99", 1);
    assert_int_equal(ks_counters_library(path, sizeof path), KS_ERR_UNSUPPORTED);
    if (KS_HAVE_CUPTI) {
        assert_int_equal(ks_counters_last_why(), KS_CTRS_NO_LIBRARY);
        assert_contains(ks_error_message(), "libcupti");
        assert_contains(ks_error_message(), "/nonexistent/libcupti.so.99");
        assert_contains(ks_error_message(), "KS_CUPTI_LIBRARY");
    }
    unsetenv("KS_CUPTI_LIBRARY");
    const ks_status st = ks_counters_library(path, sizeof path);
    if (KS_HAVE_CUPTI) {
        if (st != KS_OK) fail_msg("%s", ks_error_message());
        assert_non_null(strstr(path, "libcupti"));
        print_message("  libcupti: %s\n", path);
    } else {
        assert_int_equal(st, KS_ERR_UNSUPPORTED);
        assert_string_equal(path, "");
    }
}

int main(void)
{
    /* no device may be profiled here, whatever the machine has */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_why_words),
        cmocka_unit_test(test_why_from_cupti),
        cmocka_unit_test(test_fail_sets_case),
        cmocka_unit_test(test_create_refusals),
        cmocka_unit_test(test_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
