/* The display: kernelscope's one path from a picture and a view model to
 * what the user sees. Each frame it takes the picture (in the renderer's
 * ring, where CUDA or the CPU backend drew it, or a host picture) and the view
 * (render/view.h), and
 *   - with GL: draws the picture and the panels into the frame and shows it
 *     (a window, or headless);
 *   - serves the page (--serve): the state document and the bare picture;
 *   - records the video (--record, the E key): the frame as shown.
 * The app's live loop (app/live/live.c) and libkernelscope's viewer thread
 * (lib/viewer.c) both draw through it. A display belongs to the thread that
 * made it (its GL context is current there). */
#ifndef KS_DISPLAY_H
#define KS_DISPLAY_H

#include <stddef.h>

#include "display/display_serve.h"
#include "display/display_video.h"
#include "render/renderer.h"
#include "render/ui.h"
#include "render/view.h"
#include "render/window.h"

typedef struct ks_display ks_display;

typedef struct ks_display_desc {
    int gl;                   /* 1: a GL context (window.headless: without a window), the renderer and
                                 the panels; 0: no GL, host pictures go to the page and the video as
                                 they are (a library viewer without a window) */
    ks_window_desc window;    /* with gl */
    int max_width, max_height; /* with gl: the largest picture (the renderer's ring); 0: 1280 x 800 */
    int fit_screen;           /* with gl: the largest picture is at least the largest screen (a scene
                                 that draws its picture at the size shown, render/viewport.h) */
    int panels;               /* with gl: the ImGui panels (render/ui.h; one display with panels a process) */
    const ks_display_serve_desc *serve; /* the page; NULL: none. Its max_width / max_height 0: the
                                           largest picture's */
    int video_fps;            /* the video's clock; 0: 60 */
    int video_by_frame;       /* 1: one video period a frame (headless runs that go as fast as they can) */
    char *notice;             /* gets the panels' font notice ("" none); NULL: none */
    size_t notice_cap;
} ks_display_desc;

/* One frame to show. */
typedef struct ks_display_frame {
    const ks_view *view;      /* the panels and the page's state; required */
    const unsigned char *rgba; /* a host picture, rows top-down, width x height; NULL: the renderer's
                                  picture (the caller set it through ks_display_renderer) */
    int width, height;
    const float *area;        /* with gl: where the picture goes (x, y, w, h from the bottom left); NULL: the
                                 frame less the panel column when panels are shown, else the whole frame */
    int panels;               /* the panels shown (0: only the message banner and the help) */
    int help;                 /* the help panel open */
    int force_state;          /* the page's state document now, not at most 60 times a second */
    int redraw;               /* the last frame drawn again (a window's expose or resize): the window only */
} ks_display_frame;

ks_status ks_display_create(const ks_display_desc *desc, ks_display **out);
void ks_display_destroy(ks_display *d);

/* The parts, for a caller that drives them (NULL where the display has none). */
ks_window *ks_display_window(ks_display *d);
ks_renderer *ks_display_renderer(ks_display *d);
ks_ui *ks_display_ui(ks_display *d);
ks_display_serve *ks_display_page(ks_display *d);
ks_display_video *ks_display_video_of(ks_display *d);
/* The largest picture (with gl, after fit_screen). */
void ks_display_max_picture(const ks_display *d, int *width, int *height);

/* Input: the window's events processed, and the pages' input, oldest first
 * (1 while events remain); keys come out of ks_window_next_key. */
void ks_display_poll(ks_display *d);
int ks_display_next_input(ks_display *d, ks_input_event *ev);
/* Sleeps up to seconds (at most 1) until there is input: a window event or
 * input from a page (ks_display_poll and next_input then take it). Returns
 * what woke it, KS_DISPLAY_WOKE_WINDOW or KS_DISPLAY_WOKE_PAGE, or 0 after
 * the time. A window with a page wakes for the page's input within 50 ms
 * (GLFW's wait cannot be woken by the server's thread). */
enum { KS_DISPLAY_WOKE_WINDOW = 1, KS_DISPLAY_WOKE_PAGE = 2 };
int ks_display_wait(ks_display *d, double seconds);
/* 1 while a page's viewer waits for pictures (0 without a page). */
int ks_display_wants_pictures(ks_display *d);
/* The page's state document from view now (no page: nothing): the last frame
 * drawn before the loop waits, so that /state.json says what is shown. */
ks_status ks_display_publish_state(ks_display *d, const ks_view *view);

/* Draws and shows the frame (with gl), then hands it to the video and the
 * page. act (may be NULL) gets what the mouse asked of the panels; msg gets
 * the error of a recording started by the key that failed and stopped ("" else). */
ks_status ks_display_show(ks_display *d, const ks_display_frame *f, ks_ui_actions *act, char *msg, size_t msg_cap);

#endif
