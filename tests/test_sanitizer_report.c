/* compute-sanitizer memcheck's first error in a kernel author's words
 * (sanitizer_report.h), on reports in the tool's format: an out-of-bounds
 * write past the end of a named allocation, a far one the tool places by the
 * nearest allocation, a read before the start, code without line info, a
 * report with two errors (the first one said), shared memory, and a report
 * with none. The file is named as the user named it, never by the build's
 * directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/sanitizer_report.h"

static const char oob_write[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at jacobi+0x1b0 in /var/build/ks-nvrtc-1234/mine.cu:12\n"
    "=========     by thread (3,0,0) in block (0,0,5)\n"
    "=========     Address 0x7f3c5e010000 is out of bounds\n"
    "=========     and is 1 bytes after the nearest allocation at 0x7f3c5e000000 of size 65536 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========     Host Frame: [0x2f1b6f]\n"
    "=========                in /lib/x86_64-linux-gnu/libcuda.so.1\n"
    "=========\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at jacobi+0x1b0 in /var/build/ks-nvrtc-1234/mine.cu:12\n"
    "=========     by thread (4,0,0) in block (0,0,5)\n"
    "=========     Address 0x7f3c5e010004 is out of bounds\n"
    "=========\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API "
    "call to cudaStreamSynchronize.\n"
    "========= ERROR SUMMARY: 3 errors\n";

static void test_named_allocation(void **state)
{
    (void)state;
    const ks_sanitizer_alloc allocs[] = {{"u", 0x7f3c5e020000ull, 65536}, {"v", 0x7f3c5e000000ull, 65536}};
    char msg[256];
    assert_int_equal(ks_sanitizer_first_error(oob_write, "mine.cu", allocs, 2, msg, sizeof msg), 1);
    assert_string_equal(msg, "mine.cu:12: out-of-bounds write of 4 bytes, 1 float past the end of v (block (0,0,5), "
                             "thread (3,0,0))");
}

static void test_tool_nearest(void **state)
{
    (void)state;
    char msg[256];
    /* no allocations of ours: the tool's nearest one; the user's path for the file */
    assert_int_equal(ks_sanitizer_first_error(oob_write, "/home/me/kernels/mine.cu", NULL, 0, msg, sizeof msg), 1);
    assert_string_equal(msg, "mine.cu:12: out-of-bounds write of 4 bytes, 1 bytes after the nearest allocation (of "
                             "65536 bytes) (block (0,0,5), thread (3,0,0))");
    assert_null(strstr(msg, "/var/build"));
}

static void test_far_and_before(void **state)
{
    (void)state;
    static const char far[] = "========= Invalid __global__ write of size 4 bytes\n"
                              "=========     at GPU_laplace3d(long long, long long, long long, const float *, float *)"
                              "+0x2c0 in /tmp/x/lap.cu:31\n"
                              "=========     by thread (0,1,0) in block (2,3,0)\n"
                              "=========     Address 0x7f0040000000 is out of bounds\n"
                              "=========     and is 8589869056 bytes after the nearest allocation at 0x7efe40010000 "
                              "of size 65536 bytes\n";
    const ks_sanitizer_alloc v = {"v", 0x7efe40010000ull, 65536};
    char msg[256];
    assert_int_equal(ks_sanitizer_first_error(far, "lap.cu", &v, 1, msg, sizeof msg), 1);
    /* too far past any of ours to name one: the tool's words */
    assert_string_equal(msg, "lap.cu:31: out-of-bounds write of 4 bytes, 8589869056 bytes after the nearest "
                             "allocation (of 65536 bytes) (block (2,3,0), thread (0,1,0))");
    static const char before[] = "========= Invalid __global__ read of size 4 bytes\n"
                                 "=========     at jacobi+0x90 in mine.cu:9\n"
                                 "=========     by thread (0,0,0) in block (0,0,0)\n"
                                 "=========     Address 0x7f3c5e01fffc is out of bounds\n";
    const ks_sanitizer_alloc u = {"u", 0x7f3c5e020000ull, 65536};
    assert_int_equal(ks_sanitizer_first_error(before, "mine.cu", &u, 1, msg, sizeof msg), 1);
    assert_string_equal(msg, "mine.cu:9: out-of-bounds read of 4 bytes, 4 bytes before the start of u (block (0,0,0), "
                             "thread (0,0,0))");
}

static void test_no_line_info_and_shared(void **state)
{
    (void)state;
    static const char no_line[] = "========= Invalid __shared__ write of size 4 bytes\n"
                                  "=========     at sum+0x70\n"
                                  "=========     by thread (255,0,0) in block (7,0,0)\n"
                                  "=========     Address 0x400 is out of bounds\n";
    char msg[256];
    assert_int_equal(ks_sanitizer_first_error(no_line, "sum.cu", NULL, 0, msg, sizeof msg), 1);
    assert_string_equal(msg, "sum.cu: out-of-bounds write of 4 bytes (__shared__ memory) (block (7,0,0), thread "
                             "(255,0,0))");
}

static void test_none(void **state)
{
    (void)state;
    char msg[64] = "x";
    assert_int_equal(ks_sanitizer_first_error("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n",
                                              "mine.cu", NULL, 0, msg, sizeof msg),
                     0);
    assert_string_equal(msg, "");
    assert_int_equal(ks_sanitizer_first_error("", "mine.cu", NULL, 0, msg, sizeof msg), 0);
    /* a cut message stays a C string */
    char small[16];
    assert_int_equal(ks_sanitizer_first_error(oob_write, "mine.cu", NULL, 0, small, sizeof small), 1);
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_allocation), cmocka_unit_test(test_tool_nearest),
        cmocka_unit_test(test_far_and_before),   cmocka_unit_test(test_no_line_info_and_shared),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
