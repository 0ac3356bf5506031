/* app/live/live_input.c on its own, with no window (the window and renderer
 * calls take NULL): the global keys, the scene's keys and their errors, a
 * page's input, and the viewport with one owner: the grid from the scene's
 * grid_size, zoom and pan from keys and pages, a new grid back to the fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "render/image_io.h"
#include "app/live/live_input.h"

static int g_keys;         /* keys the scene got */
static int g_grid_w = 200, g_grid_h = 100;

static ks_status stub_key(void *self, const ks_key_event *ev, int *handled)
{
    (void)self;
    ++g_keys;
    *handled = 1;
    return ev->key == 'B' ? ks_fail(KS_ERR_INVALID, "block refused") : KS_OK;
}

static void stub_grid(void *self, int *w, int *h)
{
    (void)self;
    *w = g_grid_w;
    *h = g_grid_h;
}

static ks_live_input make(int zoomable, ks_scene_api *api)
{
    memset(api, 0, sizeof *api);
    api->zoomable = zoomable;
    api->key = stub_key;
    api->grid_size = stub_grid;
    const ks_live_input_desc d = {NULL, NULL, api, NULL, 1, 400, 300};
    ks_live_input in;
    ks_live_input_init(&in, &d);
    g_keys = 0;
    g_grid_w = 200;
    g_grid_h = 100;
    return in;
}

static int press(ks_live_input *in, int key, ks_status *st)
{
    const ks_key_event ev = {key, 0};
    int quit = 0;
    *st = ks_live_input_key(in, &ev, &quit);
    return quit;
}

static void test_global_keys(void **state)
{
    (void)state;
    ks_scene_api api;
    ks_live_input in = make(0, &api);
    ks_status st;
    assert_int_equal(in.ctl.overlay, 1);
    assert_false(press(&in, KS_KEY_SPACE, &st));
    assert_int_equal(in.ctl.paused, 1);
    assert_false(press(&in, 'O', &st));
    assert_int_equal(in.ctl.overlay, 0);
    press(&in, 'S', &st);
    assert_int_equal(in.ctl.save_format, KS_FMT_PNG);
    press(&in, 'P', &st);
    assert_int_equal(in.ctl.save_format, KS_FMT_PPM);
    press(&in, 'F', &st);
    press(&in, 'E', &st);
    press(&in, 'G', &st);
    press(&in, 'H', &st);
    assert_true(in.ctl.save_bare && in.ctl.rec_toggle && in.ctl.roofline && in.ctl.help);
    assert_int_equal(g_keys, 0); /* none of these reach the scene */
    assert_true(press(&in, 'Q', &st));
    assert_true(press(&in, KS_KEY_ESCAPE, &st));
    /* the rest go to the scene; its failure comes back, the run goes on */
    assert_false(press(&in, 'C', &st));
    assert_int_equal(st, KS_OK);
    assert_false(press(&in, 'B', &st));
    assert_int_equal(st, KS_ERR_INVALID);
    assert_int_equal(g_keys, 2);
    /* not zoomable: the view keys are the scene's */
    press(&in, KS_KEY_PERIOD, &st);
    assert_int_equal(g_keys, 3);
    const float area[4] = {0, 0, 400, 300};
    ks_frame_ctx ctx = {0};
    ks_live_input_frame(&in, area, &ctx);
    assert_null(ctx.viewport);
    assert_ptr_equal(ks_live_input_picture_area(&in, area), area);
}

static void test_single_step(void **state)
{
    (void)state;
    ks_scene_api api;
    ks_live_input in = make(0, &api);
    const float area[4] = {0, 0, 400, 300};
    ks_status st;
    ks_frame_ctx ctx = {0};
    ks_live_input_frame(&in, area, &ctx);
    assert_true(ctx.step && !ctx.single);
    press(&in, 'N', &st); /* pauses and steps once */
    memset(&ctx, 0, sizeof ctx);
    ks_live_input_frame(&in, area, &ctx);
    assert_true(ctx.step && ctx.single);
    memset(&ctx, 0, sizeof ctx);
    ks_live_input_frame(&in, area, &ctx);
    assert_true(!ctx.step && !ctx.single);
}

static void test_viewport_owner(void **state)
{
    (void)state;
    ks_scene_api api;
    ks_live_input in = make(1, &api);
    const float area[4] = {10, 20, 400, 300};
    ks_frame_ctx ctx = {0};
    ks_live_input_frame(&in, area, &ctx);
    assert_ptr_equal(ctx.viewport, &in.viewport);
    assert_int_equal(ctx.viewport->grid_w, 200);
    assert_int_equal(ctx.viewport->grid_h, 100);
    assert_int_equal(ctx.viewport->area_w, 400);
    assert_ptr_equal(ks_live_input_picture_area(&in, area), in.view_area);
    ks_status st;
    press(&in, KS_KEY_PERIOD, &st); /* zoom in at the area's centre */
    assert_int_equal(in.viewport.level, 1);
    assert_int_equal(g_keys, 0);
    press(&in, KS_KEY_0, &st);
    assert_int_equal(in.viewport.level, 0);
    /* a page's wheel zooms, its drag pans; numbers out of range are ignored */
    int quit = 0;
    ks_input_event ev = {KS_INPUT_WHEEL, 0, 0, 100, 50, 0, 1, 1};
    assert_int_equal(ks_live_input_web(&in, &ev, &quit), KS_OK);
    assert_int_equal(in.viewport.level, 1);
    assert_true(ks_live_input_take_web(&in));
    assert_false(ks_live_input_take_web(&in));
    ev.dy = 1e9;
    ks_live_input_web(&in, &ev, &quit);
    assert_int_equal(in.viewport.level, 1);
    /* the scene's grid changes (another slice): the next frame goes back to the fit */
    press(&in, KS_KEY_PERIOD, &st);
    assert_int_equal(in.viewport.level, 2);
    g_grid_w = 300;
    ks_live_input_frame(&in, area, &ctx);
    assert_int_equal(in.viewport.grid_w, 300);
    assert_int_equal(in.viewport.level, 0);
    /* the page's pointer: no picture yet (no renderer), no probe */
    ks_input_event mouse = {KS_INPUT_MOUSE, 0, 0, 5, 5, 0, 0, 1};
    ks_live_input_web(&in, &mouse, &quit);
    memset(&ctx, 0, sizeof ctx);
    ks_live_input_frame(&in, area, &ctx);
    assert_false(ctx.probe_valid);
    /* the view fields: the zoom control and the cells shown */
    ks_view v;
    memset(&v, 0, sizeof v);
    ks_live_input_view(&in, &v);
    assert_int_equal(v.viewport.on, 1);
    assert_int_equal(v.viewport.grid_w, 300);
    assert_int_equal(v.ncontrols, 1);
    assert_string_equal(v.controls[0].label, "zoom");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_global_keys), cmocka_unit_test(test_single_step),
                                       cmocka_unit_test(test_viewport_owner)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
