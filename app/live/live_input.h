/* The live view's input and its viewport: keys (window, panels, pages), the
 * mouse over the picture (probe, wheel zoom, drag pan) and the page's
 * pointer. The viewport of a zoomable scene has one owner, this module: it
 * takes the scene's grid (ks_scene_api.grid_size) and the picture area each
 * frame, and the scene only reads it (ks_frame_ctx.viewport). */
#ifndef KS_LIVE_INPUT_H
#define KS_LIVE_INPUT_H

#include "render/renderer.h"
#include "render/view.h"
#include "render/viewport.h"
#include "render/window.h"
#include "serve/input_queue.h"
#include "app/scene.h"

/* What the global keys set, for the frame loop to act on. */
typedef struct ks_live_controls {
    int paused, single;  /* Space, N (single: advance one step while paused) */
    int overlay, help, roofline; /* O, H, G */
    int save_format;     /* S / P: 0 none, else the ks_image_format of a pending save */
    int save_bare;       /* F pressed */
    int rec_toggle;      /* E pressed: start / stop once the frame is composed */
    int counters_ask;    /* K (or the Hardware panel's Measure): measure the running kernel after this frame */
    int timeline;        /* T: the timeline strip on / off */
} ks_live_controls;

typedef struct ks_live_input_desc {
    ks_window *win;           /* required */
    const ks_renderer *renderer; /* picks the probe of a scene that is not zoomable; required */
    const ks_scene_api *api;  /* its keys go here; required */
    void *scene;
    int overlay;              /* panels shown at the start (0: hidden) */
    int pic_cap_w, pic_cap_h; /* zoomable: the largest picture the pixel buffer holds */
} ks_live_input_desc;

/* A plain struct the frame loop holds; its fields are this module's. */
typedef struct ks_live_input {
    ks_live_input_desc d;
    ks_live_controls ctl;
    int mouse_captured;        /* last frame: the cursor was over a panel */
    ks_viewport viewport;      /* zoomable scenes: zoom and pan, sized to the picture area */
    float view_area[4];        /* the viewport's area in the frame (x, y, w, h; bottom-left) */
    double scroll;             /* wheel notches not yet a whole zoom step */
    int dragging, was_held;    /* a left-button drag that began on the picture */
    double drag_x, drag_y;     /* its last cursor position, framebuffer pixels */
    int web_input;             /* this frame took input from a page: publish the state now */
    int web_probe, web_a, web_b; /* the page's pointer over the picture (pixel, b = 0 bottom row) */
} ks_live_input;

void ks_live_input_init(ks_live_input *in, const ks_live_input_desc *desc);
/* A key from the window or a panel: the global keys set in->ctl, the view
 * keys zoom, the rest go to the scene. *quit = 1 for Esc / Q. A scene key
 * that failed (e.g. a block the device refuses) returns its error; the scene
 * keeps its old state and the run goes on. */
ks_status ks_live_input_key(ks_live_input *in, const ks_key_event *ev, int *quit);
/* What a page sent: keys as above, the pointer probes the picture, a
 * zoomable scene's wheel and drag zoom and pan as in the window. */
ks_status ks_live_input_web(ks_live_input *in, const ks_input_event *ev, int *quit);
/* Before the frame is drawn: the picture area (area: ks_ui_picture_area),
 * the wheel and drag, the scene's grid; fills ctx's step, single, viewport
 * and probe, and ends a single step. */
void ks_live_input_frame(ks_live_input *in, const float area[4], ks_frame_ctx *ctx);
/* Where the picture is drawn: a zoomable scene's viewport area, else area. */
const float *ks_live_input_picture_area(const ks_live_input *in, const float area[4]);
/* 1 when a page sent input since the last call. */
int ks_live_input_take_web(ks_live_input *in);
/* A zoomable scene's view fields: the zoom control, the cells shown, the
 * numbers for the JSON (nothing before the scene has a grid). */
void ks_live_input_view(const ks_live_input *in, ks_view *v);

#endif
