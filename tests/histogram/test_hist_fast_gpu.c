/* The byte kernels of kernels/histogram/hist_fast.h (the ones warp chooses among,
 * and perf_hist's sweep), every one exactly against the CPU gold: text, uniform
 * and all-equal bytes; lengths around the 16-byte words and the tiles (1 .. 1000003
 * bytes); starts at every alignment class; as many blocks a SM as fit and one; twice
 * into the same counts (they add). Then the choice among them on an input: timed,
 * named, exact. KS_HIST_QUICK=1 or KS_TEST_QUICK=1 keeps the lengths under 70001.
 * Exits 77 (skipped) without a CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "base/cuda_device.h"
#include "kernels/histogram/hist_fast.h"
#include "kernels/histogram/histogram.h"

#define POISON 0x2468ace0u

static const size_t lengths_full[] = {1, 15, 16, 17, 255, 4097, 65537, 1000003};
static const size_t lengths_quick[] = {1, 15, 16, 17, 255, 4097, 65537};
static const size_t misaligns[] = {0, 1, 7, 15};
static int quick;

static void upload_poison(unsigned *d_hist)
{
    unsigned h[256];
    for (int b = 0; b < 256; ++b) h[b] = POISON + (unsigned)b;
    assert_int_equal(cudaMemcpy(d_hist, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
}

/* counts == times x gold + the poison, in every bin */
static void expect(const unsigned *d_hist, const uint64_t *gold, unsigned times, const char *what)
{
    unsigned h[256];
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(cudaMemcpy(h, d_hist, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int b = 0; b < 256; ++b)
        if (h[b] != (uint32_t)(times * gold[b] + POISON + (unsigned)b))
            fail_msg("%s: bin %d has %u, want %llu x %u + poison", what, b, h[b] - POISON - (unsigned)b,
                     (unsigned long long)gold[b], times);
}

static void test_every_kernel(void **state)
{
    (void)state;
    ks_hist_fast *h = NULL;
    assert_int_equal(ks_hist_fast_create(&h), KS_OK);
    const size_t *lengths = quick ? lengths_quick : lengths_full;
    const size_t nlen = quick ? sizeof lengths_quick / sizeof *lengths_quick : sizeof lengths_full / sizeof *lengths_full;
    const size_t most = lengths[nlen - 1];
    unsigned char *host = malloc(most), *dev = NULL;
    unsigned *d_hist = NULL;
    assert_non_null(host);
    assert_int_equal(cudaMalloc((void **)&dev, most + 16), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_hist, 256 * sizeof(unsigned)), cudaSuccess);
    int runnable = 0;
    for (int i = 0; i < ks_hist_fast_count(); ++i) {
        ks_hist_fast_attrs a;
        assert_int_equal(ks_hist_fast_attrs_get(h, i, &a), KS_OK);
        runnable += a.max_per_sm > 0;
        if (a.max_per_sm < 1) /* refused in one line, not run */
            assert_int_equal(ks_hist_fast_run(h, i, 0, dev, 16, d_hist, NULL), KS_ERR_UNSUPPORTED);
    }
    assert_true(runnable >= ks_hist_fast_count() - 1); /* own8 needs 64 KiB a block; the rest run anywhere */
    for (int kind = KS_HIST_IN_TEXT; kind <= KS_HIST_IN_EQUAL; ++kind)
        for (size_t l = 0; l < nlen; ++l) {
            const size_t n = lengths[l];
            ks_hist_generate((ks_hist_input_kind)kind, 5, host, n);
            uint64_t gold[256] = {0};
            ks_hist_gold(host, n, 0, n, KS_HIST_BYTES, 256, gold);
            for (size_t m = 0; m < sizeof misaligns / sizeof *misaligns; ++m) {
                assert_int_equal(cudaMemcpy(dev + misaligns[m], host, n, cudaMemcpyHostToDevice), cudaSuccess);
                for (int i = 0; i < ks_hist_fast_count(); ++i) {
                    ks_hist_fast_attrs a;
                    assert_int_equal(ks_hist_fast_attrs_get(h, i, &a), KS_OK);
                    if (a.max_per_sm < 1) continue;
                    for (int per_sm = 0; per_sm <= 1; ++per_sm) {
                        char what[160];
                        snprintf(what, sizeof what, "%s (%d a SM) on %s, %zu bytes at +%zu", ks_hist_fast_get(i)->name,
                                 per_sm, ks_hist_input_name((ks_hist_input_kind)kind), n, misaligns[m]);
                        upload_poison(d_hist);
                        assert_int_equal(ks_hist_fast_run(h, i, per_sm, dev + misaligns[m], n, d_hist, NULL), KS_OK);
                        expect(d_hist, gold, 1, what);
                        if (per_sm == 0 && m == 1) { /* a second launch adds */
                            assert_int_equal(ks_hist_fast_run(h, i, per_sm, dev + misaligns[m], n, d_hist, NULL), KS_OK);
                            expect(d_hist, gold, 2, what);
                        }
                    }
                }
            }
        }
    /* nothing to count: nothing changes */
    upload_poison(d_hist);
    assert_int_equal(ks_hist_fast_run(h, 0, 0, dev, 0, d_hist, NULL), KS_OK);
    const uint64_t zero[256] = {0};
    expect(d_hist, zero, 1, "0 bytes");
    assert_int_equal(ks_hist_fast_run(h, ks_hist_fast_count(), 0, dev, 16, d_hist, NULL), KS_ERR_INVALID);
    assert_int_equal(ks_hist_fast_find("lane32x4") >= 0, 1);
    assert_int_equal(ks_hist_fast_find("nope"), -1);
    cudaFree(dev);
    cudaFree(d_hist);
    free(host);
    ks_hist_fast_destroy(h);
}

/* warp's choice on each input: every finalist timed, the fastest named with its time and the
 * runner-up's, and the scene's warp (through the context that chose) exact on that input. */
static void test_choice(void **state)
{
    (void)state;
    const size_t n = quick ? 70001 : 4000037;
    unsigned char *host = malloc(n);
    assert_non_null(host);
    for (int kind = KS_HIST_IN_TEXT; kind <= KS_HIST_IN_EQUAL; ++kind) {
        ks_hist_generate((ks_hist_input_kind)kind, 9, host, n);
        uint64_t gold[256] = {0}, got[256];
        ks_hist_gold(host, n, 0, n, KS_HIST_BYTES, 256, gold);
        ks_hist_gpu *g = NULL;
        assert_int_equal(ks_hist_gpu_create(&(ks_hist_gpu_desc){.data = host, .n = n, .misalign = 3}, &g), KS_OK);
        char text[160];
        ks_hist_choice_text(ks_hist_gpu_ctx(g), text, sizeof text);
        if (!strstr(text, "(chosen for this input: ")) fail_msg("no choice made: %s", text);
        const int warp = ks_hist_variant_find("warp");
        assert_int_equal(ks_hist_gpu_fill(g, 0xdeadbeefu), KS_OK);
        assert_int_equal(ks_hist_gpu_whole(g, warp), KS_OK);
        assert_int_equal(ks_hist_gpu_counts(g, got), KS_OK);
        for (int b = 0; b < 256; ++b)
            if (got[b] != gold[b]) fail_msg("warp (%s) on %s: bin %d has %llu, gold %llu", text,
                                            ks_hist_input_name((ks_hist_input_kind)kind), b,
                                            (unsigned long long)got[b], (unsigned long long)gold[b]);
        ks_hist_gpu_destroy(g);
    }
    /* the choice itself, on the device API: the fastest of those timed */
    ks_hist_fast *h = NULL;
    assert_int_equal(ks_hist_fast_create(&h), KS_OK);
    unsigned char *dev = NULL;
    unsigned *scratch = NULL;
    assert_int_equal(cudaMalloc((void **)&dev, n), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&scratch, 256 * sizeof(unsigned)), cudaSuccess);
    assert_int_equal(cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice), cudaSuccess);
    ks_hist_fast_pick p;
    ks_hist_fast_default(h, &p);
    assert_int_equal(p.timed, 0);
    char text[160];
    ks_hist_fast_pick_text(&p, text, sizeof text);
    assert_non_null(strstr(text, "(not chosen yet: input-independent default)"));
    assert_int_equal(ks_hist_fast_choose(h, dev, n, scratch, NULL, &p), KS_OK);
    assert_true(p.timed >= 2 && p.ms > 0.0);
    assert_true(p.second_kind >= 0 && p.second_kind != p.kind && p.second_ms >= p.ms);
    ks_hist_fast_pick_text(&p, text, sizeof text);
    assert_non_null(strstr(text, ks_hist_fast_get(p.kind)->name));
    assert_non_null(strstr(text, ks_hist_fast_get(p.second_kind)->name));
    cudaFree(dev);
    cudaFree(scratch);
    ks_hist_fast_destroy(h);
    free(host);
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
    quick = (q && *q && *q != '0') || (tq && *tq && *tq != '0');
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_kernel), cmocka_unit_test(test_choice)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
