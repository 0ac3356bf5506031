/* Internal to lib/: the viewer's own window (ks_viewer_desc.window). Made,
 * drawn and polled on the viewer's thread, which holds its GL context: the
 * newest picture fitted into the window, and the keys Space, N, Q / Escape
 * and the window's close button for ks_viewer_poll. */
#ifndef KS_VIEWER_WINDOW_H
#define KS_VIEWER_WINDOW_H

#include "kernels/common/ks_error.h"

typedef struct ks_vwin ks_vwin;

/* A window of width x height framebuffer pixels titled title. KS_ERR_NO_DEVICE
 * without a display; KS_ERR_UNSUPPORTED while another viewer of this process
 * has its window (GLFW serves one thread). */
ks_status ks_vwin_create(const char *title, int width, int height, ks_vwin **out);
void ks_vwin_destroy(ks_vwin *w);
/* Draws rgba (w x h, rows top-down) fitted into the window and shows it;
 * rgba NULL: the last picture again (a resize, an expose). */
ks_status ks_vwin_draw(ks_vwin *win, const unsigned char *rgba, int w, int h);
/* Events since the last call: Space presses (each toggles the pause), N
 * presses (steps), and 1 in *quit for Q, Escape or the close button. */
void ks_vwin_poll(ks_vwin *win, int *pause_toggles, int *steps, int *quit);

#endif
