/* Reduce GPU variants: every variant x size x block size against the CPU gold
 * (random non-zero input within the stated tolerance, integer input exactly),
 * outputs poisoned with NaN before each run; the GPU levels against the CPU
 * levels and the GPU picture equal to the CPU one for the same data; bad descs
 * refused; the timing and the bench core's rows. Exits 77 (skipped) without a
 * CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/cuda_device.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_bench.h"

#define OK(call)                                                                                   \
    do {                                                                                           \
        ks_status st_ = (call);                                                                    \
        if (st_ != KS_OK) fail_msg("%s: %s", #call, ks_error_message());                           \
    } while (0)

/* 1, around a warp, around a block, float4 tails (n % 4 = 1, 2, 3), more than one
 * lookback tile (4096) with a ragged tail, several recursion levels of scan_blocks. */
static const long long sizes[] = {1, 2, 3, 31, 32, 33, 1023, 1025, 4095, 4097, 12291, 65538, 1000003};
static const int blocks[] = {32, 256, 1024};

static void check_all(long long n, int block, ks_reduce_input kind)
{
    const ks_reduce_desc d = {n, 7, block, kind};
    const int exact = kind == KS_REDUCE_INPUT_INTEGER;
    ks_reduce_gpu *g = NULL;
    OK(ks_reduce_gpu_create(&d, &g));
    float *x = malloc((size_t)n * 4), *gold = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
    assert_true(x && gold && got);
    ks_reduce_fill(kind, 7, x, n);
    ks_reduce_gold_scan(x, gold, n);
    const double sum = ks_reduce_gold_sum(x, n), abs_sum = ks_reduce_abs_sum(x, n);
    for (int v = 0; v < KS_REDUCE_NUM; ++v) {
        /* ks_reduce_check_variant poisons the sum and the scan output first */
        const ks_status st = ks_reduce_check_variant(g, (ks_reduce_variant)v, x, sum, abs_sum, gold, exact, got);
        if (st != KS_OK) fail_msg("%s", ks_error_message());
        /* twice: the variants' counters and epochs must leave the next run clean */
        const ks_status st2 = ks_reduce_check_variant(g, (ks_reduce_variant)v, x, sum, abs_sum, gold, exact, got);
        if (st2 != KS_OK) fail_msg("second run: %s", ks_error_message());
    }
    free(x);
    free(gold);
    free(got);
    ks_reduce_gpu_destroy(g);
}

static void test_variants_random(void **state)
{
    (void)state;
    for (size_t q = 0; q < sizeof sizes / sizeof *sizes; ++q)
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b) check_all(sizes[q], blocks[b], KS_REDUCE_INPUT_RANDOM);
    check_all(1000003, 128, KS_REDUCE_INPUT_RANDOM);
    check_all(1 << 22, 512, KS_REDUCE_INPUT_RANDOM); /* many lookback tiles, float4 everywhere */
}

static void test_variants_integer_exact(void **state)
{
    (void)state;
    const long long n[] = {1, 33, 4097, 1000003, KS_REDUCE_EXACT_MAX_N};
    for (size_t q = 0; q < sizeof n / sizeof *n; ++q)
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b) check_all(n[q], blocks[b], KS_REDUCE_INPUT_INTEGER);
}

/* The input made on the device is the CPU's bit for bit; an upload replaces it. */
static void test_fill_upload(void **state)
{
    (void)state;
    const long long n = 4099;
    const ks_reduce_desc d = {n, 3, 64, KS_REDUCE_INPUT_RANDOM};
    ks_reduce_gpu *g = NULL;
    OK(ks_reduce_gpu_create(&d, &g));
    float *x = malloc(n * 4), *dev = malloc(n * 4);
    assert_true(x && dev);
    ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, 3, x, n);
    /* the fill runs on the context's stream: wait for it (a copy on the default stream need not) */
    assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_reduce_gpu_stream(g)), cudaSuccess);
    assert_int_equal(cudaMemcpy(dev, ks_reduce_gpu_input(g), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(x, dev, n * 4);
    OK(ks_reduce_gpu_fill(g, KS_REDUCE_INPUT_INTEGER, 9));
    ks_reduce_fill(KS_REDUCE_INPUT_INTEGER, 9, x, n);
    /* the fill runs on the context's stream: wait for it (a copy on the default stream need not) */
    assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_reduce_gpu_stream(g)), cudaSuccess);
    assert_int_equal(cudaMemcpy(dev, ks_reduce_gpu_input(g), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(x, dev, n * 4);
    for (long long i = 0; i < n; ++i) x[i] = (float)(i % 5 + 1);
    OK(ks_reduce_gpu_upload(g, x, n));
    OK(ks_reduce_gpu_run(g, KS_REDUCE_SCAN_LOOKBACK));
    float last = 0.0f;
    OK(ks_reduce_gpu_scan_read(g, n - 1, &last));
    assert_true(last == (float)ks_reduce_gold_sum(x, n));
    assert_int_equal(ks_reduce_gpu_upload(g, x, n - 1), KS_ERR_INVALID);
    assert_int_equal(ks_reduce_gpu_scan_read(g, n, &last), KS_ERR_INVALID);
    ks_error_clear();
    free(x);
    free(dev);
    ks_reduce_gpu_destroy(g);
}

static void test_bad_desc(void **state)
{
    (void)state;
    const ks_reduce_desc bad[] = {{-1, 0, 0, 0}, {0, 0, 48, 0}, {0, 0, 16, 0}, {0, 0, 2048, 0},
                                  {KS_REDUCE_MAX_N + 1, 0, 0, 0}, {10, 0, 0, (ks_reduce_input)7}};
    for (size_t q = 0; q < sizeof bad / sizeof *bad; ++q) {
        ks_reduce_gpu *g = (ks_reduce_gpu *)&g; /* must come back NULL */
        ks_error_clear();
        assert_int_equal(ks_reduce_gpu_create(&bad[q], &g), KS_ERR_INVALID);
        assert_null(g);
        assert_true(strlen(ks_error_message()) > 10);
        assert_null(strstr(ks_error_message(), "--"));
    }
    ks_error_clear();
    const ks_reduce_desc ok = {100, 0, 0, 0};
    ks_reduce_gpu *g = NULL;
    OK(ks_reduce_gpu_create(&ok, &g));
    assert_int_equal(ks_reduce_gpu_run(g, KS_REDUCE_NUM), KS_ERR_INVALID);
    assert_int_equal(ks_reduce_gpu_draw(g, 10, 10, NULL, 0, 1, NULL), KS_ERR_INVALID); /* no levels yet */
    ks_error_clear();
    const ks_reduce_desc got = ks_reduce_gpu_desc(g);
    assert_int_equal(got.block, KS_REDUCE_DEFAULT_BLOCK);
    assert_int_equal(got.seed, KS_REDUCE_DEFAULT_SEED);
    assert_int_equal(got.input, KS_REDUCE_INPUT_RANDOM);
    ks_reduce_gpu_destroy(g);
}

/* GPU levels close to the CPU's; the GPU picture of the GPU's levels equal to the CPU's picture of them. */
static void test_levels_and_picture(void **state)
{
    (void)state;
    const long long ns[] = {1, 1000, 300007};
    const int bs[] = {32, 256};
    unsigned char lut[256][4];
    ks_colormap_table_rgba(KS_CMAP_TURBO, lut);
    for (size_t q = 0; q < sizeof ns / sizeof *ns; ++q)
        for (size_t b = 0; b < sizeof bs / sizeof *bs; ++b)
            for (int op = 0; op < KS_REDUCE_OP_NUM; ++op) {
                const long long n = ns[q];
                const ks_reduce_desc d = {n, 5, bs[b], KS_REDUCE_INPUT_RANDOM};
                ks_reduce_gpu *g = NULL;
                OK(ks_reduce_gpu_create(&d, &g));
                ks_reduce_levels lg, lc;
                OK(ks_reduce_gpu_levels(g, (ks_reduce_op)op, &lg));
                const long long total = ks_reduce_levels_layout((ks_reduce_op)op, n, bs[b], &lc);
                float *x = malloc(n * 4), *cpu = malloc(total * 4), *gpu = malloc(total * 4);
                assert_true(x && cpu && gpu);
                ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, 5, x, n);
                ks_reduce_levels_cpu((ks_reduce_op)op, x, n, bs[b], cpu, &lc);
                OK(ks_reduce_gpu_levels_download(g, gpu));
                assert_int_equal(lg.count, lc.count);
                for (int s = 0; s < lc.count; ++s) {
                    assert_true(lg.len[s] == lc.len[s] && lg.offset[s] == lc.offset[s]);
                    /* each level value is a sum of at most n inputs: the sum tolerance over all of them */
                    const double tol = ks_reduce_sum_tolerance(n, ks_reduce_abs_sum(x, n));
                    for (long long i = 0; i < lc.len[s]; ++i)
                        if (!(fabs((double)gpu[lc.offset[s] + i] - cpu[lc.offset[s] + i]) <= tol))
                            fail_msg("%s levels n=%lld block=%d strip %d [%lld]: gpu %.9g cpu %.9g", ks_reduce_op_name(op),
                                     n, bs[b], s, i, gpu[lc.offset[s] + i], cpu[lc.offset[s] + i]);
                }
                /* the scales the GPU found are those of its data */
                ks_reduce_levels ls = lg;
                ks_reduce_levels_scales(&ls, gpu);
                for (int s = 0; s < lc.count; ++s) assert_true(ls.scale[s] == lg.scale[s]);
                const int dims[][2] = {{640, 240}, {97, 31}, {3, 2}};
                for (size_t k = 0; k < sizeof dims / sizeof *dims; ++k) {
                    const int w = dims[k][0], h = dims[k][1];
                    unsigned char *want = malloc((size_t)w * h * 4), *pic = malloc((size_t)w * h * 4);
                    void *dev = NULL;
                    assert_true(want && pic);
                    assert_int_equal(cudaMalloc(&dev, (size_t)w * h * 4), cudaSuccess);
                    ks_reduce_draw_cpu(&lg, gpu, w, h, lut, -1.0f, 1.0f, want);
                    OK(ks_reduce_gpu_draw(g, w, h, lut, -1.0f, 1.0f, dev));
                    assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_reduce_gpu_stream(g)), cudaSuccess);
                    assert_int_equal(cudaMemcpy(pic, dev, (size_t)w * h * 4, cudaMemcpyDeviceToHost), cudaSuccess);
                    assert_memory_equal(want, pic, (size_t)w * h * 4);
                    cudaFree(dev);
                    free(want);
                    free(pic);
                }
                free(x);
                free(cpu);
                free(gpu);
                ks_reduce_gpu_destroy(g);
            }
}

static void test_timing(void **state)
{
    (void)state;
    const ks_reduce_desc d = {1 << 20, 0, 0, 0};
    ks_reduce_gpu *g = NULL;
    OK(ks_reduce_gpu_create(&d, &g));
    for (int v = 0; v < KS_REDUCE_NUM; ++v) {
        for (int cache = KS_CACHE_COLD; cache <= KS_CACHE_WARM; ++cache) {
            const ks_timing_opts o = {.cache = (ks_cache_policy)cache, .reps = 3, .warmup = 1};
            ks_reduce_timing t;
            OK(ks_reduce_gpu_time(g, (ks_reduce_variant)v, 2.0, &o, &t));
            assert_true(t.median_ms > 0 && t.min_ms > 0 && t.min_ms <= t.median_ms && t.launches >= 1 && t.reps == 3);
            assert_int_equal(t.timing.cache, cache);
            if (cache == KS_CACHE_COLD) assert_int_equal(t.launches, 1); /* one run after each flush */
        }
    }
    ks_reduce_gpu_destroy(g);
}

/* The bench core on a small N: rows for every variant, CUB at 1.0, ratios in a sane range. */
static void test_bench(void **state)
{
    (void)state;
    const long long n[] = {1 << 20, 3000001};
    ks_reduce_bench_desc d;
    memset(&d, 0, sizeof d);
    d.use_cuda = 1;
    d.sizes = n;
    d.size_n = 2;
    d.timing.reps = 3;
    d.span_ms = 2.0;
    ks_reduce_bench_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    OK(ks_reduce_bench_run(&d, r));
    assert_int_equal(r->row_n, 2 * KS_REDUCE_NUM);
    assert_true(r->t_peak_gbs > 10.0);
    assert_true(r->device[0] && r->cc[0] && strchr(r->cc, '.'));
    for (int k = 0; k < r->row_n; ++k) {
        const ks_reduce_bench_row *w = &r->rows[k];
        ks_reduce_variant v;
        assert_int_equal(ks_reduce_variant_parse(w->variant, &v), 0);
        assert_string_equal(w->op, ks_reduce_op_name(ks_reduce_variant_get(v)->op));
        assert_true(w->ms > 0 && w->t_eff_gbs > 0 && w->t_peak_gbs == r->t_peak_gbs);
        assert_string_equal(w->device, r->device);
        assert_string_equal(w->cc, r->cc);
        assert_true(w->n == n[k / KS_REDUCE_NUM]);
        assert_true(fabs(w->ratio - w->t_eff_gbs / w->t_peak_gbs) < 1e-12);
        assert_true(w->ratio > 0 && w->ratio < 3.0); /* small N sits in L2: above 1 is possible */
        assert_true(w->vs_cub > 0);
        if (strstr(w->variant, "_cub")) assert_true(fabs(w->vs_cub - 1.0) < 1e-12);
        assert_true(w->timing.reps == 3 && w->timing.l2_bytes > 0.0 && w->timing.se_pct >= 0.0);
    }
    /* only the chosen variants (and their op's CUB) */
    memset(d.variants, 0, sizeof d.variants);
    d.variants[KS_REDUCE_SCAN_LOOKBACK] = 1;
    d.size_n = 1;
    OK(ks_reduce_bench_run(&d, r));
    assert_int_equal(r->row_n, 2);
    assert_string_equal(r->rows[0].variant, "scan_cub");
    assert_string_equal(r->rows[1].variant, "scan_lookback");
    free(r);
}

int main(void)
{
    ks_device_info dev;
    if (ks_cuda_probe(&dev) != KS_OK || !dev.present) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_random), cmocka_unit_test(test_variants_integer_exact),
        cmocka_unit_test(test_fill_upload),     cmocka_unit_test(test_bad_desc),
        cmocka_unit_test(test_levels_and_picture), cmocka_unit_test(test_timing),
        cmocka_unit_test(test_bench),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
