/* Where frames go: a GLFW window, or a headless EGL context (NVIDIA or Mesa
 * EGL device platform) rendering into an off-screen framebuffer. Both give an
 * OpenGL 3.3+ core context with GLEW loaded. */
#ifndef KS_WINDOW_H
#define KS_WINDOW_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_window ks_window;

typedef struct ks_window_desc {
    int width, height; /* framebuffer pixels; 0 -> 1280 x 800 */
    int headless;      /* 1: no window to show (EGL, unless hidden) */
    int hidden;        /* with headless: the context of an invisible GLFW window
                          instead of EGL. CUDA's GL interop serves one GL platform
                          (GLX or EGL) per process, so a process that also opens
                          windows draws its headless runs this way. */
    const char *title; /* NULL -> "kernelscope" */
} ks_window_desc;

/* Keys the app reacts to, independent of GLFW's codes. */
typedef enum ks_key {
    KS_KEY_NONE = 0,
    KS_KEY_ESCAPE, KS_KEY_SPACE, KS_KEY_TAB, KS_KEY_LEFT, KS_KEY_RIGHT, KS_KEY_UP, KS_KEY_DOWN,
    KS_KEY_PAGE_UP, KS_KEY_PAGE_DOWN, KS_KEY_LEFT_BRACKET, KS_KEY_RIGHT_BRACKET, KS_KEY_PLUS,
    KS_KEY_MINUS, KS_KEY_F1, KS_KEY_PERIOD, KS_KEY_COMMA, KS_KEY_HOME,
    KS_KEY_0 = '0', /* digits '0'..'9' are their ASCII codes (main row and keypad) */
    KS_KEY_A = 'A' /* letters 'A'..'Z' are their upper-case ASCII codes */
} ks_key;

typedef struct ks_key_event {
    int key;   /* ks_key or 'A'..'Z' */
    int shift; /* 1 when shift was held */
} ks_key_event;

/* No display and !headless -> KS_ERR_NO_DEVICE: "no display: set DISPLAY or use --headless". */
ks_status ks_window_create(const ks_window_desc *desc, ks_window **out);
void ks_window_destroy(ks_window *w);
int ks_window_is_headless(const ks_window *w);
/* Framebuffer size in pixels (window resizes are followed). */
void ks_window_size(const ks_window *w, int *width, int *height);
/* Processes window events; queued key presses (and repeats) come out of next_key. */
void ks_window_poll(ks_window *w);
/* A window: waits up to seconds for an event (a key, the pointer, a resize,
 * an expose, a close), processing it as ks_window_poll does; 1 when one came.
 * Headless: returns 0 at once. */
int ks_window_wait(ks_window *w, double seconds);
int ks_window_next_key(ks_window *w, ks_key_event *ev); /* 1 while events remain */
/* Cursor in framebuffer pixels, origin bottom-left; 0 when outside or headless. */
int ks_window_cursor(const ks_window *w, double *x, double *y);
/* Mouse wheel notches (up > 0) since the last call; 0 headless. */
double ks_window_take_scroll(ks_window *w);
/* 1 while the left mouse button is held (0 headless). */
int ks_window_left_button(const ks_window *w);
/* The largest framebuffer the window can get: its size now or, in a window,
 * the largest monitor at the window's pixel scale (whichever is larger). */
void ks_window_max_size(const ks_window *w, int *width, int *height);
int ks_window_should_close(const ks_window *w);
/* Shows the frame (swap); headless: nothing to do. */
ks_status ks_window_present(ks_window *w);
/* The GLFWwindow* of a window (for the UI's input backend); NULL when headless. */
void *ks_window_glfw(const ks_window *w);
/* "OpenGL 4.5 (Core Profile) Mesa ... / llvmpipe" style description. */
const char *ks_window_gl_description(const ks_window *w);

#ifdef __cplusplus
}
#endif
#endif
