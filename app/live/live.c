/* The frame loop: creates the parts (the display, display/display.h, with
 * its window, panels, page and video; app/live/live_input.h, live_path.h,
 * live_output.h, live_stats.h) and calls them once a frame; the view's
 * frame-level fields. */
#include "base/ks_util.h"
#include "app/live/live.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "display/display.h"
#include "render/image_io.h"
#include "render/renderer.h"
#include "render/ui.h"
#include "app/live/live_counters.h"
#include "app/live/live_input.h"
#include "app/live/live_output.h"
#include "app/live/live_path.h"
#include "app/live/live_stats.h"
#include "app/live/live_timeline.h"
#include "app/kernel/variant_set.h"
#include "app/scenes.h"
#include "app/signals.h"
#include "base/cuda_device.h"

struct ks_live {
    const ks_scene_env *env;
    const ks_scene_api *api;
    void *scene;
    ks_display *display;       /* window, renderer, panels, page, video */
    ks_window *win;            /* the display's parts, which the loop drives */
    ks_renderer *renderer;
    ks_ui *ui;                 /* the panels (ImGui) */
    ks_display_video *video;   /* --record and the E key */
    ks_live_path *path;        /* how pictures reach GL (ring, interop, copy path) */
    ks_live_input input;       /* keys, mouse, page input; the viewport's owner */
    ks_live_output out;        /* pictures, CSV, progress, summary */
    ks_live_clock clock;       /* fps and frame intervals */
    int lagged;                /* this frame shows the previous frame's picture (pipelined) */
    ks_stage_timer *timer;
    int stage_frame;
    long long frame;
    char message[256];
    ks_vmessage_kind message_kind; /* error (red banner) or notice */
    double message_until;      /* host seconds */
    int message_drawn;         /* the last frame showed the message (its end needs a frame) */
    int settle;                /* frames still to draw after a window event before a paused run idles */
    ks_view view;              /* this frame's view model (scene + frame fields) */
    char notices[640];         /* set-up notices (font, interop fallback), held until the run starts so
                                  that an error ending set-up stands alone on stderr */
    ks_live_frame_hook hook;   /* a benchmark's per-frame call; NULL: none */
    void *hook_user;
    ks_live_counters hw;       /* the Hardware panel (K, --counters-every) */
    ks_live_timeline tl;       /* the timeline strip (T, --timeline) */
};

/* The scene's users' kernels, NULL without any. */
static ks_variant_set *variant_set(const ks_live *l)
{
    return l->api->variant_set ? l->api->variant_set(l->scene) : NULL;
}

static void show_message(ks_live *l, ks_vmessage_kind kind, const char *text)
{
    size_t used = 0;
    ks_text_append(l->message, sizeof l->message, &used, "%s", text);
    l->message_kind = kind;
    l->message_until = ks_now_seconds() + 4.0;
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

static const char ks_global_help[] = "Keys\n"
                                     "  H          show / hide this help\n"
                                     "  Space      pause / resume\n"
                                     "  N          single step (while paused)\n"
                                     "  O          panels on / off\n"
                                     "  G          roofline panel open / folded\n"
                                     "  K          hardware counters of the running kernel, measured now\n"
                                     "  T          timeline strip (DRAM and SM activity, kernels) on / off\n"
                                     "  S / P      save the frame as PNG / PPM (what is on screen)\n"
                                     "  F          save the bare picture (PNG, one pixel per point)\n"
                                     "  E          start / stop recording a video (MP4 under --out)\n"
                                     "  Esc / Q    quit\n";

ks_status ks_live_create(const ks_live_desc *desc, ks_live **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "live: no output pointer");
    *out = NULL;
    if (!desc || !desc->env || !desc->env->opt || !desc->api)
        return ks_fail(KS_ERR_INVALID, "live: desc needs the scene's env and api");
    const ks_scene_env *env = desc->env;
    const ks_scene_api *api = desc->api;
    if (api->zoomable && !api->grid_size)
        return ks_fail(KS_ERR_INVALID, "live: scene %s is zoomable but has no grid_size",
                       env->opt->scene ? env->opt->scene->name : "?");
    ks_live *l = calloc(1, sizeof *l);
    if (!l) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    l->env = env;
    l->api = api;
    *out = l;
    ks_live_timeline_init(&l->tl, env->use_cuda, env->opt->timeline_us);

    /* The scene first: its input errors come before any window opens. */
    KS_TRY(api->create(env, &l->scene));
    int max_w = 0, max_h = 0;
    api->max_image_size(l->scene, &max_w, &max_h);
    const ks_options *opt = env->opt;
    ks_display_desc dd = {0};
    dd.gl = 1;
    dd.window.width = opt->width;
    dd.window.height = opt->height;
    dd.window.headless = desc->display != KS_LIVE_WINDOW;
    dd.window.hidden = desc->display == KS_LIVE_HEADLESS_HIDDEN;
    dd.window.title = "kernelscope";
    dd.max_width = max_w;
    dd.max_height = max_h;
    dd.fit_screen = api->zoomable; /* the picture is at most the picture area: room for the largest screen */
    dd.panels = 1;
    dd.video_fps = opt->fps;
    dd.video_by_frame = dd.window.headless;
    char notice[256], serve_notice[800] = "";
    dd.notice = notice;
    dd.notice_cap = sizeof notice;
    const ks_display_serve_desc sd = {.addr = opt->serve_addr, .port = opt->serve_port, .token = opt->token,
                                      .fps = opt->fps, .use_cuda = env->use_cuda, .h264 = 1,
                                      .editor = ks_variant_set_editor(variant_set(l)),
                                      .notice = serve_notice, .notice_cap = sizeof serve_notice};
    if (opt->serve) dd.serve = &sd;
    KS_TRY(ks_display_create(&dd, &l->display));
    l->win = ks_display_window(l->display);
    l->renderer = ks_display_renderer(l->display);
    l->ui = ks_display_ui(l->display);
    l->video = ks_display_video_of(l->display);
    ks_display_max_picture(l->display, &max_w, &max_h);
    ks_renderer_set_one_to_one(l->renderer, api->zoomable);
    const ks_live_input_desc id = {l->win, l->renderer, api, l->scene, !opt->no_overlay, max_w, max_h};
    ks_live_input_init(&l->input, &id);
    if (notice[0]) hold_notice(l, "%s", notice);
    if (opt->serve) { /* the page's lines now: a test or a user waits for the URL */
        for (const char *line = serve_notice; *line;) {
            const char *end = strchr(line, '\n');
            const int n = end ? (int)(end - line) : (int)strlen(line);
            fprintf(stderr, "kernelscope: %.*s\n", n, line);
            line += n + (end != NULL);
        }
        fprintf(stderr, "kernelscope: serving the live view at %s  (also /stream.mjpg, /state.json)\n",
                ks_display_serve_url(ks_display_page(l->display)));
        if (sd.editor) fprintf(stderr, "kernelscope: --edit: the page edits the kernel file (Compile saves it)\n");
        fflush(stderr);
    }
    const ks_stage_timer_desc td = {env->use_cuda, api->stream(l->scene)};
    KS_TRY(ks_stage_timer_create(&td, &l->timer));
    l->stage_frame = ks_stage_timer_stage(l->timer, KS_FRAME_STAGE); /* the first column of the CSV */
    ks_live_path_desc pd = {0};
    pd.use_cuda = env->use_cuda;
    pd.want = env->opt->interop;
    pd.bytes = (size_t)max_w * (size_t)max_h * 4;
    pd.renderer = l->renderer;
    pd.timer = l->timer;
    pd.api = api;
    pd.scene = l->scene;
    char path_notice[512]; /* the interop fallback's, held like the font's */
    pd.notice = path_notice;
    pd.notice_cap = sizeof path_notice;
    KS_TRY(ks_live_path_create(&pd, &l->path));
    if (path_notice[0]) hold_notice(l, "%s", path_notice);
    const ks_live_output_desc od = {env->opt, ks_window_is_headless(l->win), l->renderer, api, l->scene};
    ks_live_output_init(&l->out, &od);
    const ks_live_counters_desc cd = {api, l->scene, env->use_cuda, opt->counters_every};
    ks_live_counters_init(&l->hw, &cd);
    l->input.ctl.timeline = opt->timeline;
    return KS_OK;
}

void ks_live_destroy(ks_live *l)
{
    if (!l) return;
    ks_live_timeline_destroy(&l->tl); /* CUPTI's work on the device first, while the scene's context lives */
    ks_live_counters_destroy(&l->hw);
    if (l->scene) l->api->destroy(l->scene);
    ks_stage_timer_destroy(l->timer);
    ks_live_path_destroy(l->path);
    ks_display_destroy(l->display); /* drops a video the run never finished */
    ks_live_output_abort(&l->out);  /* only left open when the run never reached its end */
    free(l);
}

/* A key from the window, a panel or a page; a scene key that failed is shown. */
static void take_key(ks_live *l, ks_status st)
{
    if (st != KS_OK) show_message(l, KS_VMSG_ERROR, ks_error_message());
}

/* The frame-level part of the view: device, backend, fps, frame, stage timings. */
static void view_frame(ks_live *l, ks_view *v)
{
    const ks_scene_env *env = l->env;
    const ks_live_controls *ctl = &l->input.ctl;
    v->frame = l->frame;
    v->paused = ctl->paused;
    ks_view_text(v, KS_VGROUP_FRAME, "device", "%s", env->use_cuda ? env->device->name : "host CPU");
    ks_view_text(v, KS_VGROUP_FRAME, "backend", "%s", env->use_cuda ? "cuda" : "cpu");
    ks_view_text(v, KS_VGROUP_FRAME, "display path", "%s", ks_live_path_name(l->path));
    if (ks_live_path_pipelined(l->path))
        ks_view_text(v, KS_VGROUP_FRAME, "display", "%s",
                     l->lagged ? "one frame behind the solver (pipelined)" : "this frame's picture");
    ks_view_num(v, KS_VGROUP_FRAME, "fps", l->clock.fps, "", KS_VFMT_F1);
    ks_view_num(v, KS_VGROUP_FRAME, "frame", (double)l->frame, "", KS_VFMT_INT);
    ks_view_text(v, KS_VGROUP_FRAME, "version", "kernelscope %s", KS_VERSION);
    /* the scene's solver stages over the wall-clock frame interval (stage_timer.h) */
    ks_stage_share share;
    const int share_ok = ks_stage_timer_share(l->timer, &share);
    if (share_ok) {
        ks_view_num(v, KS_VGROUP_FRAME, KS_VIEW_SOLVER_SHARE, share.share, "", KS_VFMT_PCT);
        ks_view_num(v, KS_VGROUP_FRAME, KS_VIEW_FRAME_INTERVAL, share.interval_ms, "ms", KS_VFMT_F3);
    }
    const int stages = ks_stage_timer_stage_count(l->timer);
    for (int s = 0; s < stages && v->nstages < KS_VIEW_STAGES; ++s) {
        ks_stage_stats st;
        ks_stage_timer_stats(l->timer, s, &st);
        if (st.samples == 0) continue;
        ks_vstage *out = &v->stages[v->nstages++];
        snprintf(out->name, sizeof out->name, "%s", ks_stage_label(st.name)); /* "frame work", not "frame" */
        out->median_ms = st.median_ms;
        out->min_ms = st.min_ms;
        out->samples = st.samples;
    }
    l->message_drawn = l->message[0] && ks_now_seconds() < l->message_until;
    if (l->message_drawn) {
        snprintf(v->message, sizeof v->message, "%s", l->message);
        v->message_kind = l->message_kind;
    }
    ks_live_input_view(&l->input, v);
    v->help_global = ks_global_help;
    v->help_scene = l->api->help;
    v->roof.show = ctl->roofline;
    ks_live_counters_view(&l->hw, v);
    ks_live_timeline_view(&l->tl, share_ok ? share.interval_ms : 0.0, v);
    if (l->video->rec) ks_view_text(v, KS_VGROUP_FRAME, "recording", "%s", ks_recorder_path(l->video->rec));
}

/* The E key: starts or stops a recording; the display records from the next frame shown. */
static void record_key(ks_live *l)
{
    if (!l->input.ctl.rec_toggle) return;
    l->input.ctl.rec_toggle = 0;
    char msg[1200] = "";
    int w, h;
    ks_window_size(l->win, &w, &h);
    const int videos = l->video->videos;
    const ks_status toggled = ks_display_video_toggle(l->video, l->env->opt->out_dir, l->env->opt->scene->name,
                                                      l->frame, w, h, msg, sizeof msg);
    if (l->video->notice[0]) fprintf(stderr, "kernelscope: %s\n", l->video->notice);
    l->video->notice[0] = '\0';
    if (l->video->videos > videos) ks_note_wrote(l->video->last);
    show_message(l, toggled == KS_OK ? KS_VMSG_NOTICE : KS_VMSG_ERROR, msg);
}

/* Whether this frame must show its own picture rather than the previous
 * one: the first frame, a frame that is saved (its picture is read back from
 * GL), the last frame of a --frames run, and a paused frame (a single step's
 * picture is the one a paused run may then keep showing while it idles). */
static int show_own_picture(const ks_live *l)
{
    const ks_options *opt = l->env->opt;
    if (l->frame == 0 || l->input.ctl.save_format || l->input.ctl.paused) return 1;
    if (ks_live_output_saves(&l->out, l->frame + 1)) return 1;
    return opt->frames && l->frame + 1 >= opt->frames;
}

/* The frame shown: overlay state, then the display draws the picture and
 * the panels, presents, and hands the frame to the video and the pages. Right
 * after the present, before this frame's slot is unmapped (display.c says why). */
static ks_status show_frame(ks_live *l, const float area[4], ks_ui_actions *act)
{
    memset(&l->view, 0, sizeof l->view);
    l->api->view(l->scene, &l->view);
    view_frame(l, &l->view);
    record_key(l);
    const ks_display_frame f = {.view = &l->view, .area = ks_live_input_picture_area(&l->input, area),
                                .panels = l->input.ctl.overlay, .help = l->input.ctl.help,
                                .force_state = ks_live_input_take_web(&l->input)};
    char msg[1200];
    KS_TRY(ks_display_show(l->display, &f, act, msg, sizeof msg));
    if (msg[0]) show_message(l, KS_VMSG_ERROR, msg); /* only a failure that ended the recording says anything */
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
static ks_status compute_and_show(ks_live *l, ks_frame_ctx *ctx, const float area[4], ks_ui_actions *act)
{
    const int slot = (int)(l->frame % KS_RENDERER_RING);
    l->lagged = ks_live_path_pipelined(l->path) && !show_own_picture(l);
    KS_TRY(ks_stage_timer_frame_begin(l->timer));
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_frame));
    KS_TRY(l->api->compute(l->scene, ctx));
    if (l->lagged) {
        KS_TRY(ks_live_path_show(l->path, (int)((l->frame - 1) % KS_RENDERER_RING)));
        KS_TRY(show_frame(l, area, act));
    }
    KS_TRY(ks_live_path_draw(l->path, ctx, slot));
    KS_TRY(ks_stage_timer_end(l->timer, l->stage_frame));
    KS_TRY(ks_stage_timer_frame_end(l->timer));
    if (l->lagged) return KS_OK;
    KS_TRY(ks_live_path_show(l->path, slot));
    return show_frame(l, area, act);
}

/* The saves the keys asked for, once the frame is composed. */
static void key_saves(ks_live *l)
{
    ks_live_controls *ctl = &l->input.ctl;
    const ks_live_save what = ctl->overlay ? KS_SAVE_SCREEN : KS_SAVE_PICTURE;
    char msg[256];
    /* a save asked for by a panel button after a pipelined frame was drawn
     * waits one frame, for a frame that shows its own picture */
    if (ctl->save_format && !l->lagged) {
        ks_status st = ks_live_output_save(&l->out, (ks_image_format)ctl->save_format, what, "_screen", l->frame,
                                           msg, sizeof msg);
        if (st != KS_OK || msg[0])
            show_message(l, st != KS_OK ? KS_VMSG_ERROR : KS_VMSG_NOTICE, st != KS_OK ? ks_error_message() : msg);
        ctl->save_format = 0;
    }
    if (ctl->save_bare) {
        ks_status st = ks_live_output_save(&l->out, KS_FMT_PNG, KS_SAVE_FIELD, "_field", l->frame, msg, sizeof msg);
        if (st != KS_OK || msg[0])
            show_message(l, st != KS_OK ? KS_VMSG_ERROR : KS_VMSG_NOTICE, st != KS_OK ? ks_error_message() : msg);
        ctl->save_bare = 0;
    }
}

/* Between frames: the timeline on or off (T), and a counter measurement when
 * one is due (K, Measure, --counters-every, what runs changed). The sampler
 * holds the GPU's counters while it runs: it stops for the measurement. */
static void hardware(ks_live *l)
{
    ks_live_controls *ctl = &l->input.ctl;
    int blocked = 0; /* this frame waited for the sampler's start or a measurement: no frame interval */
    if (ctl->timeline != l->tl.on) {
        ks_live_timeline_set(&l->tl, ctl->timeline);
        blocked = 1;
    }
    if (ctl->counters_ask) ks_live_counters_ask(&l->hw);
    ctl->counters_ask = 0;
    const double now = ks_now_seconds();
    if (ks_live_counters_due(&l->hw, now)) {
        ks_live_timeline_pause(&l->tl);
        ks_live_counters_measure(&l->hw, l->frame, now);
        ks_live_timeline_resume(&l->tl);
        blocked = 1;
    }
    if (blocked) l->clock.last = 0.0;
}

static ks_status run_frame(ks_live *l, int *quit)
{
    const ks_options *opt = l->env->opt;
    ks_display_poll(l->display);
    ks_key_event ev;
    while (ks_window_next_key(l->win, &ev)) take_key(l, ks_live_input_key(&l->input, &ev, quit));
    ks_input_event web;
    while (ks_display_next_input(l->display, &web)) take_key(l, ks_live_input_web(&l->input, &web, quit));
    if (ks_window_should_close(l->win)) *quit = 1;
    if (ks_signals_stop_requested()) *quit = 1; /* Ctrl-C / SIGTERM between frames */
    if (*quit) return KS_OK;

    ks_frame_ctx ctx = {0};
    ctx.timer = l->timer;
    ctx.frame = l->frame;
    int fb_w, fb_h;
    ks_window_size(l->win, &fb_w, &fb_h);
    float area[4];
    ks_ui_set_strip(l->ui, l->tl.on);
    ks_ui_picture_area(l->ui, fb_w, fb_h, l->input.ctl.overlay, area);
    ks_live_input_frame(&l->input, area, &ctx);

    ks_ui_actions act;
    memset(&act, 0, sizeof act);
    KS_TRY(compute_and_show(l, &ctx, area, &act));
    /* what the mouse asked for goes the way of a key press */
    l->input.mouse_captured = act.mouse_captured;
    for (int i = 0; i < act.nkeys; ++i) take_key(l, ks_live_input_key(&l->input, &act.keys[i], quit));

    /* Saving: what is on screen, or the bare picture when the overlay is hidden. */
    ++l->frame;
    KS_TRY(ks_live_output_frame(&l->out, l->frame, l->input.ctl.overlay));
    key_saves(l);
    KS_TRY(ks_live_output_pump(&l->out, l->timer));

    hardware(l);
    ks_live_clock_tick(&l->clock, ks_now_seconds());
    if (opt->frames && l->frame >= opt->frames) *quit = 1;
    if (l->hook && l->hook(l->hook_user, l, l->frame)) *quit = 1;
    if (ks_signals_stop_requested()) *quit = 1; /* this frame is complete: stop here */
    ks_live_output_progress(&l->out, l->frame);
    return KS_OK;
}

/* A paused run idles: while nothing needs a new frame it waits for input
 * instead of drawing the same picture again as fast as it can (a frame that
 * steps nothing is cheap, so such a loop spins faster, and costs more CPU,
 * than a running one). What needs a frame: a step (N), a key's save or
 * recording, a recording in progress (the video shows the pause as the
 * picture held), a page's viewer waiting for pictures, a window's panels
 * settling after an event, a message to take down, the scene's results
 * that came in off the frame loop (ks_scene_api.ready), a stop. A --frames
 * run never idles: its paused frames count toward N, so it ends as asked. */
static int can_idle(const ks_live *l)
{
    const ks_live_controls *c = &l->input.ctl;
    if (!c->paused || c->single || c->save_format || c->save_bare || c->rec_toggle) return 0;
    if (l->frame == 0 || l->env->opt->frames || l->hook || l->settle > 0) return 0;
    if (ks_display_video_on(l->video) || ks_display_wants_pictures(l->display)) return 0;
    if (l->message_drawn && ks_now_seconds() >= l->message_until) return 0;
    if ((l->api->ready && l->api->ready(l->scene)) || ks_variant_set_ready(variant_set(l))) return 0;
    return !ks_signals_stop_requested() && !ks_window_should_close(l->win);
}

enum { KS_IDLE_SLICE_MS = 100 }; /* how often an idle run looks again at what needs a frame */

/* Waits while the run can idle; a window event or a page's input ends the
 * wait (their frame follows at once), the rest is seen within a slice. */
static ks_status idle(ks_live *l)
{
    if (!can_idle(l)) return KS_OK;
    /* what is written and read while it waits is up to the frame shown: the
     * timings of the frames drawn (CUDA events), the page's state */
    KS_TRY(ks_stage_timer_drain(l->timer));
    KS_TRY(ks_live_output_pump(&l->out, l->timer));
    KS_TRY(ks_display_publish_state(l->display, &l->view));
    int woke = 0;
    while (!woke && can_idle(l)) woke = ks_display_wait(l->display, KS_IDLE_SLICE_MS * 1e-3);
    /* the wait is no frame interval, and the panels take a frame or two to follow the pointer */
    l->clock.last = 0.0;
    if (woke == KS_DISPLAY_WOKE_WINDOW) l->settle = 2;
    return KS_OK;
}

ks_status ks_live_run(ks_live *l)
{
    const ks_options *opt = l->env->opt;
    fputs(l->notices, stderr); /* set-up went well: its notices now */
    l->notices[0] = '\0';
    KS_TRY(ks_live_output_start(&l->out));
    if (opt->record) { /* the composed frame's size: the window's framebuffer */
        int w, h;
        ks_window_size(l->win, &w, &h);
        const ks_status st = ks_display_video_start(l->video, opt->record, w, h, 1);
        if (l->video->notice[0]) fprintf(stderr, "kernelscope: %s\n", l->video->notice);
        KS_TRY(st);
    }

    /* The frames; a failure stops them, but what was measured and asked for is still written. */
    int quit = 0;
    ks_status st = KS_OK;
    while (!quit && st == KS_OK) {
        st = idle(l);
        if (st == KS_OK) st = run_frame(l, &quit);
        if (l->settle > 0) --l->settle;
    }
    char first_error[512] = "";
    if (st != KS_OK) snprintf(first_error, sizeof first_error, "%s", ks_error_message());
    if (st != KS_OK && ks_cuda_stalled()) {
        /* the GPU no longer finishes work: every cleanup (and CUDA's own at exit) would wait forever */
        fprintf(stderr, "kernelscope: error: %s\nkernelscope: exits without cleaning up the GPU\n", first_error);
        fflush(NULL);
        _exit(1);
    }
    char video[1200] = "";
    const int videos = l->video->videos;
    ks_status st_out = ks_display_video_stop(l->video, video, sizeof video); /* a stop by signal still ends the file */
    if (l->video->videos > videos) ks_note_wrote(l->video->last);
    if (st_out == KS_OK) st_out = ks_stage_timer_drain(l->timer);
    ks_status st_csv = ks_live_output_close(&l->out, l->timer);
    if (st_out == KS_OK) st_out = st_csv;
    if (st != KS_OK) return ks_fail(st, "%s", first_error); /* the first failure is the one to report */
    KS_TRY(st_out);
    KS_TRY(l->api->finish(l->scene));
    ks_live_output_summary(&l->out, l->frame, l->timer, video, l->video);
    return KS_OK;
}

void ks_live_get_stats(ks_live *l, int last_frames, ks_live_stats *out)
{
    ks_live_stats_desc d = {0};
    d.frames = l->frame;
    d.last_frames = last_frames;
    d.timer_frames_taken = l->env->opt->save_every != 0;
    if (l->api->work_per_frame) d.work_per_frame = l->api->work_per_frame(l->scene, &d.work_label);
    d.path = ks_live_path_kind(l->path);
    ks_live_stats_collect(&l->clock, l->timer, &d, out);
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

int ks_live_serve_port_of(const ks_live *l) { return ks_display_serve_port(ks_display_page(l->display)); }
const char *ks_live_serve_encoder_of(const ks_live *l, int h264)
{
    return ks_display_serve_encoder(ks_display_page(l->display), h264);
}
const char *ks_live_record_encoder_of(const ks_live *l) { return l->video->rec ? ks_recorder_encoder(l->video->rec) : ""; }
int ks_live_serve_viewer_stats_of(const ks_live *l, struct ks_server_viewer_stats *out)
{
    return ks_display_serve_viewer_stats(ks_display_page(l->display), out);
}
