/* The renderer on a headless EGL context (Mesa llvmpipe here, NVIDIA on the GPU
 * machine): PBO -> texture byte-exact, overlay pieces where they belong, pick,
 * resizes, and error paths. Exits 77 when no EGL display can be had. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/colormap.h"
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

    /* overlay hidden: picture only, fit and centred; pick() and pixels agree */
    ks_overlay ov = {0};
    check_ok(ks_renderer_draw(g_r, 400, 300, &ov), "draw");
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

/* Is the rgb of some pixel in the rectangle exactly c? */
static int contains(const unsigned char *f, int w, int h, int x0, int y0, int x1, int y1,
                    const unsigned char c[4])
{
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            if (memcmp(px(f, w, h, x, y), c, 3) == 0) return 1;
    return 0;
}

static int distinct_colours(const unsigned char *f, int w, int h, int x0, int y0, int x1, int y1)
{
    const unsigned char *first = px(f, w, h, x0, y0);
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) n += memcmp(px(f, w, h, x, y), first, 3) != 0;
    return n;
}

static void test_overlay(void **state)
{
    (void)state;
    upload(PW, PH, 3);
    float plot_x[50], plot_y[50];
    for (int i = 0; i < 50; ++i) {
        plot_x[i] = (float)(i * 100);
        plot_y[i] = -0.12f * (float)i;
    }
    ks_overlay ov = {0};
    ov.visible = 1;
    ov.text = "Laplace 512 x 512  Jacobi\nvariant: smem_tiled\n1234 it/s   0.81 ms/iter";
    ov.table = "variant\tms\tGB/s\nnaive\t1.25\t310\nsmem_tiled\t0.81\t480";
    ov.message = "CUDA error: out of memory";
    ov.colorbar = 1;
    ov.cmap = KS_CMAP_VIRIDIS;
    ov.lo = 0.0f;
    ov.hi = 1.0f;
    ov.colorbar_label = "potential";
    ov.plot_x = plot_x;
    ov.plot_y = plot_y;
    ov.plot_n = 50;
    ov.plot_title = "log10 residual";
    ov.hover = "(12, 40) = 0.53";
    ov.cursor_x = 400;
    ov.cursor_y = 300;
    check_ok(ks_renderer_draw(g_r, 800, 600, &ov), "draw overlay");
    unsigned char *f = NULL;
    int w = 0, h = 0;
    check_ok(ks_renderer_read_frame(g_r, &f, &w, &h), "read_frame");
    assert_int_equal(w, 800);
    assert_int_equal(h, 600);
    snapshot("render_headless_overlay", f, w, h);

    /* colour bar at the right: both end colours of the map, and nothing in the picture */
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_CMAP_VIRIDIS, table);
    assert_true(contains(f, w, h, 700, 0, 800, 600, table[0]));
    assert_true(contains(f, w, h, 700, 0, 800, 600, table[255]));
    assert_true(contains(f, w, h, 700, 0, 800, 600, table[128]));
    /* banner: red across the top, white text on it */
    const unsigned char *ban = px(f, w, h, 790, 598);
    assert_true(ban[0] > 150 && ban[1] < 60 && ban[2] < 60);
    const unsigned char white[4] = {255, 255, 255, 255};
    assert_true(contains(f, w, h, 0, 570, 400, 600, white));
    /* text panel top-left, below the banner: text makes it non-uniform */
    assert_true(distinct_colours(f, w, h, 8, 480, 300, 560) > 200);
    /* plot bottom-left: the curve colour appears */
    const unsigned char curve[4] = {255, 196, 64, 255};
    assert_true(contains(f, w, h, 0, 0, 300, 200, curve));
    /* every pixel opaque */
    for (size_t i = 0; i < (size_t)w * h; ++i) assert_int_equal(f[4 * i + 3], 255);
    /* the picture centre still maps to its centre pixel */
    free(f);

    /* the app's default window size, for a person to judge (KS_RENDER_SNAPSHOT_DIR) */
    ov.lo = -3e-5f;
    ov.hi = 2e-5f;
    ov.message = NULL;
    check_ok(ks_renderer_draw(g_r, 1280, 800, &ov), "draw overlay 1280x800");
    check_ok(ks_renderer_read_frame(g_r, &f, &w, &h), "read_frame");
    snapshot("render_headless_overlay_1280x800", f, w, h);
    free(f);
    check_ok(ks_renderer_draw(g_r, 800, 600, &ov), "draw overlay");

    /* picture fills the height; find its horizontal centre through pick */
    int a = -1, b = -1;
    int left = -1, right = -1;
    for (int x = 0; x < 800; ++x)
        if (ks_renderer_pick(g_r, x + 0.5, 300.5, &a, &b)) {
            if (left < 0) left = x;
            right = x;
        }
    assert_true(left > 0 && right < 700);
    assert_true(ks_renderer_pick(g_r, 0.5 * (left + right + 1), 300.0, &a, &b));
    assert_int_equal(a, PW / 2);
    assert_int_equal(b, PH / 2);
}

static void test_colorbar_ranges(void **state)
{
    (void)state;
    const float ranges[][2] = {{0, 1}, {-3e-5f, 2e-5f}, {0, 0}, {5, -5}, {1e6f, 3e6f}, {NAN, 1}};
    ks_overlay ov = {0};
    ov.visible = 1;
    ov.colorbar = 1;
    ov.cmap = KS_CMAP_INFERNO;
    ov.colorbar_label = "a long colour bar label that runs past the column";
    unsigned char table[256][4];
    ks_colormap_table_rgba(KS_CMAP_INFERNO, table);
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i) {
        ov.lo = ranges[i][0];
        ov.hi = ranges[i][1];
        check_ok(ks_renderer_draw(g_r, 1280, 800, &ov), "draw colour bar");
        unsigned char *f = NULL;
        int w = 0, h = 0;
        check_ok(ks_renderer_read_frame(g_r, &f, &w, &h), "read_frame");
        assert_true(contains(f, w, h, 1100, 0, 1280, 800, table[0]));
        assert_true(contains(f, w, h, 1100, 0, 1280, 800, table[255]));
        if (i == 1) snapshot("render_headless_colorbar_small", f, w, h);
        if (i == 2) snapshot("render_headless_colorbar_degenerate", f, w, h);
        free(f);
    }
}

static void test_help_and_hidden(void **state)
{
    (void)state;
    upload(PW, PH, 11);
    ks_overlay ov = {0};
    check_ok(ks_renderer_draw(g_r, 640, 480, &ov), "draw");
    unsigned char *plain = NULL, *helped = NULL;
    int w = 0, h = 0;
    check_ok(ks_renderer_read_frame(g_r, &plain, &w, &h), "read_frame");
    ov.help = "Keys\n  space   pause\n  tab     next variant\n  F1      this help\n  esc     quit";
    ov.text = "hidden text must not show";
    ov.colorbar = 1;
    check_ok(ks_renderer_draw(g_r, 640, 480, &ov), "draw help");
    check_ok(ks_renderer_read_frame(g_r, &helped, &w, &h), "read_frame");
    snapshot("render_headless_help", helped, w, h);
    /* the centre changed (help panel), the top-left corner did not (no text panel) */
    assert_memory_not_equal(px(plain, w, h, 320, 240), px(helped, w, h, 320, 240), 3);
    for (int y = 440; y < 480; ++y)
        for (int x = 0; x < 100; ++x) assert_memory_equal(px(plain, w, h, x, y), px(helped, w, h, x, y), 4);
    free(plain);
    free(helped);
}

static void test_resize_and_zero(void **state)
{
    (void)state;
    upload(PW, PH, 5);
    ks_overlay ov = {0};
    ov.visible = 1;
    ov.text = "resize";
    ov.colorbar = 1;
    ov.hi = 1;
    const int sizes[][2] = {{1280, 800}, {1, 1}, {0, 0}, {0, 600}, {3, 2000}, {640, 480}, {300, 200}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        int fw = sizes[i][0], fh = sizes[i][1];
        check_ok(ks_renderer_draw(g_r, fw, fh, &ov), "draw");
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
    assert_int_equal(ks_renderer_draw(g_r, 100, 100, NULL), KS_ERR_INVALID);
    assert_int_equal(ks_renderer_set_image(g_r, 4, 4), KS_ERR_INVALID);
    check_ok(ks_renderer_unmap_pbo(g_r), "unmap");
    assert_int_equal(ks_renderer_unmap_pbo(g_r), KS_ERR_INVALID);
    check_ok(ks_renderer_draw(g_r, 100, 100, NULL), "draw without overlay");

    ks_renderer *fresh = NULL;
    assert_int_equal(ks_renderer_create(0, &fresh), KS_ERR_INVALID);
    check_ok(ks_renderer_create(16, &fresh), "create");
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
    st = ks_renderer_create(MAX_PIXELS, &g_r);
    if (st != KS_OK) {
        fprintf(stderr, "renderer: %s\n", ks_error_message());
        ks_window_destroy(g_win);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_headless),
        cmocka_unit_test(test_pbo_roundtrip),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_colorbar_ranges),
        cmocka_unit_test(test_help_and_hidden),
        cmocka_unit_test(test_resize_and_zero),
        cmocka_unit_test(test_errors),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ks_renderer_destroy(g_r);
    ks_window_destroy(g_win);
    return failed;
}
