/* kernelscope as a library (lib/kernelscope.h): a viewer made and ended, and
 * what every call answers. A field shown is sampled into a small float picture
 * on the caller's thread (lib/viewer_field.c; for a field in device memory, on
 * the caller's stream, lib/viewer_gpu.h), then on the viewer's own thread
 * colormapped, kept for ks_viewer_save and shown through the app's own display
 * (lib/viewer_thread.c, display/display.h): the window with the app's panels,
 * the browser page, the video. lib/viewer_internal.h lists the files. */
#include "lib/kernelscope.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/ks_error.h"
#include "serve/serve_auth.h"
#include "video/recorder.h"
#include "lib/viewer_gpu.h"
#include "lib/viewer_internal.h"

enum {
    KS_VIEWER_SIDE = 1024,     /* default largest picture side */
    KS_VIEWER_SIDE_MAX = 8192, /* largest asked for */
};

static _Thread_local char last_error[512];

/* GLFW's calls belong to one thread, and the panels' ImGui has one context a
 * process: one viewer window in a process at a time. */
static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;
static int window_taken;

static int take_window(void)
{
    pthread_mutex_lock(&window_lock);
    const int free_now = !window_taken;
    window_taken = 1;
    pthread_mutex_unlock(&window_lock);
    return free_now;
}

static void give_window(void)
{
    pthread_mutex_lock(&window_lock);
    window_taken = 0;
    pthread_mutex_unlock(&window_lock);
}

/* The call's status: 0, or the public code with the message kept for ks_viewer_last_error. */
int ks_vw_result(ks_status st)
{
    if (st == KS_OK) {
        last_error[0] = '\0';
        return KS_VIEWER_OK;
    }
    snprintf(last_error, sizeof last_error, "%s", ks_error_message());
    switch (st) {
    case KS_ERR_OUT_OF_MEMORY: return KS_VIEWER_ENOMEM;
    case KS_ERR_IO: return KS_VIEWER_EIO;
    case KS_ERR_UNSUPPORTED: return KS_VIEWER_EUNSUPPORTED;
    case KS_ERR_CUDA:
    case KS_ERR_NO_DEVICE: return KS_VIEWER_ECUDA;
    case KS_ERR_GL: return KS_VIEWER_EDISPLAY;
    default: return KS_VIEWER_EINVALID;
    }
}

const char *ks_viewer_last_error(void) { return last_error; }

static ks_status create(const ks_viewer_desc *d, ks_viewer **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "ks_viewer_create: no place for the viewer");
    *out = NULL;
    const ks_viewer_desc desc = d ? *d : (ks_viewer_desc){0};
    ks_colormap cmap = KS_CMAP_VIRIDIS;
    if (desc.colormap && ks_colormap_parse(desc.colormap, &cmap) != 0) {
        char names[128];
        ks_colormap_list(names, sizeof names);
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: unknown colormap '%.40s' (%s)", desc.colormap, names);
    }
    if (!isfinite(desc.range[0]) || !isfinite(desc.range[1]) || desc.range[0] > desc.range[1])
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: range %g .. %g (lo <= hi, finite; equal: automatic)",
                       desc.range[0], desc.range[1]);
    if (desc.max_width < 0 || desc.max_height < 0 || desc.max_width > KS_VIEWER_SIDE_MAX ||
        desc.max_height > KS_VIEWER_SIDE_MAX)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: max_width / max_height 0 .. %d, got %d x %d",
                       KS_VIEWER_SIDE_MAX, desc.max_width, desc.max_height);
    if (desc.record_fps < 0 || desc.record_fps > 240)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: record_fps 0 .. 240, got %d", desc.record_fps);
    if (desc.record) {
        if (strlen(desc.record) >= 1024) return ks_fail(KS_ERR_INVALID, "ks_viewer_create: record: the path is too long");
        ks_status st = ks_recorder_check_path(desc.record);
        if (st != KS_OK) {
            ks_error_prefix("ks_viewer_create: record");
            return st;
        }
    }
    if (desc.title && strlen(desc.title) >= 32)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_create: a title of at most 31 bytes");
    if (desc.window != 0 && desc.window != 1) return ks_fail(KS_ERR_INVALID, "ks_viewer_create: window is 0 or 1, got %d", desc.window);
    if (desc.window) {
        const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
        if (!(x && *x) && !(wl && *wl))
            return ks_fail(KS_ERR_GL, "ks_viewer_create: window: no display (set DISPLAY, or serve the page instead)");
    }
    if (desc.window && !take_window())
        return ks_fail(KS_ERR_UNSUPPORTED, "ks_viewer_create: window: another viewer of this process has a window "
                                           "(one at a time)");
    ks_viewer *v = calloc(1, sizeof *v);
    if (!v) {
        if (desc.window) give_window();
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_create: out of host memory");
    }
    snprintf(v->title, sizeof v->title, "%s", desc.title ? desc.title : "kernelscope");
    v->cmap = cmap;
    v->lo = desc.range[0];
    v->hi = desc.range[1];
    v->max_w = desc.max_width ? desc.max_width : KS_VIEWER_SIDE;
    v->max_h = desc.max_height ? desc.max_height : KS_VIEWER_SIDE;
    if (desc.record) snprintf(v->record, sizeof v->record, "%s", desc.record);
    v->record_fps = desc.record_fps ? desc.record_fps : 30;
    v->want_window = desc.window != 0;
    v->dev_pending = -1;
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->wake, NULL);
    pthread_cond_init(&v->drawn, NULL);
    ks_status st = KS_OK;
    if (desc.serve) { /* checked here; the page itself is the display's (display/display_serve.h) */
        v->serve = 1;
        st = ks_serve_parse_listen(desc.serve, v->serve_addr, &v->serve_port);
        if (st == KS_OK && desc.token) {
            st = ks_serve_check_token_text(desc.token);
            if (st == KS_OK) snprintf(v->token, sizeof v->token, "%s", desc.token);
        }
    }
    if (st == KS_OK) {
        if (pthread_create(&v->thread, NULL, ks_vw_thread_main, v) != 0)
            st = ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_create: cannot start the viewer's thread");
        else v->thread_started = 1;
    }
    if (st == KS_OK) { /* the thread makes the display (the window, the page); its outcome is ours */
        pthread_mutex_lock(&v->lock);
        while (v->display_state == 0) pthread_cond_wait(&v->drawn, &v->lock);
        pthread_mutex_unlock(&v->lock);
        if (v->display_state < 0)
            st = ks_fail(v->display_status, "ks_viewer_create: %s%s", v->want_window ? "window: " : "",
                         v->display_error);
    }
    if (st != KS_OK) {
        ks_viewer_destroy(v);
        return st;
    }
    *out = v;
    return KS_OK;
}

int ks_viewer_create(const ks_viewer_desc *desc, ks_viewer **out) { return ks_vw_result(create(desc, out)); }

const char *ks_viewer_url(const ks_viewer *v) { return v ? v->url : ""; }

static ks_status close_viewer(ks_viewer *v)
{
    if (!v) return KS_OK;
    if (v->thread_started) { /* the last field shown is drawn (and recorded) before the thread ends */
        pthread_mutex_lock(&v->lock);
        ks_vw_wait_drawn(v);
        pthread_mutex_unlock(&v->lock);
    }
    ks_status st = KS_OK;
    char why[512] = "";
    if (v->thread_started) {
        pthread_mutex_lock(&v->lock);
        v->stop = 1;
        pthread_cond_signal(&v->wake);
        pthread_mutex_unlock(&v->lock);
        pthread_join(v->thread, NULL);
    }
    if (v->rec_status != KS_OK) { /* the thread finished the video, or found it failed */
        st = v->rec_status;
        snprintf(why, sizeof why, "%s", v->rec_error);
    }
    if (v->want_window) give_window();
    ks_vgpu_destroy(v->gpu);
    free(v->pending);
    free(v->rgba);
    pthread_cond_destroy(&v->wake);
    pthread_cond_destroy(&v->drawn);
    pthread_mutex_destroy(&v->lock);
    free(v);
    return st == KS_OK ? KS_OK : ks_fail(st, "ks_viewer_close: the recording: %s", why);
}

int ks_viewer_close(ks_viewer *v) { return ks_vw_result(close_viewer(v)); }

void ks_viewer_destroy(ks_viewer *v) { (void)close_viewer(v); }
