/* Every histogram variant against the CPU gold, exactly: odd sizes, inputs
 * that are not multiples of 16 bytes, misaligned starts, three inputs, the
 * three modes and bin counts 256, 1000, 65536; counts poisoned first. Each
 * configuration runs as one launch and as uneven chunks. KS_HIST_QUICK=1 or
 * KS_TEST_QUICK=1 (for compute-sanitizer) keeps the sizes to 1 .. 70001 bytes. Exits 77
 * (skipped) without a CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "base/cuda_device.h"
#include "kernels/histogram/histogram.h"

#define POISON 0x13579bdfu

typedef struct ks_mode_case {
    ks_hist_mode mode;
    unsigned bins;
} ks_mode_case;

static const ks_mode_case modes[] = {
    {KS_HIST_BYTES, 256}, {KS_HIST_PAIRS, 256}, {KS_HIST_PAIRS, 1000},
    {KS_HIST_PAIRS, 65536}, {KS_HIST_WORDS, 1000}, {KS_HIST_WORDS, 65536},
};
static const size_t sizes_full[] = {1, 15, 17, 4097, 1000003};
static const size_t sizes_quick[] = {1, 15, 17, 4097, 70001};
static int quick;
static const size_t misaligns[] = {0, 1, 3, 8};

/* The device histogram is uint32: expected = gold + poison (mod 2^32). */
static void expect_counts(ks_hist_gpu *g, const uint64_t *gold, unsigned bins, uint32_t base, const char *what)
{
    uint64_t *got = calloc(bins, sizeof *got);
    assert_non_null(got);
    assert_int_equal(ks_hist_gpu_counts(g, got), KS_OK);
    unsigned bad = 0, first = 0;
    for (unsigned b = 0; b < bins; ++b)
        if (got[b] != (uint32_t)(gold[b] + base) && bad++ == 0) first = b;
    if (bad) {
        const unsigned long long g0 = got[first], w0 = gold[first];
        free(got);
        fail_msg("%s: %u of %u bins wrong; bin %u has %llu, gold %llu (+ %u)", what, bad, bins, first, g0, w0,
                 base);
    }
    free(got);
}

static void run_case(const unsigned char *data, size_t n, const ks_mode_case *mc, size_t misalign,
                     const char *input)
{
    uint64_t *gold = calloc(mc->bins, sizeof *gold);
    assert_non_null(gold);
    ks_hist_gold(data, n, 0, n, mc->mode, mc->bins, gold);
    ks_hist_gpu *g = NULL;
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = data, .n = n, .mode = mc->mode, .bins = mc->bins, .misalign = misalign}, &g), KS_OK);
    for (int v = 0; v < KS_HIST_VARIANT_NUM; ++v) {
        const ks_hist_variant *var = ks_hist_variant_get(v);
        char what[256];
        snprintf(what, sizeof what, "%s, %s, %s, %u bins, %zu bytes at +%zu", var->name, input,
                 ks_hist_mode_name(mc->mode), mc->bins, n, misalign);
        const int odd_pairs = mc->mode == KS_HIST_PAIRS && (misalign & 1);
        if (mc->mode == KS_HIST_WORDS && !var->words) {
            assert_int_equal(ks_hist_gpu_chunk(g, v, 0, n, NULL), KS_ERR_UNSUPPORTED);
            continue;
        }
        if (var->overwrites && odd_pairs) { /* cub reads uint16: refuses odd addresses */
            assert_int_equal(ks_hist_gpu_chunk(g, v, 0, n, NULL), KS_ERR_UNSUPPORTED);
            continue;
        }
        /* one launch over the whole input, adding to the poison */
        char label[300];
        snprintf(label, sizeof label, "%s, one launch", what);
        assert_int_equal(ks_hist_gpu_fill(g, POISON), KS_OK);
        if (ks_hist_gpu_chunk(g, v, 0, n, NULL) != KS_OK) fail_msg("%s: %s", what, "launch failed");
        expect_counts(g, gold, mc->bins, POISON, label);
        /* uneven chunks (even starts for pairs), still adding */
        assert_int_equal(ks_hist_gpu_fill(g, POISON), KS_OK);
        size_t step = n / 3 + 1;
        step += step & 1;
        for (size_t at = 0; at < n; at += step) {
            const size_t end = n - at < step ? n : at + step;
            assert_int_equal(ks_hist_gpu_chunk(g, v, at, end, NULL), KS_OK);
        }
        snprintf(label, sizeof label, "%s, chunks", what);
        expect_counts(g, gold, mc->bins, POISON, label);
        /* as the bench runs it: own variants clear, cub writes every bin */
        assert_int_equal(ks_hist_gpu_fill(g, POISON), KS_OK);
        assert_int_equal(ks_hist_gpu_whole(g, v), KS_OK);
        snprintf(label, sizeof label, "%s, whole", what);
        expect_counts(g, gold, mc->bins, 0, label);
    }
    ks_hist_gpu_destroy(g);
    free(gold);
}

static void test_variants(void **state)
{
    (void)state;
    unsigned char *data = malloc(9000001);
    assert_non_null(data);
    for (int k = 0; k < 3; ++k) {
        const ks_hist_input_kind kind = (ks_hist_input_kind)k;
        const size_t *sizes = quick ? sizes_quick : sizes_full;
        for (size_t si = 0; si < sizeof sizes_full / sizeof sizes_full[0]; ++si) {
            ks_hist_generate(kind, 5 + si, data, sizes[si]);
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m)
                for (size_t a = 0; a < sizeof misaligns / sizeof misaligns[0]; ++a)
                    run_case(data, sizes[si], &modes[m], misaligns[a], ks_hist_input_name(kind));
        }
        /* larger than one pass of the warp kernel's grid: several grid-stride iterations */
        if (quick) continue;
        ks_hist_generate(kind, 99, data, 9000001);
        run_case(data, 9000001, &modes[0], 5, ks_hist_input_name(kind));
        run_case(data, 9000001, &modes[0], 0, ks_hist_input_name(kind));
    }
    free(data);
}

/* The first work on a new ks_hist_gpu (its stream is non-blocking) must see
 * the uploaded input and the cleared counts: fresh objects, large inputs
 * (the upload takes a while) and many bins, a fill and a launch at once. */
static void test_fresh_order(void **state)
{
    (void)state;
    const size_t n = quick ? 1u << 20 : 48u << 20;
    unsigned char *data = malloc(n);
    assert_non_null(data);
    ks_hist_generate(KS_HIST_IN_TEXT, 7, data, n);
    const ks_mode_case mc = {KS_HIST_PAIRS, 65536};
    uint64_t *gold = calloc(mc.bins, sizeof *gold);
    assert_non_null(gold);
    const int warp = ks_hist_variant_find("warp");
    assert_true(warp >= 0);
    for (int rep = 0; rep < (quick ? 2 : 6); ++rep) {
        ks_hist_gpu *g = NULL;
        data[n - 1] ^= (unsigned char)rep; /* a changed input each time: no stale copy can pass */
        memset(gold, 0, mc.bins * sizeof *gold);
        ks_hist_gold(data, n, 0, n, mc.mode, mc.bins, gold);
        assert_int_equal(ks_hist_gpu_create(
                             &(ks_hist_gpu_desc){.data = data, .n = n, .mode = mc.mode, .bins = mc.bins, .misalign = (size_t)rep % 4},
                             &g), KS_OK);
        if (rep & 1) { /* counts cleared at creation, then a launch straight away */
            assert_int_equal(ks_hist_gpu_chunk(g, warp, 0, n, NULL), KS_OK);
            expect_counts(g, gold, mc.bins, 0, "fresh object, launch with no fill");
        } else { /* a fill and a launch straight away */
            assert_int_equal(ks_hist_gpu_fill(g, POISON), KS_OK);
            assert_int_equal(ks_hist_gpu_chunk(g, warp, 0, n, NULL), KS_OK);
            expect_counts(g, gold, mc.bins, POISON, "fresh object, fill and launch");
        }
        ks_hist_gpu_destroy(g);
    }
    free(gold);
    free(data);
}

static void test_errors(void **state)
{
    (void)state;
    const unsigned char d[4] = {1, 2, 3, 4};
    ks_hist_gpu *g = NULL;
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = d}, &g), KS_ERR_INVALID); /* n required */
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.n = 4}, &g), KS_ERR_INVALID);    /* data required */
    assert_int_equal(ks_hist_gpu_create(NULL, &g), KS_ERR_INVALID);
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = d, .n = 4, .misalign = 16}, &g), KS_ERR_INVALID);
    /* bins 0: the default; bytes always get 256 */
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = d, .n = 4, .mode = KS_HIST_PAIRS}, &g), KS_OK);
    assert_int_equal(ks_hist_gpu_input(g)->bins, KS_HIST_WORD_BINS_DEFAULT);
    ks_hist_gpu_destroy(g);
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = d, .n = 4, .bins = 3}, &g), KS_OK);
    assert_int_equal(ks_hist_gpu_input(g)->bins, KS_HIST_BYTE_BINS);
    assert_int_equal(ks_hist_gpu_input(g)->mode, KS_HIST_BYTES);
    ks_hist_gpu_destroy(g);
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = d, .n = 4, .mode = KS_HIST_PAIRS, .bins = 65537}, &g),
                     KS_ERR_INVALID);
    assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = d, .n = 4, .mode = KS_HIST_PAIRS, .bins = 3}, &g),
                     KS_OK);
    assert_int_equal(ks_hist_gpu_chunk(g, 0, 1, 4, NULL), KS_ERR_INVALID); /* odd pair start */
    assert_int_equal(ks_hist_gpu_chunk(g, 0, 0, 5, NULL), KS_ERR_INVALID); /* past the end */
    assert_int_equal(ks_hist_gpu_chunk(g, KS_HIST_VARIANT_NUM, 0, 4, NULL), KS_ERR_INVALID);
    const ks_timing_opts three = {.reps = 3, .warmup = 1};
    ks_timing t;
    assert_int_equal(ks_hist_gpu_time(g, 3, &three, &t), KS_OK);
    assert_true(t.median_ms >= t.min_ms && t.min_ms >= 0.0 && t.reps == 3);
    assert_int_equal(t.cache, KS_CACHE_COLD); /* 4 bytes: far under 4x the L2 */
    ks_hist_gpu_destroy(g);
}

/* The labelled picture drawn on the device equals the CPU's on the same counts: bytes of
 * generated text (linear and log), pairs in 65536 bins and words in 1024 (grouped columns),
 * at the scene's size and a small one without labels. */
static void test_picture(void **state)
{
    (void)state;
    enum { N = 300000 };
    unsigned char *data = malloc(N);
    assert_non_null(data);
    ks_hist_generate(KS_HIST_IN_TEXT, 3, data, N);
    const struct { ks_hist_mode mode; unsigned bins; } cases[] = {
        {KS_HIST_BYTES, 256}, {KS_HIST_PAIRS, 65536}, {KS_HIST_WORDS, 1024}};
    const int dims[][2] = {{1280, 800}, {333, 211}, {90, 40}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        ks_hist_gpu *g = NULL;
        assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = data, .n = N, .mode = cases[c].mode,
                                                                .bins = cases[c].bins},
                                            &g),
                         KS_OK);
        assert_int_equal(ks_hist_gpu_chunk(g, 0, 0, N, NULL), KS_OK);
        uint64_t *counts = calloc(cases[c].bins, sizeof *counts);
        assert_non_null(counts);
        assert_int_equal(ks_hist_gpu_counts(g, counts), KS_OK);
        for (size_t d = 0; d < sizeof dims / sizeof *dims; ++d)
            for (int lg = 0; lg < 2; ++lg) {
                const int w = dims[d][0], h = dims[d][1];
                unsigned char *mask = malloc((size_t)w * h), *want = malloc((size_t)w * h * 4),
                              *got = malloc((size_t)w * h * 4);
                void *dev = NULL;
                assert_true(mask && want && got);
                assert_int_equal(cudaMalloc(&dev, (size_t)w * h * 4), cudaSuccess);
                ks_hist_axes ax;
                ks_hist_axes_make(counts, cases[c].bins, cases[c].mode, lg, w, h, &ax, mask);
                ks_hist_draw_bars_cpu(counts, cases[c].bins, lg, &ax, mask, want, w, h);
                assert_int_equal(ks_hist_gpu_draw(g, lg, &ax, mask, dev, w, h), KS_OK);
                assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
                assert_int_equal(cudaMemcpy(got, dev, (size_t)w * h * 4, cudaMemcpyDeviceToHost), cudaSuccess);
                if (memcmp(want, got, (size_t)w * h * 4) != 0)
                    fail_msg("%s %u bins, %dx%d, log %d: the GPU picture differs from the CPU's",
                             ks_hist_mode_name(cases[c].mode), cases[c].bins, w, h, lg);
                cudaFree(dev);
                free(mask);
                free(want);
                free(got);
            }
        free(counts);
        ks_hist_gpu_destroy(g);
    }
    free(data);
}

int main(void)
{
    ks_device_info info;
    memset(&info, 0, sizeof info);
    if (ks_cuda_probe(&info) != KS_OK || !info.present) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    const char *q = getenv("KS_HIST_QUICK"), *tq = getenv("KS_TEST_QUICK");
    quick = (q && strcmp(q, "1") == 0) || (tq && strcmp(tq, "1") == 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_order),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_picture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
