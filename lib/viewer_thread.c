/* The viewer's own thread: it makes the display (display/display.h: the
 * window with the app's panels, the browser page, the video), takes the newest
 * field shown (a host picture's floats, or a device slot's copy waited for
 * here, never in ks_viewer_show), colormaps it, keeps it for ks_viewer_save
 * and shows it; at the end the video ends on the last picture. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/colormap.h"
#include "base/ks_error.h"
#include "display/display.h"
#include "render/image_io.h"
#include "render/view.h"
#include "render/window.h"
#include "lib/kernelscope.h"
#include "lib/viewer_gpu.h"
#include "lib/viewer_internal.h"

enum {
    KS_VIEWER_WINDOW_W = 1280, /* desc.window: the app's default window */
    KS_VIEWER_WINDOW_H = 800,
    KS_VIEWER_PAGE_FPS = 120, /* pictures a second to the page at most (a fast monitor's rate) */
};
#define KS_VIEWER_SAVE_WAIT_S 30.0 /* ks_viewer_save waits this long for the last field's picture */

/* n floats as RGBA: the viewer's range, or (lo == hi) the picture's own finite minimum and maximum. */
static void colormap(const ks_viewer *v, const float *val, int n, unsigned char *rgba, double *lo_out, double *hi_out)
{
    double lo = v->lo, hi = v->hi;
    if (lo == hi) { /* this picture's own range */
        lo = INFINITY;
        hi = -INFINITY;
        for (int i = 0; i < n; ++i)
            if (isfinite(val[i])) {
                lo = fmin(lo, val[i]);
                hi = fmax(hi, val[i]);
            }
        if (!(lo <= hi)) lo = hi = 0.0;
    }
    unsigned char table[256][4];
    ks_colormap_table_rgba(v->cmap, table);
    const float flo = (float)lo, inv = ks_colormap_inv_span((float)lo, (float)hi);
    for (int i = 0; i < n; ++i) memcpy(rgba + 4 * (size_t)i, table[ks_colormap_index(val[i], flo, inv)], 4);
    *lo_out = lo;
    *hi_out = hi;
}

/* CLOCK_REALTIME seconds from now, for pthread_cond_timedwait. */
static struct timespec deadline_in(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    const long long ns = (long long)t.tv_nsec + (long long)(seconds * 1e9);
    t.tv_sec += (time_t)(ns / 1000000000LL);
    t.tv_nsec = (long)(ns % 1000000000LL);
    return t;
}

/* Waits (lock held) until the last field shown is drawn, KS_VIEWER_SAVE_WAIT_S at most. */
void ks_vw_wait_drawn(ks_viewer *v)
{
    const struct timespec until = deadline_in(KS_VIEWER_SAVE_WAIT_S);
    while (v->drawn_seq < v->shown && pthread_cond_timedwait(&v->drawn, &v->lock, &until) == 0) {}
}

/* The display, made here on the thread that draws with it: with desc.window,
 * a window (GL, the app's panels); otherwise no GL, the pictures go to the page
 * and the video as they are. ks_viewer_create waits for the outcome. */
static ks_status make_display(ks_viewer *v)
{
    ks_display_desc dd = {0};
    dd.gl = v->want_window;
    dd.window = (ks_window_desc){KS_VIEWER_WINDOW_W, KS_VIEWER_WINDOW_H, 0, 0, v->title};
    dd.max_width = v->max_w;
    dd.max_height = v->max_h;
    dd.panels = v->want_window;
    dd.video_fps = v->record_fps;
    const ks_display_serve_desc sd = {.addr = v->serve_addr, .port = v->serve_port, .token = v->token,
                                      .fps = KS_VIEWER_PAGE_FPS};
    if (v->serve) dd.serve = &sd;
    KS_TRY(ks_display_create(&dd, &v->display));
    if (v->serve) snprintf(v->url, sizeof v->url, "%s", ks_display_serve_url(ks_display_page(v->display)));
    if (!v->record[0]) return KS_OK;
    int w = 0, h = 0; /* a window's frame as shown; without one, the first picture's size */
    ks_window_size(ks_display_window(v->display), &w, &h);
    return ks_display_video_start(ks_display_video_of(v->display), v->record, w, h, 0);
}

/* The frame through the display (lock not held): the picture, or the last one again (redraw). */
static void show_frame(ks_viewer *v, const unsigned char *rgba, int w, int h, int redraw)
{
    static _Thread_local ks_view view; /* large: not on the stack */
    pthread_mutex_lock(&v->lock);
    ks_vw_make_view(v, &view, w);
    pthread_mutex_unlock(&v->lock);
    const ks_display_frame f = {.view = &view, .rgba = rgba, .width = w, .height = h, .panels = 1, .redraw = redraw};
    char msg[512];
    ks_ui_actions act;
    if (ks_display_show(v->display, &f, &act, msg, sizeof msg) != KS_OK)
        ks_error_clear(); /* a window or page that failed this frame tries again with the next */
    pthread_mutex_lock(&v->lock);
    for (int i = 0; i < act.nkeys; ++i) ks_vw_take_key(v, act.keys[i].key); /* the panel's buttons */
    pthread_mutex_unlock(&v->lock);
    if (msg[0] && v->rec_status == KS_OK) { /* the video failed and stopped; the page and the window go on */
        v->rec_status = KS_ERR_IO;
        snprintf(v->rec_error, sizeof v->rec_error, "%s", msg);
    }
}

/* The end of the thread: the video ends on the last picture, then the display goes. */
static void finish_display(ks_viewer *v, const unsigned char *rgba, int w, int h)
{
    ks_display_video *video = ks_display_video_of(v->display);
    ks_status st = v->rec_status == KS_OK && rgba ? ks_display_video_last(video, ks_display_renderer(v->display),
                                                                         v->want_window ? NULL : rgba, w, h)
                                                  : KS_OK;
    if (st == KS_OK) st = ks_display_video_stop(video, NULL, 0);
    if (st != KS_OK && v->rec_status == KS_OK) {
        v->rec_status = st;
        snprintf(v->rec_error, sizeof v->rec_error, "%s", ks_error_message());
    }
    ks_display_destroy(v->display);
    v->display = NULL;
}

void *ks_vw_thread_main(void *arg)
{
    ks_viewer *v = arg;
    float *field = NULL;
    unsigned char *rgba = NULL;
    size_t cap = 0;
    int pic_w = 0, pic_h = 0; /* the last picture drawn */
    const ks_status made = make_display(v);
    pthread_mutex_lock(&v->lock);
    v->display_state = made == KS_OK ? 1 : -1;
    v->display_status = made;
    if (made != KS_OK) snprintf(v->display_error, sizeof v->display_error, "%s", ks_error_message());
    pthread_cond_broadcast(&v->drawn);
    if (made != KS_OK) {
        pthread_mutex_unlock(&v->lock);
        ks_display_destroy(v->display);
        v->display = NULL;
        return NULL;
    }
    while (!v->stop) {
        if (v->shown == v->taken) {
            /* a page's keys and state come in now and then even when nothing is shown; a
             * window's events more often, and its picture drawn again (a resize, an expose) */
            const struct timespec until = deadline_in(v->want_window ? 0.03 : 0.1);
            pthread_cond_timedwait(&v->wake, &v->lock, &until);
            pthread_mutex_unlock(&v->lock);
            ks_vw_take_input(v);
            if (v->want_window && pic_w) show_frame(v, rgba, pic_w, pic_h, 1);
            pthread_mutex_lock(&v->lock);
            continue;
        }
        /* superseded device fields: their copies end before their slots are used again */
        const unsigned stale = v->dev_stale;
        const int dev = v->dev_pending;
        v->dev_stale = 0;
        v->dev_pending = -1;
        for (int k = 0; k < KS_VGPU_SLOTS; ++k) {
            if (!(stale >> k & 1u)) continue;
            const float *ignored;
            pthread_mutex_unlock(&v->lock);
            (void)ks_vgpu_wait(v->gpu, k, &ignored); /* a failure shows again on the newest */
            pthread_mutex_lock(&v->lock);
            ks_vgpu_release(v->gpu, k);
        }
        /* take the newest field: swap buffers, so ks_viewer_show never waits for a picture */
        const int w = v->pending_w, h = v->pending_h;
        const size_t n = (size_t)w * (size_t)h;
        if (n > cap) {
            float *f = realloc(field, n * sizeof *f);
            if (f) field = f;
            unsigned char *r = f ? malloc(n * 4) : NULL;
            if (!f || !r) { /* out of memory: this field is dropped */
                free(r);
                if (dev >= 0) ks_vgpu_release(v->gpu, dev);
                v->taken = v->shown;
                continue;
            }
            free(rgba);
            rgba = r;
            cap = n;
        }
        const long long seq = v->taken = v->shown;
        if (dev < 0) memcpy(field, v->pending, n * sizeof *field);
        pthread_mutex_unlock(&v->lock);
        if (dev >= 0) { /* its floats come from the device: wait for the copy here, never in ks_viewer_show */
            const float *host = NULL;
            const ks_status got = ks_vgpu_wait(v->gpu, dev, &host);
            if (got == KS_OK) memcpy(field, host, n * sizeof *field);
            pthread_mutex_lock(&v->lock);
            ks_vgpu_release(v->gpu, dev);
            pthread_mutex_unlock(&v->lock);
            if (got != KS_OK) { /* a CUDA error of the caller's stream: the picture is left as it was */
                pthread_mutex_lock(&v->lock);
                v->drawn_seq = seq;
                pthread_cond_broadcast(&v->drawn);
                continue;
            }
        }
        double lo, hi;
        colormap(v, field, (int)n, rgba, &lo, &hi);
        pthread_mutex_lock(&v->lock);
        unsigned char *keep = realloc(v->rgba, n * 4);
        if (keep) {
            v->rgba = keep;
            memcpy(v->rgba, rgba, n * 4);
            v->pic_w = w;
            v->pic_h = h;
            v->pic_lo = lo;
            v->pic_hi = hi;
            v->drawn_seq = seq;
        }
        pthread_cond_broadcast(&v->drawn);
        pthread_mutex_unlock(&v->lock);
        pic_w = w;
        pic_h = h;
        show_frame(v, rgba, w, h, 0);
        ks_vw_take_input(v);
        pthread_mutex_lock(&v->lock);
    }
    pthread_mutex_unlock(&v->lock);
    finish_display(v, rgba, pic_w, pic_h);
    free(field);
    free(rgba);
    return NULL;
}

static ks_status save(ks_viewer *v, const char *path, int *width, int *height)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "ks_viewer_save: no viewer");
    if (!path || !path[0]) return ks_fail(KS_ERR_INVALID, "ks_viewer_save: no path");
    pthread_mutex_lock(&v->lock);
    if (!v->shown) {
        pthread_mutex_unlock(&v->lock);
        return ks_fail(KS_ERR_INVALID, "ks_viewer_save: no field shown yet");
    }
    ks_vw_wait_drawn(v);
    const int w = v->pic_w, h = v->pic_h;
    unsigned char *copy = v->rgba ? malloc((size_t)w * (size_t)h * 4) : NULL;
    if (copy) memcpy(copy, v->rgba, (size_t)w * (size_t)h * 4);
    pthread_mutex_unlock(&v->lock);
    if (!copy) return ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_save: no picture (out of memory)");
    const ks_status st = ks_image_write(path, KS_FMT_PNG, copy, w, h);
    free(copy);
    if (st == KS_OK && width) *width = w;
    if (st == KS_OK && height) *height = h;
    return st;
}

int ks_viewer_save(ks_viewer *v, const char *path, int *width, int *height)
{
    return ks_vw_result(save(v, path, width, height));
}
