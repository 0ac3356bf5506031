/* Every CUDA Laplace variant against the CPU gold on random data, block checks
 * and the OOM refusal; with test_laplace_gpu_solver.c (graphs, the field
 * histogram, the residual, slice render and readback) one test program.
 * Exits 77 (skipped) without a CUDA device. KS_TEST_QUICK=1 trims the
 * matrix (for compute-sanitizer racecheck). */
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

#include "kernels/laplace/field_histogram.h"
#include "kernels/laplace/laplace.h"
#include "laplace_gpu_util.h"

int g_quick;

typedef struct case3 {
    const char *variant;
    int blocks[6][3];
    int nblocks;
} case3;

/* runs variant x block on grid against gold after iters iterations */
static void check_variant(const ks_grid *g, const char *name, const int block[3], int iters,
                          const float *u0, const float *gold, const float *gold_prev)
{
    const size_t bytes = ks_grid_bytes(g);
    float *poison = malloc(bytes), *got = malloc(bytes);
    make_poison(g, u0, poison);
    ks_lsolver *s = NULL;
    assert_int_equal(ks_lsolver_create(g, &s), KS_OK);
    assert_int_equal(ks_lsolver_upload(s, u0), KS_OK);
    assert_int_equal(ks_lsolver_upload_previous(s, poison), KS_OK);
    const int id = variant_id(g->dims, name);
    ks_status st = ks_lsolver_check_block(s, id, block);
    if (st != KS_OK) {
        print_message("  %s block %dx%dx%d refused: %s\n", name, block[0], block[1], block[2],
                      ks_error_message());
        fail();
    }
    st = ks_lsolver_iterate(s, id, block, iters);
    if (st != KS_OK) print_message("  %s: %s\n", name, ks_error_message());
    assert_int_equal(st, KS_OK);
    assert_int_equal(ks_lsolver_download(s, got), KS_OK);
    size_t where;
    double d = max_rel_diff(g, got, gold, &where);
    if (d > 1e-6)
        print_message("  %s %dx%dx%d on %dx%dx%d, %d iters: rel diff %.3g at %zu (got %g want %g)\n",
                      name, block[0], block[1], block[2], g->nx, g->ny, g->nz, iters, d, where,
                      got[where], gold[where]);
    assert_true(d <= 1e-6);
    if (gold_prev) {
        assert_int_equal(ks_lsolver_download_previous(s, got), KS_OK);
        d = max_rel_diff(g, got, gold_prev, &where);
        if (d > 1e-6) print_message("  %s previous field: rel diff %.3g at %zu\n", name, d, where);
        assert_true(d <= 1e-6);
    }
    ks_lsolver_destroy(s);
    free(poison);
    free(got);
}

static void run_matrix(const ks_grid *grids, int ngrids, const case3 *cases, int ncases)
{
    const int iters = g_quick ? 6 : 50;
    for (int gi = 0; gi < ngrids; ++gi) {
        const ks_grid *g = &grids[gi];
        const size_t bytes = ks_grid_bytes(g);
        float *u0 = malloc(bytes), *gold = malloc(bytes), *gold_prev = malloc(bytes);
        fill_random(g, 1234u + (unsigned)gi, u0);
        gold_run(g, u0, iters, gold, gold_prev);
        for (int c = 0; c < ncases; ++c) {
            const int nb = g_quick ? 1 : cases[c].nblocks;
            for (int b = 0; b < nb; ++b)
                check_variant(g, cases[c].variant, cases[c].blocks[b], iters, u0, gold, gold_prev);
        }
        free(u0);
        free(gold);
        free(gold_prev);
    }
}

static void test_variants_3d(void **state)
{
    (void)state;
    const ks_grid grids[] = {{3, 37, 53, 29}, {3, 40, 21, 19}, {3, 5, 4, 3}};
    const case3 cases[] = {
        {"kmarch", {{32, 8, 1}, {24, 6, 1}, {32, 32, 1}, {7, 3, 1}, {1, 1, 1}}, 5},
        {"block3d", {{32, 4, 4}, {24, 6, 2}, {16, 8, 8}, {5, 3, 2}, {1, 1, 64}}, 5},
        {"regq", {{32, 8, 1}, {24, 6, 1}, {32, 32, 1}, {7, 5, 1}, {1024, 1, 1}}, 5},
        {"tblock", {{32, 32, 1}, {24, 12, 1}, {32, 4, 1}, {9, 9, 1}, {64, 16, 1}, {32, 8, 1}}, 6},
    };
    run_matrix(grids, g_quick ? 1 : 3, cases, 4);
}

static void test_variants_2d(void **state)
{
    (void)state;
    const ks_grid grids[] = {{2, 97, 61, 1}, {2, 64, 37, 1}, {2, 5, 3, 1}};
    const case3 cases[] = {
        {"block2d", {{32, 8, 1}, {24, 6, 1}, {32, 32, 1}, {1024, 1, 1}, {3, 5, 1}}, 5},
        {"smem2d", {{32, 8, 1}, {24, 6, 1}, {32, 32, 1}, {1024, 1, 1}, {3, 5, 1}}, 5},
        {"vec2d", {{32, 8, 1}, {24, 6, 1}, {32, 32, 1}, {1024, 1, 1}, {3, 5, 1}}, 5},
    };
    run_matrix(grids, g_quick ? 1 : 3, cases, 3);
}

/* tblock: K iterations (launches of up to T steps plus a final single step)
 * equal K gold steps, for K = 1..9, presets and random data. */
static void test_tblock_k(void **state)
{
    (void)state;
    /* 64 and 260 wide take the vector path (nx % 4 == 0; 260 x 70 spans 3 x 3
     * tiles of the 32x8 block, so tile seams are crossed), 37 the scalar one */
    /* 384 x 61: the last x tile runs past nx (clamped lanes), 3 tiles in y;
     * 136 x 131: 2 x tiles, 4-6 y tiles of 48/40/32 rows. Blocks: 32x8, 32x10,
     * 32x12 (32/40/48-row tiles, 8-12 warps), 32x16 (scalar: over
     * KS_TBLOCK_MAXT threads), 32x4 (16-row tiles, several blocks per SM) */
    const ks_grid grids[] = {{3, 260, 70, 23}, {3, 37, 53, 29}, {3, 64, 20, 70}, {3, 384, 61, 13},
                             {3, 136, 131, 11}};
    const int blocks[5][3] = {{32, 8, 1}, {32, 16, 1}, {32, 10, 1}, {32, 4, 1}, {32, 12, 1}};
    const int kmax = g_quick ? 5 : 9;
    for (int gi = 0; gi < (g_quick ? 1 : 5); ++gi) {
        const ks_grid *g = &grids[gi];
        const size_t bytes = ks_grid_bytes(g);
        float *u0 = malloc(bytes), *gold = malloc(bytes), *gold_prev = malloc(bytes);
        for (int preset = 0; preset < 4; ++preset) {
            if (preset == 0)
                fill_random(g, 99u + (unsigned)gi, u0);
            else
                ks_laplace_fill_initial(g, (ks_bc)preset, u0);
            for (int K = 1; K <= kmax; ++K) {
                gold_run(g, u0, K, gold, gold_prev);
                for (int b = 0; b < 5; ++b)
                    check_variant(g, "tblock", blocks[b], K, u0, gold, gold_prev);
            }
        }
        free(u0);
        free(gold);
        free(gold_prev);
    }
}

static void test_block_checks(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 37, 53, 29}, g2 = {2, 97, 61, 1};
    const size_t bytes = ks_grid_bytes(&g3);
    float *u0 = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes);
    fill_random(&g3, 5u, u0);
    ks_lsolver *s3 = NULL, *s2 = NULL;
    assert_int_equal(ks_lsolver_create(&g3, &s3), KS_OK);
    assert_int_equal(ks_lsolver_create(&g2, &s2), KS_OK);
    assert_int_equal(ks_lsolver_upload(s3, u0), KS_OK);
    const int zero[3] = {0, 8, 1}, big[3] = {64, 64, 1}, wide[3] = {2048, 1, 1},
              deep[3] = {1, 1, 128}, tb_small[3] = {16, 8, 1};
    for (int id = 0; id < ks_lvariant_count(); ++id) {
        const ks_lvariant_info *v = ks_lvariant_get(id);
        ks_lsolver *s = v->dims == 3 ? s3 : s2;
        assert_int_equal(ks_lsolver_check_block(s, id, zero), KS_ERR_UNSUPPORTED);
        assert_int_equal(ks_lsolver_check_block(s, id, big), KS_ERR_UNSUPPORTED);
        assert_non_null(strstr(ks_error_message(), "4096 threads"));
        assert_int_equal(ks_lsolver_check_block(s, id, wide), KS_ERR_UNSUPPORTED);
        assert_int_equal(ks_lsolver_iterate(s, id, big, 3), KS_ERR_UNSUPPORTED);
        ks_kernel_attrs at;
        memset(&at, 0, sizeof at);
        assert_int_equal(ks_lsolver_kernel_attrs(s, id, v->default_block, &at), KS_OK);
        assert_true(at.registers > 0 && at.blocks_per_sm >= 1 && at.occupancy > 0.0);
        assert_int_equal(ks_lsolver_check_block(s, id, v->default_block), KS_OK);
        /* wrong dims */
        assert_int_equal(ks_lsolver_check_block(v->dims == 3 ? s2 : s3, id, v->default_block),
                         KS_ERR_INVALID);
    }
    const int b3d = variant_id(3, "block3d"), tb = variant_id(3, "tblock");
    assert_int_equal(ks_lsolver_check_block(s3, b3d, deep), KS_ERR_UNSUPPORTED);
    assert_int_equal(ks_lsolver_check_block(s3, tb, tb_small), KS_ERR_UNSUPPORTED);
    print_message("  tblock 16x8: %s\n", ks_error_message());
    /* a refused iterate launched nothing */
    assert_int_equal(ks_lsolver_iterate(s3, tb, tb_small, 5), KS_ERR_UNSUPPORTED);
    assert_int_equal(ks_lsolver_download(s3, a), KS_OK);
    assert_int_equal(ks_lsolver_download_previous(s3, b), KS_OK);
    assert_memory_equal(a, u0, bytes);
    assert_memory_equal(b, u0, bytes);
    ks_lsolver_destroy(s3);
    ks_lsolver_destroy(s2);
    free(u0);
    free(a);
    free(b);
}

static void test_create_refusals(void **state)
{
    (void)state;
    const ks_grid huge = {3, 4096, 4096, 4096};
    ks_lsolver *s = (ks_lsolver *)&s;
    assert_int_equal(ks_lsolver_create(&huge, &s), KS_ERR_OUT_OF_MEMORY);
    assert_null(s);
    print_message("  %s\n", ks_error_message());
    assert_non_null(strstr(ks_error_message(), "512.0 GiB"));
    const ks_grid bad = {3, 2, 5, 5};
    assert_int_equal(ks_lsolver_create(&bad, &s), KS_ERR_INVALID);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
    const char *q = getenv("KS_TEST_QUICK");
    g_quick = q && q[0] == '1';
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_3d),
        cmocka_unit_test(test_variants_2d),
        cmocka_unit_test(test_tblock_k),
        cmocka_unit_test(test_graph_replay),
        cmocka_unit_test(test_graph_chunks),
        cmocka_unit_test(test_run_whole_blocks),
        cmocka_unit_test(test_residual_render_readback),
        cmocka_unit_test(test_field_histogram),
        cmocka_unit_test(test_block_checks),
        cmocka_unit_test(test_create_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
