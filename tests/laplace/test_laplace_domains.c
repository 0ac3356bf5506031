/* Slabs (kernels/laplace/laplace_domains.h): the bounds for any count and
 * grid, uneven splits, the halo planes each slab holds and where they sit in
 * its array; and the N-domain CPU solver, which exchanges halos between its
 * domains, bit for bit equal to one domain (the gold) for 1 to 5 domains,
 * halos 1 to 3 planes deep and odd grids, 2D and 3D. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/laplace/laplace.h"
#include "kernels/laplace/laplace_domains.h"

/* Every interior plane owned once, in order; the halos clipped to the grid. */
static void check_split(const ks_grid *g, int count, int depth)
{
    ks_slab s[KS_DOMAINS_MAX];
    assert_int_equal(ks_slabs_split(g, count, depth, s), KS_OK);
    const int n = ks_slab_axis_points(g), planes = n - 2;
    int next = 1, most = 0, least = planes;
    for (int i = 0; i < count; ++i) {
        assert_int_equal(s[i].first, next);
        assert_true(s[i].count >= 1);
        if (i > 0) assert_true(s[i].count <= s[i - 1].count); /* the larger ones first */
        most = s[i].count > most ? s[i].count : most;
        least = s[i].count < least ? s[i].count : least;
        assert_int_equal(s[i].lo, s[i].first - depth < 0 ? 0 : s[i].first - depth);
        assert_int_equal(s[i].hi, s[i].first + s[i].count + depth > n ? n : s[i].first + s[i].count + depth);
        const ks_grid l = ks_slab_grid(g, &s[i]);
        assert_int_equal(ks_slab_axis_points(&l), s[i].hi - s[i].lo);
        assert_int_equal(l.nx, g->nx);
        if (g->dims == 3) assert_int_equal(l.ny, g->ny);
        assert_int_equal(ks_slab_offset(g, &s[i], s[i].first), (size_t)(s[i].first - s[i].lo) * ks_slab_plane_points(g));
        next += s[i].count;
    }
    assert_int_equal(next, n - 1);
    assert_true(most - least <= 1);
}

static void test_split(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 37, 29, 23}, g2 = {2, 131, 77, 1};
    for (int count = 1; count <= 5; ++count)
        for (int depth = 1; depth <= 3; ++depth) {
            check_split(&g3, count, depth);
            check_split(&g2, count, depth);
        }
    /* uneven: 21 planes in 4 slabs are 6 5 5 5 */
    ks_slab s[KS_DOMAINS_MAX];
    assert_int_equal(ks_slabs_split(&g3, 4, 1, s), KS_OK);
    assert_int_equal(s[0].count, 6);
    assert_int_equal(s[3].count, 5);
    assert_int_equal(s[3].first, 17);
    assert_int_equal(s[0].lo, 0);  /* the boundary plane */
    assert_int_equal(s[3].hi, 23);
    /* many slabs, and as many slabs as planes */
    const ks_grid big = {3, 16, 16, 1026};
    check_split(&big, KS_DOMAINS_MAX, 1);
    check_split(&g3, 21, 1);
    check_split(&g2, 75, 1);
    /* one slab: no halo to get, any depth */
    check_split(&g3, 1, 50);
}

static void test_split_refuses(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 37, 29, 23}, g2 = {2, 131, 77, 1};
    ks_slab s[KS_DOMAINS_MAX + 1];
    assert_int_equal(ks_slabs_split(&g3, 0, 1, s), KS_ERR_INVALID);
    assert_int_equal(ks_slabs_split(&g3, -2, 1, s), KS_ERR_INVALID);
    assert_int_equal(ks_slabs_split(&g3, KS_DOMAINS_MAX + 1, 1, s), KS_ERR_INVALID);
    assert_int_equal(ks_slabs_split(&g3, 22, 1, s), KS_ERR_INVALID); /* 21 interior planes */
    assert_non_null(strstr(ks_error_message(), "21 interior planes along z"));
    assert_int_equal(ks_slabs_split(&g2, 76, 1, s), KS_ERR_INVALID);
    assert_non_null(strstr(ks_error_message(), "along y"));
    assert_int_equal(ks_slabs_split(&g3, 2, 0, s), KS_ERR_INVALID);
    assert_int_equal(ks_slabs_split(&g3, 5, 5, s), KS_ERR_INVALID); /* slabs of 4 and 5, halos of 5 */
    assert_non_null(strstr(ks_error_message(), "less than the halo depth 5"));
    assert_int_equal(ks_slabs_split(&g3, 5, 4, s), KS_OK);
}

/* Random non-zero values everywhere, boundary included. */
static void fill_random(float *u, size_t n, uint32_t seed)
{
    for (size_t p = 0; p < n; ++p) {
        seed = seed * 1664525u + 1013904223u;
        u[p] = 0.25f + (float)(seed >> 8) / (float)(1u << 24);
    }
}

static void check_domains(const ks_grid *g, int count, int depth, int iters)
{
    const size_t n = ks_grid_points(g);
    float *gold = malloc(n * sizeof *gold), *tmp = malloc(n * sizeof *tmp), *got = malloc(n * sizeof *got);
    assert_non_null(gold);
    assert_non_null(tmp);
    assert_non_null(got);
    fill_random(gold, n, 12345u + (uint32_t)(count * 7 + depth));
    ks_ldomains *d = NULL;
    assert_int_equal(ks_ldomains_create(g, count, depth, gold, &d), KS_OK);
    for (int it = 0; it < iters; ++it) {
        ks_laplace_gold_step(g, gold, tmp);
        memcpy(gold, tmp, n * sizeof *gold);
    }
    assert_int_equal(ks_ldomains_iterate(d, iters), KS_OK);
    memset(got, 0xff, n * sizeof *got); /* NaN: a plane gather misses shows */
    ks_ldomains_gather(d, got);
    if (memcmp(got, gold, n * sizeof *got) != 0) {
        size_t p = 0;
        while (memcmp(&got[p], &gold[p], sizeof *got) == 0) ++p;
        fail_msg("%dD %dx%dx%d, %d domains, depth %d, %d iterations: point %zu is %.9g, want %.9g", g->dims, g->nx,
                 g->ny, g->nz, count, depth, iters, p, (double)got[p], (double)gold[p]);
    }
    /* one exchange a block of depth iterations (none with one domain), two neighbours a seam */
    const long long blocks = (iters + depth - 1) / depth;
    assert_int_equal(ks_ldomains_exchanges(d), count > 1 ? blocks : 0);
    long long planes = 0;
    for (int i = 0; i + 1 < count; ++i) {
        const ks_slab *a = ks_ldomains_slab(d, i), *b = ks_ldomains_slab(d, i + 1);
        planes += (a->hi - b->first) + (b->first - b->lo);
    }
    assert_int_equal(ks_ldomains_planes_sent(d), planes * (count > 1 ? blocks : 0));
    ks_ldomains_destroy(d);
    free(gold);
    free(tmp);
    free(got);
}

static void test_domains_equal_gold(void **state)
{
    (void)state;
    const ks_grid grids[] = {{3, 37, 29, 23}, {2, 131, 77, 1}, {3, 5, 4, 13}, {2, 3, 12, 1}};
    const int iters[] = {1, 2, 7};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi)
        for (int count = 1; count <= 5; ++count)
            for (int depth = 1; depth <= 3; ++depth) {
                ks_slab s[KS_DOMAINS_MAX];
                if (ks_slabs_split(&grids[gi], count, depth, s) != KS_OK) continue; /* too thin: refused above */
                for (size_t k = 0; k < sizeof iters / sizeof iters[0]; ++k)
                    check_domains(&grids[gi], count, depth, iters[k]);
            }
}

static void test_domains_refuse(void **state)
{
    (void)state;
    const ks_grid g = {3, 9, 9, 9};
    float field[9 * 9 * 9] = {0};
    ks_ldomains *d = NULL;
    assert_int_equal(ks_ldomains_create(&g, 8, 1, field, &d), KS_ERR_INVALID); /* 7 interior planes */
    assert_null(d);
    assert_int_equal(ks_ldomains_create(&g, 2, 1, field, &d), KS_OK);
    assert_int_equal(ks_ldomains_iterate(d, -1), KS_ERR_INVALID);
    assert_int_equal(ks_ldomains_iterate(d, 0), KS_OK);
    assert_int_equal(ks_ldomains_exchanges(d), 0);
    assert_null(ks_ldomains_slab(d, 2));
    ks_ldomains_destroy(d);
    ks_ldomains_destroy(NULL);
}

/* A field whose every point says where it is: value = i + 1000 j + 1e6 k (exact in double). */
static double where(size_t i, size_t j, size_t k) { return (double)i + 1000.0 * (double)j + 1e6 * (double)k; }

/* The copies of ks_slab_slice_copies, applied on the CPU from each slab's
 * own array, fill the slice grid with the slice: three times over in 3D,
 * every point written, for every axis, several indices, 1 to 5 slabs,
 * uneven splits and odd grids. The live view on several GPUs runs the same
 * copies with cudaMemcpy2D (kernels/laplace/laplace_multi.cu). */
static void check_slice(const ks_grid *g, int count)
{
    ks_slab slabs[KS_DOMAINS_MAX];
    assert_int_equal(ks_slabs_split(g, count, 4, slabs), KS_OK);
    const size_t plane = ks_slab_plane_points(g), nx = (size_t)g->nx, ny = (size_t)g->ny;
    const int axes = g->dims == 3 ? 3 : 1;
    for (int a = 0; a < axes; ++a) {
        const ks_axis axis = g->dims == 3 ? (ks_axis)a : KS_AXIS_Z;
        const int top = ks_slice_max_index(g, axis);
        const int indices[4] = {0, 1, top / 2, top};
        for (int t = 0; t < (g->dims == 3 ? 4 : 1); ++t) {
            const int index = indices[t];
            const ks_grid vg = ks_slab_slice_grid(g, axis);
            const size_t vn = ks_grid_points(&vg);
            double *view = malloc(vn * sizeof *view);
            assert_non_null(view);
            for (size_t p = 0; p < vn; ++p) view[p] = -1.0; /* poisoned */
            int owners = 0;
            for (int r = 0; r < count; ++r) {
                const ks_slab *sl = &slabs[r];
                const size_t held = (size_t)(sl->hi - sl->lo) * plane;
                double *arr = malloc(held * sizeof *arr); /* the slab's array, planes lo .. hi */
                assert_non_null(arr);
                for (size_t p = 0; p < held; ++p) {
                    const size_t gp = (size_t)sl->lo * plane + p;
                    arr[p] = g->dims == 3 ? where(gp % nx, gp / nx % ny, gp / plane) : where(gp % nx, gp / nx, 0);
                }
                ks_copy2d cp[KS_SLICE_COPIES_MAX];
                const int n = ks_slab_slice_copies(g, sl, axis, index, cp);
                owners += n > 0;
                for (int c = 0; c < n; ++c)
                    for (size_t row = 0; row < cp[c].height; ++row)
                        for (size_t x = 0; x < cp[c].width; ++x) {
                            const size_t src = cp[c].src_offset + row * cp[c].src_pitch + x;
                            const size_t dst = cp[c].dst_offset + row * cp[c].dst_pitch + x;
                            assert_true(src < held && dst < vn);
                            assert_true(view[dst] == -1.0); /* each point once */
                            view[dst] = arr[src];
                        }
                free(arr);
            }
            if (g->dims == 3 && axis == KS_AXIS_Z) assert_int_equal(owners, 1); /* a z slice: one slab */
            /* the slice grid's planes 0, 1, 2 (3D) or the field (2D) hold the slice */
            for (size_t p = 0; p < vn; ++p) {
                const size_t i = p % (size_t)vg.nx, j = p / (size_t)vg.nx % (size_t)vg.ny,
                             k = p / ((size_t)vg.nx * (size_t)vg.ny);
                double want;
                if (g->dims == 2) want = where(i, j, 0);
                else if (axis == KS_AXIS_X) want = where((size_t)index, j, k);
                else if (axis == KS_AXIS_Y) want = where(i, (size_t)index, k);
                else want = where(i, j, (size_t)index);
                if (view[p] != want)
                    fail_msg("%dD grid %dx%dx%d, %d slabs, axis %d index %d: slice point %zu is %.0f, want %.0f", g->dims,
                             g->nx, g->ny, g->nz, count, (int)axis, index, p, view[p], want);
            }
            free(view);
        }
    }
}

static void test_slice_copies(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 13, 7, 47}, g2 = {2, 21, 45, 1};
    for (int count = 1; count <= 5; ++count) {
        check_slice(&g3, count);
        check_slice(&g2, count);
    }
    const ks_slab one = {1, 9, 0, 11}; /* the only slab: every plane reported */
    int g0, g1;
    const ks_grid g = {3, 5, 5, 11};
    ks_slab_reported_planes(&g, &one, &g0, &g1);
    assert_int_equal(g0, 0);
    assert_int_equal(g1, 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_refuses),
        cmocka_unit_test(test_domains_equal_gold),
        cmocka_unit_test(test_domains_refuse),
        cmocka_unit_test(test_slice_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
