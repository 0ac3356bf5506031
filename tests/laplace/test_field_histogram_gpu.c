/* The float field histogram on the GPU (kernels/laplace/field_histogram.h:
 * ks_field_hist_run, the colour bar's histogram of the Laplace field) against
 * its gold exactly, counts poisoned first, and its refusals. KS_HIST_QUICK=1 or
 * KS_TEST_QUICK=1 (for compute-sanitizer) keeps the field to 30011 values. Exits
 * 77 (skipped) without a CUDA device. */
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
#include "kernels/laplace/field_histogram.h"

#define POISON 0x13579bdfu

static int quick;

/* Float values in bins (the panel beside a colour bar) against the gold. */
static void test_float(void **state)
{
    (void)state;
    const size_t n = quick ? 30011 : 1000003;
    float *v = malloc(n * sizeof *v);
    assert_non_null(v);
    uint64_t state64 = 12345;
    for (size_t i = 0; i < n; ++i) {
        state64 = state64 * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (float)((double)(state64 >> 11) / 9007199254740992.0 * 3.0 - 1.0); /* -1 .. 2 */
    }
    v[0] = NAN;
    v[1] = 0.5f;
    v[2] = 1.0f;
    /* the whole field as one block of 0.5 too: a long run of one bin */
    for (size_t i = n / 2; i < n / 2 + 4000 && i < n; ++i) v[i] = 0.5f;
    float *d_v = NULL;
    assert_int_equal(cudaMalloc((void **)&d_v, n * sizeof *v), cudaSuccess);
    assert_int_equal(cudaMemcpy(d_v, v, n * sizeof *v, cudaMemcpyHostToDevice), cudaSuccess);
    const unsigned bins_list[] = {1, 7, 256, 4096};
    for (size_t k = 0; k < sizeof bins_list / sizeof bins_list[0]; ++k) {
        const unsigned bins = bins_list[k];
        uint64_t *gold = calloc(bins, sizeof *gold), *got = calloc(bins, sizeof *got);
        assert_non_null(gold);
        assert_non_null(got);
        ks_field_hist_gold(v + 1, n - 1, 0.0f, 1.0f, bins, gold);
        unsigned *d_hist = NULL, *h32 = malloc(bins * sizeof *h32);
        assert_non_null(h32);
        for (unsigned b = 0; b < bins; ++b) h32[b] = POISON;
        assert_int_equal(cudaMalloc((void **)&d_hist, bins * sizeof *d_hist), cudaSuccess);
        assert_int_equal(cudaMemcpy(d_hist, h32, bins * sizeof *h32, cudaMemcpyHostToDevice), cudaSuccess);
        assert_int_equal(ks_field_hist_run(d_v + 1, n - 1, 0.0f, 1.0f, bins, d_hist, NULL), KS_OK);
        assert_int_equal(cudaMemcpy(h32, d_hist, bins * sizeof *h32, cudaMemcpyDeviceToHost), cudaSuccess);
        for (unsigned b = 0; b < bins; ++b) got[b] = h32[b];
        free(h32);
        for (unsigned b = 0; b < bins; ++b)
            if (got[b] != (uint32_t)(gold[b] + POISON))
                fail_msg("float, %u bins: bin %u has %llu, gold %llu", bins, b, (unsigned long long)got[b],
                         (unsigned long long)gold[b]);
        assert_int_equal(cudaFree(d_hist), cudaSuccess);
        free(gold);
        free(got);
    }
    assert_int_equal(ks_field_hist_run(d_v, n, 1.0f, 1.0f, 4, NULL, NULL), KS_ERR_INVALID);
    assert_int_equal(ks_field_hist_run(d_v, n, 0.0f, 1.0f, 4097, NULL, NULL), KS_ERR_INVALID);
    assert_int_equal(cudaFree(d_v), cudaSuccess);
    free(v);
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
        cmocka_unit_test(test_float),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
