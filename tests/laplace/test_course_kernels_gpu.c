/* The course's Laplace kernels as they are written (examples/course/, each
 * with its one kernelscope: line): checked in this process against the CPU
 * gold and the live grid, launched as the line says (Practical 3's k-march
 * over the (i, j) columns and its 3D blocks over the whole domain, lecture
 * 3's two 2D `lap`s, which assume sizes multiples of their block). A kernel
 * that changes the boundary is refused; a line whose sizes do not match the
 * function's parameters is refused; a `multiple` kernel is checked at such
 * sizes, says so, and is refused a live grid that is not one. Then lecture 4's
 * sum (one partial a block, added up by kernelscope) and the memory-model
 * slides' three histograms, checked in this process by their scenes' checks;
 * a wrong partial, a partial written past the grid's, a wrong count and a
 * line that does not match the function refused. Skipped (77) without a
 * device or NVRTC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"
#include "app/scenes/histogram/check.h"
#include "app/scenes/laplace/check.h"
#include "app/scenes/reduce/check.h"
#include "app/user_kernel.h"
#include "base/cuda_device.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/histogram/histogram_user.h"
#include "kernels/reduce/reduce_user.h"
#include "tests/test_util.h"

static ks_device_info dev;

/* Compiles text (as kernelscope does a file: its declaration read, the launch values appended). */
static void compile_text(const char *text, const char *name, ks_nvrtc_result *out)
{
    char *src = strdup(text);
    assert_non_null(src);
    assert_int_equal(ks_user_kernel_declare(name, &src), KS_OK);
    const ks_nvrtc_desc d = {.source = src, .name = name, .cc_major = dev.cc_major, .cc_minor = dev.cc_minor, .cubin = 1};
    const ks_status st = ks_nvrtc_compile(&d, out);
    if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), out->lines ? out->lines : "");
    assert_int_equal(st, KS_OK);
    free(src);
}

static char *example(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/course/%s", KS_SOURCE_DIR, file);
    char *text = ks_test_read_file(path);
    assert_non_null(text);
    return text;
}

/* Checks text as file in scene on the live grid nx x ny x nz with block b. */
static void check(const char *scene, const char *file, const char *text, const int grid[3], const int b[3],
                  ks_kcheck_result *res)
{
    ks_nvrtc_result code;
    compile_text(text, file, &code);
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.scene, sizeof req.scene, "%s", scene);
    snprintf(req.file, sizeof req.file, "%s", file);
    memcpy(req.grid, grid, sizeof req.grid);
    memcpy(req.block, b, sizeof req.block);
    req.code = code.code;
    req.code_size = code.code_size;
    req.cubin = code.cubin;
    memset(res, 0, sizeof *res);
    assert_int_equal(ks_laplace_kernel_check(&req, res), KS_OK);
    fprintf(stderr, "%s: %s\n", file, res->message);
    ks_nvrtc_result_free(&code);
}

static void test_practical3(void **state)
{
    (void)state;
    ks_kcheck_result res;
    const int grid[3] = {256, 256, 256}, block[3] = {32, 4, 4}; /* the user's block: the files fix their own */
    const char *const files[] = {"laplace3d_kmarch.cu", "laplace3d_block3d.cu"};
    for (int f = 0; f < 2; ++f) {
        char *text = example(files[f]);
        check("laplace3d", files[f], text, grid, block, &res);
        assert_true(res.passed);
        assert_non_null(strstr(res.message, "matches the CPU gold"));
        free(text);
    }
    /* a boundary that changes: refused where it does */
    char *text = example("laplace3d_block3d.cu");
    char *at = strstr(text, "d_u2[indg] = d_u1[indg]; //");
    assert_non_null(at);
    memcpy(at, "d_u2[indg]=2*d_u1[indg]; //", strlen("d_u2[indg]=2*d_u1[indg]; //")); /* as long */
    check("laplace3d", "changes_boundary.cu", text, grid, block, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold"));
    assert_non_null(strstr(res.message, "(i,j,k) = (0,0,0)"));
    free(text);
    /* its sizes declared int while the function takes long long: refused before it runs */
    text = example("laplace3d_kmarch.cu");
    at = strstr(text, "GPU_laplace3d(long long nx, long long ny, long long nz, u, v)");
    assert_non_null(at);
    const char *wrong = "GPU_laplace3d(int nx, int ny, long long nz, u, v)            "; /* as long */
    memcpy(at, wrong, strlen(wrong));
    check("laplace3d", "wrong_sizes.cu", text, grid, block, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "GPU_laplace3d's argument 1 is 8 bytes, but the kernelscope: line says nx (4)"));
    free(text);
}

static void test_lecture3(void **state)
{
    (void)state;
    ks_kcheck_result res;
    const int grid[3] = {1024, 1024, 1}, block[3] = {32, 8, 1};
    const char *const files[] = {"lap2d_multiple.cu", "lap2d.cu"};
    for (int f = 0; f < 2; ++f) {
        char *text = example(files[f]);
        check("laplace2d", files[f], text, grid, block, &res);
        assert_true(res.passed);
        assert_non_null(strstr(res.message, "it declares sizes multiples of its block, so it was checked on 160x80x1 "
                                            "and runs only at such sizes"));
        /* a live grid that is not such a size: refused, saying why */
        const int odd[3] = {1000, 1000, 1};
        check("laplace2d", files[f], text, odd, block, &res);
        assert_false(res.passed);
        assert_non_null(strstr(res.message, "it assumes sizes that are multiples of its block (multiple), and 1000 is "
                                            "not a multiple of 32"));
        free(text);
    }
}

/* text with its first `from` replaced by `to` (malloc'd; text is freed). */
static char *replaced(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    assert_non_null(at);
    const size_t head = (size_t)(at - text), tail = strlen(at + strlen(from));
    char *out = malloc(head + strlen(to) + tail + 1);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, to, strlen(to));
    memcpy(out + head + strlen(to), at + strlen(from), tail + 1);
    free(text);
    return out;
}

/* Checks text as file in the reduce (histogram 0) or histogram (1) scene at a live size of n
 * floats or bytes with block bx. */
static void check_1d(int histogram, const char *file, const char *text, long long n, int bx, ks_kcheck_result *res)
{
    ks_nvrtc_result code;
    compile_text(text, file, &code);
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.scene, sizeof req.scene, "%s", histogram ? "histogram" : "reduce");
    snprintf(req.file, sizeof req.file, "%s", file);
    if (histogram) ks_hist_check_grid((size_t)n, req.grid);
    else ks_reduce_check_grid(n, 0, req.grid);
    req.block[0] = bx;
    req.block[1] = req.block[2] = 1;
    req.code = code.code;
    req.code_size = code.code_size;
    req.cubin = code.cubin;
    memset(res, 0, sizeof *res);
    assert_int_equal(histogram ? ks_hist_kernel_check(&req, res) : ks_reduce_kernel_check(&req, res), KS_OK);
    fprintf(stderr, "%s: %s\n", file, res->message);
    ks_nvrtc_result_free(&code);
}

/* Lecture 4's sum: one partial a block, which kernelscope adds up; checked at sizes multiples of its
 * block and refused others; a wrong partial and one written past the grid refused. */
static void test_lecture4_sum(void **state)
{
    (void)state;
    ks_kcheck_result res;
    char *text = example("reduce_sum.cu");
    check_1d(0, "reduce_sum.cu", text, 1 << 24, 256, &res);
    assert_true(res.passed);
    assert_non_null(strstr(res.message, "matches the CPU gold"));
    assert_non_null(strstr(res.message, "it declares sizes multiples of its block, so it was checked on sizes rounded "
                                        "up to multiples of 256 and runs only at such sizes"));
    check_1d(0, "reduce_sum.cu", text, 1 << 20, 1024, &res); /* another block: the tree is the kernel's */
    assert_true(res.passed);
    /* a live size that is not a multiple of its block: refused, saying why */
    check_1d(0, "reduce_sum.cu", text, 1000003, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "it assumes sizes that are multiples of its block (multiple), and 1000003 "
                                        "floats are not a multiple of 256"));
    /* a wrong partial: refused with the sum it gave */
    char *wrong = replaced(strdup(text), "d_sum[blockIdx.x] = temp[0];", "d_sum[blockIdx.x] = temp[1];");
    check_1d(0, "wrong_partial.cu", wrong, 1 << 24, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold on 256 floats"));
    free(wrong);
    /* each block's partial one place on: the last is past the grid's partials */
    wrong = replaced(strdup(text), "d_sum[blockIdx.x] = temp[0];", "d_sum[blockIdx.x + 1] = temp[0];");
    check_1d(0, "past_partials.cu", wrong, 1 << 24, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "wrote outside its partials on 256 floats"));
    free(wrong);
    /* a line with an n the function does not take */
    wrong = replaced(strdup(text), "sum(partials, x)", "sum(partials, x, int n)");
    check_1d(0, "extra_n.cu", wrong, 1 << 24, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "sum takes 2 arguments, its kernelscope: line names 3"));
    free(wrong);
    free(text);
}

/* The slides' three histograms as written: global atomics over a grid covering the bytes, the
 * grid-stride loop and the shared-memory bins at two blocks of 256 a multiprocessor (whatever the
 * user's block); a wrong count and a size typed int refused. */
static void test_memory_model_histograms(void **state)
{
    (void)state;
    ks_kcheck_result res;
    const char *const files[] = {"histo_global.cu", "histo_stride.cu", "histo_shared.cu"};
    for (int f = 0; f < 3; ++f) {
        char *text = example(files[f]);
        check_1d(1, files[f], text, 16 << 20, 256, &res);
        assert_true(res.passed);
        assert_non_null(strstr(res.message, "matches the CPU gold exactly"));
        check_1d(1, files[f], text, 16 << 20, 128, &res); /* histo_shared fixes its own 256 */
        assert_true(res.passed);
        free(text);
    }
    char *text = replaced(example("histo_shared.cu"), "atomicAdd( &(histo[threadIdx.x]), temp[threadIdx.x] );",
                          "atomicAdd( &(histo[threadIdx.x]), temp[threadIdx.x] + 1 );");
    check_1d(1, "wrong_count.cu", text, 16 << 20, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold on 1 byte ("));
    assert_non_null(strstr(res.message, "at bin 0"));
    free(text);
    text = replaced(example("histo_global.cu"), "histoNoSharedMem(data, long n, bins)", "histoNoSharedMem(data, n, bins)");
    check_1d(1, "int_size.cu", text, 16 << 20, 256, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "histoNoSharedMem's argument 2 is 8 bytes, but the kernelscope: line says n (4)"));
    free(text);
}

int main(void)
{
    if (!ks_test_have_cuda() || !ks_nvrtc_built()) return 77;
    if (ks_cuda_probe(&dev) != KS_OK || !dev.present) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_practical3),
        cmocka_unit_test(test_lecture3),
        cmocka_unit_test(test_lecture4_sum),
        cmocka_unit_test(test_memory_model_histograms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
