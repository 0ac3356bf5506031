/* Histogram gold routines against exact references, the generated inputs,
 * the CSV writer and the command line's refusals (exit 2). The .npy writer is
 * render/image_io's (test_render_image_io); --dump-field is checked end to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/host_peak.h"

#include "app/scenes/histogram/bench.h"
#include "kernels/histogram/histogram.h"
#include "tests/test_util.h"

static uint64_t sum(const uint64_t *h, unsigned bins)
{
    uint64_t s = 0;
    for (unsigned b = 0; b < bins; ++b) s += h[b];
    return s;
}

static void test_bytes(void **state)
{
    (void)state;
    uint64_t h[256] = {0};
    const unsigned char abca[] = "abca";
    ks_hist_gold(abca, 4, 0, 4, KS_HIST_BYTES, 256, h);
    assert_int_equal(h['a'], 2);
    assert_int_equal(h['b'], 1);
    assert_int_equal(h['c'], 1);
    assert_int_equal(sum(h, 256), 4);
    /* random bytes: sums to n, and ranges add up to the whole */
    const size_t n = 100003;
    unsigned char *d = malloc(n);
    assert_non_null(d);
    ks_hist_generate(KS_HIST_IN_UNIFORM, 7, d, n);
    uint64_t whole[256] = {0}, parts[256] = {0};
    ks_hist_gold(d, n, 0, n, KS_HIST_BYTES, 256, whole);
    assert_int_equal(sum(whole, 256), n);
    ks_hist_gold(d, n, 0, 12345, KS_HIST_BYTES, 256, parts);
    ks_hist_gold(d, n, 12345, n, KS_HIST_BYTES, 256, parts);
    assert_memory_equal(whole, parts, sizeof whole);
    for (int b = 0; b < 256; ++b) assert_true(whole[b] > 250 && whole[b] < 550); /* ~390 each */
    free(d);
}

static void test_pair_bins(void **state)
{
    (void)state;
    const unsigned bins[] = {1, 3, 256, 1000, 65536};
    for (size_t i = 0; i < sizeof bins / sizeof bins[0]; ++i) {
        assert_int_equal(ks_hist_pair_bin(0, bins[i]), 0);
        assert_int_equal(ks_hist_pair_bin(65535, bins[i]), bins[i] - 1);
    }
    assert_int_equal(ks_hist_pair_bin(21845, 3), 0); /* 65535 / 65536 */
    assert_int_equal(ks_hist_pair_bin(21846, 3), 1);
    assert_int_equal(ks_hist_pair_bin(43690, 3), 1);
    assert_int_equal(ks_hist_pair_bin(43691, 3), 2);
    assert_int_equal(ks_hist_pair_bin(1234, 65536), 1234);
    assert_int_equal(ks_hist_pair_bin(65, 1000), 0); /* 65000 / 65536 */
    assert_int_equal(ks_hist_pair_bin(66, 1000), 1);

    /* little-endian pairs and the lone odd byte (high byte 0) */
    uint64_t *h = calloc(65536, sizeof *h);
    assert_non_null(h);
    const unsigned char d[] = {0x01, 0x02, 0x03};
    ks_hist_gold(d, 3, 0, 3, KS_HIST_PAIRS, 65536, h);
    assert_int_equal(h[0x0201], 1);
    assert_int_equal(h[0x0003], 1);
    assert_int_equal(sum(h, 65536), 2);
    memset(h, 0, 65536 * sizeof *h);
    ks_hist_gold(d, 3, 2, 3, KS_HIST_PAIRS, 65536, h); /* a range holding only the lone byte */
    assert_int_equal(h[3], 1);
    assert_int_equal(sum(h, 65536), 1);
    assert_int_equal(ks_hist_items(KS_HIST_PAIRS, 0, 3), 2);
    assert_int_equal(ks_hist_items(KS_HIST_PAIRS, 0, 4), 2);
    assert_int_equal(ks_hist_items(KS_HIST_BYTES, 5, 5), 0);
    /* one bin holds everything */
    uint64_t one = 0;
    ks_hist_gold(d, 3, 0, 3, KS_HIST_PAIRS, 1, &one);
    assert_int_equal(one, 2);
    free(h);
}

static uint32_t fnv(const char *s)
{
    return ks_hist_fnv1a_lower((const unsigned char *)s, strlen(s));
}

static void test_words(void **state)
{
    (void)state;
    /* FNV-1a 32-bit reference values */
    assert_int_equal(fnv(""), 2166136261u);
    assert_int_equal(fnv("a"), 0xe40c292cu);
    assert_int_equal(fnv("foobar"), 0xbf9cf968u);
    assert_int_equal(fnv("FooBar"), 0xbf9cf968u); /* lower-cased */

    const unsigned B = 65536;
    uint64_t *h = calloc(B, sizeof *h);
    assert_non_null(h);
    /* punctuation, digits, UTF-8 (é = C3 A9, ï = C3 AF) split words */
    const char *t = "Hello, hello! HeLLo123world caf\xc3\xa9 na\xc3\xafve -- x";
    ks_hist_gold((const unsigned char *)t, strlen(t), 0, strlen(t), KS_HIST_WORDS, B, h);
    assert_int_equal(sum(h, B), 8);
    assert_int_equal(h[fnv("hello") % B], 3);
    assert_int_equal(h[fnv("world") % B], 1);
    assert_int_equal(h[fnv("caf") % B], 1);
    assert_int_equal(h[fnv("na") % B], 1);
    assert_int_equal(h[fnv("ve") % B], 1);
    assert_int_equal(h[fnv("x") % B], 1);
    /* empty and letter-free inputs count nothing */
    memset(h, 0, B * sizeof *h);
    ks_hist_gold((const unsigned char *)"", 0, 0, 0, KS_HIST_WORDS, B, h);
    ks_hist_gold((const unsigned char *)"12 ,. \xc3\xa9", 7, 0, 7, KS_HIST_WORDS, B, h);
    assert_int_equal(sum(h, B), 0);
    /* a word belongs to the range holding its first letter, wherever it is cut */
    const size_t n = strlen(t);
    uint64_t whole[64] = {0};
    ks_hist_gold((const unsigned char *)t, n, 0, n, KS_HIST_WORDS, 64, whole);
    for (size_t k = 0; k <= n; ++k) {
        uint64_t parts[64] = {0};
        ks_hist_gold((const unsigned char *)t, n, 0, k, KS_HIST_WORDS, 64, parts);
        ks_hist_gold((const unsigned char *)t, n, k, n, KS_HIST_WORDS, 64, parts);
        assert_memory_equal(whole, parts, sizeof whole);
    }
    free(h);
}

static void test_generated(void **state)
{
    (void)state;
    const size_t n = 200000;
    unsigned char *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    ks_hist_generate(KS_HIST_IN_TEXT, 3, a, n);
    ks_hist_generate(KS_HIST_IN_TEXT, 3, b, n);
    assert_memory_equal(a, b, n);
    ks_hist_generate(KS_HIST_IN_TEXT, 4, b, n);
    assert_true(memcmp(a, b, n) != 0);
    uint64_t h[256] = {0};
    ks_hist_gold(a, n, 0, n, KS_HIST_BYTES, 256, h);
    for (int c = 0; c < 256; ++c) {
        const int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ' ' || c == ',' || c == '.' ||
                       c == '\n';
        if (!ok) assert_int_equal(h[c], 0);
    }
    assert_true(h[' '] > h['e'] && h['e'] > h['z']); /* English-like */
    assert_true(h['\n'] > 0 && h[','] > 0 && h['.'] > 0);
    ks_hist_generate(KS_HIST_IN_EQUAL, 3, b, n);
    memset(h, 0, sizeof h);
    ks_hist_gold(b, n, 0, n, KS_HIST_BYTES, 256, h);
    assert_int_equal(h['a'], n);
    ks_hist_generate(KS_HIST_IN_TEXT, 3, a, 1); /* a single byte */
    free(a);
    free(b);
}

static size_t read_file(const char *path, unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    const size_t got = fread(buf, 1, len, f);
    fclose(f);
    return got;
}

static void test_csv(void **state)
{
    (void)state;
    ks_hbench_row rows[2];
    memset(rows, 0, sizeof rows);
    snprintf(rows[0].device, sizeof rows[0].device, "GPU X");
    snprintf(rows[0].cc, sizeof rows[0].cc, "8.6");
    snprintf(rows[0].variant, sizeof rows[0].variant, "warp");
    snprintf(rows[0].input, sizeof rows[0].input, "text");
    snprintf(rows[0].mode, sizeof rows[0].mode, "bytes");
    rows[0].bytes = 1024;
    rows[0].bins = 256;
    rows[0].ms = 0.5;
    rows[0].min_ms = 0.25;
    rows[0].gbs = 2.048;
    rows[0].t_peak_gbs = 4.096;
    rows[0].pct_cub = 90.0;
    rows[0].timing = (ks_timing){.median_ms = 0.5, .min_ms = 0.25, .se_pct = 0.5, .reps = 40, .cache = KS_CACHE_COLD,
                                 .working_set_bytes = 2048.0, .l2_bytes = 1e6};
    snprintf(rows[0].kernel, sizeof rows[0].kernel, "lane32x4 (chosen for this input: 0.5000 ms vs 0.6000 for own8x5)");
    rows[1] = rows[0];
    snprintf(rows[1].variant, sizeof rows[1].variant, "cpu");
    rows[1].pct_cub = -1.0;
    rows[1].kernel[0] = '\0';
    rows[1].timing = (ks_timing){.median_ms = 0.5, .min_ms = 0.25, .se_pct = -1.0, .reps = 2, .cache = KS_CACHE_WARM,
                                 .working_set_bytes = 1024.0};
    const size_t need = ks_hbench_csv(rows, 2, NULL, 0);
    char *buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(ks_hbench_csv(rows, 2, buf, need + 1), need);
    assert_string_equal(buf, "device,variant,input,mode,bytes,bins,ms,min_ms,gbs,t_peak_gbs,pct_tpeak,pct_cub,cc,kernel,"
                             "cache,reps,se_pct,in_l2\n"
                             "\"GPU X\",warp,text,bytes,1024,256,0.500000,0.250000,2.048,4.096,50.00,90.0,8.6,"
                             "\"lane32x4 (chosen for this input: 0.5000 ms vs 0.6000 for own8x5)\",cold,40,0.500,1\n"
                             "\"GPU X\",cpu,text,bytes,1024,256,0.500000,0.250000,2.048,4.096,50.00,,8.6,,warm,2,,0\n");
    char small[10];
    assert_int_equal(ks_hbench_csv(rows, 2, small, sizeof small), need); /* cut, still terminated */
    assert_int_equal(strlen(small), sizeof small - 1);
    const size_t tneed = ks_hbench_table(rows, 2, NULL, 0);
    char *table = malloc(tneed + 1);
    assert_non_null(table);
    ks_hbench_table(rows, 2, table, tneed + 1);
    assert_int_equal(ks_test_count_lines(table), 4); /* header, two rows, the kernel warp chose */
    assert_non_null(strstr(table, "warp on text (1024 bytes): lane32x4 (chosen for this input: 0.5000 ms vs 0.6000 for own8x5)\n"));
    assert_non_null(strstr(table, " cold    40   0.50\n"));
    assert_null(strstr(table, "in L2")); /* 50 % of T_peak: nothing to explain */
    free(table);
    free(buf);
    /* a host T_peak that cannot be trusted: no %T_peak, and the table says why */
    rows[1].verdict = KS_PEAK_UNRELIABLE;
    char csv[1024], text[1024];
    ks_hbench_csv(rows, 2, csv, sizeof csv);
    assert_non_null(strstr(csv, "\"GPU X\",cpu,text,bytes,1024,256,0.500000,0.250000,2.048,4.096,,,8.6,,warm,2,,0\n"));
    ks_hbench_table(rows, 2, text, sizeof text);
    assert_non_null(strstr(text, "     n/a "));
    assert_non_null(strstr(text, "%T_peak n/a: T_peak unreliable (busy CPU)\n"));
    /* a rate above T_peak from bytes that fit the L2 says so beside it */
    rows[0].gbs = 8.192;
    ks_hbench_table(rows, 1, text, sizeof text);
    assert_non_null(strstr(text, "  200.0 in L2 "));
    rows[0].timing.l2_bytes = 1000.0; /* 2 KiB do not fit: the figure stands bare */
    ks_hbench_table(rows, 1, text, sizeof text);
    assert_null(strstr(text, "in L2"));
}

static void expect_usage(const char *needle, const char *const *argv)
{
    ks_run_result r;
    const char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 2) fail_msg("exit %d; stderr: %s", r.exit_code, r.err);
    if (!strstr(r.err, needle)) fail_msg("stderr '%s' lacks '%s'", r.err, needle);
    /* the one error line (a "using the cpu backend" notice may precede it) */
    const char *e = strstr(r.err, "kernelscope: error: ");
    assert_non_null(e);
    assert_int_equal(ks_test_count_lines(e), 1);
}

#define USAGE(needle, ...)                                                                         \
    do {                                                                                           \
        const char *argv_[] = {NULL, __VA_ARGS__, NULL};                                          \
        expect_usage(needle, argv_);                                                               \
    } while (0)

/* Labels: bytes printable as themselves, others hex; pair and word bins; counts with a suffix. */
static void test_labels(void **state)
{
    (void)state;
    char b[32];
    ks_hist_bin_label(KS_HIST_BYTES, 256, 'e', b, sizeof b);
    assert_string_equal(b, "e");
    ks_hist_bin_label(KS_HIST_BYTES, 256, ' ', b, sizeof b);
    assert_string_equal(b, "space");
    ks_hist_bin_label(KS_HIST_BYTES, 256, '\n', b, sizeof b);
    assert_string_equal(b, "0x0A");
    ks_hist_bin_label(KS_HIST_BYTES, 256, 0x7F, b, sizeof b);
    assert_string_equal(b, "0x7F");
    ks_hist_bin_label(KS_HIST_BYTES, 256, 0xE9, b, sizeof b);
    assert_string_equal(b, "0xE9");
    ks_hist_bin_label(KS_HIST_PAIRS, 65536, 't' | 'h' << 8, b, sizeof b);
    assert_string_equal(b, "'th'");
    ks_hist_bin_label(KS_HIST_PAIRS, 65536, 0x0A41, b, sizeof b);
    assert_string_equal(b, "0x0A41");
    ks_hist_bin_label(KS_HIST_PAIRS, 1024, 3, b, sizeof b); /* bin 3 of 1024 starts at 192 */
    assert_string_equal(b, "0x00C0");
    ks_hist_bin_label(KS_HIST_WORDS, 1024, 17, b, sizeof b);
    assert_string_equal(b, "#17");
    const struct { double c; const char *s; } counts[] = {
        {0, "0"}, {950, "950"}, {1000, "1k"}, {12000, "12k"}, {1500000, "1.5M"}, {2e9, "2G"}, {250000, "250k"}};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; ++k) {
        ks_hist_count_label(counts[k].c, b, sizeof b);
        assert_string_equal(b, counts[k].s);
    }
}

/* The labelled picture: plot area inside the picture, the tallest bar under the top, labels
 * (ink) only outside the bars' area or over them, bars of the right heights, bins wider
 * than 3 pixels or grouped; a tiny picture has no labels and the plot fills it. */
static void test_axes_picture(void **state)
{
    (void)state;
    enum { W = 1280, H = 800 };
    uint64_t hist[1024];
    memset(hist, 0, sizeof hist);
    hist['e'] = 4000;
    hist[' '] = 9000;
    hist['\n'] = 300;
    unsigned char *mask = malloc((size_t)W * H), *px = malloc((size_t)W * H * 4);
    assert_true(mask && px);
    ks_hist_axes ax;
    ks_hist_axes_make(hist, 256, KS_HIST_BYTES, 0, W, H, &ax, mask);
    assert_true(ax.labels);
    assert_true(ax.x0 > 0 && ax.y0 > 0 && ax.x0 + ax.pw <= W && ax.y0 + ax.ph <= H);
    assert_int_equal(ax.cw, 1); /* 256 bins in ~1160 pixels: no grouping */
    assert_int_equal(ax.cols * ax.cw, ax.pw);
    assert_true(ax.top >= 9000.0f && ax.top < 9000.0f * 1.2f);
    /* ink: the axes and the labels, left of and below the plot, and the names above bars */
    size_t ink_left = 0, ink_below = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const unsigned char m = mask[(size_t)y * W + x];
            assert_true(m <= KS_HIST_MASK_GRID);
            if (m == KS_HIST_MASK_INK && x < ax.x0) ++ink_left;
            if (m == KS_HIST_MASK_INK && y < ax.y0) ++ink_below;
        }
    assert_true(ink_left > 500 && ink_below > 1000);
    ks_hist_draw_bars_cpu(hist, 256, 0, &ax, mask, px, W, H);
    /* the space's bar: the column in the middle of bin 0x20 is bar-blue from the plot's bottom
     * up to its height, background (or grid) above */
    const int col = (int)((0x20 + 0.5) * ax.pw / 256), x = ax.x0 + col;
    const int rows = ks_hist_bar_rows(ks_hist_column(hist, 256, 0, col, ax.cols), ax.top, ax.ph);
    assert_true(rows > ax.ph * 8 / 10 && rows < ax.ph);
    const unsigned char blue[4] = {70, 160, 230, 255};
    for (int y = ax.y0 + 2; y < ax.y0 + rows; ++y)
        if (mask[(size_t)y * W + x] != KS_HIST_MASK_INK) assert_memory_equal(px + 4 * ((size_t)y * W + x), blue, 4);
    assert_memory_not_equal(px + 4 * ((size_t)(ax.y0 + rows + 1) * W + x), blue, 4);
    /* a byte with no count: no bar */
    const int empty = ax.x0 + (int)((0xB0 + 0.5) * ax.pw / 256);
    for (int y = ax.y0; y < ax.y0 + ax.ph; ++y) assert_memory_not_equal(px + 4 * ((size_t)y * W + empty), blue, 4);
    /* log scale: powers of ten up the axis; the top is log10(1 + the tallest) with headroom */
    ks_hist_axes_make(hist, 256, KS_HIST_BYTES, 1, W, H, &ax, mask);
    assert_true(ax.top >= (float)log10(9001.0) && ax.top < (float)log10(9001.0) * 1.2f);
    /* many bins: grouped into 3-pixel columns */
    for (unsigned k = 0; k < 1024; ++k) hist[k] = k % 7;
    ks_hist_axes_make(hist, 1024, KS_HIST_WORDS, 0, W, H, &ax, mask);
    assert_int_equal(ax.cw, 3);
    assert_int_equal(ax.cols * 3, ax.pw);
    /* too small for labels: the plot is the picture, and the mask is empty */
    ks_hist_axes_make(hist, 256, KS_HIST_BYTES, 0, 100, 60, &ax, mask);
    assert_false(ax.labels);
    assert_true(ax.x0 == 0 && ax.y0 == 0 && ax.ph == 60 && ax.pw <= 100);
    for (int e = 0; e < 100 * 60; ++e) assert_int_equal(mask[e], KS_HIST_MASK_NONE);
    /* no counts at all: no bars, no crash */
    memset(hist, 0, sizeof hist);
    ks_hist_axes_make(hist, 256, KS_HIST_BYTES, 0, W, H, &ax, mask);
    assert_true(ax.top == 0.0f);
    ks_hist_draw_bars_cpu(hist, 256, 0, &ax, mask, px, W, H);
    free(mask);
    free(px);
}

static void test_cli_errors(void **state)
{
    (void)state;
    USAGE("--size", "histogram", "--size", "0");
    USAGE("--size", "histogram", "--size", "5G");
    USAGE("--size", "histogram", "--size", "99999999999999999999");
    USAGE("--size", "bench", "histogram", "--size", "1M,0");
    USAGE("--bins", "histogram", "--bins", "0");
    USAGE("--bins", "histogram", "--bins", "70000");
    USAGE("--input", "histogram", "--input", "/nonexistent/file.txt", "--backend", "cpu", "--headless");
    USAGE("--input", "histogram", "--input", "/", "--backend", "cpu", "--headless");
    USAGE("only to the histogram scene", "spheres", "--words");
    USAGE("one size", "histogram", "--size", "1M,2M");
    USAGE("one count", "histogram", "--bins", "256,1000");
    USAGE("--bins", "bench", "histogram", "--bins", "256,0");
}

/* The CPU backend counts the generated text, and --dump-field holds the whole input after 2 frames. */
static void test_cli_dump(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "hist_dump");
    snprintf(path, sizeof path, "%s/h.npy", dir);
    const char *argv[] = {NULL, "histogram", "--backend", "cpu", "--headless", "--frames", "2", "--size", "300001",
                          "--seed", "9", "--bins", "1000", "--dump-field", path, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    unsigned char *buf = malloc(128 + 4000);
    assert_non_null(buf);
    assert_int_equal(read_file(path, buf, 128 + 4000), 128 + 4000);
    const size_t n = 300001;
    unsigned char *d = malloc(n);
    uint64_t gold[1000] = {0};
    assert_non_null(d);
    ks_hist_generate(KS_HIST_IN_TEXT, 9, d, n);
    ks_hist_gold(d, n, 0, n, KS_HIST_PAIRS, 1000, gold);
    for (int b = 0; b < 1000; ++b) {
        const unsigned char *p = buf + 128 + 4 * b;
        const uint64_t v = p[0] | p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
        assert_int_equal(v, gold[b]);
    }
    free(d);
    free(buf);
}

/* bench histogram on the CPU: the table's T_peak is the host copy ceiling its roofline chart draws,
 * not 0 (issue 23 item 14); the CSV's t_peak_gbs is filled, and pct_tpeak too unless the table
 * says why not (a busy CPU: base/host_peak.h). */
static void test_bench_cpu_t_peak(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "hist_bench");
    const char *argv[] = {NULL, "bench", "histogram", "--backend", "cpu", "--size", "1M", "--reps", "1",
                          "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    snprintf(path, sizeof path, "%s/bench_histogram.csv", dir);
    char *csv = ks_test_read_file(path);
    assert_non_null(csv);
    const char *row = strchr(csv, '\n');
    assert_non_null(row);
    int rows = 0;
    for (++row; *row; ++rows) {
        /* device,variant,input,mode,bytes,bins,ms,min_ms,gbs,t_peak_gbs,pct_tpeak,... */
        const char *f = row;
        for (int k = 0; k < 9; ++k) f = strchr(f, ',') + 1;
        double t_peak = 0.0, pct = 0.0;
        const int got = sscanf(f, "%lf,%lf", &t_peak, &pct);
        const int na = got == 1 && strncmp(strchr(f, ','), ",,", 2) == 0 && strstr(r.out, "%T_peak n/a: ");
        if (!(t_peak > 0.0 && (got == 2 ? pct > 0.0 : na)))
            fail_msg("t_peak_gbs %g, pct_tpeak %g in %s", t_peak, pct, row);
        row = strchr(row, '\n');
        if (!row) break;
        ++row;
    }
    assert_true(rows >= 3);
    free(csv);
    /* the table's %T_peak column likewise */
    assert_null(strstr(r.out, "     0.0        -\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),      cmocka_unit_test(test_pair_bins), cmocka_unit_test(test_words),
        cmocka_unit_test(test_generated),  cmocka_unit_test(test_csv),
        cmocka_unit_test(test_cli_errors), cmocka_unit_test(test_cli_dump),
        cmocka_unit_test(test_labels),     cmocka_unit_test(test_axes_picture), cmocka_unit_test(test_bench_cpu_t_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
