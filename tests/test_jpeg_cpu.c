/* The CPU JPEG encoder (libjpeg-turbo) and the CPU reference of the GPU
 * encoder's colour kernel: hand-computed YCbCr values, the flip and the odd
 * edges of the reference; encodes of smooth pictures (PSNR, orientation),
 * noise, odd sizes from 1x1 to 1920x1080 with one reused encoder, two
 * encoders on two threads, bad input; and the one-line refusal of the GPU
 * encoder in a build without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/jpeg_cpu.h"
#include "serve/jpeg_gpu.h"
#include "tests/jpeg_check.h"

typedef struct size2 {
    int w, h;
} size2;
static const size2 sizes[] = {{1920, 1080}, {1, 1}, {17, 33}, {1281, 801}, {2, 2}, {33, 17}};

static uint8_t *picture(int w, int h)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    assert_non_null(p);
    return p;
}

/* ---- the colour reference ---- */

static void test_gold_values(void **state)
{
    (void)state;
    /* 2x2, bottom-up: bottom row red, white; top row grey 100, black */
    const uint8_t rgba[16] = {255, 0, 0, 9, 255, 255, 255, 9, 100, 100, 100, 9, 0, 0, 0, 9};
    uint8_t y[4], cb[1], cr[1];
    memset(y, 0xA5, sizeof y), memset(cb, 0xA5, 1), memset(cr, 0xA5, 1);
    ks_jpeg_yuv420_gold(rgba, 2, 2, y, cb, cr);
    /* top-down: grey, black, then red, white; Y of red: 0.299 * 255 = 76.2 */
    assert_int_equal(y[0], 100);
    assert_int_equal(y[1], 0);
    assert_int_equal(y[2], 76);
    assert_int_equal(y[3], 255);
    /* Cb, Cr of red: 85.5 (85 in 16.16 fixed point), 255.5 (clamped); grey, white, black: 128 */
    assert_int_equal(cb[0], 117); /* (85.47 + 3 * 128) / 4 = 117.37 */
    assert_int_equal(cr[0], 160); /* (255.5 + 3 * 128) / 4 = 159.87 */

    /* grey, one pixel */
    const uint8_t g[4] = {77, 77, 77, 1};
    ks_jpeg_yuv420_gold(g, 1, 1, y, cb, cr);
    assert_int_equal(y[0], 77);
    assert_int_equal(cb[0], 128);
    assert_int_equal(cr[0], 128);
}

static void test_gold_odd_edges(void **state)
{
    (void)state;
    /* 3x3 grey 50, bottom-up, with blue (Cb 255.5, Cr 107.3) at the top right
     * and the bottom right: the chroma sample of the right column's top block
     * averages two pixels (blue, grey), the bottom right one is that pixel alone. */
    uint8_t rgba[3 * 3 * 4];
    for (int i = 0; i < 9; ++i) {
        uint8_t *p = rgba + 4 * i;
        p[0] = p[1] = p[2] = 50;
        p[3] = 200;
    }
    const int blue_at[2] = {2 * 3 + 2, 0 * 3 + 2}; /* bottom-up rows 2 (top) and 0 (bottom), column 2 */
    for (int b = 0; b < 2; ++b) {
        uint8_t *p = rgba + 4 * blue_at[b];
        p[0] = p[1] = 0;
        p[2] = 255;
    }
    uint8_t y[9], cb[4], cr[4];
    memset(y, 0xA5, sizeof y), memset(cb, 0xA5, sizeof cb), memset(cr, 0xA5, sizeof cr);
    ks_jpeg_yuv420_gold(rgba, 3, 3, y, cb, cr);
    const int y_blue = (7471 * 255 + 32768) >> 16; /* 29 */
    assert_int_equal(y[0], 50);
    assert_int_equal(y[2], y_blue); /* top right: first output row */
    assert_int_equal(y[8], y_blue);
    assert_int_equal(y[6], 50);
    assert_int_equal(cb[0], 128);
    assert_int_equal(cb[1], 192); /* (255.5 + 128) / 2 = 191.75 */
    assert_int_equal(cb[2], 128);
    assert_int_equal(cb[3], 255); /* 255.5, clamped */
    assert_int_equal(cr[1], 118); /* (107.3 + 128) / 2 */
    assert_int_equal(cr[3], 107);
}

/* ---- the encoder ---- */

static void test_sizes_one_encoder(void **state)
{
    (void)state;
    ks_jpeg_cpu *e = NULL;
    const ks_jpeg_desc desc = {.max_width = 1920, .max_height = 1080};
    assert_int_equal(ks_jpeg_cpu_create(&desc, &e), KS_OK);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        const int w = sizes[i].w, h = sizes[i].h;
        uint8_t *p = picture(w, h);
        jc_fill_smooth(p, w, h, (unsigned)i);
        const uint8_t *jpeg = NULL;
        size_t bytes = 0;
        assert_int_equal(ks_jpeg_cpu_encode(e, p, w, h, &jpeg, &bytes), KS_OK);
        char what[64];
        snprintf(what, sizeof what, "cpu smooth %dx%d", w, h);
        const double psnr = jc_check_jpeg(jpeg, bytes, p, w, h, w >= 16 && h >= 16, what);
        printf("%s: %zu bytes, PSNR %.1f dB\n", what, bytes, psnr);
        if (psnr < jc_psnr_floor(w, h)) fail_msg("%s: PSNR %.1f dB < %.0f", what, psnr, jc_psnr_floor(w, h));
        free(p);
    }
    ks_jpeg_cpu_destroy(e);
}

static void test_noise_and_reuse(void **state)
{
    (void)state;
    const int w = 1281, h = 801;
    ks_jpeg_cpu *e = NULL;
    const ks_jpeg_desc desc = {.max_width = w, .max_height = h, .quality = 90};
    assert_int_equal(ks_jpeg_cpu_create(&desc, &e), KS_OK);
    uint8_t *a = picture(w, h), *b = picture(w, h);
    jc_fill_noise(a, w, h, 1);
    jc_fill_smooth(b, w, h, 2);
    const uint8_t *jpeg = NULL;
    size_t bytes = 0;
    assert_int_equal(ks_jpeg_cpu_encode(e, a, w, h, &jpeg, &bytes), KS_OK);
    const double pn = jc_check_jpeg(jpeg, bytes, a, w, h, 0, "cpu noise 1281x801");
    printf("cpu noise 1281x801: %zu bytes, PSNR %.1f dB\n", bytes, pn);
    assert_true(pn >= KS_JPEG_PSNR_NOISE);
    /* the same buffer now holds b's JPEG, not a's */
    assert_int_equal(ks_jpeg_cpu_encode(e, b, w, h, &jpeg, &bytes), KS_OK);
    assert_true(jc_check_jpeg(jpeg, bytes, b, w, h, 1, "cpu reuse, b") >= jc_psnr_floor(w, h));
    assert_true(jc_check_jpeg(jpeg, bytes, a, w, h, 0, "cpu reuse, against a") < KS_JPEG_PSNR_NOISE + 5.0);
    free(a);
    free(b);
    ks_jpeg_cpu_destroy(e);
}

typedef struct worker {
    int w, h;
    unsigned seed;
    int ok;
} worker;

static void *encode_loop(void *arg)
{
    worker *wk = arg;
    ks_jpeg_cpu *e = NULL;
    const ks_jpeg_desc desc = {.max_width = wk->w, .max_height = wk->h};
    uint8_t *p = malloc((size_t)wk->w * wk->h * 4);
    if (!p || ks_jpeg_cpu_create(&desc, &e) != KS_OK) return NULL;
    jc_fill_smooth(p, wk->w, wk->h, wk->seed);
    const uint8_t *jpeg = NULL;
    size_t bytes = 0, first = 0;
    wk->ok = 1;
    for (int i = 0; i < 10 && wk->ok; ++i) {
        if (ks_jpeg_cpu_encode(e, p, wk->w, wk->h, &jpeg, &bytes) != KS_OK) wk->ok = 0;
        if (i == 0) first = bytes;
        if (bytes != first) wk->ok = 0; /* the same picture gives the same file */
    }
    if (wk->ok) wk->ok = jc_check_jpeg(jpeg, bytes, p, wk->w, wk->h, 1, "cpu thread") >= jc_psnr_floor(wk->w, wk->h);
    ks_jpeg_cpu_destroy(e);
    free(p);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    worker wk[2] = {{640, 360, 5, 0}, {333, 517, 6, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; ++i) assert_int_equal(pthread_create(&t[i], NULL, encode_loop, &wk[i]), 0);
    for (int i = 0; i < 2; ++i) assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_true(wk[0].ok);
    assert_true(wk[1].ok);
}

static void test_errors(void **state)
{
    (void)state;
    ks_jpeg_cpu *e = (ks_jpeg_cpu *)1;
    const ks_jpeg_desc bad[] = {
        {.max_width = 0, .max_height = 10},  {.max_width = 10, .max_height = -1},
        {.max_width = KS_JPEG_DIM_MAX + 1, .max_height = 10}, {.max_width = 10, .max_height = 10, .quality = 101},
        {.max_width = 10, .max_height = 10, .quality = -5},   {.max_width = 10, .max_height = 10, .input = KS_JPEG_INPUT_NUM},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(ks_jpeg_cpu_create(&bad[i], &e), KS_ERR_INVALID);
        assert_null(e);
        assert_true(strstr(ks_error_message(), "JPEG encoder") != NULL);
    }
    const ks_jpeg_desc desc = {.max_width = 16, .max_height = 8};
    assert_int_equal(ks_jpeg_cpu_create(&desc, &e), KS_OK);
    uint8_t p[17 * 9 * 4];
    memset(p, 7, sizeof p);
    const uint8_t *jpeg = (const uint8_t *)1;
    size_t bytes = 1;
    assert_int_equal(ks_jpeg_cpu_encode(e, p, 17, 8, &jpeg, &bytes), KS_ERR_INVALID);
    assert_null(jpeg);
    assert_int_equal(bytes, 0);
    assert_true(strstr(ks_error_message(), "17x8") != NULL);
    assert_int_equal(ks_jpeg_cpu_encode(e, p, 16, 9, &jpeg, &bytes), KS_ERR_INVALID);
    assert_int_equal(ks_jpeg_cpu_encode(e, p, 0, 8, &jpeg, &bytes), KS_ERR_INVALID);
    assert_int_equal(ks_jpeg_cpu_encode(e, NULL, 16, 8, &jpeg, &bytes), KS_ERR_INVALID);
    assert_int_equal(ks_jpeg_cpu_encode(e, p, 16, 8, &jpeg, &bytes), KS_OK); /* still usable */
    jc_check_jpeg(jpeg, bytes, p, 16, 8, 0, "cpu after errors");
    ks_jpeg_cpu_destroy(e);
    ks_jpeg_cpu_destroy(NULL);
}

/* A build without nvJPEG (or without CUDA) refuses the GPU encoder in one line. */
static void test_gpu_left_out(void **state)
{
    (void)state;
    if (ks_jpeg_gpu_built()) skip(); /* the gpu test covers it */
    ks_jpeg_gpu *g = (ks_jpeg_gpu *)1;
    const ks_jpeg_desc desc = {.max_width = 64, .max_height = 64};
    assert_int_equal(ks_jpeg_gpu_create(&desc, &g), KS_ERR_UNSUPPORTED);
    assert_null(g);
    const char *msg = ks_error_message();
    printf("GPU encoder: %s\n", msg);
    assert_true(strstr(msg, "GPU JPEG encoder") != NULL);
    assert_true(strstr(msg, "built without") != NULL);
    assert_null(strchr(msg, '\n'));
    ks_jpeg_gpu_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gold_values),       cmocka_unit_test(test_gold_odd_edges),
        cmocka_unit_test(test_sizes_one_encoder), cmocka_unit_test(test_noise_and_reuse),
        cmocka_unit_test(test_threads),           cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gpu_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
