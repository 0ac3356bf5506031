/* A user's reduce kernel on the GPU (--kernel-file): through the app's own
 * checker process, the starter and new-kernel's --from sum_atomic and
 * sum_shuffle match the CPU gold and sum_cub at several blocks; wrong kernels
 * are refused with their value, the expected one, the error and the
 * tolerance (the last float skipped, a float read past the end, *out set
 * instead of added to, a word written beside *out); a bad
 * kernelscope_items_per_thread is refused; a live run checks and runs it;
 * bench rows carry the file's name. Skipped (77) without a device or NVRTC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"
#include "base/cuda_device.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_contract.h"
#include "kernels/reduce/reduce_user.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_device_info dev;
extern const char ks_reduce_starter_sum_atomic[], ks_reduce_starter_sum_shuffle[]; /* new-kernel reduce --from */

#define KS_SIG "extern \"C\" __global__ void reduce(const float *x, long long n, float *out)\n"
#define KS_I "    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"

/* Never adds the last float: on the first check input (1 float) the sum is 0. */
static const char ks_skips_last[] = KS_SIG "{\n" KS_I "    if (i + 1 < n) atomicAdd(out, x[i]);\n}\n";
/* Adds one float past the end: the NaN after the input. */
static const char ks_reads_past[] = KS_SIG "{\n" KS_I "    if (i <= n) atomicAdd(out, x[i]);\n}\n";
/* Right in one launch of one block, but sets *out: two launches into one *out lose the first. */
static const char ks_sets_out[] = KS_SIG "{\n"
                                         "    __shared__ float s;\n"
                                         "    if (threadIdx.x == 0) s = 0.0f;\n"
                                         "    __syncthreads();\n"
                                         "    if (blockIdx.x == 0)\n"
                                         "        for (long long i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&s, x[i]);\n"
                                         "    __syncthreads();\n"
                                         "    if (blockIdx.x == 0 && threadIdx.x == 0) *out = s;\n"
                                         "}\n";
/* Right sum, and a word written beside it. */
static const char ks_writes_beside[] = KS_SIG "{\n" KS_I "    if (i < n) atomicAdd(out, x[i]);\n"
                                              "    if (i == 0) out[1] = 0.0f;\n}\n";
static const char ks_zero_items[] = "extern \"C\" __constant__ int kernelscope_items_per_thread = 0;\n" KS_SIG
                                    "{\n    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(out, x[0]);\n}\n";

/* Compiles source for this device and checks it in the checker process with a
 * live input of 3000017 random floats and block bx. */
static void check(ks_kchecker *c, const char *source, int bx, ks_kcheck_result *res)
{
    ks_kcheck_request req = {.scene = "reduce", .block = {bx, 1, 1}};
    ks_reduce_check_grid(3000017, 0, req.grid);
    ks_test_user_check(c, &dev, &req, source, res);
}

static void test_check(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    check(c, KS_REDUCE_STARTER, 256, &res);
    assert_true(res.passed);
    assert_string_equal(res.message, "matches the CPU gold (4 odd sizes, 1 to 1048589 floats: random within tolerance, "
                                     "integers exactly) and sum_cub on 3000017 floats (random, 2 runs)");
    const int blocks[] = {32, 1024};
    for (int b = 0; b < 2; ++b) { /* any power of two: the grid follows it */
        check(c, KS_REDUCE_STARTER, blocks[b], &res);
        assert_true(res.passed);
        check(c, ks_reduce_starter_sum_atomic, blocks[b], &res);
        assert_true(res.passed);
        check(c, ks_reduce_starter_sum_shuffle, blocks[b], &res);
        assert_true(res.passed);
    }

    /* refused with the value, the expected one, the error and the tolerance */
    const float first = ks_reduce_input_value(KS_REDUCE_INPUT_RANDOM, 1, 0); /* the check's first input: 1 float */
    char text[400];
    snprintf(text, sizeof text,
             "differs from the CPU gold on 1 float (random, NaN after the end): 0 where %.9g is expected (error %.3g, "
             "tolerance %.3g)",
             (double)first, fabs((double)first), ks_reduce_sum_tolerance(1, fabs((double)first)));
    check(c, ks_skips_last, 256, &res);
    assert_false(res.passed);
    assert_string_equal(res.message, text);
    check(c, ks_reads_past, 256, &res);
    assert_false(res.passed);
    /* a NaN of either sign (printf writes the sign of a negative one) */
    assert_non_null(strstr(res.message, "differs from the CPU gold on 1 float (random, NaN after the end): "));
    assert_non_null(strstr(res.message, "nan where "));
    assert_non_null(strstr(res.message, "(error inf, tolerance "));
    check(c, ks_sets_out, 256, &res); /* 1 and 37 floats in one launch: right; two launches into one *out: not */
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold on 100003 floats (integers in two launches, NaN after "
                                        "the end): "));
    assert_non_null(strstr(res.message, ", exact)"));
    check(c, ks_writes_beside, 256, &res);
    assert_false(res.passed);
    assert_string_equal(res.message, "wrote beside *out on 1 float (random, NaN after the end): it must add to *out and "
                                     "write nothing else");
    check(c, ks_zero_items, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "mine.cu: kernelscope_items_per_thread is 0: 1 to 65536"));
    check(c, KS_REDUCE_STARTER, 96, &res); /* a block the contract does not take */
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "mine.cu: block 96x1: a power of two in 32..1024"));
    check(c, KS_REDUCE_STARTER, 256, &res); /* after all that, the same child (or a new one) still passes it */
    assert_true(res.passed);
    ks_kchecker_destroy(c);
}

/* A live run: the file is built and checked before the first frame, then runs. */
static void test_live(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("reduce", NULL, "rlive", "mine.cu", dir, path);
    ks_run_result r;
    ks_test_user_live((const char *const[]){NULL, "reduce", "--headless", "--frames", "5", "--size", "100003",
                                            "--block", "128x1", "--values", "integer", "--kernel-file", path, NULL},
                      &r);
    assert_non_null(strstr(r.err, "matches the CPU gold (4 odd sizes, 1 to 1048589 floats: random within tolerance, "
                                  "integers exactly) and sum_cub on 100003 floats (integers, 2 runs)"));
}

/* bench: the file's kernel is a sum row like ours, named after the file, checked against the gold first. */
static void test_bench_rows(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("reduce", "sum_shuffle", "rbench", "mine.cu", dir, path);
    ks_run_result r;
    char *csv = ks_test_run_headless_read(
        (const char *const[]){ks_test_binary(), "bench", "reduce", "--size", "1000003,4M", "--kernel", "sum_tree",
                              "--block", "512x1", "--reps", "3", "--kernel-file", path, "--out", dir, NULL},
        dir, "bench_reduce.csv", &r);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",sum,mine.cu,1000003,"));
    assert_non_null(strstr(csv, ",sum,mine.cu,4194304,"));
    assert_non_null(strstr(csv, ",sum,sum_cub,4194304,")); /* the reference a user's vs_cub divides by */
    assert_null(strstr(csv, ",sum_shuffle,"));             /* --kernel sum_tree: ours, only that one */
    assert_null(strstr(csv, ",scan,"));
    free(csv);
    assert_non_null(strstr(r.out, "checked: every variant and kernel file checked against the CPU gold"));
    assert_non_null(strstr(r.out, "mine.cu"));
}

int main(void)
{
    if (!ks_test_user_device(&dev)) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_live),
        cmocka_unit_test(test_bench_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
