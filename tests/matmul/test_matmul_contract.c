/* The matmul scene's kernel contract (kernels/matmul/matmul_contract.h), no
 * GPU needed: the starter and new-kernel's --from regtile compile with NVRTC
 * (`matmul` unmangled), new-kernel writes a file that compiles, a file with
 * errors gives its file:line lines, --help shows the contract, --kernel-file
 * without a device is one line and exit 2; the check's comparison names the
 * first element that differs. The runs on a GPU: test_matmul_user_gpu.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/new_kernel.h"
#include "app/scenes.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_contract.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_run_result r;

static void test_row(void **state)
{
    (void)state;
    const ks_scene_def *d = ks_test_user_row("matmul", KS_MATMUL_CONTRACT, KS_MATMUL_STARTER);
    assert_non_null(ks_new_kernel_from(d, "regtile"));
    assert_null(ks_new_kernel_from(d, "tiled")); /* a template of three tiles: not written to the contract */
    assert_null(ks_new_kernel_from(d, "cublas"));
}

static void test_starters_compile(void **state)
{
    (void)state;
    const char *const froms[] = {"regtile", NULL};
    char *text = ks_test_user_starters_compile("matmul", KS_MATMUL_USER_ENTRY, froms, "mm.cu", "regtile", "rt.cu");
    assert_non_null(strstr(text, "kernelscope_points_per_thread[3] = {8, 8, 1}"));
    free(text);
}

static void test_new_kernel_and_kernel_file(void **state)
{
    (void)state;
    char dir[256], path[512];
    char *text = ks_test_user_starter_file("matmul", "mmnew", "mm.cu", dir, path);
    free(text);
    ks_test_run((const char *const[]){NULL, "new-kernel", "matmul", "--from", "tiled", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--from tiled: matmul has no such variant written to its contract (it has: regtile"));
    /* without a device (--backend cpu here): compiled, then one line, exit 2 */
    if (!ks_test_user_no_device("matmul", path, NULL, &r)) return;
    /* its name is a --kernel name; ours are not file names; a 3-part block is refused */
    ks_test_user_kernel_name("matmul", path, &r);
    ks_test_run((const char *const[]){NULL, "matmul", "--kernel-file", path, "--block", "8x8x2", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "2-part block"));
    ks_test_user_file_names("matmul", dir, "regtile", path, &r);
    snprintf(path, sizeof path, "%s/regtile", dir);
    ks_test_run((const char *const[]){NULL, "bench", "live", "--kernel-file", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "only to the laplace3d, laplace2d, spheres, matmul, histogram and reduce scenes"));
}

static void test_kernel_file_errors(void **state)
{
    (void)state;
    ks_test_user_compile_errors("matmul", "mmerr",
                                "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"
                                "                                  int M, int N, int K)\n"
                                "{\n"
                                "    C[0] = A[0] * q;\n"
                                "    C[1] = B[0]\n"
                                "}\n",
                                "4: error: identifier \"q\" is undefined", "6: error: expected a \";\"", 1, &r);
}

static void test_help_shows_contract(void **state)
{
    (void)state;
    ks_test_run((const char *const[]){NULL, "--help", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "matmul kernel contract (your own kernel):\n"
                                  "  extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"));
    assert_non_null(strstr(r.out, "ceil(N/bx) x ceil(M/by) blocks"));
}

/* The check's comparison: the first element past the tolerance, its value,
 * the expected one, how many and the largest error; NaN (never written) too. */
static void test_compare(void **state)
{
    (void)state;
    const ks_matmul_size s = {5, 7, 3};
    float want[35], got[35];
    for (int e = 0; e < 35; ++e) want[e] = got[e] = (float)e * 0.25f;
    ks_matmul_mismatch m;
    assert_int_equal(ks_matmul_compare(got, want, &s, &m), KS_OK);
    assert_true(m.first < 0);
    got[2 * 7 + 4] += 0.03125f; /* C[2][4]: one product of 1/32 too many */
    got[4 * 7 + 6] = NAN;       /* C[4][6]: never written */
    assert_int_equal(ks_matmul_compare(got, want, &s, &m), KS_ERR_INVALID);
    assert_int_equal(m.first, 2 * 7 + 4);
    assert_int_equal(m.bad, 2);
    assert_true(isinf(m.max_err));
    char text[400];
    ks_matmul_mismatch_text(&m, &s, "the CPU gold", text, sizeof text);
    assert_non_null(strstr(text, "differs from the CPU gold at M=5 N=7 K=3 at C[2][4]: 4.53125 where 4.5 is expected; "
                                 "2 elements differ, max error inf"));
    /* within the tolerance: a rounding of a long sum is not a mismatch */
    got[2 * 7 + 4] = want[2 * 7 + 4] + (float)(0.5 * ks_matmul_check_tolerance(4096));
    got[4 * 7 + 6] = want[4 * 7 + 6];
    const ks_matmul_size deep = {5, 7, 4096};
    assert_int_equal(ks_matmul_compare(got, want, &deep, &m), KS_OK);
    assert_true(ks_matmul_check_tolerance(65536) < 1.0 / 32.0); /* a missing product is caught at the largest K */
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
