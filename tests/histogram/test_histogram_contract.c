/* The histogram scene's kernel contract (kernels/histogram/histogram_contract.h),
 * no GPU needed: the starter and new-kernel's --from shared compile with NVRTC
 * (`histogram` unmangled), new-kernel writes a file that compiles, a file with
 * errors gives its file:line lines, --help shows the contract, --kernel-file
 * without a device is one line and exit 2, the flags around it are checked;
 * the check's comparison names the first bin that differs, and the live size
 * travels through a checker request. The runs on a GPU: test_histogram_user_gpu.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/new_kernel.h"
#include "app/scenes.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/histogram/histogram_contract.h"
#include "kernels/histogram/histogram_user.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_run_result r;

static void test_row(void **state)
{
    (void)state;
    const ks_scene_def *d = ks_test_user_row("histogram", KS_HIST_CONTRACT, KS_HIST_STARTER);
    assert_non_null(ks_new_kernel_from(d, "shared"));
    assert_null(ks_new_kernel_from(d, "global")); /* the starter itself */
    assert_null(ks_new_kernel_from(d, "warp"));   /* 64 KiB of dynamic shared memory: not the contract's launch */
    assert_null(ks_new_kernel_from(d, "cub"));
}

static void test_starters_compile(void **state)
{
    (void)state;
    const char *const froms[] = {"shared", NULL};
    char *text = ks_test_user_starters_compile("histogram", KS_HIST_USER_ENTRY, froms, "h.cu", "shared", "sh.cu");
    assert_non_null(strstr(text, "constexpr int bytes_per_thread = 128;"));
    assert_non_null(strstr(text, "extern \"C\" __constant__ int kernelscope_bytes_per_thread = bytes_per_thread;"));
    free(text);
}

static void test_new_kernel_and_kernel_file(void **state)
{
    (void)state;
    char dir[256], path[512];
    char *text = ks_test_user_starter_file("histogram", "hnew", "h.cu", dir, path);
    assert_non_null(strstr(text, "atomicAdd(&bins[data[i]], 1u)"));
    free(text);
    ks_test_run((const char *const[]){NULL, "new-kernel", "histogram", "--from", "warp", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--from warp: histogram has no such variant written to its contract (it has: shared"));
    /* without a device (--backend cpu here): compiled, then one line, exit 2 */
    if (!ks_test_user_no_device("histogram", path, "128x1", &r)) return;
    /* its name is a --kernel name, only with the file */
    ks_test_user_kernel_name("histogram", path, &r);
    /* users' kernels count bytes; their block has one part; --block is theirs alone */
    ks_test_run((const char *const[]){NULL, "histogram", "--kernel-file", path, "--bins", "1024", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "your kernels count bytes (256 bins); --bins and --words"));
    ks_test_run((const char *const[]){NULL, "bench", "histogram", "--kernel-file", path, "--words", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "your kernels count bytes"));
    ks_test_run((const char *const[]){NULL, "histogram", "--kernel-file", path, "--block", "16x16", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "1-part block (BXx1), got 16x16x1"));
    ks_test_run((const char *const[]){NULL, "histogram", "--block", "128x1", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "only your kernels (--kernel-file) take a block here"));
    /* a variant is named after its file: not one of ours, not twice */
    ks_test_user_file_names("histogram", dir, "shared", path, &r);
}

static void test_kernel_file_errors(void **state)
{
    (void)state;
    ks_test_user_compile_errors("histogram", "herr",
                                "extern \"C\" __global__ void histogram(const unsigned char *data, "
                                "unsigned long long n,\n"
                                "                                     unsigned int *bins)\n"
                                "{\n"
                                "    atomicAdd(&bins[data[q]], 1u);\n"
                                "    bins[0] += 1\n"
                                "}\n",
                                "4: error: identifier \"q\" is undefined", "6: error: expected a \";\"", 1, &r);
}

static void test_help_shows_contract(void **state)
{
    (void)state;
    ks_test_run((const char *const[]){NULL, "--help", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "histogram kernel contract (your own kernel):\n"
                                  "  extern \"C\" __global__ void histogram(const unsigned char *data, unsigned long "
                                  "long n,\n"));
    assert_non_null(strstr(r.out, "ceil(n/bx) blocks, so thread t of the launch is data[t]"));
    assert_non_null(strstr(r.out, "Add, never set"));
}

/* The check's comparison: the first bin that differs, its count, the expected
 * one, how many bins and the largest error; and the live size in a request. */
static void test_compare(void **state)
{
    (void)state;
    uint64_t want[256], got[256];
    for (int b = 0; b < 256; ++b) want[b] = got[b] = (uint64_t)b * 3;
    ks_hist_mismatch m;
    assert_int_equal(ks_hist_compare(got, want, 256, &m), KS_OK);
    assert_true(m.first < 0);
    got['e'] -= 1;   /* a lost count */
    got[0xA5] += 7;  /* bytes read past the end */
    assert_int_equal(ks_hist_compare(got, want, 256, &m), KS_ERR_INVALID);
    assert_int_equal(m.first, 'e');
    assert_int_equal(m.bad, 2);
    assert_int_equal(m.max_err, 7);
    char text[400];
    ks_hist_mismatch_text(&m, 100003, "text", "the CPU gold", text, sizeof text);
    assert_string_equal(text, "differs from the CPU gold on 100003 bytes (text) at bin 101 ('e'): 302 where 303 is "
                              "expected; 2 bins differ, max error 7");
    got['e'] += 1;
    assert_int_equal(ks_hist_compare(got, want, 256, &m), KS_ERR_INVALID);
    assert_int_equal(m.first, 0xA5);
    ks_hist_mismatch_text(&m, 37, "uniform", "cub", text, sizeof text);
    assert_non_null(strstr(text, "at bin 165 ('0xA5'): 502 where 495 is expected; 1 bin differs, max error 7"));
    const size_t sizes[] = {1, 100003, (size_t)1 << 30, ((size_t)1 << 30) - 1, 4294967295u};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        int grid[3];
        ks_hist_check_grid(sizes[i], grid);
        assert_true(grid[0] > 0 && grid[1] > 0 && grid[2] == 1); /* a checker request takes positive sizes */
        assert_int_equal(ks_hist_check_bytes(grid), sizes[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row),
        cmocka_unit_test(test_starters_compile),
        cmocka_unit_test(test_new_kernel_and_kernel_file),
        cmocka_unit_test(test_kernel_file_errors),
        cmocka_unit_test(test_help_shows_contract),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
