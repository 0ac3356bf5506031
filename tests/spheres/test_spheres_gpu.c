/* Sphere scene, GPU: every memory variant x block sizes x sphere counts x
 * odd image sizes against the CPU gold (at most 1 per channel off, at least
 * 99.9% of pixels exact), output poisoned before each run; constant memory
 * refusing one sphere too many. Exits 77 (skipped) without a CUDA device.
 * KS_SPHERES_QUICK=1 runs a small subset (for compute-sanitizer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/cuda_device.h"

#include "kernels/spheres/spheres.h"

static ks_spheres_gpu *gpu;
static int quick;

static int setup(void **state)
{
    (void)state;
    if (ks_spheres_gpu_create(&gpu) != KS_OK) {
        fprintf(stderr, "%s\n", ks_error_message());
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ks_spheres_gpu_destroy(gpu);
    gpu = NULL;
    return 0;
}

/* Uploads p for m, renders with block into a poisoned image, compares with gold. */
static void check_variant(ks_spheres_mem m, const int block[2], const ks_sphere_packed *p, int n,
                          int w, int h, const unsigned char *gold, unsigned char *got,
                          const char *what)
{
    if (ks_spheres_gpu_upload(gpu, m, p, n) != KS_OK ||
        ks_spheres_gpu_poison(gpu, w, h, 0xAB) != KS_OK ||
        ks_spheres_gpu_render(gpu, m, block, w, h, NULL) != KS_OK ||
        ks_spheres_gpu_download(gpu, w, h, got) != KS_OK)
        fail_msg("%s: %s %dx%d, %d spheres, block %dx%d: %s", what, ks_spheres_mem_name(m), w, h, n,
                 block[0], block[1], ks_error_message());
    ks_spheres_diff d;
    ks_spheres_compare(gold, got, w, h, &d);
    if (!ks_spheres_diff_ok(&d)) {
        const unsigned char *a = gold + 4 * ((size_t)d.first_j * w + d.first_i);
        const unsigned char *b = got + 4 * ((size_t)d.first_j * w + d.first_i);
        fail_msg("%s: %s %dx%d, %d spheres, block %dx%d: max diff %d, %.4f%% exact; first at "
                 "(%d,%d): gold %d %d %d %d, gpu %d %d %d %d",
                 what, ks_spheres_mem_name(m), w, h, n, block[0], block[1], d.max_abs,
                 100.0 * d.exact_share, d.first_i, d.first_j, a[0], a[1], a[2], a[3], b[0], b[1],
                 b[2], b[3]);
    }
}

static void test_variants_match_gold(void **state)
{
    (void)state;
    static const int sizes_full[][2] = {{333, 199}, {97, 61}, {1, 1}};
    static const int sizes_quick[][2] = {{97, 61}};
    static const int counts_full[] = {1, 77, 1001, KS_SPHERES_CONST_MAX};
    static const int counts_quick[] = {1, 77, 300};
    static const int blocks_full[][2] = {{8, 4}, {16, 16}, {32, 8}, {13, 7}, {32, 32}};
    static const int blocks_quick[][2] = {{16, 16}, {13, 7}};
    const int (*sizes)[2] = quick ? sizes_quick : sizes_full;
    const int nsizes = quick ? 1 : 3;
    const int *counts = quick ? counts_quick : counts_full;
    const int ncounts = quick ? 3 : 4;
    const int (*blocks)[2] = quick ? blocks_quick : blocks_full;
    const int nblocks = quick ? 2 : 5;
    int cases = 0;
    for (int si = 0; si < nsizes; ++si)
        for (int ci = 0; ci < ncounts; ++ci) {
            const int w = sizes[si][0], h = sizes[si][1], n = counts[ci];
            ks_sphere *s = malloc((size_t)n * sizeof *s);
            ks_sphere_packed *p = malloc((size_t)n * sizeof *p);
            unsigned char *gold = malloc(4 * (size_t)w * h), *got = malloc(4 * (size_t)w * h);
            assert_true(s && p && gold && got);
            /* Spheres over an area a little larger than the image, so some are clipped. */
            ks_spheres_generate(1000u + (unsigned)n, n, w + 64, h + 64, s);
            ks_spheres_pack(s, n, p);
            ks_spheres_gold_render(p, n, w, h, gold);
            for (int m = KS_SPHERES_MEM_GLOBAL; m < KS_SPHERES_MEM_NUM; ++m) {
                if (quick && m != KS_SPHERES_MEM_SHARED && m != KS_SPHERES_MEM_BINNED) continue;
                for (int b = 0; b < nblocks; ++b) {
                    check_variant((ks_spheres_mem)m, blocks[b], p, n, w, h, gold, got, "random");
                    ++cases;
                }
            }
            free(s);
            free(p);
            free(gold);
            free(got);
        }
    print_message("%d variant/block/count/size cases match the gold\n", cases);
}

/* Equal depths everywhere (the same sphere in many colours) and spheres far
 * larger than the image: the first listed must win in every variant, however
 * a variant orders its lists. */
static void test_ties_and_giants(void **state)
{
    (void)state;
    enum { N = 600, W = 211, H = 143 };
    ks_sphere s[N];
    ks_spheres_generate(99, N, W, H, s);
    for (int k = 100; k < 400; ++k) { /* 300 copies of one sphere, each its own colour */
        s[k] = s[100];
        s[k].color[0] = (float)(k % 7) / 7.0f;
        s[k].color[1] = (float)(k % 11) / 11.0f;
    }
    s[500] = (ks_sphere){0.0f, 0.0f, -100500.0f, KS_SPHERES_RADIUS_MAX, {0.1f, 0.2f, 0.3f}};
    s[501] = (ks_sphere){-5000.0f, 3000.0f, -30500.0f, 30000.0f, {0.9f, 0.2f, 0.3f}};
    s[502] = (ks_sphere){KS_SPHERES_COORD_MAX, -KS_SPHERES_COORD_MAX, 0.0f, 50.0f, {1, 1, 1}};
    ks_sphere_packed p[N];
    ks_spheres_pack(s, N, p);
    static unsigned char gold[4 * W * H], got[4 * W * H];
    ks_spheres_gold_render(p, N, W, H, gold);
    const int blocks[][2] = {{16, 16}, {8, 4}, {32, 1}};
    for (int m = KS_SPHERES_MEM_GLOBAL; m < KS_SPHERES_MEM_NUM; ++m)
        for (int b = 0; b < 3; ++b)
            check_variant((ks_spheres_mem)m, blocks[b], p, N, W, H, gold, got, "ties");
}

/* Drifting spheres: each frame's upload reaches the kernels (staging reused). */
static void test_uploads_follow_animation(void **state)
{
    (void)state;
    enum { N = 500, W = 160, H = 120 };
    static ks_sphere base[N], now[N];
    static float vel[3 * N];
    static ks_sphere_packed p[N];
    static unsigned char gold[4 * W * H], got[4 * W * H];
    ks_spheres_generate(5, N, W, H, base);
    ks_spheres_velocities(5, N, vel);
    const int block[2] = {16, 8};
    for (int m = KS_SPHERES_MEM_GLOBAL; m < KS_SPHERES_MEM_NUM; ++m)
        for (int t = 0; t < 3; ++t) {
            ks_spheres_animate(base, vel, N, 7.0 * t, W, H, now);
            ks_spheres_pack(now, N, p);
            ks_spheres_gold_render(p, N, W, H, gold);
            check_variant((ks_spheres_mem)m, block, p, N, W, H, gold, got, "animated");
        }
}

static void test_constant_limit(void **state)
{
    (void)state;
    enum { N = KS_SPHERES_CONST_MAX + 1 };
    ks_sphere *s = malloc(N * sizeof *s);
    ks_sphere_packed *p = malloc(N * sizeof *p);
    assert_true(s && p);
    ks_spheres_generate(3, N, 256, 256, s);
    ks_spheres_pack(s, N, p);
    assert_int_equal(ks_spheres_gpu_upload(gpu, KS_SPHERES_MEM_CONSTANT, p, N - 1), KS_OK);
    ks_error_clear();
    assert_int_equal(ks_spheres_gpu_upload(gpu, KS_SPHERES_MEM_CONSTANT, p, N), KS_ERR_UNSUPPORTED);
    assert_non_null(strstr(ks_error_message(), "at most 2048"));
    /* other variants take it */
    assert_int_equal(ks_spheres_gpu_upload(gpu, KS_SPHERES_MEM_READONLY, p, N), KS_OK);
    free(s);
    free(p);
}

static void test_attrs_and_errors(void **state)
{
    (void)state;
    const int block[2] = {16, 16}, bad[2] = {64, 64};
    for (int m = KS_SPHERES_MEM_GLOBAL; m < KS_SPHERES_MEM_NUM; ++m) {
        ks_kernel_attrs a;
        assert_int_equal(ks_spheres_gpu_kernel_attrs(gpu, (ks_spheres_mem)m, block, &a), KS_OK);
        assert_true(a.registers > 0);
        assert_true(a.blocks_per_sm > 0);
        assert_true(a.occupancy > 0.0 && a.occupancy <= 1.0);
    }
    assert_int_equal(ks_spheres_gpu_render(gpu, KS_SPHERES_MEM_GLOBAL, bad, 64, 64, NULL), KS_ERR_INVALID);
    double med = 0, mn = 0;
    ks_sphere s[64];
    ks_sphere_packed p[64];
    ks_spheres_generate(8, 64, 512, 512, s);
    ks_spheres_pack(s, 64, p);
    assert_int_equal(ks_spheres_gpu_upload(gpu, KS_SPHERES_MEM_BINNED, p, 64), KS_OK);
    const ks_timing_opts five = {.reps = 5};
    ks_timing t;
    assert_int_equal(ks_spheres_gpu_time(gpu, KS_SPHERES_MEM_BINNED, block, 512, 512, &five, &t), KS_OK);
    med = t.median_ms;
    mn = t.min_ms;
    assert_true(med > 0.0 && mn > 0.0 && mn <= med && t.reps == 5 && t.cache == KS_CACHE_COLD);
    /* live tracking produces samples tagged with the variant */
    ks_spheres_gpu_track(gpu, 1);
    assert_int_equal(ks_spheres_gpu_upload(gpu, KS_SPHERES_MEM_SHARED, p, 64), KS_OK);
    assert_int_equal(ks_spheres_gpu_render(gpu, KS_SPHERES_MEM_SHARED, block, 512, 512, NULL), KS_OK);
    unsigned char *img = malloc(512 * 512 * 4);
    assert_int_equal(ks_spheres_gpu_download(gpu, 512, 512, img), KS_OK); /* synchronises */
    free(img);
    ks_spheres_sample out[8];
    const int got = ks_spheres_gpu_collect(gpu, out, 8);
    assert_int_equal(got, 2);
    assert_int_equal(out[0].kind, KS_SPHERES_SAMPLE_UPLOAD);
    assert_int_equal(out[1].kind, KS_SPHERES_SAMPLE_RENDER);
    assert_int_equal(out[1].mem, KS_SPHERES_MEM_SHARED);
    assert_int_equal(out[1].count, 64);
    ks_spheres_gpu_track(gpu, 0);
}

int main(void)
{
    ks_device_info dev;
    if (ks_cuda_probe(&dev) != KS_OK || !dev.present) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    const char *q = getenv("KS_SPHERES_QUICK");
    quick = q && strcmp(q, "1") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_match_gold),
        cmocka_unit_test(test_ties_and_giants),
        cmocka_unit_test(test_uploads_follow_animation),
        cmocka_unit_test(test_constant_limit),
        cmocka_unit_test(test_attrs_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
