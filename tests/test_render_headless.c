/* The renderer on a headless EGL context (Mesa llvmpipe here, NVIDIA on the GPU
 * machine): PBO -> texture byte-exact, the picture fitted into its area, pick,
 * resizes, the host upload ring, and error paths (the panels over it: test_ui_headless.c). Exits 77 when no EGL display can be had. */
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
#include "render/image_io.h"
#include "render/renderer.h"
#include "render/window.h"

static ks_window *g_win;

static ks_renderer *g_r;

enum { PW = 37, PH = 53, MAX_PIXELS = 256 * 256 };

static void check_ok(ks_status st, const char *what)
{
    if (st != KS_OK) fail_msg("%s: %s: %s", what, ks_status_name(st), ks_error_message());
}

/* Pattern in PBO order (row 0 = bottom), every byte meaningful, alpha too. */
static void pattern(unsigned char *p, int w, int h, int seed)
{
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            unsigned char *q = p + ((size_t)y * (size_t)w + (size_t)x) * 4;
            q[0] = (unsigned char)(x * 6 + seed);
            q[1] = (unsigned char)(y * 4 + 3 * seed);
            q[2] = (unsigned char)((x * y) ^ seed);
            q[3] = (unsigned char)(x + y * 3 + 1);
        }
}

static void upload(int w, int h, int seed)
{
    void *ptr = NULL;
    check_ok(ks_renderer_map_pbo(g_r, &ptr), "map_pbo");
    assert_non_null(ptr);
    pattern(ptr, w, h, seed);
    check_ok(ks_renderer_unmap_pbo(g_r), "unmap_pbo");
    check_ok(ks_renderer_set_image(g_r, w, h), "set_image");
}

static const unsigned char *px(const unsigned char *frame, int w, int h, int x, int y_bottom_up)
{
    return frame + ((size_t)(h - 1 - y_bottom_up) * (size_t)w + (size_t)x) * 4;
}

/* Optional: KS_RENDER_SNAPSHOT_DIR=dir writes frames for a person to look at. */
static void snapshot(const char *name, const unsigned char *rgba, int w, int h)
{
    const char *dir = getenv("KS_RENDER_SNAPSHOT_DIR");
    if (dir == NULL || dir[0] == '\0') return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    check_ok(ks_image_write(path, KS_FMT_PNG, rgba, w, h), "snapshot");
}

static void test_pbo_roundtrip(void **state)
{
    (void)state;
    upload(PW, PH, 7);
    unsigned char *img = NULL;
    int w = 0, h = 0;
    check_ok(ks_renderer_read_image(g_r, &img, &w, &h), "read_image");
    assert_int_equal(w, PW);
    assert_int_equal(h, PH);
    unsigned char *want = malloc((size_t)PW * PH * 4);
    pattern(want, PW, PH, 7);
    for (int y = 0; y < PH; ++y) /* read_image is top-down */
        assert_memory_equal(img + (size_t)y * PW * 4, want + (size_t)(PH - 1 - y) * PW * 4, (size_t)PW * 4);
    free(img);

    /* picture only, fit and centred; pick() and pixels agree */
    check_ok(ks_renderer_begin(g_r, 400, 300, NULL), "begin");
    check_ok(ks_renderer_end(g_r), "end");
    unsigned char *frame = NULL;
    check_ok(ks_renderer_read_frame(g_r, &frame, &w, &h), "read_frame");
    assert_int_equal(w, 400);
    assert_int_equal(h, 300);
    int a = -1, b = -1;
    assert_true(ks_renderer_pick(g_r, 200.0, 150.0, &a, &b));
    assert_int_equal(a, PW / 2);
    assert_int_equal(b, PH / 2);
    /* picture spans the full height (53 rows scale to 300) and 209 px width */
    assert_false(ks_renderer_pick(g_r, 10.0, 150.0, &a, &b));
    assert_false(ks_renderer_pick(g_r, 390.0, 150.0, &a, &b));
    assert_false(ks_renderer_pick(g_r, 200.0, -1.0, &a, &b));
    for (int y = 1; y < 300; y += 7)
        for (int x = 96; x < 304; x += 5) {
            if (!ks_renderer_pick(g_r, x + 0.5, y + 0.5, &a, &b)) continue;
            const unsigned char *p = px(frame, w, h, x, y);
            const unsigned char *q = want + ((size_t)b * PW + (size_t)a) * 4;
            if (memcmp(p, q, 3) != 0 || p[3] != 255)
                fail_msg("frame (%d,%d) = %u,%u,%u,%u; picture (%d,%d) = %u,%u,%u", x, y, p[0], p[1], p[2],
                         p[3], a, b, q[0], q[1], q[2]);
        }
    /* left of the picture: the dark grey background */
    const unsigned char *bg = px(frame, w, h, 5, 150);
    assert_true(bg[0] < 40 && bg[0] == bg[1] && bg[3] == 255);
    snapshot("render_headless_picture", frame, w, h);
    free(frame);
    free(want);
}

static void test_resize_and_zero(void **state)
{
    (void)state;
    upload(PW, PH, 5);
    const int sizes[][2] = {{1280, 800}, {1, 1}, {0, 0}, {0, 600}, {3, 2000}, {640, 480}, {300, 200}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        int fw = sizes[i][0], fh = sizes[i][1];
        check_ok(ks_renderer_begin(g_r, fw, fh, NULL), "begin");
        check_ok(ks_renderer_end(g_r), "end");
        if (fw == 0 || fh == 0) {
            /* minimised: nothing drawn, nothing to pick */
            assert_false(ks_renderer_pick(g_r, 0.0, 0.0, NULL, NULL));
            continue;
        }
        unsigned char *f = NULL;
        int w = 0, h = 0;
        check_ok(ks_renderer_read_frame(g_r, &f, &w, &h), "read_frame");
        assert_int_equal(w, fw);
        assert_int_equal(h, fh);
        free(f);
    }
    /* a new picture size reallocates the texture */
    upload(256, 256, 1);
    upload(3, 1, 2);
    unsigned char *img = NULL;
    int w = 0, h = 0;
    check_ok(ks_renderer_read_image(g_r, &img, &w, &h), "read_image");
    assert_int_equal(w, 3);
    assert_int_equal(h, 1);
    unsigned char want[12];
    pattern(want, 3, 1, 2);
    assert_memory_equal(img, want, 12);
    free(img);
}

static void test_errors(void **state)
{
    (void)state;
    assert_int_equal(ks_renderer_set_image(g_r, 257, 256), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_set_image(g_r, 0, 5), KS_ERR_INVALID);
    void *p = NULL;
    check_ok(ks_renderer_map_pbo(g_r, &p), "map");
    assert_int_equal(ks_renderer_map_pbo(g_r, &p), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_begin(g_r, 100, 100, NULL), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_set_image(g_r, 4, 4), KS_ERR_INVALID);
    check_ok(ks_renderer_unmap_pbo(g_r), "unmap");
    assert_int_equal(ks_renderer_unmap_pbo(g_r), KS_ERR_INVALID);
    check_ok(ks_renderer_begin(g_r, 100, 100, NULL), "begin after unmap");
    check_ok(ks_renderer_end(g_r), "end");
    /* an area: the picture fits inside it, nothing outside */
    const float area[4] = {10.0f, 20.0f, 50.0f, 60.0f};
    check_ok(ks_renderer_begin(g_r, 100, 100, area), "begin with area");
    check_ok(ks_renderer_end(g_r), "end");
    int a = -1, b = -1;
    assert_true(ks_renderer_pick(g_r, 35.0, 50.0, &a, &b));
    assert_false(ks_renderer_pick(g_r, 70.0, 50.0, &a, &b));
    assert_false(ks_renderer_pick(g_r, 35.0, 85.0, &a, &b));

    ks_renderer *fresh = NULL;
    assert_int_equal(ks_renderer_create(NULL, &fresh), KS_ERR_INVALID);
    const ks_renderer_desc too_big = {(size_t)-1};
    assert_int_equal(ks_renderer_create(&too_big, &fresh), KS_ERR_INVALID);
    const ks_renderer_desc zero = {0}; /* zero: the default size */
    check_ok(ks_renderer_create(&zero, &fresh), "create with the default size");
    ks_renderer_destroy(fresh);
    fresh = NULL;
    const ks_renderer_desc small = {16};
    check_ok(ks_renderer_create(&small, &fresh), "create");
    unsigned char *img = NULL;
    int w = 0, h = 0;
    assert_int_equal(ks_renderer_read_image(fresh, &img, &w, &h), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_read_frame(fresh, &img, &w, &h), KS_ERR_INVALID);
    assert_null(img);
    assert_int_equal(ks_renderer_pbo(fresh) != 0, 1);
    assert_int_not_equal(ks_renderer_pbo(fresh), ks_renderer_pbo(g_r));
    ks_renderer_destroy(fresh);
    ks_renderer_destroy(NULL);
}

/* The host upload ring: every frame's picture is exactly what was uploaded that
 * frame (none stale, none torn), over more frames than the ring has slots and
 * with sizes that change; the source may be overwritten as soon as upload returns. */
static void test_upload_ring(void **state)
{
    (void)state;
    const int sizes[][2] = {{37, 53}, {37, 53}, {64, 9}, {1, 1}, {255, 256}, {37, 53}, {37, 53}};
    const int frames = (int)(sizeof sizes / sizeof sizes[0]);
    assert_true(frames > 2 * KS_RENDERER_RING);
    unsigned char *src = malloc((size_t)MAX_PIXELS * 4), *want = malloc((size_t)MAX_PIXELS * 4);
    assert_non_null(src);
    assert_non_null(want);
    for (int f = 0; f < frames; ++f) {
        const int w = sizes[f][0], h = sizes[f][1];
        pattern(src, w, h, 11 * f + 1);
        memcpy(want, src, (size_t)w * (size_t)h * 4);
        check_ok(ks_renderer_upload(g_r, src, w, h), "upload");
        memset(src, 0xA5, (size_t)w * (size_t)h * 4); /* the next frame's scene writes at once */
        check_ok(ks_renderer_begin(g_r, 320, 240, NULL), "begin");
        check_ok(ks_renderer_end(g_r), "end");
        unsigned char *img = NULL;
        int gw = 0, gh = 0;
        check_ok(ks_renderer_read_image(g_r, &img, &gw, &gh), "read_image");
        assert_int_equal(gw, w);
        assert_int_equal(gh, h);
        for (int y = 0; y < h; ++y) /* read_image is top-down, the upload bottom-up */
            if (memcmp(img + (size_t)(h - 1 - y) * (size_t)w * 4, want + (size_t)y * (size_t)w * 4, (size_t)w * 4))
                fail_msg("frame %d (%dx%d): row %d is not this frame's picture", f, w, h, y);
        free(img);
    }
    /* every slot can be waited for and shown again from its buffer */
    for (int s = 0; s < KS_RENDERER_RING; ++s) {
        check_ok(ks_renderer_wait_slot(g_r, s), "wait_slot");
        assert_int_not_equal(ks_renderer_pbo_slot(g_r, s), 0);
        for (int k = 0; k < s; ++k) assert_int_not_equal(ks_renderer_pbo_slot(g_r, s), ks_renderer_pbo_slot(g_r, k));
    }
    assert_int_equal(ks_renderer_pbo_slot(g_r, 0), ks_renderer_pbo(g_r));
    assert_int_equal(ks_renderer_pbo_slot(g_r, KS_RENDERER_RING), 0);
    assert_int_equal(ks_renderer_wait_slot(g_r, -1), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_wait_slot(g_r, KS_RENDERER_RING), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_set_image_slot(g_r, KS_RENDERER_RING, 4, 4), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_upload(g_r, src, 257, 256), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_upload(g_r, NULL, 4, 4), KS_ERR_INVALID);
    void *p = NULL;
    check_ok(ks_renderer_map_pbo(g_r, &p), "map");
    assert_int_equal(ks_renderer_upload(g_r, src, 4, 4), KS_ERR_INVALID);
    check_ok(ks_renderer_unmap_pbo(g_r), "unmap");
    free(src);
    free(want);
}

static void test_window_headless(void **state)
{
    (void)state;
    int w = 0, h = 0;
    ks_window_size(g_win, &w, &h);
    assert_int_equal(w, 320);
    assert_int_equal(h, 240);
    assert_true(ks_window_is_headless(g_win));
    assert_false(ks_window_should_close(g_win));
    ks_window_poll(g_win);
    ks_key_event ev;
    assert_false(ks_window_next_key(g_win, &ev));
    double x, y;
    assert_false(ks_window_cursor(g_win, &x, &y));
    check_ok(ks_window_present(g_win), "present");
    assert_non_null(strstr(ks_window_gl_description(g_win), "OpenGL"));
}

int main(void)
{
    ks_window_desc desc = {.width = 320, .height = 240, .headless = 1};
    ks_status st = ks_window_create(&desc, &g_win);
    if (st != KS_OK) {
        fprintf(stderr, "skipped: %s\n", ks_error_message());
        return 77;
    }
    fprintf(stderr, "%s\n", ks_window_gl_description(g_win));
    const ks_renderer_desc rd = {MAX_PIXELS};
    st = ks_renderer_create(&rd, &g_r);
    if (st != KS_OK) {
        fprintf(stderr, "renderer: %s\n", ks_error_message());
        ks_window_destroy(g_win);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_headless),
        cmocka_unit_test(test_pbo_roundtrip),
        cmocka_unit_test(test_resize_and_zero),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_upload_ring),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ks_renderer_destroy(g_r);
    ks_window_destroy(g_win);
    return failed;
}
