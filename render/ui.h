/* The overlay UI (Dear ImGui behind a C header): movable, collapsible panels
 * drawn from a ks_view over the composed frame, in a window (GLFW input) or
 * headless (no input). What the mouse asks for comes back as key presses, so
 * the live loop feeds the scene one way for keyboard and mouse. */
#ifndef KS_UI_H
#define KS_UI_H

#include "render/view.h"
#include "render/window.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_UI_MAX_KEYS = 32, KS_UI_MAX_PANELS = 12 };

typedef struct ks_ui ks_ui;

typedef struct ks_ui_actions {
    int nkeys;
    ks_key_event keys[KS_UI_MAX_KEYS]; /* in order, as if typed */
    int mouse_captured;                /* 1: the cursor is over a panel (no probe) */
} ks_ui_actions;

typedef struct ks_ui_rect {
    char name[32];
    float x, y, w, h; /* framebuffer pixels, origin top-left */
} ks_ui_rect;

typedef struct ks_ui_desc {
    ks_window *window; /* the window whose GL context is current: its GLFW input drives the
                          panels; headless or NULL: no input */
    char *notice;      /* gets one line when the font falls back (else ""); NULL: none */
    size_t notice_cap; /* bytes at notice; 0: none */
} ks_ui_desc;

/* Needs the window's current GL context. The font is DejaVuSans from
 * fonts-dejavu-core when present, else ImGui's own (with a line in
 * desc->notice). desc NULL: every default. */
ks_status ks_ui_create(const ks_ui_desc *desc, ks_ui **out);
void ks_ui_destroy(ks_ui *ui);
/* Where the picture goes at this framebuffer size, beside the panel column:
 * x, y, w, h in framebuffer pixels, origin bottom-left (whole frame when !visible; above the timeline
 * strip when it is shown). */
void ks_ui_picture_area(const ks_ui *ui, int fb_w, int fb_h, int visible, float area[4]);
/* 1: the timeline strip is shown (the view's timeline is on): the picture
 * area leaves the bottom of the frame to it while the panels are visible. */
void ks_ui_set_strip(ks_ui *ui, int on);
/* Builds and draws the panels into the bound framebuffer (fb_w x fb_h).
 * visible = 0: only the message banner and the help panel (if help). */
ks_status ks_ui_frame(ks_ui *ui, const ks_view *view, int fb_w, int fb_h, int visible, int help,
                      ks_ui_actions *out);
/* Where the picture is in the next frame (x, y, w, h in framebuffer pixels,
 * origin bottom-left; NULL: none), for the view's captions over it. */
void ks_ui_set_picture_rect(ks_ui *ui, const float rect[4]);
/* Test hook: 1 when the Scene panel's row `label` ("scene" for the scene's
 * name) lay in the part of the panel shown in the last frame, not scrolled
 * or cut away. */
int ks_ui_row_shown(const ks_ui *ui, const char *label);
/* Test hook: the panels of the last frame (ImGui's own window rectangles). */
int ks_ui_panel_rects(const ks_ui *ui, ks_ui_rect *rects, int max);
/* Font pixel size in use (0 before the first frame). */
float ks_ui_font_px(const ks_ui *ui);

#ifdef __cplusplus
}
#endif
#endif
