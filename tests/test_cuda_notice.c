/* base/cuda_notice.c: the words of the no-device notice for each
 * thing the probe can learn (no build, no driver, old driver, no device). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "base/cuda_device.h"

static const char *reason(ks_cuda_probe_facts f)
{
    static char buf[256];
    memset(buf, 'x', sizeof buf);
    return ks_cuda_probe_reason(&f, buf, sizeof buf);
}

static void test_no_build_no_driver(void **state)
{
    (void)state;
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 0}), "built without CUDA");
    /* libcuda.so.1 missing: the static runtime says "insufficient driver"; it is no driver. */
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 0,
                                                     .runtime_version = 13000,
                                                     .error = KS_PROBE_ERR_INSUFFICIENT_DRIVER}),
                        "no NVIDIA driver found");
    /* A library that loads but reports no driver version. */
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 0, .runtime_version = 13000,
                                                     .error = KS_PROBE_ERR_INSUFFICIENT_DRIVER}),
                        "no NVIDIA driver found");
}

static void test_old_driver(void **state)
{
    (void)state;
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 12020, .runtime_version = 13000,
                                                     .error = KS_PROBE_ERR_INSUFFICIENT_DRIVER}),
                        "the NVIDIA driver supports CUDA 12.2 but this build needs CUDA 13.0 (driver >= 580)");
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 11040, .runtime_version = 12080,
                                                     .error = KS_PROBE_ERR_INSUFFICIENT_DRIVER}),
                        "the NVIDIA driver supports CUDA 11.4 but this build needs CUDA 12.8 (driver >= 525)");
    /* A version the table does not know points to the release notes. */
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 13000, .runtime_version = 14010,
                                                     .error = KS_PROBE_ERR_INSUFFICIENT_DRIVER}),
                        "the NVIDIA driver supports CUDA 13.0 but this build needs CUDA 14.1 "
                        "(see NVIDIA's CUDA Toolkit release notes)");
    assert_int_equal(ks_cuda_min_driver(11080), 450);
    assert_int_equal(ks_cuda_min_driver(12000), 525);
    assert_int_equal(ks_cuda_min_driver(13000), 580);
    assert_int_equal(ks_cuda_min_driver(10020), 0);
}

static void test_no_device(void **state)
{
    (void)state;
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 13000, .runtime_version = 13000,
                                                     .error = KS_PROBE_ERR_NO_DEVICE}),
                        "no CUDA device found");
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 13000, .runtime_version = 13000,
                                                     .error = KS_PROBE_ERR_NONE, .device_count = 0}),
                        "no CUDA device found");
    /* A newer driver than the runtime is fine; any other failure keeps CUDA's own words. */
    assert_string_equal(reason((ks_cuda_probe_facts){.built_with_cuda = 1, .driver_loadable = 1,
                                                     .driver_version = 13010, .runtime_version = 13000,
                                                     .error = KS_PROBE_ERR_OTHER,
                                                     .error_text = "all CUDA-capable devices are busy"}),
                        "no usable CUDA device (all CUDA-capable devices are busy)");
}

static void test_small_buffer(void **state)
{
    (void)state;
    char buf[8];
    ks_cuda_probe_facts f = {.built_with_cuda = 1};
    assert_ptr_equal(ks_cuda_probe_reason(&f, buf, sizeof buf), buf);
    assert_string_equal(buf, "no NVID"); /* cut, always terminated */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_build_no_driver),
        cmocka_unit_test(test_old_driver),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
