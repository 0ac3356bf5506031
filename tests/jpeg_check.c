/* Test pictures and the decode-and-compare check of the JPEG encoder tests. */
#include "jpeg_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <turbojpeg.h>

static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static const uint8_t ORANGE[3] = {235, 130, 25};

void jc_fill_smooth(uint8_t *rgba, int w, int h, unsigned seed)
{
    uint32_t s = 2463534242u ^ (seed * 2654435761u);
    const double phase = (double)(next_rand(&s) % 1000) / 1000.0 * 6.283;
    for (int row = 0; row < h; ++row) /* row 0 = bottom */
        for (int x = 0; x < w; ++x) {
            uint8_t *p = rgba + ((size_t)row * w + x) * 4;
            /* at most a step of 1/256 of the range a pixel: a small picture is a crop of a smooth one */
            const double u = (double)x / (w > 256 ? w - 1 : 256), v = (double)row / (h > 256 ? h - 1 : 256);
            const int top_left = w >= 16 && h >= 16 && x < w / 2 && row >= h - h / 2;
            if (top_left) {
                p[0] = ORANGE[0];
                p[1] = (uint8_t)(ORANGE[1] + 10.0 * u);
                p[2] = ORANGE[2];
            } else {
                p[0] = (uint8_t)(20 + 60 * u);
                p[1] = (uint8_t)(60 + 120 * v);
                p[2] = (uint8_t)(140 + 80 * sin(phase + 3.0 * u + 2.0 * v));
            }
            p[3] = (uint8_t)(1 + next_rand(&s) % 255);
        }
    /* a few sharp blocks: grey, white, dark; at odd offsets, not on MCU edges */
    const struct { double x0, y0, x1, y1; uint8_t c; } blocks[] = {
        {0.55, 0.10, 0.70, 0.30, 128}, {0.75, 0.50, 0.95, 0.58, 250}, {0.10, 0.12, 0.23, 0.40, 15},
    };
    for (size_t b = 0; w >= 16 && h >= 16 && b < sizeof blocks / sizeof blocks[0]; ++b) {
        const int x0 = (int)(blocks[b].x0 * w) + 1, x1 = (int)(blocks[b].x1 * w);
        const int y0 = (int)(blocks[b].y0 * h) + 1, y1 = (int)(blocks[b].y1 * h);
        for (int row = y0; row < y1 && row < h; ++row)
            for (int x = x0; x < x1 && x < w; ++x)
                memset(rgba + ((size_t)row * w + x) * 4, blocks[b].c, 3);
    }
}

void jc_fill_noise(uint8_t *rgba, int w, int h, unsigned seed)
{
    uint32_t s = 88675123u ^ (seed * 2654435761u);
    for (size_t i = 0; i < (size_t)w * h * 4; ++i) rgba[i] = (uint8_t)(1 + next_rand(&s) % 255);
}

/* Mean colour of the decoded (top-down RGB) rectangle [x0, x1) x [y0, y1). */
static void mean_rgb(const uint8_t *rgb, int w, int x0, int x1, int y0, int y1, double m[3])
{
    double s[3] = {0, 0, 0};
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            for (int c = 0; c < 3; ++c) s[c] += rgb[((size_t)y * w + x) * 3 + c];
    const double n = (double)(x1 - x0) * (y1 - y0);
    for (int c = 0; c < 3; ++c) m[c] = s[c] / n;
}

static double max_diff(const double m[3], const uint8_t ref[3])
{
    double d = 0;
    for (int c = 0; c < 3; ++c) d = fmax(d, fabs(m[c] - ref[c]));
    return d;
}

double jc_check_jpeg(const uint8_t *jpeg, size_t bytes, const uint8_t *rgba, int w, int h, int check_quadrant,
                     const char *what)
{
    if (!jpeg || bytes < 4) fail_msg("%s: no JPEG (%zu bytes)", what, bytes);
    if (jpeg[0] != 0xFF || jpeg[1] != 0xD8 || jpeg[bytes - 2] != 0xFF || jpeg[bytes - 1] != 0xD9)
        fail_msg("%s: %zu bytes do not start with SOI and end with EOI (%02x %02x .. %02x %02x)", what, bytes, jpeg[0],
                 jpeg[1], jpeg[bytes - 2], jpeg[bytes - 1]);
    tjhandle tj = tjInitDecompress();
    assert_non_null(tj);
    int jw = 0, jh = 0, sub = -1, cs = -1;
    if (tjDecompressHeader3(tj, jpeg, (unsigned long)bytes, &jw, &jh, &sub, &cs) != 0)
        fail_msg("%s: header unreadable: %s", what, tjGetErrorStr2(tj));
    if (jw != w || jh != h) fail_msg("%s: JPEG is %dx%d, picture %dx%d", what, jw, jh, w, h);
    if (sub != TJSAMP_420 || cs != TJCS_YCbCr)
        fail_msg("%s: subsampling %d, colour space %d (want 4:2:0 = %d, YCbCr = %d)", what, sub, cs, TJSAMP_420,
                 TJCS_YCbCr);
    uint8_t *rgb = malloc((size_t)w * h * 3);
    assert_non_null(rgb);
    memset(rgb, 0xA5, (size_t)w * h * 3); /* poison */
    if (tjDecompress2(tj, jpeg, (unsigned long)bytes, rgb, w, w * 3, h, TJPF_RGB, 0) != 0)
        fail_msg("%s: decode failed: %s", what, tjGetErrorStr2(tj));
    tjDestroy(tj);

    double se = 0;
    for (int y = 0; y < h; ++y) { /* decoded row y (top-down) is picture row h-1-y (bottom-up) */
        const uint8_t *src = rgba + (size_t)(h - 1 - y) * w * 4, *dec = rgb + (size_t)y * w * 3;
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                const double d = (double)src[4 * x + c] - dec[3 * x + c];
                se += d * d;
            }
    }
    const double mse = se / ((double)w * h * 3);
    const double psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : 99.0;

    if (check_quadrant) { /* the orange quadrant's inner half, top left; its mirror at the bottom left */
        double tl[3], bl[3];
        mean_rgb(rgb, w, w / 8, w / 2 - w / 8, h / 8, h / 2 - h / 8, tl);
        mean_rgb(rgb, w, w / 8, w / 2 - w / 8, h - h / 2 + h / 8, h - h / 8, bl);
        if (max_diff(tl, ORANGE) > 20.0 || max_diff(bl, ORANGE) < 60.0)
            fail_msg("%s: orientation: top-left mean (%.0f %.0f %.0f), bottom-left (%.0f %.0f %.0f); orange is the "
                     "top left",
                     what, tl[0], tl[1], tl[2], bl[0], bl[1], bl[2]);
    }
    free(rgb);
    return psnr;
}
