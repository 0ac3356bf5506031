/* Reduce scene on the CPU: the variant table, desc defaults and refusals, the
 * input formula, the gold and the CPU backend against it, the tolerances and
 * the mismatch helper, the levels, the picture, the CPU bench, and (in a build
 * without CUDA) the GPU entry points' refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/cuda_device.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_bench.h"

static void test_table(void **state)
{
    (void)state;
    char all[512], sums[256], scans[256];
    ks_reduce_variant_list(KS_REDUCE_OP_NUM, all, sizeof all);
    ks_reduce_variant_list(KS_REDUCE_OP_SUM, sums, sizeof sums);
    ks_reduce_variant_list(KS_REDUCE_OP_SCAN, scans, sizeof scans);
    for (int v = 0; v < KS_REDUCE_NUM; ++v) {
        const ks_reduce_variant_info *i = ks_reduce_variant_get((ks_reduce_variant)v);
        assert_non_null(i);
        assert_true(i->name && i->summary && strlen(i->summary) > 10);
        assert_int_equal(strncmp(i->name, ks_reduce_op_name(i->op), strlen(ks_reduce_op_name(i->op))), 0);
        ks_reduce_variant back;
        assert_int_equal(ks_reduce_variant_parse(i->name, &back), 0);
        assert_int_equal(back, v);
        assert_non_null(strstr(all, i->name));
        assert_non_null(strstr(i->op == KS_REDUCE_OP_SUM ? sums : scans, i->name));
        assert_null(strstr(i->op == KS_REDUCE_OP_SUM ? scans : sums, i->name));
        const double want = i->op == KS_REDUCE_OP_SUM ? 4.0e6 : 8.0e6;
        assert_true(ks_reduce_model_bytes((ks_reduce_variant)v, 1000000) == want);
    }
    assert_string_equal(all, "sum_atomic, sum_tree, sum_shuffle, sum_onepass, sum_cub, scan_blocks, scan_shuffle, "
                             "scan_lookback, scan_cub");
    assert_int_equal(ks_reduce_variant_get(KS_REDUCE_SUM_CUB)->uses_block, 0);
    assert_int_equal(ks_reduce_variant_get(KS_REDUCE_SUM_TREE)->uses_block, 1);
    assert_int_equal(ks_reduce_cub_variant(KS_REDUCE_OP_SCAN), KS_REDUCE_SCAN_CUB);
    assert_int_equal(ks_reduce_cub_variant(KS_REDUCE_OP_SUM), KS_REDUCE_SUM_CUB);
    ks_reduce_variant v;
    assert_int_equal(ks_reduce_variant_parse("sum", &v), -1);
    assert_int_equal(ks_reduce_variant_parse(NULL, &v), -1);
    assert_null(ks_reduce_variant_get(KS_REDUCE_NUM));
    char tiny[8];
    ks_reduce_variant_list(KS_REDUCE_OP_NUM, tiny, sizeof tiny); /* cut, still terminated */
    assert_true(strlen(tiny) < sizeof tiny);
}

static void test_desc(void **state)
{
    (void)state;
    const ks_reduce_desc zero = {0};
    const ks_reduce_desc d = ks_reduce_desc_defaults(&zero);
    assert_true(d.n == KS_REDUCE_DEFAULT_N);
    assert_int_equal(d.block, KS_REDUCE_DEFAULT_BLOCK);
    assert_int_equal(d.seed, KS_REDUCE_DEFAULT_SEED);
    assert_int_equal(d.input, KS_REDUCE_INPUT_RANDOM);
    assert_int_equal(ks_reduce_desc_check(&zero), KS_OK);
    assert_int_equal(ks_reduce_desc_check(NULL), KS_OK);
    const ks_reduce_desc good[] = {{1, 0, 32, 0}, {KS_REDUCE_MAX_N, 0, 1024, 0}, {5, 9, 64, KS_REDUCE_INPUT_INTEGER}};
    for (size_t q = 0; q < sizeof good / sizeof *good; ++q) assert_int_equal(ks_reduce_desc_check(&good[q]), KS_OK);
    const ks_reduce_desc bad[] = {{-1, 0, 0, 0}, {KS_REDUCE_MAX_N + 1, 0, 0, 0}, {0, 0, 16, 0}, {0, 0, 96, 0},
                                  {0, 0, 2048, 0}, {0, 0, -256, 0}, {0, 0, 0, KS_REDUCE_INPUT_NUM}};
    for (size_t q = 0; q < sizeof bad / sizeof *bad; ++q) {
        ks_error_clear();
        assert_int_equal(ks_reduce_desc_check(&bad[q]), KS_ERR_INVALID);
        const char *m = ks_error_message();
        assert_non_null(strstr(m, "reduce:"));
        assert_null(strstr(m, "--")); /* the app's flags are the app's business */
    }
    ks_error_clear();
}

static void test_inputs(void **state)
{
    (void)state;
    const long long n = 100003;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    assert_true(a && b && c);
    ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, 1, a, n);
    ks_reduce_fill(KS_REDUCE_INPUT_DEFAULT, 0, b, n); /* defaults: random, seed 1 */
    assert_memory_equal(a, b, n * 4);
    ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, 2, c, n);
    int same = 0, neg = 0;
    double mean = 0.0;
    for (long long i = 0; i < n; ++i) {
        assert_true(a[i] != 0.0f && a[i] > -1.0f && a[i] < 1.0f);
        const double k = ldexp((double)a[i], 24); /* an odd integer */
        assert_true(k == floor(k) && fmod(fabs(k), 2.0) == 1.0);
        assert_true(a[i] == ks_reduce_input_value(KS_REDUCE_INPUT_RANDOM, 1, i));
        same += a[i] == c[i];
        neg += a[i] < 0;
        mean += a[i];
    }
    assert_true(same < 10);                          /* another seed, other values */
    assert_true(neg > n * 0.45 && neg < n * 0.55);   /* both signs, about evenly */
    assert_true(fabs(mean / n) < 0.01);
    ks_reduce_fill(KS_REDUCE_INPUT_INTEGER, 4, a, n);
    int hist[17] = {0};
    for (long long i = 0; i < n; ++i) {
        assert_true(a[i] == floorf(a[i]) && a[i] != 0.0f && a[i] >= -8.0f && a[i] <= 8.0f);
        assert_true(a[i] == ks_reduce_input_value(KS_REDUCE_INPUT_INTEGER, 4, i));
        hist[(int)a[i] + 8]++;
    }
    for (int k = 0; k < 17; ++k)
        if (k != 8) assert_true(hist[k] > n / 32);
    free(a);
    free(b);
    free(c);
}

static void test_gold_and_cpu(void **state)
{
    (void)state;
    const long long ns[] = {1, 2, 31, 33, 1023, 4097, 65536, 1000003};
    for (size_t q = 0; q < sizeof ns / sizeof *ns; ++q) {
        const long long n = ns[q];
        float *x = malloc(n * 4), *gold = malloc(n * 4), *y = malloc(n * 4);
        assert_true(x && gold && y);
        for (int kind = KS_REDUCE_INPUT_RANDOM; kind <= KS_REDUCE_INPUT_INTEGER; ++kind) {
            const int exact = kind == KS_REDUCE_INPUT_INTEGER;
            ks_reduce_fill((ks_reduce_input)kind, 11, x, n);
            ks_reduce_gold_scan(x, gold, n);
            const double sum = ks_reduce_gold_sum(x, n), abs_sum = ks_reduce_abs_sum(x, n);
            if (exact) { /* integers: the double gold is the exact sum */
                long long isum = 0;
                for (long long i = 0; i < n; ++i) isum += (long long)x[i];
                assert_true(sum == (double)isum);
            }
            assert_true(gold[n - 1] == (float)sum);
            assert_int_equal(ks_reduce_sum_check(ks_reduce_cpu_sum(x, n), sum, n, abs_sum, exact), 0);
            memset(y, 0xFF, n * 4);
            ks_reduce_cpu_scan(x, y, n);
            ks_reduce_mismatch m;
            assert_int_equal(ks_reduce_scan_mismatch(x, gold, y, n, exact, &m), -1);
            assert_true(m.index == -1 && m.max_err <= (exact ? 0.0 : 1e-3));
        }
        free(x);
        free(gold);
        free(y);
    }
}

static void test_tolerances(void **state)
{
    (void)state;
    const double eps = ldexp(1.0, -24);
    assert_true(ks_reduce_sum_tolerance(1, 1.0) == 4.0 * eps); /* 2*1 + 0 + 2 */
    assert_true(ks_reduce_sum_tolerance(1 << 20, 1.0) == eps * (2.0 * 1024 + 20 + 2));
    assert_true(ks_reduce_scan_tolerance(0, 1.0) == ks_reduce_sum_tolerance(1, 1.0));
    assert_true(ks_reduce_sum_tolerance(4096, 10.0) < ks_reduce_sum_tolerance(4097, 10.0));
    assert_int_equal(ks_reduce_sum_check(1.0, 1.0, 10, 5.0, 1), 0);
    assert_int_equal(ks_reduce_sum_check(1.0 + 1e-9, 1.0, 10, 5.0, 1), -1);
    assert_int_equal(ks_reduce_sum_check(1.0 + 1e-9, 1.0, 10, 5.0, 0), 0);
    assert_int_equal(ks_reduce_sum_check(1.1, 1.0, 10, 5.0, 0), -1);
    assert_int_equal(ks_reduce_sum_check(NAN, 1.0, 10, 5.0, 0), -1);

    const long long n = 5000;
    float *x = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    assert_true(x && want && got);
    ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, 3, x, n);
    ks_reduce_gold_scan(x, want, n);
    memcpy(got, want, n * 4);
    ks_reduce_mismatch m;
    assert_int_equal(ks_reduce_scan_mismatch(x, want, got, n, 0, &m), -1);
    assert_true(m.max_err == 0.0);
    got[1234] = nextafterf(want[1234], 100.0f); /* one ulp: within the float tolerance, not exact */
    assert_int_equal(ks_reduce_scan_mismatch(x, want, got, n, 0, &m), -1);
    assert_int_equal(ks_reduce_scan_mismatch(x, want, got, n, 1, &m), 1234);
    got[3000] += 1.0f;
    assert_int_equal(ks_reduce_scan_mismatch(x, want, got, n, 0, &m), 3000);
    assert_true(m.got == got[3000] && m.want == want[3000] && m.max_index == 3000 && m.max_err > 0.99);
    got[10] = NAN;
    assert_int_equal(ks_reduce_scan_mismatch(x, want, got, n, 0, &m), 10);
    assert_true(isinf(m.max_err) && m.max_index == 10);
    free(x);
    free(want);
    free(got);
}

static void test_levels(void **state)
{
    /* what the panel says the strips hold */
    char text[256];
    ks_reduce_levels d;
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 1 << 20, 256, &d);
    ks_reduce_levels_describe(&d, text, sizeof text);
    assert_string_equal(text, "1048576 values; 4096 sums of 256; 16 sums of 256; the total");
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 100, 256, &d);
    ks_reduce_levels_describe(&d, text, sizeof text);
    assert_string_equal(text, "100 values; the total");
    ks_reduce_levels_layout(KS_REDUCE_OP_SCAN, 1000, 64, &d);
    ks_reduce_levels_describe(&d, text, sizeof text);
    assert_string_equal(text, "1000 values; their scans within blocks of 64; the 16 block sums; the scan");
    ks_reduce_levels_describe(&d, text, 8); /* cut, still a string */
    assert_int_equal(strlen(text), 7);
    /* each strip's caption over the picture (issue 34 item 13: the strips had no names on it) */
    const char *scan[] = {"1000 values", "scans within blocks of 64", "16 block sums", "the scan", ""};
    for (int k = 0; k < 5; ++k) {
        ks_reduce_levels_strip_name(&d, k, text, sizeof text);
        assert_string_equal(text, scan[k]);
    }
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 1 << 20, 256, &d);
    const char *sum[] = {"1048576 values", "4096 sums of 256", "16 sums of 256", "the total"};
    for (int k = 0; k < 4; ++k) {
        ks_reduce_levels_strip_name(&d, k, text, sizeof text);
        assert_string_equal(text, sum[k]);
    }
    ks_reduce_levels_strip_name(&d, -1, text, sizeof text);
    assert_string_equal(text, "");
    /* hover: the strip and element under a pixel (rows from the bottom), and what it adds up */
    int strip = -1;
    long long at = -1;
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 1 << 20, 256, &d); /* 4 strips over 400 rows */
    assert_int_equal(ks_reduce_levels_at(&d, 1000, 400, 0, 399, &strip, &at), 1); /* top left */
    assert_int_equal(strip, 0);
    assert_true(at == 0);
    assert_int_equal(ks_reduce_levels_at(&d, 1000, 400, 999, 0, &strip, &at), 1); /* bottom right: the total */
    assert_int_equal(strip, 3);
    assert_true(at == 0);
    assert_int_equal(ks_reduce_levels_at(&d, 1000, 400, 500, 250, &strip, &at), 1); /* row 149 from the top */
    assert_int_equal(strip, 1);
    assert_true(at == 2048);
    assert_int_equal(ks_reduce_levels_at(&d, 1000, 400, 1000, 0, &strip, &at), 0);
    assert_int_equal(ks_reduce_levels_at(&d, 1000, 400, 0, -1, &strip, &at), 0);
    ks_reduce_levels_element(&d, 0, 12345, text, sizeof text);
    assert_string_equal(text, "value 12345 of 1048576");
    ks_reduce_levels_element(&d, 1, 17, text, sizeof text);
    assert_string_equal(text, "sum 17 of 4096: values 4352 .. 4607");
    ks_reduce_levels_element(&d, 2, 15, text, sizeof text);
    assert_string_equal(text, "sum 15 of 16: sums 3840 .. 4095");
    ks_reduce_levels_element(&d, 3, 0, text, sizeof text);
    assert_string_equal(text, "the total of the 16 sums above");
    ks_reduce_levels_element(&d, 1, 4096, text, sizeof text); /* past the strip: nothing */
    assert_string_equal(text, "");
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 1000, 256, &d); /* a short last block */
    ks_reduce_levels_element(&d, 1, 3, text, sizeof text);
    assert_string_equal(text, "sum 3 of 4: values 768 .. 999");
    ks_reduce_levels_element(&d, 2, 0, text, sizeof text);
    assert_string_equal(text, "the total of the 4 sums above");
    ks_reduce_levels_layout(KS_REDUCE_OP_SCAN, 1000, 64, &d);
    ks_reduce_levels_element(&d, 1, 130, text, sizeof text);
    assert_string_equal(text, "block scan at 130: values 128 .. 130");
    ks_reduce_levels_element(&d, 2, 15, text, sizeof text);
    assert_string_equal(text, "block sum 15 of 16: values 960 .. 999");
    ks_reduce_levels_element(&d, 3, 999, text, sizeof text);
    assert_string_equal(text, "scan at 999: values 0 .. 999");
    (void)state;
    ks_reduce_levels lv;
    assert_true(ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 1, 256, &lv) == 2);
    assert_int_equal(lv.count, 2);
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, 1LL << 28, 256, &lv);
    assert_int_equal(lv.count, 5);
    const long long want[] = {1LL << 28, 1 << 20, 1 << 12, 16, 1};
    for (int s = 0; s < 5; ++s) assert_true(lv.len[s] == want[s]);
    ks_reduce_levels_layout(KS_REDUCE_OP_SUM, KS_REDUCE_MAX_N, 32, &lv);
    assert_true(lv.count <= KS_REDUCE_MAX_LEVELS && lv.len[lv.count - 1] == 1);
    assert_true(ks_reduce_levels_layout(KS_REDUCE_OP_SCAN, 1000, 64, &lv) == 1000 * 3 + 16);
    assert_int_equal(lv.count, 4);
    assert_true(lv.offset[3] == 2016);

    const long long n = 100001;
    float *x = malloc(n * 4), *gold = malloc(n * 4);
    assert_true(x && gold);
    ks_reduce_fill(KS_REDUCE_INPUT_INTEGER, 2, x, n);
    ks_reduce_gold_scan(x, gold, n);
    for (int op = 0; op < KS_REDUCE_OP_NUM; ++op) {
        const long long total = ks_reduce_levels_layout((ks_reduce_op)op, n, 64, &lv);
        float *data = malloc(total * 4);
        assert_non_null(data);
        ks_reduce_levels_cpu((ks_reduce_op)op, x, n, 64, data, &lv);
        assert_memory_equal(data, x, n * 4);
        for (int s = 0; s < lv.count; ++s) {
            float m = 0.0f;
            for (long long i = 0; i < lv.len[s]; ++i) m = fmaxf(m, fabsf(data[lv.offset[s] + i]));
            assert_true(lv.scale[s] == m && m > 0);
        }
        if (op == KS_REDUCE_OP_SUM) {
            assert_true(data[lv.offset[lv.count - 1]] == gold[n - 1]); /* integers: exact */
            float b0 = 0.0f;
            for (int i = 0; i < 64; ++i) b0 += x[i];
            assert_true(data[lv.offset[1]] == b0);
        } else {
            assert_memory_equal(data + lv.offset[3], gold, n * 4);
            assert_true(data[lv.offset[1] + 63] == data[lv.offset[2]]);      /* block 0's scan ends at its sum */
            assert_true(data[lv.offset[1] + 64] == x[64]);                   /* block 1 starts afresh */
            assert_true(data[lv.offset[2] + lv.len[2] - 1] == gold[n - 1] - gold[n - 1 - (n % 64)]);
        }
        free(data);
    }
    free(x);
    free(gold);
}

/* A hand-made two-strip picture: colours at known places, the separator black, rows bottom-up. */
static void test_draw(void **state)
{
    (void)state;
    unsigned char lut[256][4];
    for (int k = 0; k < 256; ++k) {
        lut[k][0] = (unsigned char)k;
        lut[k][1] = (unsigned char)(255 - k);
        lut[k][2] = 7;
        lut[k][3] = 255;
    }
    const float data[] = {-1.0f, 1.0f, 0.0f, 0.5f, /* strip 0, scale 1 */ 4.0f /* strip 1, scale 4 */};
    ks_reduce_levels lv;
    memset(&lv, 0, sizeof lv);
    lv.op = KS_REDUCE_OP_SUM;
    lv.block = 4;
    lv.count = 2;
    lv.len[0] = 4;
    lv.len[1] = 1;
    lv.offset[1] = 4;
    ks_reduce_levels_scales(&lv, data);
    assert_true(lv.scale[0] == 1.0f && lv.scale[1] == 4.0f);
    const int w = 8, h = 10;
    unsigned char rgba[8 * 10 * 4];
    ks_reduce_draw_cpu(&lv, data, w, h, lut, -1.0f, 1.0f, rgba);
#define PX(c, y) (rgba + ((size_t)(y) * w + (c)) * 4)
    /* top row (y = h-1) is strip 0: columns 0,1 -> -1 (entry 0), 2,3 -> 1 (255), 4,5 -> 0 (128), 6,7 -> 0.5 (191) */
    assert_int_equal(PX(0, 9)[0], 0);
    assert_int_equal(PX(3, 9)[0], 255);
    assert_int_equal(PX(4, 9)[0], 128);
    assert_int_equal(PX(7, 9)[0], 191);
    /* strip 1 takes rows 5..9 from the top (y 4..0); its first row (y = 4) is black */
    for (int c = 0; c < w; ++c) {
        assert_true(PX(c, 4)[0] == 0 && PX(c, 4)[1] == 0 && PX(c, 4)[2] == 0 && PX(c, 4)[3] == 255);
        assert_int_equal(PX(c, 0)[0], 255); /* 4 / scale 4 = 1 */
        assert_int_equal(PX(c, 5)[2], 7);   /* strip 0's last row is not a separator */
    }
#undef PX
}

static void test_cpu_bench(void **state)
{
    (void)state;
    const long long n[] = {100000, 3};
    ks_reduce_bench_desc d;
    memset(&d, 0, sizeof d);
    d.sizes = n;
    d.size_n = 2;
    ks_reduce_bench_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(ks_reduce_bench_run(&d, r), KS_OK);
    assert_int_equal(r->row_n, 4);
    for (int k = 0; k < r->row_n; ++k) {
        assert_string_equal(r->rows[k].variant, "cpu");
        assert_string_equal(r->rows[k].device, r->device);
        assert_string_equal(r->rows[k].cc, "-");
        assert_true(r->rows[k].ms >= 0 && r->rows[k].ratio < 0 && r->rows[k].vs_cub < 0);
    }
    assert_string_equal(r->rows[0].op, "sum");
    assert_string_equal(r->rows[1].op, "scan");
    const long long bad = 0;
    d.sizes = &bad;
    d.size_n = 1;
    assert_int_equal(ks_reduce_bench_run(&d, r), KS_OK); /* 0 is the default N */
    const long long worse = -5;
    d.sizes = &worse;
    assert_int_equal(ks_reduce_bench_run(&d, r), KS_ERR_INVALID);
    ks_error_clear();
    free(r);
}

static void test_no_cuda(void **state)
{
    (void)state;
#if !KS_HAVE_CUDA
    ks_reduce_gpu *g = (ks_reduce_gpu *)&g;
    ks_device_info dev;
    assert_int_equal(ks_cuda_probe(&dev), KS_OK);
    assert_int_equal(dev.present, 0);
    assert_int_equal(ks_reduce_gpu_create(NULL, &g), KS_ERR_UNSUPPORTED);
    assert_null(g);
    assert_non_null(strstr(ks_error_message(), "built without CUDA"));
    assert_int_equal(ks_reduce_gpu_run(NULL, KS_REDUCE_SUM_TREE), KS_ERR_UNSUPPORTED);
    ks_error_clear();
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),      cmocka_unit_test(test_desc),       cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_gold_and_cpu), cmocka_unit_test(test_tolerances), cmocka_unit_test(test_levels),
        cmocka_unit_test(test_draw),       cmocka_unit_test(test_cpu_bench),  cmocka_unit_test(test_no_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
