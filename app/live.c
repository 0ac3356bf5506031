#include "kernels/common/ks_util.h"
#include "live.h"

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
#include "live_serve.h"
#include "run_outputs.h"
#include "signals.h"

struct ks_live {
    const ks_scene_env *env;
    const ks_scene_api *api;
    void *scene;
    ks_window *win;
    ks_renderer *renderer;
    ks_ui *ui;                 /* the panels (ImGui) */
    int mouse_captured;        /* last frame: the cursor was over a panel */
    ks_interop *interop;       /* CUDA backend only */
    ks_stage_timer *timer;
    int stage_frame, stage_map, stage_unmap;
    int paused, single, overlay, help, roofline;
    long long frame;
    char message[256];
    double message_until;      /* host seconds */
    double fps;
    double last_frame_time;
    ks_view view;              /* this frame's view model (scene + frame fields) */
    int save_key_format;       /* 0 none, else ks_image_format of a pending S/P save */
    int save_bare;             /* F pressed */
    ks_timings_csv csv;        /* with --save-every */
    ks_progress progress;
    long long saved_frames;    /* pictures written by --save-every and the keys */
    ks_live_serve *serve;      /* --serve: the browser viewer's server; NULL without */
    int web_input;             /* this frame took input from a page: publish the state now */
    int web_probe, web_a, web_b; /* the page's pointer over the picture (pixel, b = 0 bottom row) */
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
                                     "  Esc / Q    quit\n";

ks_status ks_live_create(const ks_scene_env *env, const ks_scene_api *api, int headless,
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
    wd.headless = headless;
    wd.title = "kernelscope";
    KS_TRY(ks_window_create(&wd, &l->win));
    int max_w = 0, max_h = 0;
    api->max_image_size(l->scene, &max_w, &max_h);
    KS_TRY(ks_renderer_create((size_t)max_w * (size_t)max_h, &l->renderer));
    char notice[256];
    KS_TRY(ks_ui_create(l->win, &l->ui, notice, sizeof notice));
    if (notice[0]) fprintf(stderr, "kernelscope: %s\n", notice);
    void *stream = api->stream(l->scene);
    if (env->use_cuda) {
        ks_status st = ks_interop_register(ks_renderer_pbo(l->renderer), &l->interop);
        if (st != KS_OK) return st;
    }
    KS_TRY(ks_stage_timer_create(env->use_cuda, stream, &l->timer));
    l->stage_frame = ks_stage_timer_stage(l->timer, "frame");
    l->stage_map = ks_stage_timer_stage(l->timer, env->use_cuda ? "interop map" : "buffer map");
    l->stage_unmap = ks_stage_timer_stage(l->timer, env->use_cuda ? "interop unmap" : "buffer unmap");
    if (env->opt->serve) KS_TRY(ks_live_serve_create(env->opt, &l->serve));
    return KS_OK;
}

void ks_live_destroy(ks_live *l)
{
    if (!l) return;
    if (l->scene) l->api->destroy(l->scene);
    ks_live_serve_destroy(l->serve); /* before the GL context goes */
    ks_stage_timer_destroy(l->timer);
    ks_interop_unregister(l->interop);
    ks_ui_destroy(l->ui);
    ks_renderer_destroy(l->renderer);
    ks_window_destroy(l->win);
    ks_stream_abort(l->csv.stream); /* only left open when the run never reached its end */
    free(l);
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
    default: break;
    }
    int handled = 0;
    ks_status st = l->api->key(l->scene, ev, &handled);
    if (st != KS_OK) show_message(l, ks_error_message());
    return 0;
}

static ks_status save_picture(ks_live *l, ks_image_format fmt, int bare, const char *tag)
{
    unsigned char *rgba = NULL;
    int w = 0, h = 0;
    if (bare) KS_TRY(ks_renderer_read_image(l->renderer, &rgba, &w, &h));
    else KS_TRY(ks_renderer_read_frame(l->renderer, &rgba, &w, &h));
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/%s_%06lld%s.%s", l->env->opt->out_dir,
                     ks_scene_name(l->env->opt->scene), l->frame, tag, ks_image_format_ext(fmt));
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

/* The frame-level part of the view: device, backend, fps, frame, stage timings. */
static void view_frame(ks_live *l, ks_view *v)
{
    const ks_scene_env *env = l->env;
    v->frame = l->frame;
    v->paused = l->paused;
    ks_view_text(v, KS_VGROUP_FRAME, "device", "%s", env->use_cuda ? env->device->name : "host CPU");
    ks_view_text(v, KS_VGROUP_FRAME, "backend", "%s", env->use_cuda ? "cuda" : "cpu");
    ks_view_num(v, KS_VGROUP_FRAME, "fps", l->fps, "", KS_VFMT_F1);
    ks_view_num(v, KS_VGROUP_FRAME, "frame", (double)l->frame, "", KS_VFMT_INT);
    ks_view_text(v, KS_VGROUP_FRAME, "version", "kernelscope %s", KS_VERSION);
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
    v->help_global = ks_global_help;
    v->help_scene = l->api->help;
    v->roof.show = l->roofline;
}

/* Maps the picture buffer. With CUDA this comes first in the frame: mapping
 * makes the stream wait for the GL work of the previous frame, so the
 * kernels that follow never share the GPU with GL drawing (whose time slices
 * would otherwise land inside their event-timed stages). */
static ks_status map_picture(ks_live *l, void **rgba)
{
    size_t bytes = 0;
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_map));
    if (l->interop) KS_TRY(ks_interop_map(l->interop, l->api->stream(l->scene), rgba, &bytes));
    else KS_TRY(ks_renderer_map_pbo(l->renderer, rgba));
    return ks_stage_timer_end(l->timer, l->stage_map);
}

static ks_status unmap_picture(ks_live *l)
{
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_unmap));
    KS_TRY(l->interop ? ks_interop_unmap(l->interop, l->api->stream(l->scene))
                      : ks_renderer_unmap_pbo(l->renderer));
    return ks_stage_timer_end(l->timer, l->stage_unmap);
}

/* compute + draw into the mapped buffer; the buffer is unmapped on every path. */
static ks_status compute_and_draw(ks_live *l, ks_frame_ctx *ctx)
{
    void *rgba = NULL;
    int w = 0, h = 0;
    ks_status st = KS_OK;
    if (l->interop) {
        KS_TRY(map_picture(l, &rgba));
        st = l->api->compute(l->scene, ctx);
    } else {
        /* CPU: compute first, keep the GL buffer mapped only while writing it */
        KS_TRY(l->api->compute(l->scene, ctx));
        KS_TRY(map_picture(l, &rgba));
    }
    if (st == KS_OK) st = l->api->draw(l->scene, ctx, rgba, &w, &h);
    ks_status st_unmap = unmap_picture(l);
    if (st != KS_OK) return st;
    if (st_unmap != KS_OK) return st_unmap;
    return ks_renderer_set_image(l->renderer, w, h);
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
    return 0; /* wheel and drag move the page's own view of the picture */
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
    double cx, cy;
    if (!l->mouse_captured && ks_window_cursor(l->win, &cx, &cy))
        ctx.probe_valid = ks_renderer_pick(l->renderer, cx, cy, &ctx.probe_a, &ctx.probe_b);
    int pic_w = 0, pic_h = 0;
    ks_renderer_image_texture(l->renderer, &pic_w, &pic_h);
    if (!ctx.probe_valid && l->web_probe && l->web_a >= 0 && l->web_b >= 0 && l->web_a < pic_w &&
        l->web_b < pic_h) { /* a page's numbers are checked like any input */
        ctx.probe_valid = 1;
        ctx.probe_a = l->web_a;
        ctx.probe_b = l->web_b;
    }
    l->single = 0;

    KS_TRY(ks_stage_timer_frame_begin(l->timer));
    KS_TRY(ks_stage_timer_begin(l->timer, l->stage_frame));
    KS_TRY(compute_and_draw(l, &ctx));
    KS_TRY(ks_stage_timer_end(l->timer, l->stage_frame));
    KS_TRY(ks_stage_timer_frame_end(l->timer));

    memset(&l->view, 0, sizeof l->view);
    l->api->view(l->scene, &l->view);
    view_frame(l, &l->view);
    int fb_w, fb_h;
    ks_window_size(l->win, &fb_w, &fb_h);
    float area[4];
    ks_ui_picture_area(l->ui, fb_w, fb_h, l->overlay, area);
    KS_TRY(ks_renderer_begin(l->renderer, fb_w, fb_h, area));
    ks_ui_actions act;
    ks_status st_ui = ks_ui_frame(l->ui, &l->view, fb_w, fb_h, l->overlay, l->help, &act);
    KS_TRY(ks_renderer_end(l->renderer));
    KS_TRY(st_ui);
    KS_TRY(ks_window_present(l->win));
    /* what the mouse asked for goes the way of a key press */
    l->mouse_captured = act.mouse_captured;
    for (int i = 0; i < act.nkeys; ++i)
        if (handle_key(l, &act.keys[i])) *quit = 1;
    KS_TRY(ks_live_serve_frame(l->serve, l->renderer, &l->view, l->web_input));
    l->web_input = 0;

    /* Saving: what is on screen, or the bare picture when the overlay is hidden. */
    ++l->frame;
    if (opt->save_every && l->frame % opt->save_every == 0)
        KS_TRY(save_picture(l, opt->format, !l->overlay, ""));
    if (l->save_key_format) {
        ks_status st = save_picture(l, (ks_image_format)l->save_key_format, !l->overlay, "_screen");
        if (st != KS_OK) show_message(l, ks_error_message());
        l->save_key_format = 0;
    }
    if (l->save_bare) {
        ks_status st = save_picture(l, KS_FMT_PNG, 1, "_field");
        if (st != KS_OK) show_message(l, ks_error_message());
        l->save_bare = 0;
    }
    if (opt->save_every) KS_TRY(ks_timings_csv_pump(&l->csv, l->timer));

    const double t = ks_now_seconds();
    if (l->last_frame_time > 0) {
        const double inst = 1.0 / fmax(t - l->last_frame_time, 1e-6);
        l->fps = l->fps > 0 ? 0.9 * l->fps + 0.1 * inst : inst;
    }
    l->last_frame_time = t;
    if (opt->frames && l->frame >= opt->frames) *quit = 1;
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
    const char *scene = ks_scene_name(opt->scene);
    if (opt->save_every) KS_TRY(ks_timings_csv_init(&l->csv, opt->out_dir, scene));
    ks_progress_init(&l->progress, ks_window_is_headless(l->win) && (opt->progress || isatty(2)));

    /* The frames; a failure stops them, but what was measured and asked for is still written. */
    int quit = 0;
    ks_status st = KS_OK;
    while (!quit && st == KS_OK) st = run_frame(l, &quit);
    char first_error[512] = "";
    if (st != KS_OK) snprintf(first_error, sizeof first_error, "%s", ks_error_message());
    ks_status st_out = ks_stage_timer_drain(l->timer);
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
    char line[1408] = "";
    if (used) snprintf(line, sizeof line, "wrote %s", written);
    ks_summary_print(scene, l->frame, status, l->timer, line);
    return KS_OK;
}
