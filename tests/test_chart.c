/* Chart rasteriser: a log-log chart lands where the axes say, lines have
 * gaps at missing values, text and legend are drawn, bad input is refused.
 * KS_WRITE_CHART=path writes the test chart as PNG to look at. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/chart.h"

/* Unused-function warnings for stb's static declarations come at the end of
 * the file, after any pop: that one stays off for this test file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

static int near_color(const unsigned char *p, const unsigned char rgb[3], int tol)
{
    for (int k = 0; k < 3; ++k)
        if (abs((int)p[k] - (int)rgb[k]) > tol) return 0;
    return 1;
}

static long count_color(const unsigned char *img, int w, int h, const unsigned char rgb[3])
{
    long n = 0;
    for (long k = 0; k < (long)w * h; ++k) n += near_color(img + 4 * k, rgb, 8);
    return n;
}

static void test_loglog_geometry(void **state)
{
    (void)state;
    /* y = x^2 through (10, 100): the middle of both log ranges, so the middle of the plot. */
    const double x[3] = {1, 10, 100}, y[3] = {1, 100, 10000};
    const double x2[4] = {1, 3, 30, 100}, y2[4] = {5000, NAN, 20, 2};
    const ks_chart_series s[2] = {{"square", x, y, 3}, {"gappy", x2, y2, 4}};
    ks_chart_desc d = {.width = 800, .height = 500, .title = "Test chart", .x_label = "spheres",
                       .y_label = "ms", .log_x = 1, .log_y = 1, .series = s, .series_count = 2};
    unsigned char *img = malloc(800 * 500 * 4);
    assert_non_null(img);
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    const char *out = getenv("KS_WRITE_CHART");
    if (out && *out) stbi_write_png(out, 800, 500, 4, img, 800 * 4);
    /* plot area per the layout: x 100..772, y 50..428 */
    const int cx = (100 + 772) / 2, cy = (50 + 428) / 2;
    unsigned char c0[3], c1[3];
    ks_chart_series_color(0, c0);
    ks_chart_series_color(1, c1);
    assert_true(near_color(img + 4 * ((size_t)cy * 800 + cx), c0, 10));
    /* corners stay white; every pixel opaque */
    assert_true(img[0] == 255 && img[1] == 255 && img[2] == 255 && img[3] == 255);
    for (long k = 0; k < 800L * 500; ++k) assert_int_equal(img[4 * k + 3], 255);
    /* both series and the text are drawn */
    assert_true(count_color(img, 800, 500, c0) > 300);
    assert_true(count_color(img, 800, 500, c1) > 100);
    const unsigned char black[3] = {0, 0, 0};
    long title = 0;
    for (int yy = 10; yy < 40; ++yy)
        for (int xx = 300; xx < 500; ++xx) title += near_color(img + 4 * ((size_t)yy * 800 + xx), black, 0);
    assert_true(title > 50);
    /* the gap: nothing of series 1 between its first point (x=1) and x=30 except near the
     * first marker, i.e. no line from (1, 5000) to (30, 20); sample the middle of that span. */
    const int gx = 100 + (int)((log10(5.5) + 0.08) / 2.16 * 672), gy_top = 50, gy_bot = 428;
    long seen = 0;
    for (int yy = gy_top; yy < gy_bot; ++yy) seen += near_color(img + 4 * ((size_t)yy * 800 + gx), c1, 8);
    assert_int_equal(seen, 0);
    free(img);
}

static void test_linear_and_errors(void **state)
{
    (void)state;
    const double x[2] = {0, 5}, y[2] = {-3, 3};
    const ks_chart_series s = {"line", x, y, 2};
    ks_chart_desc d = {.series = &s, .series_count = 1};
    int w = 0, h = 0;
    ks_chart_size(&d, &w, &h);
    assert_int_equal(w, 960);
    assert_int_equal(h, 600);
    unsigned char *img = malloc((size_t)w * h * 4);
    assert_non_null(img);
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    unsigned char c0[3];
    ks_chart_series_color(0, c0);
    assert_true(count_color(img, w, h, c0) > 300);
    /* a single point and all-missing data still draw an empty, valid chart */
    const double one = 2.0, nan = NAN;
    const ks_chart_series p1 = {"one", &one, &one, 1}, pn = {"none", &one, &nan, 1};
    d.series = &p1;
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    d.series = &pn;
    d.log_y = 1;
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    d.series_count = 0;
    assert_int_equal(ks_chart_render(&d, img), KS_ERR_INVALID);
    d.series_count = 1;
    d.width = 100;
    assert_int_equal(ks_chart_render(&d, img), KS_ERR_INVALID);
    free(img);
}

/* Black pixels in a box (text: tick labels). */
static long black_in(const unsigned char *img, int w, int x0, int y0, int x1, int y1)
{
    const unsigned char black[3] = {0, 0, 0};
    long n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) n += near_color(img + 4 * ((size_t)y * w + x), black, 40);
    return n;
}

/* A log axis spanning less than a decade with no 1, 2 or 5 inside still has tick labels;
 * x labels given as text (grid sizes) replace the numbers. */
static void test_tick_labels(void **state)
{
    (void)state;
    const double x[2] = {64.0 * 64 * 64, 128.0 * 128 * 128}, y[2] = {0.62, 0.88};
    const ks_chart_series s = {"ratio", x, y, 2};
    const double ticks[2] = {x[0], x[1]};
    const char *const labels[2] = {"64^3", "128^3"}, *const blank[2] = {"", ""};
    ks_chart_desc d = {.width = 800, .height = 500, .log_x = 1, .log_y = 1, .series = &s,
                       .series_count = 1, .x_ticks = ticks, .x_tick_labels = labels, .x_tick_count = 2};
    unsigned char *img = malloc(800 * 500 * 4);
    assert_non_null(img);
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    /* layout with no title and no axis labels: plot x 100..772, y 24..456 */
    if (black_in(img, 800, 0, 24, 90, 456) < 30) fail_msg("no y tick labels on a sub-decade log axis");
    const long with_text = black_in(img, 800, 100, 466, 772, 490);
    d.x_tick_labels = blank;
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    const long without = black_in(img, 800, 100, 466, 772, 490);
    if (with_text < 30 || without != 0)
        fail_msg("x labels: %ld black pixels with text, %ld with blank labels", with_text, without);
    free(img);
}

/* Issue 23 item 14. A category axis (bench histogram's inputs, bench serve's cases) has ticks and
 * labels only at its categories, with room for the end labels; no 1.5 or 2.5. */
static void test_category_axis(void **state)
{
    (void)state;
    const double x[3] = {1, 2, 3}, y[3] = {2.0, 2.5, 0.4};
    const ks_chart_series s = {"cpu", x, y, 3};
    const char *const labels[3] = {"text", "uniform bytes", "all bytes equal"};
    const ks_chart_desc d = {.width = 800, .height = 500, .log_y = 1, .series = &s, .series_count = 1,
                             .x_ticks = x, .x_tick_labels = labels, .x_tick_count = 3, .x_categories = 1};
    unsigned char *img = malloc(800 * 500 * 4);
    assert_non_null(img);
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    /* plot x 100..772 over 0.5 .. 3.5: slot k at 100 + (k - 0.5) * 224; labels in y 466..490 */
    for (int k = 1; k <= 3; ++k) {
        const int at = 100 + (int)((k - 0.5) * 224.0);
        if (black_in(img, 800, at - 20, 466, at + 20, 490) < 10) fail_msg("no label under category %d", k);
    }
    for (int k = 1; k <= 2; ++k) { /* between two categories: no tick, no number */
        const int at = 100 + k * 224;
        assert_int_equal(black_in(img, 800, at - 3, 429, at + 4, 437), 0);
    }
    /* the last label is whole: nothing at the picture's right edge */
    assert_int_equal(black_in(img, 800, 790, 466, 800, 490), 0);
    free(img);
}

/* A title wider than the chart is wrapped onto two lines, not cut at both ends. */
static void test_long_title(void **state)
{
    (void)state;
    const double x[2] = {1, 2}, y[2] = {1, 2};
    const ks_chart_series s = {"a", x, y, 2};
    const char *title = "kernelscope bench histogram on cpu: roofline (model counts); no-flop points at the left "
                        "edge, on the bandwidth line they reach";
    const ks_chart_desc d = {.width = 800, .height = 500, .title = title, .series = &s, .series_count = 1};
    unsigned char *img = malloc(800 * 500 * 4);
    assert_non_null(img);
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    assert_int_equal(black_in(img, 800, 0, 0, 12, 48), 0);   /* nothing at the left edge */
    assert_int_equal(black_in(img, 800, 788, 0, 800, 48), 0); /* nor at the right */
    assert_true(black_in(img, 800, 100, 2, 700, 22) > 100);   /* two lines of text */
    assert_true(black_in(img, 800, 100, 25, 700, 46) > 100);
    free(img);
}

/* A log axis over less than an octave (bench matmul --size 128,256) has more than one number. */
static void test_narrow_log_axis(void **state)
{
    (void)state;
    const double x[2] = {128, 256}, y[2] = {12.5, 17.1};
    const ks_chart_series s = {"gold", x, y, 2};
    const ks_chart_desc d = {.width = 800, .height = 500, .log_x = 1, .log_y = 1, .series = &s, .series_count = 1};
    unsigned char *img = malloc(800 * 500 * 4);
    assert_non_null(img);
    assert_int_equal(ks_chart_render(&d, img), KS_OK);
    /* x labels in y 466..490 under the plot's x 100..772: in its left and its right third */
    if (black_in(img, 800, 90, 466, 324, 490) < 10 || black_in(img, 800, 548, 466, 790, 490) < 10)
        fail_msg("fewer than two x labels on a 128..256 log axis");
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tick_labels),
        cmocka_unit_test(test_category_axis),
        cmocka_unit_test(test_long_title),
        cmocka_unit_test(test_narrow_log_axis),
        cmocka_unit_test(test_loglog_geometry),
        cmocka_unit_test(test_linear_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
