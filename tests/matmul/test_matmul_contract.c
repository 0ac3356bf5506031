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

static ks_run_result r;

static void compiles(const char *source, const char *name)
{
    ks_nvrtc_result c;
    const ks_status st = ks_nvrtc_compile(&(ks_nvrtc_desc){.source = source, .name = name}, &c);
    if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), c.lines ? c.lines : "");
    assert_int_equal(st, KS_OK);
    assert_non_null(strstr(c.code, ".entry " KS_MATMUL_USER_ENTRY "(")); /* extern "C": the name unmangled */
    assert_string_equal(c.lines, "");                                       /* not even a warning */
    ks_nvrtc_result_free(&c);
}

static void test_row(void **state)
{
    (void)state;
    const ks_scene_def *d = ks_scene_def_find("matmul");
    assert_non_null(d);
    assert_string_equal(d->kernel_contract, KS_MATMUL_CONTRACT); /* the text, not its address: string merging is not promised */
    assert_string_equal(d->kernel_starter, KS_MATMUL_STARTER);
    assert_non_null(d->kernel_check);
    assert_non_null(d->kernel_file);
    const size_t n = strcspn(KS_MATMUL_CONTRACT, "\n"); /* the signature the starter begins with */
    assert_int_equal(strncmp(KS_MATMUL_CONTRACT, KS_MATMUL_STARTER, n), 0);
    assert_null(strstr(KS_MATMUL_CONTRACT, "*/")); /* it goes into comments */
    assert_non_null(ks_new_kernel_from(d, "regtile"));
    assert_null(ks_new_kernel_from(d, "tiled")); /* a template of three tiles: not written to the contract */
    assert_null(ks_new_kernel_from(d, "cublas"));
}

static void test_starters_compile(void **state)
{
    (void)state;
    if (!ks_nvrtc_built()) skip();
    const ks_scene_def *d = ks_scene_def_find("matmul");
    compiles(KS_MATMUL_STARTER, "matmul_kernel.cu");
    compiles(ks_new_kernel_from(d, "regtile"), "regtile.cu");
    /* the files new-kernel writes: the contract as comments, then the kernel */
    char *text = ks_new_kernel_text(d, NULL, "mm.cu");
    assert_non_null(strstr(text, "//   extern \"C\" __global__ void matmul("));
    compiles(text, "mm.cu");
    free(text);
    text = ks_new_kernel_text(d, "regtile", "rt.cu");
    assert_non_null(strstr(text, "new-kernel matmul --from regtile"));
    assert_non_null(strstr(text, "kernelscope_points_per_thread[3] = {8, 8, 1}"));
    compiles(text, "rt.cu");
    free(text);
}

static void test_new_kernel_and_kernel_file(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "mmnew");
    snprintf(path, sizeof path, "%s/mm.cu", dir);
    ks_test_run((const char *const[]){NULL, "new-kernel", "matmul", "-o", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    char *text = ks_test_read_file(path);
    assert_non_null(text);
    assert_non_null(strstr(text, "kernelscope matmul --kernel-file"));
    free(text);
    ks_test_run((const char *const[]){NULL, "new-kernel", "matmul", "--from", "tiled", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--from tiled: matmul has no such variant written to its contract (it has: regtile"));
    /* without a device (--backend cpu here): compiled, then one line, exit 2 */
    ks_test_run((const char *const[]){NULL, "matmul", "--backend", "cpu", "--kernel-file", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(ks_test_count_lines(r.err), 1);
    if (!ks_nvrtc_built()) {
        assert_non_null(strstr(r.err, "NVRTC is not in this"));
        return;
    }
    assert_non_null(strstr(r.err, "mm.cu' compiles (for sm_90, the default without a device); running it needs a "
                                  "CUDA device, not --backend cpu") ||
                    strstr(r.err, "mm.cu compiles (for sm_90, the default without a device); running it needs a CUDA "
                                  "device, not --backend cpu"));
    ks_test_run((const char *const[]){NULL, "bench", "matmul", "--backend", "cpu", "--kernel-file", path, NULL}, NULL,
                &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "running it needs a CUDA device"));
    /* its name is a --kernel name; ours are not file names; a 3-part block is refused */
    ks_test_run((const char *const[]){NULL, "matmul", "--backend", "cpu", "--kernel-file", path, "--kernel", "mm.cu",
                                      NULL},
                NULL, &r);
    assert_non_null(strstr(r.err, "running it needs a CUDA device"));
    ks_test_run((const char *const[]){NULL, "matmul", "--kernel", "mm.cu", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "unknown matmul kernel 'mm.cu'"));
    ks_test_run((const char *const[]){NULL, "matmul", "--kernel-file", path, "--block", "8x8x2", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "2-part block"));
    snprintf(path, sizeof path, "%s/regtile", dir);
    ks_test_run((const char *const[]){NULL, "matmul", "--kernel-file", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "'regtile' is the name of a built-in kernel"));
    ks_test_run((const char *const[]){NULL, "bench", "live", "--kernel-file", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "only to the laplace3d, laplace2d, spheres, matmul, histogram and reduce scenes"));
}

static void test_kernel_file_errors(void **state)
{
    (void)state;
    if (!ks_nvrtc_built()) skip();
    char dir[256], path[512], want[1200];
    ks_test_tmpdir(dir, sizeof dir, "mmerr");
    snprintf(path, sizeof path, "%s/bad.cu", dir);
    ks_test_write_file(path, "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"
                     "                                  int M, int N, int K)\n"
                     "{\n"
                     "    C[0] = A[0] * q;\n"
                     "    C[1] = B[0]\n"
                     "}\n");
    ks_test_run((const char *const[]){NULL, "matmul", "--backend", "cpu", "--kernel-file", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    snprintf(want, sizeof want, "%s:4: error: identifier \"q\" is undefined\n%s:6: error: expected a \";\"\n", path,
             path);
    assert_string_equal(r.err, want); /* one line per error, nothing else */
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
