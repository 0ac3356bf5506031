#include "app/live/live_input.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/image_io.h"

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

void ks_live_input_init(ks_live_input *in, const ks_live_input_desc *desc)
{
    memset(in, 0, sizeof *in);
    in->d = *desc;
    in->ctl.overlay = desc->overlay;
    ks_viewport_init(&in->viewport);
}

/* The cursor in the viewport's area pixels; 0 when it is not over the area. */
static int view_cursor(const ks_live_input *in, int *ax, int *ay)
{
    double cx, cy;
    if (in->mouse_captured || !ks_window_cursor(in->d.win, &cx, &cy)) return 0;
    *ax = (int)floor(cx - in->view_area[0]);
    *ay = (int)floor(cy - in->view_area[1]);
    return *ax >= 0 && *ay >= 0 && *ax < in->viewport.area_w && *ay < in->viewport.area_h;
}

/* Zoom keys of a zoomable scene (at the cursor when it is over the picture
 * area, else at the area's centre); 1 when the key was one of them. */
static int view_key(ks_live_input *in, const ks_key_event *ev)
{
    int ax, ay;
    if (!view_cursor(in, &ax, &ay)) {
        ax = in->viewport.area_w / 2;
        ay = in->viewport.area_h / 2;
    }
    switch (ev->key) {
    case KS_KEY_PERIOD: ks_viewport_zoom(&in->viewport, 1, ax, ay); return 1;
    case KS_KEY_COMMA: ks_viewport_zoom(&in->viewport, -1, ax, ay); return 1;
    case KS_KEY_0:
    case KS_KEY_HOME: ks_viewport_reset(&in->viewport); return 1;
    default: return 0;
    }
}

ks_status ks_live_input_key(ks_live_input *in, const ks_key_event *ev, int *quit)
{
    ks_live_controls *c = &in->ctl;
    switch (ev->key) {
    case KS_KEY_ESCAPE:
    case 'Q': *quit = 1; return KS_OK;
    case KS_KEY_SPACE: c->paused = !c->paused; return KS_OK;
    case 'N':
        c->paused = 1;
        c->single = 1;
        return KS_OK;
    case 'O': c->overlay = !c->overlay; return KS_OK;
    case 'H':
    case KS_KEY_F1: c->help = !c->help; return KS_OK;
    case 'G': c->roofline = !c->roofline; return KS_OK;
    case 'S': c->save_format = KS_FMT_PNG; return KS_OK;
    case 'P': c->save_format = KS_FMT_PPM; return KS_OK;
    case 'F': c->save_bare = 1; return KS_OK;
    case 'E': c->rec_toggle = 1; return KS_OK;
    case 'K': c->counters_ask = 1; return KS_OK;
    case 'T': c->timeline = !c->timeline; return KS_OK;
    default: break;
    }
    if (in->d.api->zoomable && view_key(in, ev)) return KS_OK;
    int handled = 0;
    return in->d.api->key(in->d.scene, ev, &handled);
}

ks_status ks_live_input_web(ks_live_input *in, const ks_input_event *ev, int *quit)
{
    in->web_input = 1;
    if (ev->type == KS_INPUT_KEY) {
        const ks_key_event key = {ev->key, ev->shift};
        return ks_live_input_key(in, &key, quit);
    }
    if (ev->type == KS_INPUT_MOUSE) {
        in->web_probe = ev->inside;
        in->web_a = (int)ev->x;
        in->web_b = (int)ev->y;
    }
    /* A zoomable scene zooms and pans as in the window (the page keeps the
     * picture fitted); other scenes' pictures are zoomed by the page itself.
     * The page's numbers are picture pixels, checked like any input. */
    if (in->d.api->zoomable && (ev->type == KS_INPUT_WHEEL || ev->type == KS_INPUT_DRAG) && isfinite(ev->x) &&
        isfinite(ev->y) && isfinite(ev->dx) && isfinite(ev->dy) && fabs(ev->x) < 1e6 && fabs(ev->y) < 1e6 &&
        fabs(ev->dx) < 1e6 && fabs(ev->dy) < 1e6) {
        int ox, oy;
        ks_viewport_offset(&in->viewport, &ox, &oy);
        if (ev->type == KS_INPUT_WHEEL && ev->dy != 0.0)
            ks_viewport_zoom(&in->viewport, ev->dy > 0.0 ? 1 : -1, ox + (int)floor(ev->x), oy + (int)floor(ev->y));
        else if (ev->type == KS_INPUT_DRAG)
            ks_viewport_pan(&in->viewport, (int)lround(ev->dx), (int)lround(ev->dy));
    }
    return KS_OK;
}

/* A zoomable scene's area and mouse, before the frame is drawn: the
 * viewport gets the picture area (at most what the pixel buffer holds,
 * centred in it), the wheel zooms at the cursor, a left-button drag that
 * began on the picture area pans. Panels that have the mouse keep it. */
static void view_mouse(ks_live_input *in, const float area[4])
{
    const int aw = area[2] > 0.0f ? (int)area[2] : 0, ah = area[3] > 0.0f ? (int)area[3] : 0;
    const int vw = clampi(aw, 1, in->d.pic_cap_w), vh = clampi(ah, 1, in->d.pic_cap_h);
    in->view_area[0] = area[0] + (float)((aw - vw) / 2);
    in->view_area[1] = area[1] + (float)((ah - vh) / 2);
    in->view_area[2] = (float)vw;
    in->view_area[3] = (float)vh;
    ks_viewport_set_area(&in->viewport, vw, vh);

    int ax, ay;
    const int over = view_cursor(in, &ax, &ay);
    const double notches = ks_window_take_scroll(in->d.win);
    if (over) {
        /* touchpads send fractions of a notch: a step per whole notch */
        in->scroll += notches;
        const int steps = (int)in->scroll;
        in->scroll -= steps;
        if (steps) ks_viewport_zoom(&in->viewport, steps, ax, ay);
    } else {
        in->scroll = 0.0;
    }
    const int held = ks_window_left_button(in->d.win);
    double cx, cy;
    if (!held) {
        in->dragging = 0;
    } else if (!in->was_held && over && ks_window_cursor(in->d.win, &cx, &cy)) {
        in->dragging = 1; /* pressed on the picture area, not on a panel */
        in->drag_x = cx;
        in->drag_y = cy;
    } else if (in->dragging && ks_window_cursor(in->d.win, &cx, &cy)) {
        const int dx = (int)floor(cx) - (int)floor(in->drag_x), dy = (int)floor(cy) - (int)floor(in->drag_y);
        if (dx || dy) {
            ks_viewport_pan(&in->viewport, dx, dy);
            in->drag_x = cx;
            in->drag_y = cy;
        }
    }
    in->was_held = held;
}

void ks_live_input_frame(ks_live_input *in, const float area[4], ks_frame_ctx *ctx)
{
    const ks_scene_api *api = in->d.api;
    ctx->step = !in->ctl.paused || in->ctl.single;
    ctx->single = in->ctl.paused && in->ctl.single;
    double cx, cy;
    if (api->zoomable) {
        view_mouse(in, area);
        /* the scene's grid as it is now (a key may have changed its slice);
         * a new size goes back to the fit */
        int gw = 0, gh = 0;
        api->grid_size(in->d.scene, &gw, &gh);
        if (gw > 0 && gh > 0) ks_viewport_set_grid(&in->viewport, gw, gh);
        ctx->viewport = &in->viewport;
        int ax, ay;
        if (view_cursor(in, &ax, &ay))
            ctx->probe_valid = ks_viewport_pick(&in->viewport, ax, ay, &ctx->probe_a, &ctx->probe_b);
    } else if (!in->mouse_captured && ks_window_cursor(in->d.win, &cx, &cy)) {
        ctx->probe_valid = ks_renderer_pick(in->d.renderer, cx, cy, &ctx->probe_a, &ctx->probe_b);
    }
    int pic_w = 0, pic_h = 0;
    ks_renderer_image_texture(in->d.renderer, &pic_w, &pic_h);
    if (!ctx->probe_valid && in->web_probe && in->web_a >= 0 && in->web_b >= 0 && in->web_a < pic_w &&
        in->web_b < pic_h) { /* a page's numbers are checked like any input */
        ctx->probe_valid = 1;
        ctx->probe_a = in->web_a;
        ctx->probe_b = in->web_b;
    }
    in->ctl.single = 0;
}

const float *ks_live_input_picture_area(const ks_live_input *in, const float area[4])
{
    return in->d.api->zoomable ? in->view_area : area;
}

int ks_live_input_take_web(ks_live_input *in)
{
    const int was = in->web_input;
    in->web_input = 0;
    return was;
}

/* The zoom as a control (< > send the zoom keys), the cells shown, and the
 * numbers for the JSON. */
void ks_live_input_view(const ks_live_input *in, ks_view *v)
{
    const ks_viewport *vp = &in->viewport;
    if (!in->d.api->zoomable || vp->grid_w <= 0) return;
    ks_cellmap m;
    ks_viewport_map(vp, &m);
    v->viewport.on = 1;
    v->viewport.zoom = ks_viewport_zoom_factor(vp);
    v->viewport.px_per_cell = ks_viewport_px_per_cell(vp);
    v->viewport.grid_w = vp->grid_w;
    v->viewport.grid_h = vp->grid_h;
    ks_viewport_shown(vp, &v->viewport.x0, &v->viewport.x1, &v->viewport.y0, &v->viewport.y1);
    v->viewport.pic_w = m.x.pixels;
    v->viewport.pic_h = m.y.pixels;
    ks_vcontrol *c = ks_view_control(v, "zoom", KS_KEY_COMMA, KS_KEY_PERIOD);
    if (c) snprintf(c->value, sizeof c->value, "%.2fx", v->viewport.zoom);
    ks_view_num(v, KS_VGROUP_SCENE, "zoom", v->viewport.zoom, "x", KS_VFMT_F2);
    ks_view_num(v, KS_VGROUP_SCENE, "pixels/cell", v->viewport.px_per_cell, "", KS_VFMT_G4);
    ks_view_text(v, KS_VGROUP_SCENE, "cells shown", "x %d..%d, y %d..%d", v->viewport.x0, v->viewport.x1 - 1,
                 v->viewport.y0, v->viewport.y1 - 1);
}
