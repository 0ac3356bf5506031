#include "display/display.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/viewport.h"

struct ks_display {
    int gl;
    ks_window *win;
    ks_renderer *renderer;
    ks_ui *ui;
    ks_display_serve *page;
    ks_display_video video;
    int max_w, max_h;
    unsigned char *flipped; /* a host picture bottom row first, as the renderer takes it */
    size_t flipped_cap;
};

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

static ks_status make_gl(ks_display *d, const ks_display_desc *desc)
{
    KS_TRY(ks_window_create(&desc->window, &d->win));
    if (desc->fit_screen) { /* room for the largest screen */
        int sw = 0, sh = 0;
        ks_window_max_size(d->win, &sw, &sh);
        d->max_w = clampi(sw > d->max_w ? sw : d->max_w, 1, KS_VIEWPORT_MAX_AREA);
        d->max_h = clampi(sh > d->max_h ? sh : d->max_h, 1, KS_VIEWPORT_MAX_AREA);
    }
    const ks_renderer_desc rd = {(size_t)d->max_w * (size_t)d->max_h};
    KS_TRY(ks_renderer_create(&rd, &d->renderer));
    if (!desc->panels) return KS_OK;
    const ks_ui_desc ud = {.window = d->win, .notice = desc->notice, .notice_cap = desc->notice ? desc->notice_cap : 0};
    return ks_ui_create(&ud, &d->ui);
}

ks_status ks_display_create(const ks_display_desc *desc, ks_display **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "display: no output pointer");
    *out = NULL;
    if (!desc) return ks_fail(KS_ERR_INVALID, "display: no desc");
    if (desc->notice && desc->notice_cap) desc->notice[0] = '\0';
    ks_display *d = calloc(1, sizeof *d);
    if (!d) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    d->gl = desc->gl != 0;
    d->max_w = desc->max_width > 0 ? desc->max_width : 1280;
    d->max_h = desc->max_height > 0 ? desc->max_height : 800;
    ks_display_video_init(&d->video, desc->video_fps, desc->video_by_frame);
    ks_status st = d->gl ? make_gl(d, desc) : KS_OK;
    if (st == KS_OK && desc->serve) {
        ks_display_serve_desc sd = *desc->serve;
        if (!sd.max_width) sd.max_width = d->max_w;
        if (!sd.max_height) sd.max_height = d->max_h;
        st = ks_display_serve_create(&sd, &d->page);
    }
    if (st != KS_OK) {
        ks_display_destroy(d);
        return st;
    }
    *out = d;
    return KS_OK;
}

void ks_display_destroy(ks_display *d)
{
    if (!d) return;
    ks_display_video_abort(&d->video); /* only left open when its run never reached its end */
    ks_display_serve_destroy(d->page); /* before the GL context goes (its readback) */
    ks_ui_destroy(d->ui);
    ks_renderer_destroy(d->renderer);
    ks_window_destroy(d->win);
    free(d->flipped);
    free(d);
}

ks_window *ks_display_window(ks_display *d) { return d ? d->win : NULL; }
ks_renderer *ks_display_renderer(ks_display *d) { return d ? d->renderer : NULL; }
ks_ui *ks_display_ui(ks_display *d) { return d ? d->ui : NULL; }
ks_display_serve *ks_display_page(ks_display *d) { return d ? d->page : NULL; }
ks_display_video *ks_display_video_of(ks_display *d) { return d ? &d->video : NULL; }

void ks_display_max_picture(const ks_display *d, int *width, int *height)
{
    *width = d->max_w;
    *height = d->max_h;
}

void ks_display_poll(ks_display *d) { ks_window_poll(d->win); }

int ks_display_next_input(ks_display *d, ks_input_event *ev) { return ks_display_serve_next_input(d->page, ev); }

int ks_display_wait(ks_display *d, double seconds)
{
    if (!(seconds > 0.0)) seconds = 0.0;
    if (seconds > 1.0) seconds = 1.0;
    const int window = d->win && ks_window_glfw(d->win) != NULL;
    if (window && d->page) { /* in slices, looking at the page's queue between them */
        for (double left = seconds; left > 0.0; left -= 0.05) {
            if (ks_window_wait(d->win, left < 0.05 ? left : 0.05)) return KS_DISPLAY_WOKE_WINDOW;
            if (ks_display_serve_wait_input(d->page, 0.0)) return KS_DISPLAY_WOKE_PAGE;
        }
        return 0;
    }
    if (window) return ks_window_wait(d->win, seconds) ? KS_DISPLAY_WOKE_WINDOW : 0;
    if (d->page) return ks_display_serve_wait_input(d->page, seconds) ? KS_DISPLAY_WOKE_PAGE : 0;
    /* nothing can wake it but a signal, which ends the sleep early */
    const struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    return 0;
}

int ks_display_wants_pictures(ks_display *d) { return d && ks_display_serve_wants_pictures(d->page); }

ks_status ks_display_publish_state(ks_display *d, const ks_view *view)
{
    return d && d->page ? ks_display_serve_publish_state(d->page, view) : KS_OK;
}

/* A host picture into the renderer, bottom row first. */
static ks_status upload(ks_display *d, const unsigned char *rgba, int w, int h)
{
    if (w > d->max_w || h > d->max_h || w < 1 || h < 1)
        return ks_fail(KS_ERR_INVALID, "display: a %d x %d picture (at most %d x %d)", w, h, d->max_w, d->max_h);
    const size_t row = (size_t)w * 4, bytes = row * (size_t)h;
    if (bytes > d->flipped_cap) {
        unsigned char *p = realloc(d->flipped, bytes);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "display: out of host memory for a %d x %d picture", w, h);
        d->flipped = p;
        d->flipped_cap = bytes;
    }
    for (int y = 0; y < h; ++y) memcpy(d->flipped + (size_t)(h - 1 - y) * row, rgba + (size_t)y * row, row);
    return ks_renderer_upload(d->renderer, d->flipped, w, h);
}

/* The GL side: picture, panels, present. */
static ks_status draw(ks_display *d, const ks_display_frame *f, ks_ui_actions *act)
{
    if (f->rgba && !f->redraw) KS_TRY(upload(d, f->rgba, f->width, f->height));
    int fb_w, fb_h;
    ks_window_size(d->win, &fb_w, &fb_h);
    float area[4];
    const float *at = f->area;
    if (!at && d->ui) {
        ks_ui_picture_area(d->ui, fb_w, fb_h, f->panels, area);
        at = area;
    }
    KS_TRY(ks_renderer_begin(d->renderer, fb_w, fb_h, at));
    if (d->ui) { /* the captions of the view go over the picture where it was drawn */
        float pic[4];
        ks_ui_set_picture_rect(d->ui, ks_renderer_picture_rect(d->renderer, pic) ? pic : NULL);
    }
    ks_ui_actions none;
    ks_status st_ui = d->ui ? ks_ui_frame(d->ui, f->view, fb_w, fb_h, f->panels, f->help, act ? act : &none) : KS_OK;
    KS_TRY(ks_renderer_end(d->renderer));
    KS_TRY(st_ui);
    return ks_window_present(d->win);
}

ks_status ks_display_show(ks_display *d, const ks_display_frame *f, ks_ui_actions *act, char *msg, size_t msg_cap)
{
    if (msg && msg_cap) msg[0] = '\0';
    if (act) memset(act, 0, sizeof *act);
    if (!d || !f || !f->view) return ks_fail(KS_ERR_INVALID, "display: a frame needs its view");
    if (!d->gl && !f->rgba) return ks_fail(KS_ERR_INVALID, "display: without GL a frame needs a host picture");
    if (d->gl) KS_TRY(draw(d, f, act));
    if (f->redraw) return KS_OK;
    /* What takes the frame: the video, the pages. With GL, right after the
     * present: the app calls this before the frame's slot is unmapped, since GL
     * commands issued after the unmap wait for the whole solver, and the
     * video's synchronous read would hold the host (and so the next frame's
     * launches) until it ends. */
    const unsigned char *host = d->gl ? NULL : f->rgba;
    char vmsg[1024];
    KS_TRY(ks_display_video_frame(&d->video, d->renderer, host, f->width, f->height, vmsg, sizeof vmsg));
    if (vmsg[0] && msg && msg_cap) snprintf(msg, msg_cap, "%s", vmsg);
    return ks_display_serve_frame(d->page, d->renderer, host, f->width, f->height, f->view, f->force_state);
}
