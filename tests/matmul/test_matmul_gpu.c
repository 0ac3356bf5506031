/* Matmul GPU variants: every variant x tile x odd size equal to the CPU gold
 * bit for bit, C poisoned with NaN before each run, and on random non-zero data
 * within float summation's bound of a double product; the GPU picture equal to
 * the CPU one, also with a hovered tile's bands shaded; every block's record (an SM id in range, a %globaltimer time
 * inside the launch) with C still the gold's, and the tile picture equal to the
 * CPU's on those records; a positive FMA peak. Exits 77 (skipped) without a CUDA
 * device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/cuda_device.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/fma_peak.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_bench.h"
#include "kernels/matmul/matmul_tiles.h"

#define OK(call)                                                                                   \
    do {                                                                                           \
        ks_status st_ = (call);                                                                    \
        if (st_ != KS_OK) fail_msg("%s: %s", #call, ks_error_message());                           \
    } while (0)

/* 1x1, odd, not multiples of any tile (8, 16, 32, 128, 256), N and K multiples of 4 with
 * ragged M (regtile's 16-byte path at the edges), larger than one 128 tile each way, K not
 * a multiple of regtile's 16-deep slices; then multiples of every tile (tiled's unchecked
 * path) and of 8 and 16 only. */
static const ks_matmul_size sizes[] = {
    {1, 1, 1}, {17, 33, 9}, {65, 129, 31}, {127, 131, 37}, {200, 132, 36}, {257, 260, 20}, {3, 1, 300}, {129, 5, 8},
    {96, 64, 160}, {32, 32, 32}, {48, 80, 16}, {300, 260, 68},
};

/* regtile in every shape that takes s (the 16-byte ones need K and N multiples of 4), each
 * bit for bit against gold; then the shape the context chose is set again. */
static void check_every_regtile(ks_matmul_gpu *g, const ks_matmul_size *s, const float *gold, float *got)
{
    ks_matmul_rt_choice chosen;
    OK(ks_matmul_gpu_regtile(g, &chosen));
    for (int i = 0; i < ks_matmul_rt_count(); ++i) {
        const ks_matmul_rt_config *c = ks_matmul_rt_get(i);
        if (c->vec && !ks_matmul_rt_vec_ok(s)) {
            assert_int_equal(ks_matmul_gpu_set_regtile(g, i), KS_ERR_UNSUPPORTED);
            ks_error_clear();
            continue;
        }
        OK(ks_matmul_gpu_set_regtile(g, i));
        const ks_status st = ks_matmul_check_variant(g, s, KS_MATMUL_REGTILE, 0, gold, got);
        if (st != KS_OK) fail_msg("regtile %s: %s", c->name, ks_error_message());
    }
    OK(ks_matmul_gpu_set_regtile(g, chosen.config));
}

static void test_variants(void **state)
{
    (void)state;
    ks_matmul_gpu *g = NULL;
    OK(ks_matmul_gpu_create(&g));
    for (size_t q = 0; q < sizeof sizes / sizeof *sizes; ++q) {
        const ks_matmul_size *s = &sizes[q];
        float *a = malloc((size_t)s->m * s->k * 4), *b = malloc((size_t)s->k * s->n * 4);
        float *gold = malloc((size_t)s->m * s->n * 4), *got = malloc((size_t)s->m * s->n * 4);
        assert_true(a && b && gold && got);
        ks_matmul_fill(s, a, b);
        ks_matmul_gold(s, a, b, gold);
        OK(ks_matmul_gpu_setup(g, s));
        for (int v = 0; v < KS_MATMUL_NUM; ++v) {
            const int tiles[3] = {8, 16, 32};
            const int nt = v == KS_MATMUL_TILED ? 3 : 1;
            for (int t = 0; t < nt; ++t) {
                /* ks_matmul_check_variant poisons C with NaN bits first */
                const ks_status st = ks_matmul_check_variant(g, s, (ks_matmul_variant)v, tiles[t], gold, got);
                if (st != KS_OK) fail_msg("%s", ks_error_message());
            }
        }
        /* the shape chosen: the any-shape one exactly where K or N is not a multiple of 4 */
        ks_matmul_rt_choice rt;
        OK(ks_matmul_gpu_regtile(g, &rt));
        assert_int_equal(rt.how == KS_MM_RT_ANY_SHAPE, !ks_matmul_rt_vec_ok(s));
        check_every_regtile(g, s, gold, got);
        free(a);
        free(b);
        free(gold);
        free(got);
    }
    /* a tile tiled does not take is refused */
    assert_int_equal(ks_matmul_gpu_run(g, KS_MATMUL_TILED, 12), KS_ERR_INVALID);
    ks_error_clear();
    ks_matmul_gpu_destroy(g);
}

/* Random non-zero inputs (|x| in [0.5, 1.5), either sign), uploaded over the formula's: every
 * variant and every regtile shape that takes the size, C poisoned with NaN first, against a
 * double-precision product within float summation's bound (K x 2^-23 of sum |a||b|); the
 * edge shapes of sizes[] (1x1x1, odd, ragged, a K of 300). */
static float random_nonzero(unsigned long long *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    const float u = (float)((*x >> 40) & 0xffffff) / 16777216.0f;
    return ((*x >> 33) & 1 ? -1.0f : 1.0f) * (0.5f + u);
}

static void expect_near(const ks_matmul_size *s, const float *a, const float *b, const float *got, const char *what)
{
    for (int i = 0; i < s->m; ++i)
        for (int j = 0; j < s->n; ++j) {
            double ref = 0.0, mag = 0.0;
            for (int k = 0; k < s->k; ++k) {
                ref += (double)a[(size_t)i * s->k + k] * b[(size_t)k * s->n + j];
                mag += fabs((double)a[(size_t)i * s->k + k] * b[(size_t)k * s->n + j]);
            }
            const double c = got[(size_t)i * s->n + j], tol = s->k * 1.1920929e-7 * mag;
            if (!(fabs(c - ref) <= tol)) /* NaN (the poison) fails too */
                fail_msg("%s at %dx%dx%d: C[%d][%d] = %.9g, want %.9g (tolerance %.3g)", what, s->m, s->n, s->k, i, j, c,
                         ref, tol);
        }
}

static void test_random_data(void **state)
{
    (void)state;
    ks_matmul_gpu *g = NULL;
    OK(ks_matmul_gpu_create(&g));
    unsigned long long seed = 38;
    for (size_t q = 0; q < sizeof sizes / sizeof *sizes; ++q) {
        const ks_matmul_size *s = &sizes[q];
        float *a = malloc((size_t)s->m * s->k * 4), *b = malloc((size_t)s->k * s->n * 4);
        float *got = malloc((size_t)s->m * s->n * 4);
        assert_true(a && b && got);
        for (size_t e = 0; e < (size_t)s->m * s->k; ++e) a[e] = random_nonzero(&seed);
        for (size_t e = 0; e < (size_t)s->k * s->n; ++e) b[e] = random_nonzero(&seed);
        OK(ks_matmul_gpu_setup(g, s));
        OK(ks_matmul_gpu_upload(g, a, b));
        char what[96];
        for (int v = 0; v < KS_MATMUL_NUM; ++v)
            for (int t = 0; t < (v == KS_MATMUL_TILED ? 3 : 1); ++t) {
                const int tile = 8 << t;
                OK(ks_matmul_gpu_poison(g));
                OK(ks_matmul_gpu_run(g, (ks_matmul_variant)v, tile));
                OK(ks_matmul_gpu_download(g, got));
                snprintf(what, sizeof what, "%s (tile %d)", ks_matmul_variant_get((ks_matmul_variant)v)->name, tile);
                expect_near(s, a, b, got, what);
            }
        for (int i = 0; i < ks_matmul_rt_count(); ++i) {
            if (ks_matmul_rt_get(i)->vec && !ks_matmul_rt_vec_ok(s)) continue;
            OK(ks_matmul_gpu_set_regtile(g, i));
            OK(ks_matmul_gpu_poison(g));
            OK(ks_matmul_gpu_run(g, KS_MATMUL_REGTILE, 0));
            OK(ks_matmul_gpu_download(g, got));
            snprintf(what, sizeof what, "regtile %s", ks_matmul_rt_get(i)->name);
            expect_near(s, a, b, got, what);
        }
        free(a);
        free(b);
        free(got);
    }
    ks_matmul_gpu_destroy(g);
}

static void test_picture(void **state)
{
    (void)state;
    const ks_matmul_size s = {300, 77, 5};
    ks_matmul_gpu *g = NULL;
    OK(ks_matmul_gpu_create(&g));
    OK(ks_matmul_gpu_setup(g, &s));
    OK(ks_matmul_gpu_run(g, KS_MATMUL_NAIVE, 0));
    float *c = malloc((size_t)s.m * s.n * 4);
    assert_non_null(c);
    OK(ks_matmul_gpu_download(g, c));
    float v;
    OK(ks_matmul_gpu_read(g, 123, 45, &v));
    assert_true(v == c[123 * s.n + 45]);
    unsigned char lut[256][4];
    ks_colormap_table_rgba(KS_CMAP_VIRIDIS, lut);
    const int dims[][2] = {{77, 300}, {40, 150}, {154, 600}, {23, 91}};
    for (size_t q = 0; q < sizeof dims / sizeof *dims; ++q) {
        const int w = dims[q][0], h = dims[q][1];
        unsigned char *want = malloc((size_t)w * h * 4), *got = malloc((size_t)w * h * 4);
        void *dev = NULL;
        assert_true(want && got);
        assert_int_equal(cudaMalloc(&dev, (size_t)w * h * 4), cudaSuccess);
        const ks_matmul_tile grid = {16, 32};
        ks_matmul_draw_cpu(&s, c, w, h, lut, -10.0f, 10.0f, grid, want);
        OK(ks_matmul_gpu_draw(g, w, h, lut, -10.0f, 10.0f, grid, dev));
        /* the draw is enqueued on the scene's own (non-blocking) stream: wait for it */
        assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_matmul_gpu_stream(g)), cudaSuccess);
        assert_int_equal(cudaMemcpy(got, dev, (size_t)w * h * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        assert_memory_equal(want, got, (size_t)w * h * 4);
        /* a hovered tile's bands over it (a tile inside, one at the last row and column), as the CPU shades them */
        const int probes[][2] = {{123, 45}, {299, 76}};
        for (int p = 0; p < 2; ++p) {
            ks_matmul_band band;
            ks_matmul_band_of(&s, grid, probes[p][0], probes[p][1], &band);
            ks_matmul_shade_bands_cpu(&s, &band, w, h, want);
            OK(ks_matmul_gpu_shade_bands(g, &band, w, h, dev));
            assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_matmul_gpu_stream(g)), cudaSuccess);
            assert_int_equal(cudaMemcpy(got, dev, (size_t)w * h * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            if (memcmp(want, got, (size_t)w * h * 4) != 0)
                fail_msg("bands of C[%d][%d] at %dx%d differ from the CPU's", probes[p][0], probes[p][1], w, h);
        }
        cudaFree(dev);
        free(want);
        free(got);
    }
    free(c);
    ks_matmul_gpu_destroy(g);
}

/* Recording on: every block of naive, tiled (8, 16, 32) and regtile (every shape, the
 * rectangular ones too) writes one record, its
 * SM id below the device's SM count and its time between a clock read before the launch
 * and one after; C is still the gold's; cuBLAS leaves none. The GPU tile picture equals
 * the CPU's on the same records. */
static void test_records(void **state)
{
    (void)state;
    ks_device_info dev;
    OK(ks_cuda_probe(&dev));
    assert_true(dev.sm_count > 0);
    const ks_matmul_size sz[] = {{257, 260, 20}, {300, 77, 5}, {1, 1, 1}, {1024, 1024, 64}};
    ks_matmul_gpu *g = NULL;
    OK(ks_matmul_gpu_create(&g));
    OK(ks_matmul_gpu_set_record(g, 1));
    unsigned char pal[256][4], lut[256][4];
    ks_matmul_unit_palette(pal);
    ks_colormap_table_rgba(KS_CMAP_INFERNO, lut);
    for (size_t q = 0; q < sizeof sz / sizeof *sz; ++q) {
        const ks_matmul_size *s = &sz[q];
        float *a = malloc((size_t)s->m * s->k * 4), *b = malloc((size_t)s->k * s->n * 4);
        float *gold = malloc((size_t)s->m * s->n * 4), *got = malloc((size_t)s->m * s->n * 4);
        assert_true(a && b && gold && got);
        ks_matmul_fill(s, a, b);
        ks_matmul_gold(s, a, b, gold);
        OK(ks_matmul_gpu_setup(g, s));
        /* the course's kernels, cuBLAS, then regtile in each shape s takes (shape -1: the chosen one) */
        struct { ks_matmul_variant v; int tile, shape; } runs[8 + 16] = {
            {KS_MATMUL_NAIVE, 0, -1}, {KS_MATMUL_TILED, 8, -1}, {KS_MATMUL_TILED, 16, -1}, {KS_MATMUL_TILED, 32, -1},
            {KS_MATMUL_CUBLAS, 0, -1}, {KS_MATMUL_REGTILE, 0, -1}};
        size_t nruns = 6;
        for (int i = 0; i < ks_matmul_rt_count() && nruns < sizeof runs / sizeof *runs; ++i)
            if (!ks_matmul_rt_get(i)->vec || ks_matmul_rt_vec_ok(s)) {
                runs[nruns].v = KS_MATMUL_REGTILE;
                runs[nruns].tile = 0;
                runs[nruns++].shape = i;
            }
        for (size_t k = 0; k < nruns; ++k) {
            if (runs[k].shape >= 0) OK(ks_matmul_gpu_set_regtile(g, runs[k].shape));
            const ks_matmul_tile bt = ks_matmul_gpu_block_tile(g, runs[k].v, runs[k].tile);
            int tx = 0, ty = 0;
            if (bt.m > 0) ks_matmul_tile_grid(s, bt, &tx, &ty);
            const int n = tx * ty;
            ks_matmul_tile_rec *rec = calloc((size_t)(n > 0 ? n : 1), sizeof *rec);
            assert_non_null(rec);
            unsigned long long t0 = 0, t1 = 0;
            OK(ks_matmul_gpu_poison(g));
            OK(ks_matmul_gpu_clock(g, &t0));
            OK(ks_matmul_gpu_run(g, runs[k].v, runs[k].tile));
            OK(ks_matmul_gpu_clock(g, &t1));
            OK(ks_matmul_gpu_download(g, got));
            const char *name = ks_matmul_variant_get(runs[k].v)->name;
            if (ks_matmul_first_diff(gold, got, (size_t)s->m * s->n) != -1)
                fail_msg("%s %d (shape %d), %dx%dx%d: C differs from the gold with recording on", name, runs[k].tile,
                         runs[k].shape, s->m, s->n, s->k);
            int count = -1;
            OK(ks_matmul_gpu_records(g, rec, n, &count));
            if (runs[k].v == KS_MATMUL_CUBLAS) {
                assert_int_equal(count, 0);
                free(rec);
                continue;
            }
            assert_int_equal(count, n);
            for (int r = 0; r < n; ++r) {
                if (!rec[r].done || rec[r].unit >= (unsigned)dev.sm_count || rec[r].t_ns < t0 || rec[r].t_ns > t1)
                    fail_msg("%s %d, %dx%dx%d: block %d of %d: done %u, SM %u of %d, time %lld ns after the launch "
                             "began (it took %lld ns)", name, runs[k].tile, s->m, s->n, s->k, r, n, rec[r].done,
                             rec[r].unit, dev.sm_count, (long long)(rec[r].t_ns - t0), (long long)(t1 - t0));
            }
            unsigned long long first, last;
            ks_matmul_tile_span(rec, n, &first, &last);
            const int dims[][2] = {{s->n, s->m}, {97, 61}, {1024, 700}};
            for (size_t d = 0; d < sizeof dims / sizeof *dims; ++d)
                for (int pic = KS_MATMUL_PIC_UNIT; pic <= KS_MATMUL_PIC_TIME; ++pic) {
                    const int w = dims[d][0], h = dims[d][1];
                    unsigned char *want = malloc((size_t)w * h * 4), *pix = malloc((size_t)w * h * 4);
                    void *dev_px = NULL;
                    assert_true(want && pix);
                    assert_int_equal(cudaMalloc(&dev_px, (size_t)w * h * 4), cudaSuccess);
                    ks_matmul_draw_tiles_cpu(s, bt, rec, (ks_matmul_picture)pic, pal, lut, first, last, w, h, want);
                    OK(ks_matmul_gpu_draw_tiles(g, bt, (ks_matmul_picture)pic, pal, lut, first, last, w, h, dev_px));
                    assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_matmul_gpu_stream(g)), cudaSuccess);
                    assert_int_equal(cudaMemcpy(pix, dev_px, (size_t)w * h * 4, cudaMemcpyDeviceToHost), cudaSuccess);
                    if (memcmp(want, pix, (size_t)w * h * 4) != 0)
                        fail_msg("%s %d: tile picture %d at %dx%d differs from the CPU's", name, runs[k].tile, pic, w, h);
                    cudaFree(dev_px);
                    free(want);
                    free(pix);
                }
            /* a block tile other than the last run's is refused */
            assert_int_equal(ks_matmul_gpu_draw_tiles(g, (ks_matmul_tile){bt.m, bt.n + 1}, KS_MATMUL_PIC_UNIT, pal, lut,
                                                      first, last, 8, 8, NULL),
                             KS_ERR_INVALID);
            ks_error_clear();
            free(rec);
        }
        free(a);
        free(b);
        free(gold);
        free(got);
    }
    /* recording off: runs leave no records */
    OK(ks_matmul_gpu_set_record(g, 0));
    OK(ks_matmul_gpu_run(g, KS_MATMUL_REGTILE, 0));
    int count = -1;
    ks_matmul_tile_rec one;
    OK(ks_matmul_gpu_records(g, &one, 1, &count));
    assert_int_equal(count, 0);
    ks_matmul_gpu_destroy(g);
}

static void test_fma_peak(void **state)
{
    (void)state;
    double gf = 0.0;
    OK(ks_cuda_measure_fma_gflops(3, &gf));
    assert_true(gf > 10.0);
}

/* The bench's run on small sizes: rows for every variant and tile, cuBLAS at 100 %; each row's
 * timing as asked (3 repetitions, cold and warm), regtile's shape named. */
static void test_bench(void **state)
{
    (void)state;
    const ks_matmul_size sz[] = {{33, 17, 65}, {256, 256, 256}};
    for (int cache = KS_CACHE_COLD; cache <= KS_CACHE_WARM; ++cache) {
        ks_matmul_bench_desc d;
        memset(&d, 0, sizeof d);
        d.use_cuda = 1;
        d.sizes = sz;
        d.size_n = 2;
        d.timing.reps = 3;
        d.timing.cache = (ks_cache_policy)cache;
        ks_matmul_bench_result *r = calloc(1, sizeof *r);
        assert_non_null(r);
        OK(ks_matmul_bench_run(&d, r));
        assert_int_equal(r->row_n, 2 * 6); /* cublas, naive, tiled x3, regtile */
        assert_true(r->peak_gflops > 0);
        for (int k = 0; k < r->row_n; ++k) {
            const ks_matmul_bench_row *w = &r->rows[k];
            assert_true(w->ms > 0 && w->gflops > 0 && w->pct_peak > 0);
            assert_int_equal(w->timing.reps, 3);
            assert_int_equal(w->timing.cache, cache);
            assert_true(w->timing.se_pct >= 0.0 && w->timing.l2_bytes > 0.0);
            if (strcmp(w->variant, "cublas") == 0) assert_true(fabs(w->pct_cublas - 100.0) < 1e-9);
            if (strcmp(w->variant, "regtile") == 0) {
                assert_true(w->config[0] && w->config_how[0] && w->block_tile.m > 0);
                /* 33x17x65: N not a multiple of 4, so the any-shape kernel */
                if (w->size.n == 17) assert_non_null(strstr(w->config_how, "any shape"));
            }
        }
        free(r);
    }
    /* adaptive (no count asked): at least the minimum, the SE under 1 % unless a cap stopped it */
    ks_matmul_bench_desc d;
    memset(&d, 0, sizeof d);
    d.use_cuda = 1;
    d.sizes = &sz[1];
    d.size_n = 1;
    d.variants[KS_MATMUL_REGTILE] = 1;
    ks_matmul_bench_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    OK(ks_matmul_bench_run(&d, r));
    for (int k = 0; k < r->row_n; ++k) {
        const ks_timing *t = &r->rows[k].timing;
        assert_true(t->reps >= KS_TIMING_MIN_REPS);
        assert_true(t->stop != KS_TIMING_CONVERGED || t->se_pct < KS_TIMING_TARGET_SE_PCT);
        assert_int_equal(t->cache, KS_CACHE_COLD); /* 768 KiB: far under 4x any L2 */
    }
    free(r);
}

int main(void)
{
    ks_device_info dev;
    if (ks_cuda_probe(&dev) != KS_OK || !dev.present) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_variants), cmocka_unit_test(test_random_data),
                                       cmocka_unit_test(test_picture),
                                       cmocka_unit_test(test_records),
                                       cmocka_unit_test(test_fma_peak), cmocka_unit_test(test_bench)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
