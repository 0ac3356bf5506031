#include "kernels/common/ks_util.h"
#include "app/live/live.h"
#include "app/scenes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/common/interop.h"
#include "render/image_io.h"
#include "render/renderer.h"
#include "render/ui.h"
#include "app/live/live_record.h"
#include "app/live/live_serve.h"
#include "app/run_outputs.h"
#include "app/signals.h"

struct ks_live {
    const ks_scene_env *env;
    const ks_scene_api *api;
    void *scene;
    ks_window *win;
    ks_renderer *renderer;
    ks_ui *ui;                 /* the panels (ImGui) */
    int mouse_captured;        /* last frame: the cursor was over a panel */
    /* The display path (README, "Display path"): one of three, chosen at creation. */
    ks_interop_mode path;      /* KS_INTEROP_PBO or _COPY on CUDA; KS_INTEROP_AUTO: the CPU backend */
    ks_interop *interop[KS_RENDERER_RING]; /* pbo: the renderer's ring buffers, registered */
    ks_copy_ring *copy;        /* copy: device + pinned host ring */
    void *host_picture;        /* CPU backend: the scene draws here, then it is uploaded */
    char path_name[48];        /* for the overlay, e.g. "pbo ring x2" */
    int slot_w[KS_RENDERER_RING], slot_h[KS_RENDERER_RING]; /* picture size in each ring slot */
    int lagged;                /* this frame shows the previous frame's picture (pipelined) */
    ks_stage_timer *timer;
    int stage_frame, stage_map, stage_unmap;
    int paused, single, overlay, help, roofline;
    long long frame;
    char message[256];
    double message_until;      /* host seconds */
    double fps;
    double last_frame_time;
    double intervals[KS_LIVE_STATS_WINDOW]; /* wall-clock frame intervals, ms, a ring */
    int interval_next, interval_count;
    ks_view view;              /* this frame's view model (scene + frame fields) */
    int save_key_format;       /* 0 none, else ks_image_format of a pending S/P save */
    int save_bare;             /* F pressed */
    ks_timings_csv csv;        /* with --save-every */
    ks_progress progress;
    long long saved_frames;    /* pictures written by --save-every and the keys */
    /* zoomable scenes (api->zoomable): the picture is the view of the grid */
    ks_viewport viewport;      /* zoom and pan, sized to the picture area */
    int pic_cap_w, pic_cap_h;  /* the largest picture the pixel buffer holds */
    double scroll;             /* wheel notches not yet a whole zoom step */
    int dragging, was_held;    /* a left-button drag that began on the picture */
    double drag_x, drag_y;     /* its last cursor position, framebuffer pixels */
    float view_area[4];        /* the viewport's area in the frame (x, y, w, h; bottom-left) */
    ks_live_rec rec;           /* --record and the E key */
    char notices[640];         /* set-up notices (font, interop fallback), held until the run starts so
                                  that an error ending set-up stands alone on stderr */
    int rec_toggle;            /* E pressed: start / stop once the frame is composed */
    ks_live_serve *serve;      /* --serve: the browser viewer's server; NULL without */
    int web_input;             /* this frame took input from a page: publish the state now */
    int web_probe, web_a, web_b; /* the page's pointer over the picture (pixel, b = 0 bottom row) */
    ks_live_frame_hook hook;   /* a benchmark's per-frame call; NULL: none */
    void *hook_user;
};

static void show_message(ks_live *l, const char *text)
{
    size_t used = 0;
    ks_text_append(l->message, sizeof l->message, &used, "%s", text);
    l->message_until = ks_now_seconds() + 4.0;
}

static const char ks_global_help[] = "Keys\n"
                                     "  H          show / hide this help\n"
                                     "  Space      pause / resume\n"
                                     "  N          single step (while paused)\n"
                                     "  O          panels on / off\n"
                                     "  G          roofline panel open / folded\n"
                                     "  S / P      save the frame as PNG / PPM (what is on screen)\n"
                                     "  F          save the bare picture (PNG, one pixel per point)\n"
                                     "  E          start / stop recording a video (MP4 under --out)\n"
                                     "  Esc / Q    quit\n";

/* pbo: registers every ring buffer with CUDA, or none. */
static ks_status register_ring(ks_live *l)
{
    for (int s = 0; s < KS_RENDERER_RING; ++s) {
        ks_status st = ks_interop_register(ks_renderer_pbo_slot(l->renderer, s), &l->interop[s]);
        if (st == KS_OK) continue;
        for (int k = 0; k < s; ++k) {
            ks_interop_unregister(l->interop[k]);
            l->interop[k] = NULL;
        }
        return st;
    }
    return KS_OK;
}

static void hold_notice(ks_live *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hold_notice(ks_live *l, const char *fmt, ...)
{
    const size_t used = strlen(l->notices);
    if (used + 16 >= sizeof l->notices) return;
    char *at = l->notices + used;
    const size_t cap = sizeof l->notices - used - 1; /* room for the '\n' */
    int n = snprintf(at, cap, "kernelscope: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(at + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    const size_t end = used + ((size_t)n < cap - 1 ? (size_t)n : cap - 1);
    l->notices[end] = '\n';
    l->notices[end + 1] = '\0';
}

/* How pictures reach GL: CPU: host memory uploaded; CUDA: --interop pbo, copy,
 * or auto (pbo where CUDA can register the GL buffer, copy otherwise). */
static ks_status open_display_path(ks_live *l, size_t bytes)
{
    const ks_interop_mode want = l->env->opt->interop;
    if (!l->env->use_cuda) {
        l->host_picture = malloc(bytes);
        if (!l->host_picture) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the picture");
        l->path = KS_INTEROP_AUTO;
        snprintf(l->path_name, sizeof l->path_name, "cpu, host upload x%d", KS_RENDERER_RING);
        return KS_OK;
    }
    if (want != KS_INTEROP_COPY) {
        ks_status st = register_ring(l);
        if (st == KS_OK) {
            l->path = KS_INTEROP_PBO;
            snprintf(l->path_name, sizeof l->path_name, "pbo ring x%d", KS_RENDERER_RING);
            return KS_OK;
        }
        if (st != KS_ERR_CUDA) return st;
        char why[320];
        snprintf(why, sizeof why, "%s", ks_error_message());
        if (want == KS_INTEROP_PBO) /* asked for what this GL context cannot do: bad input */
            return ks_fail(KS_ERR_INVALID,
                           "--interop pbo: CUDA cannot register the GL buffer (%s); the GL context is not on "
                           "the CUDA device: use --interop copy or auto", why);
        hold_notice(l, "CUDA cannot register the GL buffer (%s): using the copy path", why);
    }
    KS_TRY(ks_copy_ring_create(KS_RENDERER_RING, bytes, &l->copy));
    l->path = KS_INTEROP_COPY;
    snprintf(l->path_name, sizeof l->path_name, "copy via pinned host x%d", KS_RENDERER_RING);
    return KS_OK;
}

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

ks_status ks_live_create(const ks_scene_env *env, const ks_scene_api *api, ks_live_display display,
                         ks_live **out)
{
    *out = NULL;
    ks_live *l = calloc(1, sizeof *l);
    if (!l) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    l->env = env;
    l->api = api;
    l->overlay = !env->opt->no_overlay;
    *out = l;

    /* The scene first: its input errors come before any window opens. */
    KS_TRY(api->create(env, &l->scene));
    ks_window_desc wd = {0};
    wd.width = env->opt->width;
    wd.height = env->opt->height;
    wd.headless = display != KS_LIVE_WINDOW;
    wd.hidden = display == KS_LIVE_HEADLESS_HIDDEN;
    wd.title = "kernelscope";
    KS_TRY(ks_window_create(&wd, &l->win));
    int max_w = 0, max_h = 0;
    api->max_image_size(l->scene, &max_w, &max_h);
    if (api->zoomable) {
        /* the picture is at most the picture area: room for the largest screen */
        int sw = 0, sh = 0;
        ks_window_max_size(l->win, &sw, &sh);
        max_w = clampi(sw > max_w ? sw : max_w, 1, KS_VIEWPORT_MAX_AREA);
        max_h = clampi(sh > max_h ? sh : max_h, 1, KS_VIEWPORT_MAX_AREA);
        l->pic_cap_w = max_w;
        l->pic_cap_h = max_h;
        ks_viewport_init(&l->viewport);
    }
    const ks_renderer_desc rd = {(size_t)max_w * (size_t)max_h};
    KS_TRY(ks_renderer_create(&rd, &l->renderer));
    ks_renderer_set_one_to_one(l->renderer, api->zoomable);
    char notice[256];
    KS_TRY(ks_ui_create(l->win, &l->ui, notice, sizeof notice));
    if (notice[0]) hold_notice(l, "%s", notice);
    void *stream = api->stream(l->scene);
    KS_TRY(open_display_path(l, (size_t)max_w * (size_t)max_h * 4));
    const ks_stage_timer_desc td = {env->use_cuda, stream};
    KS_TRY(ks_stage_timer_create(&td, &l->timer));
    l->stage_frame = ks_stage_timer_stage(l->timer, "frame");
    /* the same names on both CUDA paths (copy: taking the slot, and queueing its copy to the
     * host); the CPU backend has nothing to map, only the upload */
    l->stage_map = env->use_cuda ? ks_stage_timer_stage(l->timer, "interop map") : -1;
    l->stage_unmap = ks_stage_timer_stage(l->timer, env->use_cuda ? "interop unmap" : "host upload");
    if (env->opt->serve) KS_TRY(ks_live_serve_create(env->opt, env->use_cuda, max_w, max_h, &l->serve));
    return KS_OK;
}

void ks_live_destroy(ks_live *l)
{
    if (!l) return;
    if (l->scene) l->api->destroy(l->scene);
    ks_live_serve_destroy(l->serve); /* before the GL context goes */
    ks_stage_timer_destroy(l->timer);
    for (int s = 0; s < KS_RENDERER_RING; ++s) ks_interop_unregister(l->interop[s]);
    ks_copy_ring_destroy(l->copy);
    free(l->host_picture);
    ks_ui_destroy(l->ui);
    ks_renderer_destroy(l->renderer);
    ks_window_destroy(l->win);
    ks_stream_abort(l->csv.stream); /* only left open when the run never reached its end */
    ks_live_rec_abort(&l->rec);     /* likewise */
    free(l);
}

/* The cursor in the viewport's area pixels; 0 when it is not over the area. */
static int view_cursor(const ks_live *l, int *ax, int *ay)
{
    double cx, cy;
    if (l->mouse_captured || !ks_window_cursor(l->win, &cx, &cy)) return 0;
    *ax = (int)floor(cx - l->view_area[0]);
    *ay = (int)floor(cy - l->view_area[1]);
    return *ax >= 0 && *ay >= 0 && *ax < l->viewport.area_w && *ay < l->viewport.area_h;
}

/* Zoom keys of a zoomable scene (at the cursor when it is over the picture
 * area, else at the area's centre); 1 when the key was one of them. */
static int view_key(ks_live *l, const ks_key_event *ev)
{
    int ax, ay;
    if (!view_cursor(l, &ax, &ay)) {
        ax = l->viewport.area_w / 2;
        ay = l->viewport.area_h / 2;
    }
    switch (ev->key) {
    case KS_KEY_PERIOD: ks_viewport_zoom(&l->viewport, 1, ax, ay); return 1;
    case KS_KEY_COMMA: ks_viewport_zoom(&l->viewport, -1, ax, ay); return 1;
    case KS_KEY_0:
    case KS_KEY_HOME: ks_viewport_reset(&l->viewport); return 1;
    default: return 0;
    }
}

/* Global keys; the rest go to the scene. Returns 1 to quit. */
static int handle_key(ks_live *l, const ks_key_event *ev)
{
    switch (ev->key) {
    case KS_KEY_ESCAPE:
    case 'Q': return 1;
    case KS_KEY_SPACE: l->paused = !l->paused; return 0;
    case 'N':
        l->paused = 1;
        l->single = 1;
        return 0;
    case 'O': l->overlay = !l->overlay; return 0;
    case 'H':
    case KS_KEY_F1: l->help = !l->help; return 0;
    case 'G': l->roofline = !l->roofline; return 0;
    case 'S': l->save_key_format = KS_FMT_PNG; return 0;
    case 'P': l->save_key_format = KS_FMT_PPM; return 0;
    case 'F': l->save_bare = 1; return 0;
    case 'E': l->rec_toggle = 1; return 0;
    default: break;
    }
    if (l->api->zoomable && view_key(l, ev)) return 0;
    int handled = 0;
    ks_status st = l->api->key(l->scene, ev, &handled);
    if (st != KS_OK) show_message(l, ks_error_message());
    return 0;
}

/* What a save holds: the frame on screen, the bare picture as drawn, or the
 * bare picture at one pixel per cell (F; the scene's full_picture when it has one). */
enum { KS_SAVE_SCREEN = 0, KS_SAVE_PICTURE, KS_SAVE_FIELD };

static ks_status save_picture(ks_live *l, ks_image_format fmt, int what, const char *tag)
{
    unsigned char *rgba = NULL;
    int w = 0, h = 0;
    if (what == KS_SAVE_FIELD && l->api->full_picture) KS_TRY(l->api->full_picture(l->scene, &rgba, &w, &h));
    else if (what != KS_SAVE_SCREEN) KS_TRY(ks_renderer_read_image(l->renderer, &rgba, &w, &h));
    else KS_TRY(ks_renderer_read_frame(l->renderer, &rgba, &w, &h));
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/%s_%06lld%s.%s", l->env->opt->out_dir,
                     l->env->opt->scene->name, l->frame, tag, ks_image_format_ext(fmt));
    ks_status st = (n > 0 && (size_t)n < sizeof path)
                       ? ks_image_write(path, fmt, rgba, w, h)
                       : ks_fail(KS_ERR_IO, "output path too long under '%s'", KS_QUOTED(l->env->opt->out_dir));
    free(rgba);
    if (st == KS_OK) {
        ks_note_wrote(path);
        ++l->saved_frames;
        char msg[256];
        size_t used = 0;
        ks_text_append(msg, sizeof msg, &used, "saved %s (%dx%d)", path, w, h);
        if (!ks_window_is_headless(l->win)) show_message(l, msg);
    }
    return st;
}

/* A zoomable scene's view: the zoom as a control (< > send the zoom keys),
 * the cells shown, and the numbers for the JSON. */
static void view_viewport(const ks_live *l, ks_view *v)
{
    const ks_viewport *vp = &l->viewport;
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

/* The frame-level part of the view: device, backend, fps, frame, stage timings. */
static void view_frame(ks_live *l, ks_view *v)
{
    const ks_scene_env *env = l->env;
    v->frame = l->frame;
    v->paused = l->paused;
    ks_view_text(v, KS_VGROUP_FRAME, "device", "%s", env->use_cuda ? env->device->name : "host CPU");
    ks_view_text(v, KS_VGROUP_FRAME, "backend", "%s", env->use_cuda ? "cuda" : "cpu");
    ks_view_text(v, KS_VGROUP_FRAME, "display path", "%s", l->path_name);
    if (l->path != KS_INTEROP_AUTO)
        ks_view_text(v, KS_VGROUP_FRAME, "display", "%s",
                     l->lagged ? "one frame behind the solver (pipelined)" : "this frame's picture");
    ks_view_num(v, KS_VGROUP_FRAME, "fps", l->fps, "", KS_VFMT_F1);
    ks_view_num(v, KS_VGROUP_FRAME, "frame", (double)l->frame, "", KS_VFMT_INT);
    ks_view_text(v, KS_VGROUP_FRAME, "version", "kernelscope %s", KS_VERSION);
    /* the scene's solver stages over the wall-clock frame interval (stage_timer.h) */
    ks_stage_share share;
    if (ks_stage_timer_share(l->timer, &share)) {
        ks_view_num(v, KS_VGROUP_FRAME, "solver share", share.share, "of frame", KS_VFMT_PCT);
        ks_view_num(v, KS_VGROUP_FRAME, "frame interval", share.interval_ms, "ms", KS_VFMT_F3);
    }
    const int stages = ks_stage_timer_stage_count(l->timer);
    for (int s = 0; s < stages && v->nstages < KS_VIEW_STAGES; ++s) {
        ks_stage_stats st;
        ks_stage_timer_stats(l->timer, s, &st);
        if (st.samples == 0) continue;
        ks_vstage *out = &v->stages[v->nstages++];
        snprintf(out->name, sizeof out->name, "%s", st.name);
        out->median_ms = st.median_ms;
        out->min_ms = st.min_ms;
        out->samples = st.samples;
    }
    if (l->message[0] && ks_now_seconds() < l->message_until)
        snprintf(v->message, sizeof v->message, "%s", l->message);
    if (l->api->zoomable && l->viewport.grid_w > 0) view_viewport(l, v);
    v->help_global = ks_global_help;
    v->help_scene = l->api->help;
    v->roof.show = l->roofline;
    if (l->rec.rec) ks_view_text(v, KS_VGROUP_FRAME, "recording", "%s", ks_recorder_path(l->rec.rec));
}

/* The video: the E key starts / stops a recording, then the frame just
 * composed goes to it (app/live_record.c). */
static ks_status record_frame(ks_live *l)
{
    char msg[1200] = "";
    if (l->rec_toggle) {
        int w, h;
        ks_window_size(l->win, &w, &h);
        l->rec_toggle = 0;
        ks_live_rec_toggle(&l->rec, l->env->opt->out_dir, l->env->opt->scene->name, l->frame, w, h, msg,
                           sizeof msg);
        show_message(l, msg);
    }
    ks_status st = ks_live_rec_frame(&l->rec, l->renderer, msg, sizeof msg);
    if (msg[0]) show_message(l, msg);
    return st;
}

/* The frame's picture buffer (ring slot). pbo: waits (host) for GL's fence on
 * the slot's last read, a ring's turn ago and long finished, then maps it, so
 * the stream waits only for GL work that the solver before it has overlapped.
 * copy: the slot's device buffer. CPU: the host picture. */
static ks_status map_picture(ks_live *l, int slot, void **rgba)
{
    size_t bytes = 0;
    if (l->path != KS_INTEROP_PBO && l->path != KS_INTEROP_COPY) {
        *rgba = l->host_picture;
        return KS_OK;
    }
    if (l->path == KS_INTEROP_PBO) KS_TRY(ks_renderer_wait_slot(l->renderer, slot));
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_map));
    if (l->path == KS_INTEROP_PBO)
        KS_TRY(ks_interop_map(l->interop[slot], l->api->stream(l->scene), rgba, &bytes));
    else
        KS_TRY(ks_copy_ring_acquire(l->copy, slot, l->api->stream(l->scene), rgba));
    return ks_stage_timer_end(l->timer, l->stage_map);
}

/* pbo: unmaps (GL reads the buffer only after the CUDA work before this).
 * copy: queues device -> pinned host and the slot's event (bytes 0: the draw
 * failed, nothing to copy). CPU: uploads the picture (w x h) through the ring. */
static ks_status unmap_picture(ks_live *l, int slot, int w, int h)
{
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_unmap));
    void *stream = l->api->stream(l->scene);
    if (l->path == KS_INTEROP_PBO) KS_TRY(ks_interop_unmap(l->interop[slot], stream));
    else if (l->path == KS_INTEROP_COPY) KS_TRY(ks_copy_ring_submit(l->copy, slot, (size_t)w * (size_t)h * 4, stream));
    else if (w > 0 && h > 0) KS_TRY(ks_renderer_upload(l->renderer, l->host_picture, w, h));
    return ks_stage_timer_end(l->timer, l->stage_unmap);
}

/* Whether this frame must show its own picture rather than the previous
 * one: the first frame, a frame that is saved (its picture is read back from
 * GL), and the last frame of a --frames run. */
static int show_own_picture(const ks_live *l)
{
    const ks_options *opt = l->env->opt;
    if (l->frame == 0 || l->save_key_format) return 1;
    if (opt->save_every && (l->frame + 1) % opt->save_every == 0) return 1;
    return opt->frames && l->frame + 1 >= opt->frames;
}

/* Draws this frame's picture into its ring slot; the slot is unmapped on
 * every path. GL takes the picture only once CUDA has finished writing it:
 * pbo by the unmap's ordering, copy by the slot's event. */
static ks_status draw_slot(ks_live *l, ks_frame_ctx *ctx, int slot)
{
    void *rgba = NULL;
    int w = 0, h = 0;
    KS_TRY(map_picture(l, slot, &rgba));
    ks_status st = l->api->draw(l->scene, ctx, rgba, &w, &h);
    if (st != KS_OK) w = h = 0;
    ks_status st_unmap = unmap_picture(l, slot, w, h);
    if (st != KS_OK) return st;
    if (st_unmap != KS_OK) return st_unmap;
    l->slot_w[slot] = w;
    l->slot_h[slot] = h;
    return KS_OK;
}

/* Hands a finished ring slot to GL as the picture (CPU: uploaded at unmap). */
static ks_status show_slot(ks_live *l, int slot)
{
    const int w = l->slot_w[slot], h = l->slot_h[slot];
    if (l->path == KS_INTEROP_PBO) return ks_renderer_set_image_slot(l->renderer, slot, w, h);
    if (l->path == KS_INTEROP_COPY) {
        const void *host = NULL;
        KS_TRY(ks_copy_ring_host(l->copy, slot, &host));
        return ks_renderer_upload(l->renderer, host, w, h);
    }
    return KS_OK;
}

/* The GL side of a frame: overlay state, picture, panels, present. */
static ks_status show_frame(ks_live *l, int fb_w, int fb_h, const float area[4], ks_ui_actions *act)
{
    memset(&l->view, 0, sizeof l->view);
    l->api->view(l->scene, &l->view);
    view_frame(l, &l->view);
    KS_TRY(ks_renderer_begin(l->renderer, fb_w, fb_h, l->api->zoomable ? l->view_area : area));
    ks_status st_ui = ks_ui_frame(l->ui, &l->view, fb_w, fb_h, l->overlay, l->help, act);
    KS_TRY(ks_renderer_end(l->renderer));
    KS_TRY(st_ui);
    return ks_window_present(l->win);
}

/* What takes the composed frame: the video, the viewers' read-back. Right
 * after the present, before this frame's slot is unmapped: GL commands issued
 * after the unmap wait for the whole solver, and the video's synchronous read
 * would hold the host (and so the next frame's launches) until it ends. */
static ks_status frame_consumers(ks_live *l)
{
    KS_TRY(record_frame(l));
    KS_TRY(ks_live_serve_frame(l->serve, l->renderer, &l->view, l->web_input));
    l->web_input = 0;
    return KS_OK;
}

/* One frame on the GPU and on GL. Pipelined (pbo and copy paths): the solver
 * is queued first, then GL shows the previous frame's slot, which CUDA
 * finished before this frame's solver; only then is this frame's slot mapped
 * and drawn. GL's work so depends only on CUDA work already done, and CUDA's
 * solver on nothing of GL's: neither side waits for the other, and the GPU
 * runs this frame's solver while the host uploads, draws the panels and
 * presents. One frame of display lag, except on the frames that must show
 * their own picture (drawn first, then shown). */
static ks_status compute_and_show(ks_live *l, ks_frame_ctx *ctx, int fb_w, int fb_h, const float area[4],
                                  ks_ui_actions *act)
{
    const int slot = (int)(l->frame % KS_RENDERER_RING);
    l->lagged = l->path != KS_INTEROP_AUTO && !show_own_picture(l);
    KS_TRY(ks_stage_timer_frame_begin(l->timer));
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_frame));
    KS_TRY(l->api->compute(l->scene, ctx));
    if (l->lagged) {
        KS_TRY(show_slot(l, (int)((l->frame - 1) % KS_RENDERER_RING)));
        KS_TRY(show_frame(l, fb_w, fb_h, area, act));
        KS_TRY(frame_consumers(l));
    }
    KS_TRY(draw_slot(l, ctx, slot));
    KS_TRY(ks_stage_timer_end(l->timer, l->stage_frame));
    KS_TRY(ks_stage_timer_frame_end(l->timer));
    if (l->lagged) return KS_OK;
    KS_TRY(show_slot(l, slot));
    KS_TRY(show_frame(l, fb_w, fb_h, area, act));
    return frame_consumers(l);
}

/* A zoomable scene's area and mouse, before the frame is drawn: the
 * viewport gets the picture area (at most what the pixel buffer holds,
 * centred in it), the wheel zooms at the cursor, a left-button drag that
 * began on the picture area pans. Panels that have the mouse keep it. */
static void view_input(ks_live *l, const float area[4])
{
    const int aw = area[2] > 0.0f ? (int)area[2] : 0, ah = area[3] > 0.0f ? (int)area[3] : 0;
    const int vw = clampi(aw, 1, l->pic_cap_w), vh = clampi(ah, 1, l->pic_cap_h);
    l->view_area[0] = area[0] + (float)((aw - vw) / 2);
    l->view_area[1] = area[1] + (float)((ah - vh) / 2);
    l->view_area[2] = (float)vw;
    l->view_area[3] = (float)vh;
    ks_viewport_set_area(&l->viewport, vw, vh);

    int ax, ay;
    const int over = view_cursor(l, &ax, &ay);
    const double notches = ks_window_take_scroll(l->win);
    if (over) {
        /* touchpads send fractions of a notch: a step per whole notch */
        l->scroll += notches;
        const int steps = (int)l->scroll;
        l->scroll -= steps;
        if (steps) ks_viewport_zoom(&l->viewport, steps, ax, ay);
    } else {
        l->scroll = 0.0;
    }
    const int held = ks_window_left_button(l->win);
    double cx, cy;
    if (!held) {
        l->dragging = 0;
    } else if (!l->was_held && over && ks_window_cursor(l->win, &cx, &cy)) {
        l->dragging = 1; /* pressed on the picture area, not on a panel */
        l->drag_x = cx;
        l->drag_y = cy;
    } else if (l->dragging && ks_window_cursor(l->win, &cx, &cy)) {
        const int dx = (int)floor(cx) - (int)floor(l->drag_x), dy = (int)floor(cy) - (int)floor(l->drag_y);
        if (dx || dy) {
            ks_viewport_pan(&l->viewport, dx, dy);
            l->drag_x = cx;
            l->drag_y = cy;
        }
    }
    l->was_held = held;
}

/* What a page sent: keys go the way of the window's; the pointer probes the picture. Returns 1 to quit. */
static int web_input(ks_live *l, const ks_input_event *in)
{
    l->web_input = 1;
    if (in->type == KS_INPUT_KEY) {
        const ks_key_event ev = {in->key, in->shift};
        return handle_key(l, &ev);
    }
    if (in->type == KS_INPUT_MOUSE) {
        l->web_probe = in->inside;
        l->web_a = (int)in->x;
        l->web_b = (int)in->y;
    }
    /* A zoomable scene zooms and pans as in the window (the page keeps the
     * picture fitted); other scenes' pictures are zoomed by the page itself.
     * The page's numbers are picture pixels, checked like any input. */
    if (l->api->zoomable && (in->type == KS_INPUT_WHEEL || in->type == KS_INPUT_DRAG) && isfinite(in->x) &&
        isfinite(in->y) && isfinite(in->dx) && isfinite(in->dy) && fabs(in->x) < 1e6 && fabs(in->y) < 1e6 &&
        fabs(in->dx) < 1e6 && fabs(in->dy) < 1e6) {
        int ox, oy;
        ks_viewport_offset(&l->viewport, &ox, &oy);
        if (in->type == KS_INPUT_WHEEL && in->dy != 0.0)
            ks_viewport_zoom(&l->viewport, in->dy > 0.0 ? 1 : -1, ox + (int)floor(in->x), oy + (int)floor(in->y));
        else if (in->type == KS_INPUT_DRAG)
            ks_viewport_pan(&l->viewport, (int)lround(in->dx), (int)lround(in->dy));
    }
    return 0;
}

static ks_status run_frame(ks_live *l, int *quit)
{
    const ks_options *opt = l->env->opt;
    ks_window_poll(l->win);
    ks_key_event ev;
    while (ks_window_next_key(l->win, &ev))
        if (handle_key(l, &ev)) *quit = 1;
    ks_input_event web;
    while (ks_live_serve_next_input(l->serve, &web))
        if (web_input(l, &web)) *quit = 1;
    if (ks_window_should_close(l->win)) *quit = 1;
    if (ks_signals_stop_requested()) *quit = 1; /* Ctrl-C / SIGTERM between frames */
    if (*quit) return KS_OK;

    ks_frame_ctx ctx = {0};
    ctx.timer = l->timer;
    ctx.step = !l->paused || l->single;
    ctx.single = l->paused && l->single;
    ctx.frame = l->frame;
    int fb_w, fb_h;
    ks_window_size(l->win, &fb_w, &fb_h);
    float area[4];
    ks_ui_picture_area(l->ui, fb_w, fb_h, l->overlay, area);
    double cx, cy;
    if (l->api->zoomable) {
        view_input(l, area);
        ctx.viewport = &l->viewport;
        int ax, ay;
        if (view_cursor(l, &ax, &ay))
            ctx.probe_valid = ks_viewport_pick(&l->viewport, ax, ay, &ctx.probe_a, &ctx.probe_b);
    } else if (!l->mouse_captured && ks_window_cursor(l->win, &cx, &cy)) {
        ctx.probe_valid = ks_renderer_pick(l->renderer, cx, cy, &ctx.probe_a, &ctx.probe_b);
    }
    int pic_w = 0, pic_h = 0;
    ks_renderer_image_texture(l->renderer, &pic_w, &pic_h);
    if (!ctx.probe_valid && l->web_probe && l->web_a >= 0 && l->web_b >= 0 && l->web_a < pic_w &&
        l->web_b < pic_h) { /* a page's numbers are checked like any input */
        ctx.probe_valid = 1;
        ctx.probe_a = l->web_a;
        ctx.probe_b = l->web_b;
    }
    l->single = 0;

    ks_ui_actions act;
    memset(&act, 0, sizeof act);
    KS_TRY(compute_and_show(l, &ctx, fb_w, fb_h, area, &act));
    /* what the mouse asked for goes the way of a key press */
    l->mouse_captured = act.mouse_captured;
    for (int i = 0; i < act.nkeys; ++i)
        if (handle_key(l, &act.keys[i])) *quit = 1;

    /* Saving: what is on screen, or the bare picture when the overlay is hidden. */
    ++l->frame;
    if (opt->save_every && l->frame % opt->save_every == 0)
        KS_TRY(save_picture(l, opt->format, l->overlay ? KS_SAVE_SCREEN : KS_SAVE_PICTURE, ""));
    /* a save asked for by a panel button after a pipelined frame was drawn
     * waits one frame, for a frame that shows its own picture */
    if (l->save_key_format && !l->lagged) {
        ks_status st = save_picture(l, (ks_image_format)l->save_key_format,
                                    l->overlay ? KS_SAVE_SCREEN : KS_SAVE_PICTURE, "_screen");
        if (st != KS_OK) show_message(l, ks_error_message());
        l->save_key_format = 0;
    }
    if (l->save_bare) {
        ks_status st = save_picture(l, KS_FMT_PNG, KS_SAVE_FIELD, "_field");
        if (st != KS_OK) show_message(l, ks_error_message());
        l->save_bare = 0;
    }
    if (opt->save_every) KS_TRY(ks_timings_csv_pump(&l->csv, l->timer));

    const double t = ks_now_seconds();
    if (l->last_frame_time > 0) {
        const double inst = 1.0 / fmax(t - l->last_frame_time, 1e-6);
        l->fps = l->fps > 0 ? 0.9 * l->fps + 0.1 * inst : inst;
        l->intervals[l->interval_next] = (t - l->last_frame_time) * 1e3;
        l->interval_next = (l->interval_next + 1) % KS_LIVE_STATS_WINDOW;
        if (l->interval_count < KS_LIVE_STATS_WINDOW) ++l->interval_count;
    }
    l->last_frame_time = t;
    if (opt->frames && l->frame >= opt->frames) *quit = 1;
    if (l->hook && l->hook(l->hook_user, l, l->frame)) *quit = 1;
    if (ks_signals_stop_requested()) *quit = 1; /* this frame is complete: stop here */
    if (ks_window_is_headless(l->win)) {
        char status[160] = "";
        if (l->api->status) l->api->status(l->scene, status, sizeof status);
        ks_progress_tick(&l->progress, l->frame, opt->frames, status);
    }
    return KS_OK;
}

ks_status ks_live_run(ks_live *l)
{
    const ks_options *opt = l->env->opt;
    const char *scene = opt->scene->name;
    fputs(l->notices, stderr); /* set-up went well: its notices now */
    l->notices[0] = '\0';
    if (opt->save_every) KS_TRY(ks_timings_csv_init(&l->csv, opt->out_dir, scene));
    ks_progress_init(&l->progress, ks_window_is_headless(l->win) && (opt->progress || isatty(2)));
    ks_live_rec_init(&l->rec, opt->fps, ks_window_is_headless(l->win));
    if (opt->record) { /* the composed frame's size: the window's framebuffer */
        int w, h;
        ks_window_size(l->win, &w, &h);
        KS_TRY(ks_live_rec_start(&l->rec, opt->record, w, h, 1));
    }

    /* The frames; a failure stops them, but what was measured and asked for is still written. */
    int quit = 0;
    ks_status st = KS_OK;
    while (!quit && st == KS_OK) st = run_frame(l, &quit);
    char first_error[512] = "";
    if (st != KS_OK) snprintf(first_error, sizeof first_error, "%s", ks_error_message());
    char video[1200] = "";
    ks_status st_out = ks_live_rec_stop(&l->rec, video, sizeof video); /* a stop by signal still ends the file */
    if (st_out == KS_OK) st_out = ks_stage_timer_drain(l->timer);
    if (opt->save_every) {
        ks_status st_csv = ks_timings_csv_close(&l->csv, l->timer);
        if (st_out == KS_OK) st_out = st_csv;
    }
    if (st != KS_OK) return ks_fail(st, "%s", first_error); /* the first failure is the one to report */
    KS_TRY(st_out);
    KS_TRY(l->api->finish(l->scene));
    /* the flag table lets --dump-field reach only the scenes that write it */
    const int dumped = opt->dump_field != NULL;
    if (dumped) ks_note_wrote(opt->dump_field);

    char status[160] = "", written[1400] = "";
    if (l->api->status) l->api->status(l->scene, status, sizeof status);
    size_t used = 0;
    if (l->saved_frames)
        ks_text_append(written, sizeof written, &used, "%lld %s in %s", l->saved_frames,
                    ks_plural(l->saved_frames, "picture", "pictures"), opt->out_dir);
    if (opt->save_every)
        ks_text_append(written, sizeof written, &used, "%stimings in %s", used ? ", " : "", l->csv.path);
    if (dumped)
        ks_text_append(written, sizeof written, &used, "%sfield in %s", used ? ", " : "", opt->dump_field);
    if (video[0]) ks_text_append(written, sizeof written, &used, "%s%s", used ? ", " : "", video);
    else if (l->rec.videos)
        ks_text_append(written, sizeof written, &used, "%s%d %s, the last %s", used ? ", " : "", l->rec.videos,
                       ks_plural(l->rec.videos, "video", "videos"), l->rec.last);
    char line[1408] = "";
    if (used) snprintf(line, sizeof line, "wrote %s", written);
    ks_summary_print(scene, l->frame, status, l->timer, line);
    return KS_OK;
}

/* How the picture reaches GL; one place, so a new display path shows up in
 * every report that asks. */
static const char *display_path(const ks_live *l)
{
    if (!l->env->use_cuda) return "cpu";
    return l->path == KS_INTEROP_COPY ? "copy" : "pbo";
}

void ks_live_get_stats(ks_live *l, int last_frames, ks_live_stats *out)
{
    memset(out, 0, sizeof *out);
    out->frames = l->frame;
    double recent[KS_LIVE_STATS_WINDOW];
    int n = l->interval_count;
    if (last_frames > 0 && last_frames < n) n = last_frames;
    for (int i = 0; i < n; ++i) /* newest first, back from the ring's next slot */
        recent[i] = l->intervals[(l->interval_next - 1 - i + 2 * KS_LIVE_STATS_WINDOW) % KS_LIVE_STATS_WINDOW];
    out->intervals = n;
    out->interval_ms = ks_median_sort(recent, n);
    out->fps = out->interval_ms > 0.0 ? 1000.0 / out->interval_ms : 0.0;
    const ks_vfield *f = ks_view_find(&l->view, "iterations/frame");
    out->iters_per_frame = f && !f->is_text && f->value > 0.0 ? f->value : 1.0;
    snprintf(out->path, sizeof out->path, "%s", display_path(l));

    /* Stage medians over the same last frames: the timer's finished frames
     * (kept for the timings CSV, so free to take when no CSV is written);
     * else its rolling window. */
    const int stages = ks_stage_timer_stage_count(l->timer);
    double per_stage[KS_LIVE_STATS_STAGES][KS_LIVE_STATS_QUEUE];
    int count[KS_LIVE_STATS_STAGES] = {0};
    long long frame_no;
    double ms[KS_TIMER_MAX_STAGES];
    const long long first = last_frames > 0 ? l->frame - last_frames : 0;
    int popped = 0;
    while (!l->env->opt->save_every && ks_stage_timer_pop_frame(l->timer, &frame_no, ms)) {
        ++popped;
        if (frame_no < first) continue;
        for (int s = 0; s < stages && s < KS_LIVE_STATS_STAGES; ++s)
            if (ms[s] >= 0.0 && count[s] < KS_LIVE_STATS_QUEUE) per_stage[s][count[s]++] = ms[s];
    }
    for (int s = 0; s < stages && out->nstages < KS_LIVE_STATS_STAGES; ++s) {
        ks_stage_stats st;
        ks_stage_timer_stats(l->timer, s, &st);
        ks_live_stage_median *m = &out->stages[out->nstages++];
        snprintf(m->name, sizeof m->name, "%s", st.name ? st.name : "?");
        m->median_ms = popped ? ks_median_sort(per_stage[s], count[s]) : st.median_ms;
        m->samples = popped ? count[s] : st.samples;
    }
}

double ks_live_stats_stage(const ks_live_stats *s, const char *name)
{
    for (int i = 0; i < s->nstages; ++i)
        if (strcmp(s->stages[i].name, name) == 0 && s->stages[i].samples > 0) return s->stages[i].median_ms;
    return -1.0;
}

void ks_live_set_frame_hook(ks_live *l, ks_live_frame_hook hook, void *user)
{
    l->hook = hook;
    l->hook_user = user;
}

ks_status ks_live_measure(ks_live *l, int last_frames, ks_live_stats *out)
{
    KS_TRY(ks_stage_timer_drain(l->timer));
    ks_live_get_stats(l, last_frames, out);
    return KS_OK;
}

int ks_live_serve_port_of(const ks_live *l) { return ks_live_serve_port(l->serve); }
const char *ks_live_serve_encoder_of(const ks_live *l, int h264) { return ks_live_serve_encoder(l->serve, h264); }
const char *ks_live_record_encoder_of(const ks_live *l) { return l->rec.rec ? ks_recorder_encoder(l->rec.rec) : ""; }
int ks_live_serve_viewer_stats_of(const ks_live *l, struct ks_server_viewer_stats *out)
{
    return ks_live_serve_viewer_stats(l->serve, out);
}
