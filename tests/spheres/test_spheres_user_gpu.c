/* A user's sphere kernel on the GPU (--kernel-file): through the app's own
 * checker process, the starter (spheres through the pointer, global memory),
 * new-kernel's --from readonly (const __restrict__, __ldg) and --from
 * constant (a __constant__ array that kernelscope fills by its name) match
 * the CPU gold within the contract's tolerance; a kernel that skips the last
 * sphere is refused naming a pixel that sphere changes; a __constant__ array
 * too small for the scene is refused; the difference view's answer; a live
 * run checks and runs the file; bench rows carry the files' names, "n/a"
 * where a file's array cannot hold the count. Skipped (77) without a device
 * or NVRTC. */
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
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_contract.h"
#include "kernels/spheres/spheres_user.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_device_info dev;
extern const char ks_spheres_starter_readonly[], ks_spheres_starter_constant[];

/* The starter with its loop one sphere short: the last sphere is never drawn. */
static char *skips_last(void)
{
    const char *at = strstr(KS_SPHERES_STARTER, "k < n;");
    assert_non_null(at);
    const size_t head = (size_t)(at - KS_SPHERES_STARTER), tail = strlen(at + strlen("k < n;"));
    char *s = malloc(head + strlen("k < n - 1;") + tail + 1);
    assert_non_null(s);
    memcpy(s, KS_SPHERES_STARTER, head);
    memcpy(s + head, "k < n - 1;", strlen("k < n - 1;"));
    memcpy(s + head + strlen("k < n - 1;"), at + strlen("k < n;"), tail + 1);
    return s;
}

/* --from constant with an array of 64 spheres. */
static char *small_constant(void)
{
    const char *at = strstr(ks_spheres_starter_constant, "#define MAX_SPHERES 2048");
    assert_non_null(at);
    const size_t n = strlen(ks_spheres_starter_constant) + 8;
    char *s = malloc(n);
    snprintf(s, n, "%.*s#define MAX_SPHERES 64%s", (int)(at - ks_spheres_starter_constant), ks_spheres_starter_constant,
             at + strlen("#define MAX_SPHERES 2048"));
    return s;
}

/* Compiles source for this device and checks it in the checker process at a
 * live picture of w x h with count spheres and block 16x16; diff: with the
 * difference of each pixel. */
static void check_diff(ks_kchecker *c, const char *source, int w, int h, int count, int diff, ks_kcheck_result *res)
{
    ks_kcheck_request req = {.scene = "spheres", .grid = {w, h, count}, .block = {16, 16, 1}, .diff = diff, .axis = 2,
                             .cells = {w, h}};
    ks_test_user_check(c, &dev, &req, source, res);
}

static void test_check(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    /* the pointer routes: global, then const __restrict__ */
    check_diff(c, KS_SPHERES_STARTER, 1024, 768, 256, 0, &res);
    assert_true(res.passed);
    assert_non_null(strstr(res.message, "matches the CPU gold (37x29 with 7 spheres, 333x199 with 1001, and the live "
                                        "1024x768 with 256; every channel within 1 on all but 0.1 % of the pixels)"));
    check_diff(c, ks_spheres_starter_readonly, 1024, 768, 256, 0, &res);
    assert_true(res.passed);
    /* the __constant__ route: kernelscope fills kernelscope_spheres by its name */
    check_diff(c, ks_spheres_starter_constant, 1024, 768, 256, 0, &res);
    assert_true(res.passed);
    assert_non_null(strstr(res.message, "the live 1024x768 with 256, in its __constant__ array"));
    char *small = small_constant();
    check_diff(c, small, 1024, 768, 64, 0, &res); /* the check's 1001 spheres: its first 64 */
    assert_true(res.passed);
    check_diff(c, small, 1024, 768, 256, 0, &res);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "mine.cu: its kernelscope_spheres holds 64 spheres, the scene has 256"));
    free(small);

    /* a sphere skipped: refused at a pixel the last sphere of the first picture changes */
    char *skip = skips_last();
    check_diff(c, skip, 1024, 768, 256, 0, &res);
    free(skip);
    assert_false(res.passed);
    int i = -1, j = -1;
    const char *at = strstr(res.message, "differs from the CPU gold on the 37x29 check picture (7 spheres) at pixel (");
    assert_non_null(at);
    at = strstr(at, "at pixel (") + strlen("at pixel (");
    assert_int_equal(sscanf(at, "%d,%d", &i, &j), 2);
    ks_sphere s[7];
    ks_sphere_packed p[7];
    unsigned char all[4], short_one[4];
    ks_spheres_generate(1, 7, 37, 29, s);
    ks_spheres_pack(s, 7, p);
    assert_int_equal(ks_spheres_gold_pixel(p, 7, 37, 29, i, j, all), 6); /* the last sphere wins there */
    ks_spheres_gold_pixel(p, 6, 37, 29, i, j, short_one);
    int most = 0;
    for (int k = 0; k < 3; ++k) most = abs(all[k] - short_one[k]) > most ? abs(all[k] - short_one[k]) : most;
    assert_true(most > 1);
    ks_kchecker_destroy(c);
}

/* The difference view's answer: each pixel's largest channel difference from the gold at the live
 * size, after a refusal too. */
static void test_diff(void **state)
{
    (void)state;
    ks_kchecker *c = ks_test_user_checker();
    ks_kcheck_result res;
    check_diff(c, KS_SPHERES_STARTER, 640, 480, 128, 1, &res);
    assert_true(res.passed);
    assert_non_null(res.diff);
    assert_int_equal(res.diff_w, 640);
    assert_int_equal(res.diff_h, 480);
    long long off = 0;
    for (int p = 0; p < 640 * 480; ++p) off += res.diff[p] > 1.0f;
    assert_true(off <= 640 * 480 / 1000);
    ks_kcheck_result_free(&res);
    char *skip = skips_last();
    check_diff(c, skip, 640, 480, 128, 1, &res);
    free(skip);
    assert_false(res.passed);
    assert_non_null(res.diff); /* refused on the small picture: the live size ran for the picture */
    /* the live picture's difference is that of 127 spheres against 128: the last one may be hidden
     * behind the others there (an H200 run found no pixel off), so only its size is asserted */
    assert_int_equal(res.diff_w, 640);
    assert_int_equal(res.diff_h, 480);
    ks_kcheck_result_free(&res);
    ks_kchecker_destroy(c);
}

/* A live run: the file is built and checked before the first frame, then runs; M reaches ours. */
static void test_live(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_user_new_kernel("spheres", "constant", "slive", "mine.cu", dir, path);
    ks_run_result r;
    ks_test_user_live((const char *const[]){NULL, "spheres", "--headless", "--frames", "5", "--spheres", "300",
                                            "--block", "32x8", "--kernel-file", path, NULL},
                      &r);
    assert_non_null(strstr(r.err, "the live 1024x768 with 300, in its __constant__ array"));
}

/* bench: each file a column beside our five, named after it; a count over its array is n/a. */
static void test_bench_rows(void **state)
{
    (void)state;
    char dir[256], path[512], cpath[512];
    ks_test_tmpdir(dir, sizeof dir, "sbench");
    snprintf(path, sizeof path, "%s/mine.cu", dir);
    snprintf(cpath, sizeof cpath, "%s/const.cu", dir);
    ks_run_result r;
    ks_test_run((const char *const[]){NULL, "new-kernel", "spheres", "-o", path, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    ks_test_run((const char *const[]){NULL, "new-kernel", "spheres", "--from", "constant", "-o", cpath, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    char *csv = ks_test_run_headless_read(
        (const char *const[]){ks_test_binary(), "bench", "spheres", "--spheres", "16,256,4096", "--size", "512x512",
                              "--reps", "3", "--kernel-file", path, "--kernel-file", cpath, "--out", dir, NULL},
        dir, "bench_spheres.csv", &r);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",256,mine.cu,512,512,"));
    assert_non_null(strstr(csv, ",4096,mine.cu,512,512,"));
    assert_non_null(strstr(csv, ",256,const.cu,512,512,"));
    assert_non_null(strstr(csv, ",4096,const.cu,512,512,n/a,n/a,"));
    assert_non_null(strstr(csv, ",256,binned,512,512,"));
    free(csv);
    assert_non_null(strstr(r.out, "mine.cu"));
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
