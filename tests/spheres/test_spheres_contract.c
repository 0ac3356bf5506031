/* The spheres scene's kernel contract (kernels/spheres/spheres_contract.h),
 * no GPU needed: the row carries it, the starter and new-kernel's --from
 * readonly and --from constant compile with NVRTC (`spheres` unmangled, the
 * constant one declaring kernelscope_spheres), new-kernel writes a file that
 * compiles, --help shows the contract, --kernel-file without a device is one
 * line and exit 2; the check's comparison with the CPU gold: its tolerance,
 * the first pixel off, its words, and that a kernel that skips a sphere of
 * the check's first picture is off there. The runs on a GPU:
 * test_spheres_user_gpu.c. */
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
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_contract.h"
#include "kernels/spheres/spheres_user.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_run_result r;

static void compiles(const char *source, const char *name, int constant)
{
    char *ptx = ks_test_user_compiles(source, name, KS_SPHERES_USER_ENTRY, 1);
    /* the constant route: an array of that name in the constant space, which the loader finds */
    if (constant) assert_non_null(strstr(ptx, ".const .align 16 .b8 " KS_SPHERES_USER_CONST "["));
    else assert_null(strstr(ptx, KS_SPHERES_USER_CONST));
    free(ptx);
}

static void test_row(void **state)
{
    (void)state;
    const ks_scene_def *d = ks_test_user_row("spheres", KS_SPHERES_CONTRACT, KS_SPHERES_STARTER);
    assert_non_null(ks_new_kernel_from(d, "readonly"));
    assert_non_null(ks_new_kernel_from(d, "constant"));
    assert_null(ks_new_kernel_from(d, "global")); /* the starter itself */
    assert_null(ks_new_kernel_from(d, "shared"));
    assert_null(ks_new_kernel_from(d, "binned"));
}

static void test_starters_compile(void **state)
{
    (void)state;
    if (!ks_nvrtc_built()) skip();
    const ks_scene_def *d = ks_scene_def_find("spheres");
    compiles(KS_SPHERES_STARTER, "spheres_kernel.cu", 0);
    compiles(ks_new_kernel_from(d, "readonly"), "readonly.cu", 0);
    compiles(ks_new_kernel_from(d, "constant"), "constant.cu", 1);
    char *text = ks_new_kernel_text(d, NULL, "s.cu");
    assert_non_null(strstr(text, "//   extern \"C\" __global__ void spheres("));
    compiles(text, "s.cu", 0);
    free(text);
    text = ks_new_kernel_text(d, "constant", "c.cu");
    assert_non_null(strstr(text, "new-kernel spheres --from constant"));
    assert_non_null(strstr(text, "__constant__ float4 kernelscope_spheres[2 * MAX_SPHERES];"));
    compiles(text, "c.cu", 1);
    free(text);
}

static void test_new_kernel_and_kernel_file(void **state)
{
    (void)state;
    char dir[256], path[512];
    char *text = ks_test_user_starter_file("spheres", "snew", "s.cu", dir, path);
    free(text);
    ks_test_run((const char *const[]){NULL, "new-kernel", "spheres", "--from", "binned", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--from binned: spheres has no such variant written to its contract (it has: "
                                  "readonly, constant"));
    /* without a device (--backend cpu here): compiled, then one line, exit 2 */
    (void)ks_test_user_no_device("spheres", path, NULL, &r); /* (no --kernel in this scene) */
    /* a variant is named after its file: not one of ours, not twice */
    ks_test_user_file_names("spheres", dir, "constant", path, &r);
}

static void test_help_shows_contract(void **state)
{
    (void)state;
    ks_test_run((const char *const[]){NULL, "spheres", "--help", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "spheres kernel contract (your own kernel):\n"
                                  "  extern \"C\" __global__ void spheres(const float4 *spheres, int n, int w, int h, "
                                  "uchar4 *out)\n"));
    assert_non_null(strstr(r.out, "__constant__ float4 kernelscope_spheres[2 * N];"));
    assert_non_null(strstr(r.out, "D: difference view"));
}

/* The tolerance: a channel 1 off is no pixel off; 2 off is; up to 0.1 % of the pixels may be. */
static void test_compare(void **state)
{
    (void)state;
    enum { W = 100, H = 30 }; /* 3000 pixels: 3 may be off */
    unsigned char *want = malloc(4 * W * H), *got = malloc(4 * W * H);
    for (int p = 0; p < W * H * 4; ++p) want[p] = got[p] = (unsigned char)(p * 7 % 128); /* room to add 50 */
    ks_spheres_mismatch m;
    assert_true(ks_spheres_user_compare(got, want, W, H, &m));
    assert_int_equal(m.off, 0);
    assert_int_equal(m.first_i, -1);
    assert_int_equal(m.allowed, 3);
    got[4 * 5 + 1] ^= 1; /* 1 off: within */
    assert_true(ks_spheres_user_compare(got, want, W, H, &m));
    assert_int_equal(m.max_abs, 1);
    assert_int_equal(m.off, 0);
    for (int k = 0; k < 3; ++k) got[4 * (W * 7 + 40 + k)] = (unsigned char)(want[4 * (W * 7 + 40 + k)] + 50);
    assert_true(ks_spheres_user_compare(got, want, W, H, &m)); /* 3 pixels off: allowed */
    assert_int_equal(m.off, 3);
    got[4 * (W * 2 + 9) + 2] = (unsigned char)(want[4 * (W * 2 + 9) + 2] + 2); /* a 4th, earlier in the picture */
    assert_false(ks_spheres_user_compare(got, want, W, H, &m));
    assert_int_equal(m.off, 4);
    assert_int_equal(m.first_i, 9);
    assert_int_equal(m.first_j, 2);
    assert_int_equal(m.max_abs, 50);
    char text[512], want_text[512];
    ks_spheres_mismatch_text(&m, W, H, 7, text, sizeof text);
    const unsigned char *a = got + 4 * (W * 2 + 9), *b = want + 4 * (W * 2 + 9);
    snprintf(want_text, sizeof want_text,
             "differs from the CPU gold on the 100x30 check picture (7 spheres) at pixel (9,2): %d %d %d %d where %d %d "
             "%d %d is expected; 4 pixels are off by more than 1 (at most 3 may be), max difference 50",
             a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
    assert_string_equal(text, want_text);
    float *diff = malloc(sizeof(float) * W * H);
    ks_spheres_user_diff(got, want, W, H, diff);
    assert_true(diff[5] == 1.0f);
    assert_true(diff[W * 2 + 9] == 2.0f);
    assert_true(diff[W * 7 + 40] == 50.0f);
    assert_true(diff[0] == 0.0f);
    free(diff);
    free(want);
    free(got);
}

/* The check's first picture (37x29, 7 spheres from seed 1): a kernel that skips its last sphere is
 * off on more pixels than the tolerance allows, so the GPU test's refusal is certain. */
static void test_skipped_sphere_is_seen(void **state)
{
    (void)state;
    enum { W = 37, H = 29, N = 7 };
    ks_sphere s[N];
    ks_sphere_packed p[N];
    unsigned char all[4 * W * H], skipped[4 * W * H];
    ks_spheres_generate(1, N, W, H, s);
    ks_spheres_pack(s, N, p);
    ks_spheres_gold_render(p, N, W, H, all);
    ks_spheres_gold_render(p, N - 1, W, H, skipped);
    ks_spheres_mismatch m;
    assert_false(ks_spheres_user_compare(skipped, all, W, H, &m));
    assert_true(m.off > m.allowed);
    assert_true(m.max_abs > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row),
        cmocka_unit_test(test_starters_compile),
        cmocka_unit_test(test_new_kernel_and_kernel_file),
        cmocka_unit_test(test_help_shows_contract),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_skipped_sphere_is_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
