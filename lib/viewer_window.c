/* The viewer's window (viewer_window.h) over the app's own window and
 * renderer (render/window.h, render/renderer.h): the picture is uploaded
 * like the CPU backend's, bottom row first. */
#include "lib/viewer_window.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "render/renderer.h"
#include "render/window.h"

struct ks_vwin {
    ks_window *window;
    ks_renderer *renderer;
    unsigned char *flipped; /* the picture bottom row first, as the renderer takes it */
    size_t cap;
    int has_picture;
};

/* GLFW's calls belong to one thread: one viewer window in a process at a time. */
static pthread_mutex_t ks_vwin_lock = PTHREAD_MUTEX_INITIALIZER;
static int ks_vwin_open;

ks_status ks_vwin_create(const char *title, int width, int height, ks_vwin **out)
{
    *out = NULL;
    pthread_mutex_lock(&ks_vwin_lock);
    const int taken = ks_vwin_open;
    if (!taken) ks_vwin_open = 1;
    pthread_mutex_unlock(&ks_vwin_lock);
    if (taken) return ks_fail(KS_ERR_UNSUPPORTED, "another viewer of this process has a window (one at a time)");
    ks_vwin *w = calloc(1, sizeof *w);
    ks_status st = w ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "window: out of host memory");
    if (st == KS_OK) {
        const ks_window_desc wd = {width, height, 0, 0, title};
        st = ks_window_create(&wd, &w->window);
    }
    if (st == KS_OK) {
        const ks_renderer_desc rd = {(size_t)width * (size_t)height};
        st = ks_renderer_create(&rd, &w->renderer);
    }
    if (st != KS_OK) {
        ks_vwin_destroy(w);
        return st;
    }
    *out = w;
    return KS_OK;
}

void ks_vwin_destroy(ks_vwin *w)
{
    if (!w) return;
    ks_renderer_destroy(w->renderer);
    ks_window_destroy(w->window);
    free(w->flipped);
    free(w);
    pthread_mutex_lock(&ks_vwin_lock);
    ks_vwin_open = 0;
    pthread_mutex_unlock(&ks_vwin_lock);
}

ks_status ks_vwin_draw(ks_vwin *win, const unsigned char *rgba, int w, int h)
{
    if (rgba) {
        const size_t row = (size_t)w * 4, bytes = row * (size_t)h;
        if (bytes > win->cap) {
            unsigned char *p = realloc(win->flipped, bytes);
            if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "window: out of host memory for a %d x %d picture", w, h);
            win->flipped = p;
            win->cap = bytes;
        }
        for (int y = 0; y < h; ++y) memcpy(win->flipped + (size_t)(h - 1 - y) * row, rgba + (size_t)y * row, row);
        KS_TRY(ks_renderer_upload(win->renderer, win->flipped, w, h));
        win->has_picture = 1;
    }
    int fw, fh;
    ks_window_size(win->window, &fw, &fh);
    KS_TRY(ks_renderer_begin(win->renderer, fw, fh, NULL));
    KS_TRY(ks_renderer_end(win->renderer));
    return ks_window_present(win->window);
}

void ks_vwin_poll(ks_vwin *win, int *pause_toggles, int *steps, int *quit)
{
    *pause_toggles = *steps = *quit = 0;
    ks_window_poll(win->window);
    ks_key_event ev;
    while (ks_window_next_key(win->window, &ev)) {
        if (ev.key == KS_KEY_SPACE) ++*pause_toggles;
        else if (ev.key == 'N') ++*steps;
        else if (ev.key == 'Q' || ev.key == KS_KEY_ESCAPE) *quit = 1;
    }
    if (ks_window_should_close(win->window)) *quit = 1;
}
