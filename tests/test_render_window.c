/* A real GLFW window (under xvfb-run in ctest): the frame reaches the window's
 * framebuffer, sizes agree, and without a display the error says what to do.
 * Exits 77 when there is no display. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>

#include "render/renderer.h"
#include "render/ui.h"
#include "render/view.h"
#include "render/window.h"

static ks_window *g_win;
static ks_ui *g_ui; /* with the GLFW input backend */


static void check_ok(ks_status st, const char *what)
{
    if (st != KS_OK) fail_msg("%s: %s: %s", what, ks_status_name(st), ks_error_message());
}

static void test_frame_reaches_window(void **state)
{
    (void)state;
    int fw = 0, fh = 0;
    ks_window_poll(g_win);
    ks_window_size(g_win, &fw, &fh);
    assert_true(fw > 0 && fh > 0);
    ks_renderer *r = NULL;
    const ks_renderer_desc rd = {64 * 64};
    check_ok(ks_renderer_create(&rd, &r), "renderer");
    void *p = NULL;
    check_ok(ks_renderer_map_pbo(r, &p), "map");
    unsigned char *q = p;
    for (int i = 0; i < 64 * 64; ++i) {
        q[4 * i + 0] = (unsigned char)(i % 64 * 4);
        q[4 * i + 1] = (unsigned char)(i / 64 * 4);
        q[4 * i + 2] = 200;
        q[4 * i + 3] = 255;
    }
    check_ok(ks_renderer_unmap_pbo(r), "unmap");
    check_ok(ks_renderer_set_image(r, 64, 64), "set_image");
    float area[4];
    ks_ui_picture_area(g_ui, fw, fh, 1, area);
    check_ok(ks_renderer_begin(r, fw, fh, area), "begin");
    ks_view view = {0};
    ks_view_num(&view, KS_VGROUP_FRAME, "fps", 60.0, "", KS_VFMT_F1);
    view.colorbar.on = 1;
    view.colorbar.hi = 1.0;
    ks_ui_actions act;
    check_ok(ks_ui_frame(g_ui, &view, fw, fh, 1, 0, &act), "ui frame");
    assert_int_equal(act.nkeys, 0);
    check_ok(ks_renderer_end(r), "end");

    /* the blit put the composed frame into the window's back buffer */
    unsigned char *frame = NULL;
    int w = 0, h = 0;
    check_ok(ks_renderer_read_frame(r, &frame, &w, &h), "read_frame");
    assert_int_equal(w, fw);
    assert_int_equal(h, fh);
    unsigned char back[4] = {0};
    int cx = fw / 3, cy = fh / 2;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(cx, cy, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, back);
    assert_int_equal(glGetError(), GL_NO_ERROR);
    assert_memory_equal(back, frame + ((size_t)(h - 1 - cy) * (size_t)w + (size_t)cx) * 4, 3);

    int a = -1, b = -1;
    if (ks_renderer_pick(r, cx + 0.5, cy + 0.5, &a, &b)) {
        const unsigned char *pix = frame + ((size_t)(h - 1 - cy) * (size_t)w + (size_t)cx) * 4;
        assert_int_equal(pix[0], a * 4);
        assert_int_equal(pix[1], b * 4);
    }
    free(frame);
    check_ok(ks_window_present(g_win), "present");
    ks_window_poll(g_win);
    ks_key_event ev;
    while (ks_window_next_key(g_win, &ev)) {
    }
    double x, y;
    if (ks_window_cursor(g_win, &x, &y)) assert_true(x >= 0 && y >= 0 && x < fw && y < fh);
    assert_false(ks_window_should_close(g_win));
    ks_renderer_destroy(r);
}

static void test_description(void **state)
{
    (void)state;
    assert_false(ks_window_is_headless(g_win));
    assert_non_null(strstr(ks_window_gl_description(g_win), "OpenGL"));
}

/* Runs first, before a window exists: with DISPLAY and WAYLAND_DISPLAY unset a
 * window request fails with the hint, and nothing is left initialised. */
static int no_display_case(void)
{
    char *saved_x = getenv("DISPLAY") ? strdup(getenv("DISPLAY")) : NULL;
    char *saved_w = getenv("WAYLAND_DISPLAY") ? strdup(getenv("WAYLAND_DISPLAY")) : NULL;
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    ks_window *w = NULL;
    ks_status st = ks_window_create(&(ks_window_desc){0}, &w);
    int ok = st == KS_ERR_NO_DEVICE && w == NULL &&
             strcmp(ks_error_message(), "no display: set DISPLAY or pass --headless") == 0;
    if (!ok) fprintf(stderr, "no-display case: %d '%s'\n", (int)st, ks_error_message());
    if (saved_x) setenv("DISPLAY", saved_x, 1);
    if (saved_w) setenv("WAYLAND_DISPLAY", saved_w, 1);
    free(saved_x);
    free(saved_w);
    return ok;
}

int main(void)
{
    if (!no_display_case()) return 1;
    ks_window_desc desc = {.width = 640, .height = 400, .title = "kernelscope test"};
    ks_status st = ks_window_create(&desc, &g_win);
    if (st == KS_ERR_NO_DEVICE) {
        fprintf(stderr, "skipped: %s\n", ks_error_message());
        return 77;
    }
    if (st != KS_OK) {
        fprintf(stderr, "window: %s\n", ks_error_message());
        return 1;
    }
    fprintf(stderr, "%s\n", ks_window_gl_description(g_win));
    if (ks_ui_create(&(ks_ui_desc){.window = g_win}, &g_ui) != KS_OK) {
        fprintf(stderr, "ui: %s\n", ks_error_message());
        ks_window_destroy(g_win);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_description),
        cmocka_unit_test(test_frame_reaches_window),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ks_ui_destroy(g_ui);
    ks_window_destroy(g_win);
    return failed;
}
