/* The reduce scene's kernel contract (kernels/reduce/reduce_contract.h), no
 * GPU needed: the starter and new-kernel's --from sum_atomic and sum_shuffle
 * compile with NVRTC (`reduce` unmangled), new-kernel writes a file that
 * compiles, a file with errors gives its file:line lines, --help shows the
 * contract, --kernel-file without a device is one line and exit 2, the flags
 * around it are checked (the scan stays ours); the check's comparison and its
 * message, the tolerance against float sums in other orders, and the live
 * size and input through a checker request. The runs on a GPU:
 * test_reduce_user_gpu.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/new_kernel.h"
#include "app/scenes.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_contract.h"
#include "kernels/reduce/reduce_user.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_run_result r;

static void test_row(void **state)
{
    (void)state;
    const ks_scene_def *d = ks_test_user_row("reduce", KS_REDUCE_CONTRACT, KS_REDUCE_STARTER);
    assert_non_null(ks_new_kernel_from(d, "sum_atomic"));
    assert_non_null(ks_new_kernel_from(d, "sum_shuffle"));
    assert_null(ks_new_kernel_from(d, "sum_tree"));      /* two launches */
    assert_null(ks_new_kernel_from(d, "sum_onepass"));   /* a ticket counter and partials */
    assert_null(ks_new_kernel_from(d, "sum_cub"));       /* a library */
    assert_null(ks_new_kernel_from(d, "scan_lookback")); /* the scan has no contract */
}

static void test_starters_compile(void **state)
{
    (void)state;
    const char *const froms[] = {"sum_atomic", "sum_shuffle", NULL};
    char *text = ks_test_user_starters_compile("reduce", KS_REDUCE_USER_ENTRY, froms, "r.cu", "sum_shuffle", "sh.cu");
    assert_non_null(strstr(text, "constexpr int items = 32;"));
    assert_non_null(strstr(text, "extern \"C\" __constant__ int kernelscope_items_per_thread = items;"));
    free(text);
}

static void test_new_kernel_and_kernel_file(void **state)
{
    (void)state;
    char dir[256], path[512];
    char *text = ks_test_user_starter_file("reduce", "rnew", "r.cu", dir, path);
    assert_non_null(strstr(text, "if (t == 0) atomicAdd(out, partial[0]);"));
    free(text);
    ks_test_run((const char *const[]){NULL, "new-kernel", "reduce", "--from", "sum_onepass", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--from sum_onepass: reduce has no such variant written to its contract (it has: "
                                  "sum_atomic, sum_shuffle"));
    /* without a device (--backend cpu here): compiled, then one line, exit 2 */
    if (!ks_test_user_no_device("reduce", path, "128x1", &r)) return;
    /* its name is a --kernel name, only with the file */
    ks_test_user_kernel_name("reduce", path, &r);
    /* users' kernels sum: the scan stays ours, in one line */
    ks_test_run((const char *const[]){NULL, "reduce", "--kernel-file", path, "--kernel", "scan_lookback", NULL}, NULL,
                &r);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(ks_test_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "--kernel-file: your kernels sum; the scan (--kernel scan_lookback) stays with "
                                  "kernelscope's variants"));
    ks_test_run((const char *const[]){NULL, "bench", "reduce", "--kernel", "sum_tree,scan_cub", "--kernel-file", path,
                                      NULL},
                NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "the scan (--kernel scan_cub) stays with kernelscope's variants"));
    /* the block: one part, a power of two, as ours */
    ks_test_run((const char *const[]){NULL, "reduce", "--kernel-file", path, "--block", "96x1", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--block 96x1x1: reduce blocks are B threads, a power of two in 32..1024"));
    /* a variant is named after its file: not one of ours, not twice */
    ks_test_user_file_names("reduce", dir, "sum_tree", path, &r);
}

static void test_kernel_file_errors(void **state)
{
    (void)state;
    ks_test_user_compile_errors("reduce", "rerr",
                                "extern \"C\" __global__ void reduce(const float *x, long long n, float *out)\n"
                                "{\n"
                                "    atomicAdd(out, x[q]);\n"
                                "    out[0] += 1\n"
                                "}\n",
                                "3: error: identifier \"q\" is undefined", "5: error: expected a \";\"", 1, &r);
}

static void test_help_shows_contract(void **state)
{
    (void)state;
    ks_test_run((const char *const[]){NULL, "--help", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "reduce kernel contract (your own kernel):\n"
                                  "  extern \"C\" __global__ void reduce(const float *x, long long n, float *out)\n"));
    assert_non_null(strstr(r.out, "ceil(n/bx) blocks,\n    so thread t of the launch is x[t]"));
    assert_non_null(strstr(r.out, "2^-24 * (2 sqrt(n) + log2(n) + 2) * sum|x[i]|"));
    assert_non_null(strstr(r.out, "Add, never set"));
}

/* The check's comparison and its message; the live size and input in a request. */
static void test_compare(void **state)
{
    (void)state;
    char text[400];
    ks_reduce_verdict v = ks_reduce_user_verdict(1.5, 1.25, 0.1);
    assert_false(v.ok);
    ks_reduce_verdict_text(&v, 37, "random, NaN after the end", "the CPU gold", text, sizeof text);
    assert_string_equal(text, "differs from the CPU gold on 37 floats (random, NaN after the end): 1.5 where 1.25 is "
                              "expected (error 0.25, tolerance 0.1)");
    assert_true(ks_reduce_user_verdict(1.3, 1.25, 0.1).ok);
    assert_true(ks_reduce_user_verdict(1.35, 1.25, 0.1).ok == (fabs(1.35 - 1.25) <= 0.1));
    /* exact (integer input): any difference refuses */
    v = ks_reduce_user_verdict(800025.0, 800024.0, 0.0);
    assert_false(v.ok);
    ks_reduce_verdict_text(&v, 100003, "integers in two launches, NaN after the end", "the CPU gold", text, sizeof text);
    assert_string_equal(text, "differs from the CPU gold on 100003 floats (integers in two launches, NaN after the end): "
                              "800025 where 800024 is expected (error 1, exact)");
    assert_true(ks_reduce_user_verdict(800024.0, 800024.0, 0.0).ok);
    /* NaN (a read past the end) and inf never pass, whatever the tolerance */
    v = ks_reduce_user_verdict(NAN, 0.5, 1e30);
    assert_false(v.ok);
    assert_true(isinf(v.err));
    ks_reduce_verdict_text(&v, 1, "random, NaN after the end", "the CPU gold", text, sizeof text);
    assert_non_null(strstr(text, "on 1 float (random, NaN after the end): nan where 0.5 is expected (error inf,"));
    assert_false(ks_reduce_user_verdict(INFINITY, 0.5, 1e30).ok);
    const long long sizes[] = {1, 100003, 1LL << 30, (1LL << 30) - 1, KS_REDUCE_MAX_N};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        for (int integer = 0; integer < 2; ++integer) {
            int grid[3];
            ks_reduce_check_grid(sizes[i], integer, grid);
            assert_true(grid[0] > 0 && grid[1] > 0 && grid[2] > 0); /* a checker request takes positive sizes */
            assert_int_equal(ks_reduce_check_n(grid), sizes[i]);
            assert_int_equal(ks_reduce_check_integer(grid), integer);
        }
}

/* The tolerance the check holds users to: float sums of the check's largest
 * random input in the orders kernels use (one serial chain: the longest;
 * the starter's: trees of 256, then one atomic a block in launch order) lie
 * within it, while a lost element on the small sizes lies outside it; and
 * integer input sums exactly in any order. */
static void test_tolerance(void **state)
{
    (void)state;
    const long long n = (1LL << 20) + 13;
    float *x = malloc((size_t)n * sizeof *x), part[256];
    assert_non_null(x);
    ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, 1, x, n);
    const double gold = ks_reduce_gold_sum(x, n), tol = ks_reduce_sum_tolerance(n, ks_reduce_abs_sum(x, n));
    assert_true(fabs(tol - ldexp(1.0, -24) * (2.0 * sqrt((double)n) + log2((double)n) + 2.0) *
                               ks_reduce_abs_sum(x, n)) <= 1e-12 * tol);
    float serial = 0.0f, blocks = 0.0f;
    for (long long i = 0; i < n; ++i) serial += x[i];
    for (long long b = 0; b < n; b += 256) {
        for (int t = 0; t < 256; ++t) part[t] = b + t < n ? x[b + t] : 0.0f;
        for (int d = 128; d > 0; d /= 2)
            for (int t = 0; t < d; ++t) part[t] += part[t + d];
        blocks += part[0];
    }
    assert_true(ks_reduce_user_verdict(serial, gold, tol).ok);
    assert_true(ks_reduce_user_verdict(blocks, gold, tol).ok);
    /* a lost element (the last) on the small sizes: refused */
    const long long small[] = {1, 37};
    for (int k = 0; k < 2; ++k) {
        const long long m = small[k];
        float lost = 0.0f;
        for (long long i = 0; i + 1 < m; ++i) lost += x[i];
        assert_false(ks_reduce_user_verdict(lost, ks_reduce_gold_sum(x, m),
                                            ks_reduce_sum_tolerance(m, ks_reduce_abs_sum(x, m))).ok);
    }
    /* integers: exact in float whatever the order, so the check asks for equality */
    ks_reduce_fill(KS_REDUCE_INPUT_INTEGER, 1, x, 100003);
    float fwd = 0.0f, back = 0.0f;
    for (long long i = 0; i < 100003; ++i) fwd += x[i];
    for (long long i = 100002; i >= 0; --i) back += x[i];
    assert_true(ks_reduce_user_verdict(fwd, ks_reduce_gold_sum(x, 100003), 0.0).ok);
    assert_true(ks_reduce_user_verdict(back, ks_reduce_gold_sum(x, 100003), 0.0).ok);
    free(x);
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
        cmocka_unit_test(test_tolerance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
