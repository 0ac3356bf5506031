/* The live view's picture on the GPU (ks_lsolver_render_view) against the
 * CPU reference (ks_laplace_cpu_render_view) bit for bit: random non-zero
 * fields, after a few Jacobi iterations, odd grids (the solver's smallest,
 * 3 x 3, up to 1000 x 999, and every axis of a 3D grid), areas smaller and
 * larger than the grid, at the fit, zoomed in and out, panned, with the
 * output poisoned first and the bytes after the picture checked untouched.
 * Also the full-resolution slice for saving (ks_lsolver_read_slice_rgba)
 * against the CPU slice, and the refusals. Exits 77 without a CUDA device;
 * KS_TEST_QUICK=1 (compute-sanitizer) leaves out the 1000 x 999 grid and the
 * largest area. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "kernels/laplace/laplace.h"
#include "render/viewport.h"

#define assert_ok(call)                                                                            \
    do {                                                                                           \
        ks_status st_ = (call);                                                                    \
        if (st_ != KS_OK) fail_msg("%s: %s", #call, ks_error_message());                          \
    } while (0)

enum { SLACK = 4096, POISON = 0xa5 };

static int g_quick;

static unsigned g_rng = 2024u;
static float frand(void)
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return 0.5f + (float)(g_rng >> 8) / 16777216.0f; /* [0.5, 1.5): never zero */
}

/* One view: GPU picture into a poisoned buffer == CPU picture. */
static void check_view(ks_lsolver *s, const ks_grid *g, const float *cur, ks_axis axis, int index,
                       const ks_cellmap *m, ks_colormap map, float lo, float hi)
{
    const size_t img = (size_t)m->x.pixels * (size_t)m->y.pixels * 4;
    unsigned char *want = malloc(img), *got = malloc(img + SLACK);
    assert_non_null(want);
    assert_non_null(got);
    assert_ok(ks_laplace_cpu_render_view(g, cur, axis, index, m, map, lo, hi, want));
    void *dst = NULL;
    assert_int_equal(cudaMalloc(&dst, img + SLACK), cudaSuccess);
    assert_int_equal(cudaMemset(dst, POISON, img + SLACK), cudaSuccess);
    assert_ok(ks_lsolver_render_view(s, axis, index, m, map, lo, hi, dst));
    assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s)), cudaSuccess);
    assert_int_equal(cudaMemcpy(got, dst, img + SLACK, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < img; i += 4) {
        if (memcmp(got + i, want + i, 4) != 0) {
            const size_t px = i / 4;
            fail_msg("grid %dx%dx%d axis %d index %d, picture %dx%d (step %lld, origin %lld/%lld): pixel (%zu, %zu) "
                     "GPU %u,%u,%u,%u CPU %u,%u,%u,%u",
                     g->nx, g->ny, g->nz, (int)axis, index, m->x.pixels, m->y.pixels, m->x.step, m->x.origin,
                     m->y.origin, px % (size_t)m->x.pixels, px / (size_t)m->x.pixels, got[i], got[i + 1], got[i + 2],
                     got[i + 3], want[i], want[i + 1], want[i + 2], want[i + 3]);
        }
    }
    for (size_t i = img; i < img + SLACK; ++i)
        if (got[i] != POISON) fail_msg("byte %zu after the %zu-byte picture was written", i - img, img);
    cudaFree(dst);
    free(want);
    free(got);
}

/* Fit, zoomed out/in about points inside and outside the picture, panned to
 * both clamps: every map checked. */
static void check_views(ks_lsolver *s, const ks_grid *g, const float *cur, ks_axis axis, int index, int area_w,
                        int area_h)
{
    int w, h;
    ks_slice_dims(g, axis, &w, &h);
    float lo, hi;
    ks_laplace_cpu_slice_minmax(g, cur, axis, index, &lo, &hi);
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, area_w, area_h);
    ks_viewport_set_grid(&v, w, h);
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    check_view(s, g, cur, axis, index, &m, KS_CMAP_VIRIDIS, lo, hi);
    const int zooms[][3] = {{2, 1, 1}, {3, -1, -1}, {5, 0, 0}, {-4, 0, 0}, {40, 0, 0}};
    for (size_t z = 0; z < sizeof zooms / sizeof zooms[0]; ++z) {
        const int ax = zooms[z][1] < 0 ? area_w - 1 : zooms[z][1] ? area_w / 3 : area_w / 2;
        const int ay = zooms[z][2] < 0 ? area_h - 1 : zooms[z][2] ? area_h / 3 : area_h / 2;
        ks_viewport_zoom(&v, zooms[z][0], ax, ay);
        ks_viewport_map(&v, &m);
        check_view(s, g, cur, axis, index, &m, z % 2 ? KS_CMAP_TURBO : KS_CMAP_INFERNO, lo, hi);
        ks_viewport_pan(&v, 7, -3);
        ks_viewport_map(&v, &m);
        check_view(s, g, cur, axis, index, &m, KS_CMAP_GRAY, lo, hi);
    }
    for (int i = 0; i < 50; ++i) ks_viewport_pan(&v, area_w, area_h);
    ks_viewport_map(&v, &m);
    check_view(s, g, cur, axis, index, &m, KS_CMAP_VIRIDIS, lo, hi);
    for (int i = 0; i < 50; ++i) ks_viewport_pan(&v, -area_w, -area_h);
    ks_viewport_map(&v, &m);
    check_view(s, g, cur, axis, index, &m, KS_CMAP_VIRIDIS, lo, hi);
    /* the middle zoom levels, where a pixel covers a few cells unevenly */
    ks_viewport_reset(&v);
    for (int l = 0; l < 6; ++l) {
        ks_viewport_zoom(&v, 1, area_w / 2 + l, area_h / 2 - l);
        ks_viewport_map(&v, &m);
        check_view(s, g, cur, axis, index, &m, KS_CMAP_VIRIDIS, lo, hi);
    }
}

static void test_view_matches_cpu(void **state)
{
    (void)state;
    const ks_grid grids[] = {{2, 3, 3, 1}, {2, 17, 33, 1}, {2, 1000, 999, 1}, {3, 17, 13, 9}, {3, 3, 5, 3}};
    const int areas[][2] = {{1, 1}, {7, 5}, {33, 17}, {640, 400}, {1999, 1001}};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi) {
        const ks_grid *g = &grids[gi];
        if (g_quick && g->nx == 1000) continue;
        const size_t bytes = ks_grid_bytes(g);
        float *u = malloc(bytes), *cur = malloc(bytes);
        for (size_t n = 0; n < ks_grid_points(g); ++n) u[n] = frand();
        ks_lsolver *s = NULL;
        assert_ok(ks_lsolver_create(g, &s));
        assert_ok(ks_lsolver_upload(s, u));
        const int id = ks_lvariant_default(g->dims);
        assert_ok(ks_lsolver_iterate(s, id, ks_lvariant_get(id)->default_block, 3));
        assert_ok(ks_lsolver_download(s, cur));
        for (int ax = 0; ax < (g->dims == 3 ? 3 : 1); ++ax) {
            const ks_axis axis = g->dims == 3 ? (ks_axis)ax : KS_AXIS_Z;
            const int last = ks_slice_max_index(g, axis);
            const int index = ax == 1 ? last : last / 2;
            for (size_t ai = 0; ai < sizeof areas / sizeof areas[0] - (g_quick ? 1 : 0); ++ai)
                check_views(s, g, cur, axis, index, areas[ai][0], areas[ai][1]);
        }
        ks_lsolver_destroy(s);
        free(u);
        free(cur);
    }
}

/* F's full-resolution slice: the CPU slice picture, byte for byte. */
static void test_full_slice(void **state)
{
    (void)state;
    const ks_grid g = {3, 37, 23, 19};
    const size_t bytes = ks_grid_bytes(&g);
    float *u = malloc(bytes);
    for (size_t n = 0; n < ks_grid_points(&g); ++n) u[n] = frand();
    ks_lsolver *s = NULL;
    assert_ok(ks_lsolver_create(&g, &s));
    assert_ok(ks_lsolver_upload(s, u));
    for (int ax = 0; ax < 3; ++ax) {
        int w, h;
        ks_slice_dims(&g, (ks_axis)ax, &w, &h);
        const size_t img = (size_t)w * (size_t)h * 4;
        unsigned char *want = malloc(img), *got = malloc(img);
        memset(got, POISON, img);
        const int index = ks_slice_max_index(&g, (ks_axis)ax) / 3;
        ks_laplace_cpu_render_slice(&g, u, (ks_axis)ax, index, KS_CMAP_INFERNO, 0.6f, 1.4f, want);
        assert_ok(ks_lsolver_read_slice_rgba(s, (ks_axis)ax, index, KS_CMAP_INFERNO, 0.6f, 1.4f, got));
        assert_memory_equal(got, want, img);
        free(want);
        free(got);
    }
    ks_lsolver_destroy(s);
    free(u);
}

static void test_refusals(void **state)
{
    (void)state;
    const ks_grid g = {2, 17, 33, 1};
    ks_lsolver *s = NULL;
    assert_ok(ks_lsolver_create(&g, &s));
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, 100, 100);
    ks_viewport_set_grid(&v, 33, 17); /* not this slice's 17 x 33 */
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    void *dst = NULL;
    assert_int_equal(cudaMalloc(&dst, 100 * 100 * 4), cudaSuccess);
    assert_int_equal(ks_lsolver_render_view(s, KS_AXIS_Z, 0, &m, KS_CMAP_GRAY, 0, 1, dst), KS_ERR_INVALID);
    ks_viewport_set_grid(&v, 17, 33);
    ks_viewport_map(&v, &m);
    assert_ok(ks_lsolver_render_view(s, KS_AXIS_Z, 0, &m, KS_CMAP_GRAY, 0, 1, dst));
    assert_int_equal(ks_lsolver_render_view(s, KS_AXIS_Z, 0, &m, KS_CMAP_GRAY, 0, 1, NULL), KS_ERR_INVALID);
    assert_int_equal(ks_lsolver_render_view(s, KS_AXIS_Z, 0, &m, KS_CMAP_NUM, 0, 1, dst), KS_ERR_INVALID);
    m.x.pixels += 40; /* pixels past the grid */
    assert_int_equal(ks_lsolver_render_view(s, KS_AXIS_Z, 0, &m, KS_CMAP_GRAY, 0, 1, dst), KS_ERR_INVALID);
    assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s)), cudaSuccess);
    cudaFree(dst);
    ks_lsolver_destroy(s);
}

int main(void)
{
    const char *quick = getenv("KS_TEST_QUICK");
    g_quick = quick && *quick && strcmp(quick, "0") != 0;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_view_matches_cpu), cmocka_unit_test(test_full_slice),
                                       cmocka_unit_test(test_refusals)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
