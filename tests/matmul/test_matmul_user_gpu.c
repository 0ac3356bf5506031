/* A user's matmul kernel on the GPU (--kernel-file): through the app's own
 * checker process, the starter and new-kernel's --from regtile match the CPU
 * gold and regtile; a wrong kernel is refused naming its first wrong element,
 * its value and the expected one; a live run checks and runs it; bench rows
 * carry the file's name. Skipped (77) without a device or NVRTC. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"
#include "base/cuda_device.h"
#include "base/diff_colour.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_contract.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_device_info dev;
extern const char ks_matmul_starter_regtile[]; /* new-kernel matmul --from regtile */

/* Right everywhere but C[20][11], one too large (the first check size is 37x29x23). */
static const char ks_off_by_one[] =
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"
    "                                  int M, int N, int K)\n"
    "{\n"
    "    const int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (i >= M || j >= N) return;\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < K; ++k) acc += A[(size_t)i * K + k] * B[(size_t)k * N + j];\n"
    "    C[(size_t)i * N + j] = acc + (i == 20 && j == 11 ? 1.0f : 0.0f);\n"
    "}\n";
/* Leaves the last column of C unwritten. */
static const char ks_skips_column[] =
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"
    "                                  int M, int N, int K)\n"
    "{\n"
    "    const int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (i >= M || j >= N - 1) return;\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < K; ++k) acc += A[(size_t)i * K + k] * B[(size_t)k * N + j];\n"
    "    C[(size_t)i * N + j] = acc;\n"
    "}\n";

/* Compiles source for this device and checks it in the checker process at
 * the live size M=300 N=200 K=100 with block bx x by; diff: with the
 * difference of all of C (user_files.h's desc.diff: the slice across z). */
static void check_diff(ks_kchecker *c, const char *source, int bx, int by, int diff, ks_kcheck_result *res)
{
    ks_kcheck_request req = {.scene = "matmul", .grid = {300, 200, 100}, .block = {bx, by, 1}, .diff = diff, .axis = 2};
    ks_test_user_check(c, &dev, &req, source, res);
}

static void check(ks_kchecker *c, const char *source, int bx, int by, ks_kcheck_result *res)
{
    check_diff(c, source, bx, by, 0, res);
}

static void test_check(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    check(c, KS_MATMUL_STARTER, 16, 16, &res);
    assert_true(res.passed);
    assert_non_null(strstr(res.message, "matches the CPU gold (3 odd sizes, max error 0) and regtile at M=300 N=200 "
                                        "K=100 (max error 0)"));
    check(c, KS_MATMUL_STARTER, 32, 4, &res); /* any block: the grid follows it */
    assert_true(res.passed);
    check(c, ks_matmul_starter_regtile, 16, 16, &res);
    assert_true(res.passed);
    check(c, ks_matmul_starter_regtile, 8, 8, &res); /* written for 256 threads: wrong with 64 */
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold at M=37 N=29 K=23 at C["));

    /* refused at its first wrong element, with the value and the expected one */
    const ks_matmul_size s = {37, 29, 23};
    float a[37 * 23], b[23 * 29], gold[37 * 29];
    ks_matmul_fill(&s, a, b);
    ks_matmul_gold(&s, a, b, gold);
    const float want = gold[20 * 29 + 11];
    char text[300];
    snprintf(text, sizeof text,
             "differs from the CPU gold at M=37 N=29 K=23 at C[20][11]: %.9g where %.9g is expected; 1 element "
             "differs, max error 1 ",
             (double)(want + 1.0f), (double)want);
    check(c, ks_off_by_one, 16, 16, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, text));
    check(c, ks_skips_column, 16, 16, &res); /* C poisoned first: the column stays NaN */
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold at M=37 N=29 K=23 at C[0][28]: ")); /* NaN, any sign */
    assert_non_null(strstr(res.message, "(never written); 37 elements differ, max error inf"));
    ks_kchecker_destroy(c);
}

/* The difference view's answer (M=300 N=200): C[i][j]'s |yours - regtile| at
 * i + j * M; a refused kernel has one too (the live size runs for it). */
static void test_diff(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    enum { M = 300, N = 200 };
    check_diff(c, KS_MATMUL_STARTER, 16, 16, 1, &res); /* right: zero everywhere (regtile's order of adds) */
    assert_true(res.passed);
    assert_non_null(res.diff);
    assert_int_equal(res.diff_w, M);
    assert_int_equal(res.diff_h, N);
    ks_diff_stats st;
    ks_diff_summarize(res.diff, (size_t)M * N, &st);
    assert_int_equal(st.nonzero, 0);
    ks_kcheck_result_free(&res);

    check_diff(c, ks_off_by_one, 16, 16, 1, &res); /* refused by the gold; C[20][11] one too large */
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold")); /* the refusal's own words */
    assert_non_null(res.diff);
    ks_diff_summarize(res.diff, (size_t)M * N, &st);
    assert_int_equal(st.nonzero, 1);
    assert_int_equal(st.unwritten, 0);
    const float at = res.diff[20 + 11 * M];
    assert_true(at > 0.5f && at < 1.5f);
    ks_kcheck_result_free(&res);

    check_diff(c, ks_skips_column, 16, 16, 1, &res); /* the last column left NaN: +inf there, nothing else */
    assert_false(res.passed);
    assert_non_null(res.diff);
    ks_diff_summarize(res.diff, (size_t)M * N, &st);
    assert_int_equal(st.nonzero, M);
    assert_int_equal(st.unwritten, M);
    for (int i = 0; i < M; ++i) assert_true(isinf(res.diff[i + (size_t)(N - 1) * M]));
    ks_kcheck_result_free(&res);
    ks_kchecker_destroy(c);
}

/* A live run: the file is built and checked before the first frame, then runs. */
static void test_live(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("matmul", NULL, "mmlive", "mine.cu", dir, path);
    ks_run_result r;
    ks_test_user_live((const char *const[]){NULL, "matmul", "--headless", "--frames", "5", "--size", "257x129x65",
                                            "--block", "32x8", "--kernel-file", path, NULL},
                      &r);
    assert_non_null(strstr(r.err, "matches the CPU gold (3 odd sizes, max error 0) and regtile at M=257 N=129 K=65"));
}

/* bench: the file's kernel is a row like ours, named after the file, checked first. */
static void test_bench_rows(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("matmul", "regtile", "mmbench", "mine.cu", dir, path);
    ks_run_result r;
    char *csv = ks_test_run_headless_read(
        (const char *const[]){ks_test_binary(), "bench", "matmul", "--size", "256,1100x1030x520", "--kernel",
                              "regtile", "--reps", "3", "--kernel-file", path, "--out", dir, NULL},
        dir, "bench_matmul.csv", &r);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",mine.cu,256,256,256,0,"));
    assert_non_null(strstr(csv, ",mine.cu,1100,1030,520,0,")); /* checked against cuBLAS there */
    assert_non_null(strstr(csv, ",regtile,256,256,256,0,")); /* then its block tile and shape */
    free(csv);
    assert_non_null(strstr(r.out, "kernel files (block 16x16) within K * 1.5 * 2^-24"));
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
