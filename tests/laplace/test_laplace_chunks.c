/* tblock's chunk plan (kernels/laplace/laplace_chunks.h), without a GPU: the
 * chunks a launch's blocks take, walked as the kernel walks them (tb_chunk),
 * cover the planes asked exactly once, the edge range comes first, the low
 * edge lies in the first chunk, the counts of blocks and signals agree; the
 * case measured on two GPUs keeps its numbers; bad plans are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/laplace/laplace_chunks.h"

/* The planes blockIdx.z = z writes, as the kernel computes them. */
static void chunk_of(const ks_tb_plan *p, int z, int *k0, int *k1)
{
    const int c = z - p->edges;
    if (c < 0) {
        *k0 = p->edge_lo;
        *k1 = p->edge_hi;
        return;
    }
    *k0 = c == 0 ? p->lo : p->lo + p->first_len + (c - 1) * p->len;
    const int end = c == 0 ? p->lo + p->first_len : *k0 + p->len;
    *k1 = end < p->hi ? end : p->hi;
}

/* Every plane of [lo, hi) and of the edge range written by exactly one z, no other plane. */
static void expect_cover(const ks_tb_plan_desc *d, const ks_tb_plan *p)
{
    static int count[1 << 14];
    assert_true(d->nz <= (int)(sizeof count / sizeof count[0]));
    memset(count, 0, sizeof count);
    assert_int_equal((int)p->gz, p->edges + p->chunks);
    for (int z = 0; z < (int)p->gz; ++z) {
        int k0, k1;
        chunk_of(p, z, &k0, &k1);
        if (!(k0 < k1)) fail_msg("nz %d tiles %lld: chunk %d is [%d, %d)", d->nz, d->tiles, z, k0, k1);
        for (int k = k0; k < k1; ++k) ++count[k];
    }
    for (int k = 0; k < d->nz; ++k) {
        const int want = (k >= p->lo && k < p->hi) || (k >= p->edge_lo && k < p->edge_hi);
        if (count[k] != want)
            fail_msg("nz %d [%d, %d) edge [%d, %d) tiles %lld resident %lld: plane %d written %d times", d->nz, p->lo,
                     p->hi, p->edge_lo, p->edge_hi, d->tiles, d->resident, k, count[k]);
    }
    if (p->low_end > 0) assert_true(p->low_end > p->lo && p->low_end <= p->lo + p->first_len);
    assert_int_equal(p->signals, (int)(d->tiles * (p->edges + (p->low_end > 0))));
}

static void test_one_gpu(void **state)
{
    (void)state;
    const int nzs[] = {3, 4, 17, 35, 101, 514, 1026, 4099};
    const long long tiles[] = {1, 3, 65, 234, 1000};
    for (size_t a = 0; a < sizeof nzs / sizeof nzs[0]; ++a)
        for (size_t b = 0; b < sizeof tiles / sizeof tiles[0]; ++b)
            for (int T = 1; T <= 6; ++T) {
                const ks_tb_plan_desc d = {.nz = nzs[a], .steps = T, .tiles = tiles[b], .resident = 132};
                ks_tb_plan p;
                assert_int_equal(ks_tb_plan_make(&d, &p), KS_OK);
                assert_int_equal(p.lo, 1);
                assert_int_equal(p.hi, nzs[a] - 1);
                assert_int_equal(p.edges, 0);
                assert_int_equal(p.first_len, p.len); /* no edge: equal chunks */
                expect_cover(&d, &p);
            }
}

/* Slabs of several GPUs: a high edge, a low edge, both, neither; planes
 * enough for the first chunk to be lengthened and not. */
static void test_slabs(void **state)
{
    (void)state;
    const int owned[] = {8, 9, 16, 33, 100, 511, 1024};
    const long long tiles[] = {1, 6, 65, 234};
    const int D = 4;
    for (size_t a = 0; a < sizeof owned / sizeof owned[0]; ++a)
        for (size_t b = 0; b < sizeof tiles / sizeof tiles[0]; ++b)
            for (int side = 0; side < 4; ++side)
                for (int T = 1; T <= D; ++T) {
                    const int has_lo = side & 1, has_hi = side >> 1 & 1;
                    /* the slab's own planes [f, l), a 4-deep halo where there is a neighbour */
                    const int f = has_lo ? D : 1, l = f + owned[a], nz = l + (has_hi ? D : 1);
                    if ((has_hi ? l - D : l) - f < 2 * D) continue; /* laplace_multi.cu's fused_edges */
                    ks_tb_plan_desc d = {.nz = nz, .steps = T, .lo = f, .hi = has_hi ? l - D : l,
                                         .low_end = has_lo ? f + D : 0, .tiles = tiles[b], .resident = 132};
                    if (has_hi) {
                        d.edge_lo = l - D;
                        d.edge_hi = l;
                    }
                    ks_tb_plan p;
                    if (ks_tb_plan_make(&d, &p) != KS_OK) fail_msg("%s", ks_error_message());
                    assert_int_equal(p.edges, has_hi);
                    if (p.edges && p.chunks >= 2 && tiles[b] * 2 <= 132) assert_true(p.first_len >= p.len);
                    expect_cover(&d, &p);
                }
}

/* The weak-scaling case measured on two H100s and two H200s (512^3 a GPU,
 * 65 tiles a plane, 132 resident blocks, 4 steps a launch): GPU 0 has the
 * high edge, its first chunk 260 planes, the second 247; GPU 1 the low edge,
 * two chunks of 256. */
static void test_measured_case(void **state)
{
    (void)state;
    ks_tb_plan p;
    const ks_tb_plan_desc g0 = {.nz = 516, .steps = 4, .lo = 1, .hi = 508, .edge_lo = 508, .edge_hi = 512,
                                .tiles = 65, .resident = 132};
    assert_int_equal(ks_tb_plan_make(&g0, &p), KS_OK);
    assert_int_equal(p.first_len, 260);
    assert_int_equal(p.len, 247);
    assert_int_equal(p.chunks, 2);
    assert_int_equal(p.gz, 3);
    assert_int_equal(p.signals, 65);
    const ks_tb_plan_desc g1 = {.nz = 516, .steps = 4, .lo = 4, .hi = 515, .low_end = 8, .tiles = 65,
                                .resident = 132};
    assert_int_equal(ks_tb_plan_make(&g1, &p), KS_OK);
    assert_int_equal(p.first_len, 256);
    assert_int_equal(p.len, 256);
    assert_int_equal(p.chunks, 2);
    assert_int_equal(p.gz, 2);
    assert_int_equal(p.signals, 65);
}

static void test_refusals(void **state)
{
    (void)state;
    ks_tb_plan p;
    const ks_tb_plan_desc bad[] = {
        {.nz = 40, .steps = 0, .tiles = 4, .resident = 132},                          /* no steps */
        {.nz = 40, .steps = 4, .tiles = 0, .resident = 132},                          /* no tiles */
        {.nz = 2, .steps = 4, .tiles = 4, .resident = 132},                           /* no interior plane */
        {.nz = 40, .steps = 4, .lo = 0, .hi = 20, .tiles = 4, .resident = 132},       /* the boundary plane */
        {.nz = 40, .steps = 4, .lo = 5, .hi = 40, .tiles = 4, .resident = 132},       /* past the grid */
        {.nz = 40, .steps = 4, .lo = 5, .hi = 30, .edge_lo = 28, .edge_hi = 32, .tiles = 4, .resident = 132},
        {.nz = 40, .steps = 4, .lo = 5, .hi = 30, .edge_lo = 30, .edge_hi = 40, .tiles = 4, .resident = 132},
        {.nz = 400, .steps = 1, .lo = 5, .hi = 390, .low_end = 300, .tiles = 4, .resident = 132}, /* past chunk 1 */
        {.nz = 40, .steps = 4, .lo = 5, .hi = 30, .low_end = 5, .tiles = 4, .resident = 132},    /* an empty edge */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        if (ks_tb_plan_make(&bad[i], &p) != KS_ERR_INVALID) fail_msg("plan %zu was not refused", i);
        assert_non_null(strstr(ks_error_message(), "tblock: "));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_gpu),
        cmocka_unit_test(test_slabs),
        cmocka_unit_test(test_measured_case),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
