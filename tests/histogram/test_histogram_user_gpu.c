/* A user's histogram kernel on the GPU (--kernel-file): through the app's own
 * checker process, the starter and new-kernel's --from shared match the CPU
 * gold and cub exactly; wrong kernels are refused naming their first wrong
 * bin, its count and the expected one (a byte skipped, bytes read past the
 * end, bins set instead of added to); a bad kernelscope_bytes_per_thread is
 * refused; a live run checks and runs it; bench rows carry the file's name.
 * Skipped (77) without a device or NVRTC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"
#include "base/cuda_device.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/histogram/histogram.h"
#include "kernels/histogram/histogram_contract.h"
#include "kernels/histogram/histogram_user.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_device_info dev;
extern const char ks_histogram_starter_shared[]; /* new-kernel histogram --from shared */

#define KS_SIG                                                                                     \
    "extern \"C\" __global__ void histogram(const unsigned char *data, unsigned long long n,\n"  \
    "                                     unsigned int *bins)\n"

/* Never counts the last byte: on the first check input (1 byte) its one bin is short. */
static const char ks_skips_last[] = KS_SIG "{\n"
                                           "    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i + 1 < n) atomicAdd(&bins[data[i]], 1u);\n"
                                           "}\n";
/* Counts one byte past the end: the poison byte 0xA5 after the input. */
static const char ks_reads_past[] = KS_SIG "{\n"
                                           "    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i <= n) atomicAdd(&bins[data[i]], 1u);\n"
                                           "}\n";
/* One launch's counts right, but written over the bins instead of added to them. */
static const char ks_sets_bins[] = KS_SIG "{\n"
                                          "    __shared__ unsigned int local[256];\n"
                                          "    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;\n"
                                          "    __syncthreads();\n"
                                          "    for (unsigned long long i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&local[data[i]], 1u);\n"
                                          "    __syncthreads();\n"
                                          "    if (blockIdx.x == 0)\n"
                                          "        for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = local[b];\n"
                                          "}\n";
static const char ks_zero_per_thread[] = "extern \"C\" __constant__ int kernelscope_bytes_per_thread = 0;\n" KS_SIG
                                         "{\n"
                                         "    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&bins[data[0]], 1u);\n"
                                         "}\n";

/* Never counts the byte 'e': every check input with an 'e' is short in that bin alone. */
static const char ks_skips_e[] = KS_SIG "{\n"
                                        "    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                                        "    if (i < n && data[i] != 'e') atomicAdd(&bins[data[i]], 1u);\n"
                                        "}\n";

/* Compiles source for this device and checks it in the checker process with
 * a live input of 3000017 bytes and block bx; diff: with the difference by
 * byte (user_files.h's desc.diff_cells 256 x 1). */
static void check_diff(ks_kchecker *c, const char *source, int bx, int diff, ks_kcheck_result *res)
{
    ks_kcheck_request req = {.scene = "histogram", .block = {bx, 1, 1}, .diff = diff, .axis = 2, .cells = {256, 1}};
    ks_hist_check_grid(3000017, req.grid);
    ks_test_user_check(c, &dev, &req, source, res);
}

static void check(ks_kchecker *c, const char *source, int bx, ks_kcheck_result *res)
{
    check_diff(c, source, bx, 0, res);
}

/* The difference view's answer: |yours - cub| by byte on the live input's
 * first run; a refused kernel has one too (the live size runs for it). */
static void test_diff(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    check_diff(c, KS_HIST_STARTER, 256, 1, &res);
    assert_true(res.passed);
    assert_non_null(res.diff);
    assert_int_equal(res.diff_w, 256);
    assert_int_equal(res.diff_h, 1);
    for (int b = 0; b < 256; ++b) assert_true(res.diff[b] == 0.0f);
    ks_kcheck_result_free(&res);
    check_diff(c, ks_skips_e, 256, 1, &res);
    assert_false(res.passed);
    assert_non_null(res.diff);
    for (int b = 0; b < 256; ++b)
        if (b == 'e') assert_true(res.diff[b] > 1000.0f); /* 3 MB of generated text: many an 'e' */
        else assert_true(res.diff[b] == 0.0f);
    ks_kcheck_result_free(&res);
    ks_kchecker_destroy(c);
}

static void test_check(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    check(c, KS_HIST_STARTER, 256, &res);
    assert_true(res.passed);
    assert_non_null(strstr(res.message, "matches the CPU gold exactly (4 odd sizes, 1 to 1048589 bytes) and cub on "
                                        "3000017 bytes of text (2 runs)"));
    check(c, KS_HIST_STARTER, 96, &res); /* any block: the grid follows it */
    assert_true(res.passed);
    check(c, ks_histogram_starter_shared, 256, &res);
    assert_true(res.passed);
    check(c, ks_histogram_starter_shared, 1024, &res);
    assert_true(res.passed);

    /* refused at the first wrong bin, with its count and the expected one */
    unsigned char first;
    ks_hist_generate(KS_HIST_IN_TEXT, 1, &first, 1); /* the check's first input: 1 byte of text */
    char label[32], text[300];
    ks_hist_bin_label(KS_HIST_BYTES, 256, first, label, sizeof label);
    snprintf(text, sizeof text,
             "differs from the CPU gold on 1 byte (text, 0xA5 bytes after the end) at bin %u ('%s'): 0 where 1 is "
             "expected; 1 bin differs, max error 1",
             (unsigned)first, label);
    check(c, ks_skips_last, 256, &res);
    assert_false(res.passed);
    assert_string_equal(res.message, text);
    check(c, ks_reads_past, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold on 1 byte (text, 0xA5 bytes after the end) at bin "
                                        "165 ('0xA5'): 1 where 0 is expected; 1 bin differs, max error 1"));
    check(c, ks_sets_bins, 256, &res); /* one block, one launch: right; two launches into the same bins: not */
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold on 100003 bytes (text in two launches, 0xA5 bytes "
                                        "after the end) at bin "));
    check(c, ks_zero_per_thread, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "mine.cu: kernelscope_bytes_per_thread is 0: 1 to 65536"));
    ks_kchecker_destroy(c);
}

/* A live run: the file is built and checked before the first frame, then runs. */
static void test_live(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("histogram", NULL, "hlive", "mine.cu", dir, path);
    ks_run_result r;
    ks_test_user_live((const char *const[]){NULL, "histogram", "--headless", "--frames", "5", "--size", "100003",
                                            "--block", "128x1", "--kernel-file", path, NULL},
                      &r);
    assert_non_null(strstr(r.err, "matches the CPU gold exactly (4 odd sizes, 1 to 1048589 bytes) and cub on 100003 "
                                  "bytes of text (2 runs)"));
}

/* bench: the file's kernel is a row like ours, named after the file, checked against the gold first. */
static void test_bench_rows(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("histogram", "shared", "hbench", "mine.cu", dir, path);
    ks_run_result r;
    char *csv = ks_test_run_headless_read(
        (const char *const[]){ks_test_binary(), "bench", "histogram", "--size", "100003,4M", "--kernel", "global",
                              "--reps", "3", "--kernel-file", path, "--out", dir, NULL},
        dir, "bench_histogram.csv", &r);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",mine.cu,text,bytes,100003,256,"));
    assert_non_null(strstr(csv, ",mine.cu,equal,bytes,4194304,256,"));
    assert_non_null(strstr(csv, ",global,uniform,bytes,4194304,256,"));
    assert_null(strstr(csv, ",warp,")); /* --kernel global: ours, only that one */
    free(csv);
    assert_non_null(strstr(r.out, "checked every configuration against the CPU gold: all agree"));
}

int main(void)
{
    if (!ks_test_user_device(&dev)) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_live),
        cmocka_unit_test(test_bench_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
