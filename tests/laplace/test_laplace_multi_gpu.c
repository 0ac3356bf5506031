/* The multi-GPU solver (kernels/laplace/laplace_multi.h) against one GPU,
 * bit for bit: every built-in variant, 3D and 2D, grids with and without
 * 16-byte rows, uneven splits, short and long runs, both previous-field
 * modes, a change of variant between runs (the halos refreshed to the new
 * depth), the residual, the timing figures and the refusals. Random non-zero
 * data. Exits 77 (skipped) with fewer than two CUDA devices or without NCCL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "kernels/laplace/laplace.h"
#include "kernels/laplace/laplace_multi.h"

static int g_gpus;

static void fill_random(const ks_grid *g, unsigned seed, float *u)
{
    unsigned long long x = seed * 0x9E3779B97F4A7C15ULL + 7;
    const size_t n = ks_grid_points(g);
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        u[i] = 0.1f + (float)(x >> 40) * (1.0f / 16777216.0f);
    }
}

typedef struct step {
    const char *variant;
    int iters;
    ks_lprev prev;
} step;

/* Runs the steps on one GPU and on `gpus` GPUs from the same random field;
 * the fields (and residuals, where the last step is exact) must agree. */
static void compare(const ks_grid *g, int gpus, const step *steps, int nsteps, unsigned seed)
{
    const size_t n = ks_grid_points(g);
    float *init = malloc(n * sizeof *init), *one = malloc(n * sizeof *one), *many = malloc(n * sizeof *many),
          *prev = malloc(n * sizeof *prev);
    assert_non_null(init);
    assert_non_null(one);
    assert_non_null(many);
    assert_non_null(prev);
    fill_random(g, seed, init);
    for (size_t i = 0; i < n; ++i) many[i] = NAN; /* poisoned: every point must be written */
    ks_lsolver *s = NULL;
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    assert_int_equal(ks_lsolver_create(g, &s), KS_OK);
    assert_int_equal(ks_lsolver_upload(s, init), KS_OK);
    ks_lmulti *m = NULL;
    const ks_lmulti_desc d = {*g, gpus, NULL, 0};
    if (ks_lmulti_create(&d, &m) != KS_OK) fail_msg("%s", ks_error_message());
    assert_int_equal(ks_lmulti_upload(m, init), KS_OK);
    for (int k = 0; k < nsteps; ++k) {
        const int id = ks_lvariant_find(g->dims, steps[k].variant);
        assert_true(id >= 0);
        const int *block = ks_lvariant_get(id)->default_block;
        assert_int_equal(ks_lsolver_run(s, id, block, steps[k].iters, steps[k].prev), KS_OK);
        if (ks_lmulti_check_block(m, id, block) != KS_OK) fail_msg("%s", ks_error_message());
        if (ks_lmulti_run(m, id, block, steps[k].iters, steps[k].prev) != KS_OK) fail_msg("%s", ks_error_message());
    }
    assert_int_equal(ks_lsolver_download(s, one), KS_OK);
    assert_int_equal(ks_lmulti_download(m, many), KS_OK);
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&one[i], &many[i], sizeof(float)) != 0)
            fail_msg("%s %dx%dx%d on %d GPUs: point %zu (plane %zu) is %.9g, one GPU %.9g", steps[nsteps - 1].variant,
                     g->nx, g->ny, g->nz, gpus, i, i / (g->dims == 3 ? (size_t)g->nx * g->ny : (size_t)g->nx),
                     (double)many[i], (double)one[i]);
    if (steps[nsteps - 1].prev == KS_LPREV_EXACT) {
        assert_int_equal(ks_lsolver_download_previous(s, prev), KS_OK);
        const double want = sqrt(ks_laplace_gold_sumsq_diff(g, one, prev) / (double)n);
        double got = -1.0;
        assert_int_equal(ks_lmulti_residual(m, &got), KS_OK);
        assert_true(want > 0.0);
        assert_true(fabs(got - want) <= 1e-9 * want);
    }
    ks_lmulti_destroy(m);
    ks_lsolver_destroy(s);
    free(init);
    free(one);
    free(many);
    free(prev);
}

static int gpus_for(const ks_grid *g, int want)
{
    const int planes = (g->dims == 3 ? g->nz : g->ny) - 2;
    int n = want < g_gpus ? want : g_gpus;
    while (n > 2 && planes / n < 2 * KS_LMULTI_DEPTH) --n;
    return n;
}

static void every_variant(const ks_grid *g)
{
    for (int id = 0; id < ks_lvariant_builtin_count(); ++id) {
        const ks_lvariant_info *v = ks_lvariant_get(id);
        if (v->dims != g->dims) continue;
        for (int gpus = 2; gpus <= gpus_for(g, 4); ++gpus) {
            const step exact[] = {{v->name, 11, KS_LPREV_EXACT}};
            const step any[] = {{v->name, 9, KS_LPREV_ANY}};
            const step one[] = {{v->name, 1, KS_LPREV_EXACT}};
            compare(g, gpus, exact, 1, 3u + (unsigned)id);
            compare(g, gpus, any, 1, 5u + (unsigned)id);
            compare(g, gpus, one, 1, 9u + (unsigned)id);
        }
    }
}

static void test_variants_3d(void **state)
{
    (void)state;
    const ks_grid a = {3, 36, 29, 31}; /* rows of 16 bytes: the float4 paths; 29 planes split 15 + 14 */
    const ks_grid b = {3, 37, 23, 26}; /* scalar paths; 24 planes */
    every_variant(&a);
    every_variant(&b);
}

static void test_variants_2d(void **state)
{
    (void)state;
    const ks_grid a = {2, 100, 61, 1};
    const ks_grid b = {2, 97, 53, 1};
    every_variant(&a);
    every_variant(&b);
}

/* tblock's one launch a slab (its high edge's blocks first, the first chunk
 * of the rest longer, both edges signalling the exchange): planes enough for
 * several chunks, on the float4 path and on the scalar one. */
static void test_tblock_chunks(void **state)
{
    (void)state;
    const ks_grid a = {3, 128, 96, 130}, b = {3, 67, 45, 101};
    const step exact[] = {{"tblock", 14, KS_LPREV_EXACT}}, any[] = {{"tblock", 13, KS_LPREV_ANY}};
    for (int gpus = 2; gpus <= gpus_for(&a, 3); ++gpus) {
        compare(&a, gpus, exact, 1, 31u);
        compare(&a, gpus, any, 1, 32u);
        compare(&b, gpus, exact, 1, 33u);
    }
}

/* Variants with different halo depths one after the other: the halos are
 * refreshed to the deeper one before it runs. */
static void test_variant_switch(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 40, 33, 35};
    const step s3[] = {{"regq", 3, KS_LPREV_ANY}, {"tblock", 6, KS_LPREV_ANY}, {"block3d", 2, KS_LPREV_EXACT},
                       {"tblock", 9, KS_LPREV_EXACT}, {"kmarch", 1, KS_LPREV_EXACT}};
    compare(&g3, 2, s3, 5, 21u);
    const ks_grid g2 = {2, 64, 45, 1};
    const step s2[] = {{"vec2d", 5, KS_LPREV_ANY}, {"smem2d", 4, KS_LPREV_EXACT}, {"block2d", 3, KS_LPREV_EXACT}};
    compare(&g2, 2, s2, 3, 22u);
}

static void test_timing(void **state)
{
    (void)state;
    const ks_grid g = {3, 128, 128, 130};
    const size_t n = ks_grid_points(&g);
    float *init = malloc(n * sizeof *init);
    assert_non_null(init);
    fill_random(&g, 4u, init);
    ks_lmulti *m = NULL;
    const ks_lmulti_desc d = {g, 2, NULL, 0};
    assert_int_equal(ks_lmulti_create(&d, &m), KS_OK);
    assert_int_equal(ks_lmulti_upload(m, init), KS_OK);
    const int id = ks_lvariant_find(3, "tblock");
    ks_lmulti_timing t;
    assert_int_equal(ks_lmulti_time(m, id, ks_lvariant_get(id)->default_block, 8, 3, &t), KS_OK);
    assert_true(t.ms_per_iter > 0.0);
    assert_true(t.halo_ms > 0.0);
    assert_true(t.hidden_share >= 0.0 && t.hidden_share <= 1.0);
    assert_true(t.jacobi_ms[0] > 0.0 && t.jacobi_ms[1] > 0.0);
    assert_int_equal(t.exchanges_per_iter_x1000, 250);
    assert_int_equal(ks_lmulti_time(m, id, ks_lvariant_get(id)->default_block, 0, 3, &t), KS_ERR_INVALID);
    ks_lmulti_destroy(m);
    free(init);
}

static void test_refusals(void **state)
{
    (void)state;
    ks_lmulti *m = (ks_lmulti *)&m;
    const ks_grid g = {3, 32, 32, 34};
    ks_lmulti_desc d = {g, g_gpus + 1, NULL, 0};
    assert_int_equal(ks_lmulti_create(&d, &m), KS_ERR_NO_DEVICE);
    assert_null(m);
    print_message("  %s\n", ks_error_message());
    const int twice[2] = {0, 0};
    d.gpus = 2;
    d.devices = twice;
    assert_int_equal(ks_lmulti_create(&d, &m), KS_ERR_INVALID);
    print_message("  %s\n", ks_error_message());
    d.devices = NULL;
    d.grid.nz = 12; /* 10 planes: two slabs of 5, thinner than two halo depths */
    assert_int_equal(ks_lmulti_create(&d, &m), KS_ERR_INVALID);
    print_message("  %s\n", ks_error_message());
    assert_non_null(strstr(ks_error_message(), "thinner"));
}

int main(void)
{
    if (!ks_lmulti_supported(NULL)) return 77;
    if (cudaGetDeviceCount(&g_gpus) != cudaSuccess || g_gpus < 2) {
        printf("fewer than two CUDA devices: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_3d),    cmocka_unit_test(test_variants_2d),
        cmocka_unit_test(test_tblock_chunks),  cmocka_unit_test(test_variant_switch),
        cmocka_unit_test(test_timing),         cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
