/* The nvJPEG encoder: its colour kernel against the CPU reference, to the
 * bit, on random non-zero pictures with the output poisoned (both inputs it
 * can hand to nvJPEG); its JPEGs decoded with libjpeg-turbo (size, 4:2:0,
 * orientation, PSNR) at 1x1 .. 1920x1080 with one reused encoder, at the exact
 * size it was made for, on noise; two encoders on two threads with their own
 * streams; bad input. Exits 77 (skipped) without a CUDA device or in a build
 * without nvJPEG. KS_TEST_QUICK=1 (for compute-sanitizer) keeps the pictures
 * to 640x360 and below.
 *
 * test_jpeg_gpu --time: no tests; prints the median encode time at 1920x1080
 * (50 encodes after 10 of warm-up, CUDA events on the encoder's stream) for
 * each GPU input and for the CPU encoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "base/cuda_device.h"
#include "serve/jpeg_cpu.h"
#include "serve/jpeg_gpu.h"
#include "base/ks_util.h"
#include "tests/jpeg_check.h"

typedef struct size2 {
    int w, h;
} size2;
/* in this order through one encoder made for the largest: large, tiny, odd */
static const size2 sizes[] = {{1920, 1080}, {1, 1}, {17, 33}, {1281, 801}, {2, 2}, {33, 17}, {1919, 1079}, {639, 359}};
static int big_w = 1920, big_h = 1080; /* 640x360 with KS_TEST_QUICK=1 */
static int size_used(size_t i) { return sizes[i].w <= big_w && sizes[i].h <= big_h; }
static const ks_jpeg_gpu_input inputs[] = {KS_JPEG_INPUT_YUV420, KS_JPEG_INPUT_RGBI};

#define CHECK_CUDA(call)                                                                                         \
    do {                                                                                                         \
        cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) fail_msg("%s failed: %s", #call, cudaGetErrorString(e_));                          \
    } while (0)

static uint8_t *host_picture(int w, int h)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    assert_non_null(p);
    return p;
}

/* A device copy of host (w x h RGBA), written before any encoder reads it. */
static void *device_picture(const uint8_t *host, int w, int h)
{
    void *d = NULL;
    CHECK_CUDA(cudaMalloc(&d, (size_t)w * h * 4));
    CHECK_CUDA(cudaMemcpy(d, host, (size_t)w * h * 4, cudaMemcpyHostToDevice));
    return d;
}

static ks_jpeg_gpu *make_encoder(int mw, int mh, ks_jpeg_gpu_input input, void *stream)
{
    const ks_jpeg_desc desc = {.max_width = mw, .max_height = mh, .stream = stream, .input = input};
    ks_jpeg_gpu *e = NULL;
    if (ks_jpeg_gpu_create(&desc, &e) != KS_OK) fail_msg("ks_jpeg_gpu_create: %s", ks_error_message());
    return e;
}

static void encode_and_check(ks_jpeg_gpu *e, const void *dev, const uint8_t *host, int w, int h, double floor,
                             int quadrant, const char *what)
{
    const uint8_t *jpeg = NULL;
    size_t bytes = 0;
    if (ks_jpeg_gpu_encode(e, dev, w, h, &jpeg, &bytes) != KS_OK)
        fail_msg("%s: ks_jpeg_gpu_encode: %s", what, ks_error_message());
    const double psnr = jc_check_jpeg(jpeg, bytes, host, w, h, quadrant, what);
    printf("%s: %zu bytes, PSNR %.1f dB\n", what, bytes, psnr);
    if (psnr < floor) fail_msg("%s: PSNR %.1f dB < %.0f", what, psnr, floor);
}

/* ---- the colour kernel against ks_jpeg_yuv420_gold ---- */

static void test_convert_gold(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        ks_jpeg_gpu *e = make_encoder(big_w, big_h, inputs[k], NULL);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            if (!size_used(i)) continue;
            const int w = sizes[i].w, h = sizes[i].h;
            const size_t cw = (size_t)ks_jpeg_chroma_dim(w), ch = (size_t)ks_jpeg_chroma_dim(h);
            const size_t n = inputs[k] == KS_JPEG_INPUT_RGBI ? (size_t)w * h * 3 : (size_t)w * h + 2 * cw * ch;
            uint8_t *host = host_picture(w, h), *got = malloc(n + 64), *want = malloc(n);
            assert_non_null(got);
            assert_non_null(want);
            jc_fill_noise(host, w, h, (unsigned)(i + 10 * k));
            void *dev = device_picture(host, w, h);
            memset(got, 0xA5, n + 64); /* poison, and 64 guard bytes past the end */
            if (ks_jpeg_gpu_convert(e, dev, w, h, got) != KS_OK) fail_msg("convert: %s", ks_error_message());
            if (inputs[k] == KS_JPEG_INPUT_RGBI) {
                for (int row = 0; row < h; ++row)
                    for (int x = 0; x < w; ++x)
                        memcpy(want + ((size_t)row * w + x) * 3, host + ((size_t)(h - 1 - row) * w + x) * 4, 3);
            } else {
                ks_jpeg_yuv420_gold(host, w, h, want, want + (size_t)w * h, want + (size_t)w * h + cw * ch);
            }
            size_t bad = 0, first = 0;
            for (size_t b = 0; b < n; ++b)
                if (got[b] != want[b] && bad++ == 0) first = b;
            for (size_t b = n; b < n + 64; ++b) assert_int_equal(got[b], 0xA5);
            if (bad)
                fail_msg("%s %dx%d: %zu of %zu bytes differ from the CPU reference; first at byte %zu: %u, want %u",
                         ks_jpeg_gpu_input_name(inputs[k]), w, h, bad, n, first, got[first], want[first]);
            CHECK_CUDA(cudaFree(dev));
            free(host), free(got), free(want);
        }
        ks_jpeg_gpu_destroy(e);
    }
}

/* ---- encodes, decoded back ---- */

static void test_sizes_one_encoder(void **state)
{
    (void)state;
    cudaStream_t stream = NULL;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        /* YUV420 on a stream of its own making, RGBI on the caller's */
        ks_jpeg_gpu *e = make_encoder(big_w, big_h, inputs[k], k == 0 ? NULL : (void *)stream);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            if (!size_used(i)) continue;
            const int w = sizes[i].w, h = sizes[i].h;
            uint8_t *host = host_picture(w, h);
            jc_fill_smooth(host, w, h, (unsigned)i);
            void *dev = device_picture(host, w, h);
            char what[80];
            snprintf(what, sizeof what, "gpu %s smooth %dx%d", ks_jpeg_gpu_input_name(inputs[k]), w, h);
            encode_and_check(e, dev, host, w, h, jc_psnr_floor(w, h), w >= 16 && h >= 16, what);
            CHECK_CUDA(cudaFree(dev));
            free(host);
        }
        ks_jpeg_gpu_destroy(e);
    }
    CHECK_CUDA(cudaStreamDestroy(stream));
}

static void test_exact_size(void **state)
{
    (void)state;
    const int w = big_w < 1281 ? 321 : 1281, h = big_h < 801 ? 201 : 801;
    uint8_t *host = host_picture(w, h);
    jc_fill_smooth(host, w, h, 3);
    void *dev = device_picture(host, w, h);
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        ks_jpeg_gpu *e = make_encoder(w, h, inputs[k], NULL);
        encode_and_check(e, dev, host, w, h, jc_psnr_floor(w, h), 1, "gpu encoder at the size it was made for");
        encode_and_check(e, dev, host, 1, 1, KS_JPEG_PSNR_SMALL, 0, "gpu encoder made for more, at 1x1");
        ks_jpeg_gpu_destroy(e);
        e = make_encoder(1, 1, inputs[k], NULL);
        encode_and_check(e, dev, host, 1, 1, KS_JPEG_PSNR_SMALL, 0, "gpu encoder made for 1x1");
        ks_jpeg_gpu_destroy(e);
    }
    CHECK_CUDA(cudaFree(dev));
    free(host);
}

static void test_noise_and_reuse(void **state)
{
    (void)state;
    const int w = big_w, h = big_h;
    uint8_t *a = host_picture(w, h), *b = host_picture(w, h);
    jc_fill_noise(a, w, h, 1);
    jc_fill_smooth(b, w, h, 2);
    void *da = device_picture(a, w, h), *db = device_picture(b, w, h);
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        ks_jpeg_gpu *e = make_encoder(w, h, inputs[k], NULL);
        char what[80];
        snprintf(what, sizeof what, "gpu %s noise %dx%d", ks_jpeg_gpu_input_name(inputs[k]), w, h);
        encode_and_check(e, da, a, w, h, KS_JPEG_PSNR_NOISE, 0, what); /* the largest bitstream */
        encode_and_check(e, da, a, 17, 33, KS_JPEG_PSNR_NOISE, 0, what);
        /* the reused buffer now holds b's JPEG, not a's */
        const uint8_t *jpeg = NULL;
        size_t bytes = 0;
        assert_int_equal(ks_jpeg_gpu_encode(e, db, w, h, &jpeg, &bytes), KS_OK);
        assert_true(jc_check_jpeg(jpeg, bytes, b, w, h, 1, "gpu reuse, b") >= jc_psnr_floor(w, h));
        assert_true(jc_check_jpeg(jpeg, bytes, a, w, h, 0, "gpu reuse, against a") < KS_JPEG_PSNR_NOISE + 5.0);
        ks_jpeg_gpu_destroy(e);
    }
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    free(a), free(b);
}

/* ---- two worker threads, each with its own stream and encoder ---- */

typedef struct worker {
    int w, h;
    ks_jpeg_gpu_input input;
    const uint8_t *host;
    const void *dev;
    int ok;
    char why[256];
    uint8_t *jpeg; /* the last JPEG, copied */
    size_t bytes;
} worker;

static void *encode_loop(void *arg)
{
    worker *wk = arg;
    cudaStream_t stream = NULL;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        snprintf(wk->why, sizeof wk->why, "cudaStreamCreateWithFlags failed");
        return NULL;
    }
    const ks_jpeg_desc desc = {.max_width = wk->w, .max_height = wk->h, .stream = stream, .input = wk->input};
    ks_jpeg_gpu *e = NULL;
    if (ks_jpeg_gpu_create(&desc, &e) != KS_OK) {
        snprintf(wk->why, sizeof wk->why, "create: %s", ks_error_message()); /* the error text is per thread */
        cudaStreamDestroy(stream);
        return NULL;
    }
    const uint8_t *jpeg = NULL;
    size_t bytes = 0, first = 0;
    wk->ok = 1;
    for (int i = 0; i < (big_w < 1920 ? 3 : 20) && wk->ok; ++i) {
        if (ks_jpeg_gpu_encode(e, wk->dev, wk->w, wk->h, &jpeg, &bytes) != KS_OK) {
            snprintf(wk->why, sizeof wk->why, "encode %d: %s", i, ks_error_message());
            wk->ok = 0;
        }
        if (i == 0) first = bytes;
        if (wk->ok && bytes != first) {
            snprintf(wk->why, sizeof wk->why, "encode %d: %zu bytes, the first gave %zu", i, bytes, first);
            wk->ok = 0;
        }
    }
    if (wk->ok) { /* a copy for the main thread to check: cmocka's failures belong there */
        wk->jpeg = malloc(bytes);
        if (wk->jpeg) memcpy(wk->jpeg, jpeg, bytes), wk->bytes = bytes;
        else snprintf(wk->why, sizeof wk->why, "out of host memory"), wk->ok = 0;
    }
    ks_jpeg_gpu_destroy(e);
    cudaStreamDestroy(stream);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    worker wk[2] = {{.w = big_w < 1280 ? big_w : 1280, .h = big_h < 720 ? big_h : 720, .input = KS_JPEG_INPUT_YUV420},
                    {.w = 333, .h = 517 < big_h ? 517 : big_h, .input = KS_JPEG_INPUT_RGBI}};
    uint8_t *host[2];
    for (int i = 0; i < 2; ++i) {
        host[i] = host_picture(wk[i].w, wk[i].h);
        jc_fill_smooth(host[i], wk[i].w, wk[i].h, 20u + (unsigned)i);
        wk[i].host = host[i];
        wk[i].dev = device_picture(host[i], wk[i].w, wk[i].h);
    }
    pthread_t t[2];
    for (int i = 0; i < 2; ++i) assert_int_equal(pthread_create(&t[i], NULL, encode_loop, &wk[i]), 0);
    for (int i = 0; i < 2; ++i) assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 2; ++i) {
        if (!wk[i].ok) fail_msg("thread %d (%dx%d): %s", i, wk[i].w, wk[i].h, wk[i].why);
        const double psnr = jc_check_jpeg(wk[i].jpeg, wk[i].bytes, host[i], wk[i].w, wk[i].h, 1, "gpu thread");
        if (psnr < KS_JPEG_PSNR_SMOOTH) fail_msg("thread %d: PSNR %.1f dB", i, psnr);
        free(wk[i].jpeg);
        CHECK_CUDA(cudaFree((void *)wk[i].dev));
        free(host[i]);
    }
}

/* ---- bad input ---- */

static void test_errors(void **state)
{
    (void)state;
    ks_jpeg_gpu *e = (ks_jpeg_gpu *)1;
    const ks_jpeg_desc bad[] = {
        {.max_width = 0, .max_height = 10},
        {.max_width = 10, .max_height = KS_JPEG_DIM_MAX + 1},
        {.max_width = 10, .max_height = 10, .quality = 101},
        {.max_width = 10, .max_height = 10, .input = KS_JPEG_INPUT_NUM},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(ks_jpeg_gpu_create(&bad[i], &e), KS_ERR_INVALID);
        assert_null(e);
    }
    e = make_encoder(64, 32, KS_JPEG_INPUT_YUV420, NULL);
    uint8_t *host = host_picture(65, 33); /* room past 64x32 for the bad sizes below */
    memset(host, 7, (size_t)65 * 33 * 4);
    jc_fill_smooth(host, 64, 32, 9);
    uint8_t *dev = device_picture(host, 65, 33);
    const uint8_t *jpeg = (const uint8_t *)1;
    size_t bytes = 1;
    assert_int_equal(ks_jpeg_gpu_encode(e, dev, 65, 32, &jpeg, &bytes), KS_ERR_INVALID);
    assert_null(jpeg);
    assert_int_equal(bytes, 0);
    assert_true(strstr(ks_error_message(), "65x32") != NULL);
    assert_int_equal(ks_jpeg_gpu_encode(e, dev, 64, 33, &jpeg, &bytes), KS_ERR_INVALID);
    assert_int_equal(ks_jpeg_gpu_encode(e, dev, 64, 0, &jpeg, &bytes), KS_ERR_INVALID);
    assert_int_equal(ks_jpeg_gpu_encode(e, NULL, 64, 32, &jpeg, &bytes), KS_ERR_INVALID);
    assert_int_equal(ks_jpeg_gpu_encode(e, dev + 2, 16, 16, &jpeg, &bytes), KS_ERR_INVALID); /* not 4-byte aligned */
    assert_true(strstr(ks_error_message(), "aligned") != NULL);
    assert_int_equal(ks_jpeg_gpu_convert(e, dev, 64, 32, NULL), KS_ERR_INVALID);
    /* still usable */
    encode_and_check(e, dev, host, 64, 32, KS_JPEG_PSNR_SMALL, 1, "gpu after errors");
    CHECK_CUDA(cudaFree(dev));
    free(host);
    ks_jpeg_gpu_destroy(e);
    ks_jpeg_gpu_destroy(NULL);
}

/* ---- --time ---- */

enum { TIME_W = 1920, TIME_H = 1080, TIME_WARM = 10, TIME_RUNS = 50 };

static int time_gpu(ks_jpeg_gpu_input input, const void *dev)
{
    cudaStream_t stream = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
        fprintf(stderr, "test_jpeg_gpu: cannot make a stream and events\n");
        return 1;
    }
    const ks_jpeg_desc desc = {.max_width = TIME_W, .max_height = TIME_H, .stream = stream, .input = input};
    ks_jpeg_gpu *e = NULL;
    if (ks_jpeg_gpu_create(&desc, &e) != KS_OK) {
        fprintf(stderr, "test_jpeg_gpu: %s\n", ks_error_message());
        return 1;
    }
    double ev[TIME_RUNS], host[TIME_RUNS];
    const uint8_t *jpeg = NULL;
    size_t bytes = 0;
    for (int i = 0; i < TIME_WARM + TIME_RUNS; ++i) {
        const double t0 = ks_now_seconds();
        cudaEventRecord(start, stream);
        if (ks_jpeg_gpu_encode(e, dev, TIME_W, TIME_H, &jpeg, &bytes) != KS_OK) {
            fprintf(stderr, "test_jpeg_gpu: %s\n", ks_error_message());
            return 1;
        }
        cudaEventRecord(stop, stream);
        cudaEventSynchronize(stop);
        const double t1 = ks_now_seconds();
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        if (i >= TIME_WARM) ev[i - TIME_WARM] = ms, host[i - TIME_WARM] = (t1 - t0) * 1e3;
    }
    const double med = ks_median_sort(ev, TIME_RUNS), med_host = ks_median_sort(host, TIME_RUNS); /* sorted: [0] is the min */
    printf("  gpu %-7s %7.3f ms (CUDA events on its stream; min %.3f), host clock %7.3f ms, %zu bytes\n",
           ks_jpeg_gpu_input_name(input), med, ev[0], med_host, bytes);
    ks_jpeg_gpu_destroy(e);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
    return 0;
}

static int time_encoders(void)
{
    uint8_t *host = malloc((size_t)TIME_W * TIME_H * 4);
    void *dev = NULL;
    if (!host || cudaMalloc(&dev, (size_t)TIME_W * TIME_H * 4) != cudaSuccess) {
        fprintf(stderr, "test_jpeg_gpu: out of memory\n");
        return 1;
    }
    jc_fill_smooth(host, TIME_W, TIME_H, 1);
    cudaMemcpy(dev, host, (size_t)TIME_W * TIME_H * 4, cudaMemcpyHostToDevice);
    struct cudaDeviceProp prop;
    int device = 0;
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&prop, device);
    printf("JPEG encode of a smooth %dx%d picture, quality %d, 4:2:0, on %s: median of %d after %d warm-up\n", TIME_W,
           TIME_H, KS_JPEG_QUALITY_DEFAULT, prop.name, TIME_RUNS, TIME_WARM);
    int rc = 0;
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0] && rc == 0; ++k) rc = time_gpu(inputs[k], dev);

    ks_jpeg_cpu *c = NULL;
    const ks_jpeg_desc desc = {.max_width = TIME_W, .max_height = TIME_H};
    if (rc == 0 && ks_jpeg_cpu_create(&desc, &c) == KS_OK) {
        double ms[TIME_RUNS];
        const uint8_t *jpeg = NULL;
        size_t bytes = 0;
        for (int i = 0; i < TIME_WARM + TIME_RUNS && rc == 0; ++i) {
            const double t0 = ks_now_seconds();
            if (ks_jpeg_cpu_encode(c, host, TIME_W, TIME_H, &jpeg, &bytes) != KS_OK) rc = 1;
            if (i >= TIME_WARM) ms[i - TIME_WARM] = (ks_now_seconds() - t0) * 1e3;
        }
        if (rc == 0)
            printf("  cpu (libjpeg-turbo, one thread) %7.3f ms (host clock), %zu bytes\n", ks_median_sort(ms, TIME_RUNS),
                   bytes);
        ks_jpeg_cpu_destroy(c);
    }
    cudaFree(dev);
    free(host);
    return rc;
}

int main(int argc, char **argv)
{
    const int timing = argc == 2 && strcmp(argv[1], "--time") == 0;
    if (argc > 1 && !timing) {
        fprintf(stderr, "usage: test_jpeg_gpu [--time]\n");
        return 2;
    }
    ks_device_info info;
    memset(&info, 0, sizeof info);
    if (ks_cuda_probe(&info) != KS_OK || !info.present) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    if (!ks_jpeg_gpu_built()) {
        fprintf(stderr, "built without nvJPEG: skipped\n");
        return 77;
    }
    if (timing) return time_encoders();
    const char *q = getenv("KS_TEST_QUICK");
    if (q && strcmp(q, "1") == 0) big_w = 640, big_h = 360;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert_gold), cmocka_unit_test(test_sizes_one_encoder),
        cmocka_unit_test(test_exact_size),   cmocka_unit_test(test_noise_and_reuse),
        cmocka_unit_test(test_threads),      cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
