#include "display/display_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "render/readback.h"
#include "serve/server.h"
#include "serve/serve_auth.h"
#include "serve/state_json.h"

enum { KS_STATE_JSON_START = 256 * 1024 };

struct ks_display_serve {
    ks_server *server;
    ks_readback *readback;   /* made on the first frame a viewer wants */
    char *json;              /* state document scratch */
    size_t json_cap;
    double last_state;       /* host seconds */
    long long pushed;        /* readbacks queued */
    double picture_period;   /* 1 / --fps: viewers get pictures at most this often */
    double next_picture;     /* host seconds when the next picture is due */
};

/* nvJPEG on the CUDA backend; NULL (libjpeg-turbo on the encode thread) when
 * it cannot be had. note gets a line saying which, printed once the server runs. */
static ks_frame_encoder *gpu_jpeg(int use_cuda, int max_w, int max_h, char *note, size_t cap)
{
    if (!use_cuda) return NULL;
    ks_frame_encoder *e = NULL;
    const ks_frame_encoder_nvjpeg_desc d = {.max_width = max_w, .max_height = max_h}; /* default quality */
    if (ks_frame_encoder_nvjpeg_create(&d, &e) == KS_OK) {
        snprintf(note, cap, "--serve: JPEG frames are encoded on the GPU (nvJPEG)\n");
        return e;
    }
    snprintf(note, cap, "--serve: no GPU JPEG encoder (%s); JPEG frames are encoded with libjpeg-turbo on a CPU "
             "thread\n", ks_error_message());
    return NULL;
}

/* H.264 for pages with WebCodecs; NULL (JPEG only) in a build without video. */
static ks_frame_encoder *h264(int fps, char *note, size_t cap)
{
    ks_frame_encoder *e = NULL;
    char notice[256];
    const ks_frame_encoder_h264_desc d = {fps, notice, sizeof notice};
    if (ks_frame_encoder_h264_create(&d, &e) != KS_OK) {
        snprintf(note, cap, "--serve: no H.264 (%s); pages get JPEG frames\n", ks_error_message());
        return NULL;
    }
    if (notice[0]) snprintf(note, cap, "--serve: %s\n", notice);
    return e;
}

ks_status ks_display_serve_create(const ks_display_serve_desc *desc, ks_display_serve **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "--serve: no output pointer");
    *out = NULL;
    if (!desc) return ks_fail(KS_ERR_INVALID, "--serve: no desc");
    const int fps = desc->fps > 0 ? desc->fps : 60;
    ks_display_serve *ds = calloc(1, sizeof *ds);
    if (!ds) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    char token[KS_SERVE_TOKEN_MAX] = "";
    ks_status st = KS_OK;
    if (desc->token && desc->token[0]) {
        st = ks_serve_check_token_text(desc->token);
        if (st == KS_OK) snprintf(token, sizeof token, "%s", desc->token);
    } else if (!ks_serve_addr_is_loopback(desc->addr ? desc->addr : "127.0.0.1") || desc->editor) {
        st = ks_serve_make_token(token, sizeof token); /* editing writes a file: never without one */
    }
    ks_server_desc d = {0};
    d.addr = desc->addr;
    d.port = desc->port;
    d.token = token;
    d.editor = desc->editor;
    char jpeg_note[400] = "", h264_note[400] = "";
    if (st == KS_OK) d.jpeg = gpu_jpeg(desc->use_cuda, desc->max_width, desc->max_height, jpeg_note, sizeof jpeg_note);
    if (st == KS_OK && desc->h264) d.video = h264(fps, h264_note, sizeof h264_note);
    if (st == KS_OK) st = ks_server_create(&d, &ds->server);
    else {
        ks_frame_encoder_destroy(d.jpeg);
        ks_frame_encoder_destroy(d.video);
    }
    if (st != KS_OK) {
        ks_display_serve_destroy(ds);
        return st;
    }
    ds->picture_period = 1.0 / fps;
    ds->json_cap = KS_STATE_JSON_START;
    ds->json = malloc(ds->json_cap);
    if (!ds->json) {
        ks_display_serve_destroy(ds);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    if (desc->notice && desc->notice_cap) {
        size_t used = 0;
        desc->notice[0] = '\0';
        ks_text_append(desc->notice, desc->notice_cap, &used, "%s%s", jpeg_note, h264_note);
    }
    *out = ds;
    return KS_OK;
}

void ks_display_serve_destroy(ks_display_serve *ds)
{
    if (!ds) return;
    ks_server_destroy(ds->server);
    ks_readback_destroy(ds->readback);
    free(ds->json);
    free(ds);
}

int ks_display_serve_next_input(ks_display_serve *ds, ks_input_event *ev)
{
    return ds ? ks_server_next_input(ds->server, ev) : 0;
}

int ks_display_serve_wait_input(ks_display_serve *ds, double seconds)
{
    return ds ? ks_server_wait_input(ds->server, seconds) : 0;
}

int ks_display_serve_wants_pictures(ks_display_serve *ds) { return ds && ks_server_wants_frame(ds->server); }

static ks_status publish_state(ks_display_serve *ds, const ks_view *v)
{
    size_t len = 0;
    ks_server_viewer_stats vs;
    ks_server_viewer_stats_get(ds->server, &vs);
    const char *codec = vs.kind == KS_FRAME_H264 ? "h264" : vs.kind == KS_FRAME_JPEG ? "jpeg" : "";
    for (;;) {
        if (ks_serve_state_json(v, ds->json, ds->json_cap, &len) == KS_OK &&
            ks_serve_state_json_viewer(ds->json, ds->json_cap, &len, vs.fps, codec, vs.reports) == KS_OK)
            break;
        if (ds->json_cap >= (size_t)16 << 20) return ks_fail(KS_ERR_INVALID, "serve: state larger than 16 MiB");
        char *p = realloc(ds->json, ds->json_cap * 2);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
        ds->json = p;
        ds->json_cap *= 2;
    }
    return ks_server_publish_state(ds->server, ds->json, len);
}

/* Hands a finished read-back to the encoder; when start is set, this
 * frame's picture starts its way back too. */
static ks_status publish_picture(ks_display_serve *ds, ks_renderer *r, int start)
{
    if (!ds->readback) KS_TRY(ks_readback_create(&(ks_readback_desc){.slots = 3}, &ds->readback));
    /* the oldest finished copy goes to the encoder... */
    ks_readback_image img;
    int ready = 0;
    KS_TRY(ks_readback_poll(ds->readback, &img, &ready));
    if (ready) {
        const ks_frame_image fi = {img.rgba, img.width, img.height, (size_t)img.width * 4, 1};
        ks_status st = ks_server_publish_frame(ds->server, &fi);
        ks_status st_rel = ks_readback_release(ds->readback);
        KS_TRY(st);
        KS_TRY(st_rel);
    }
    /* ...and this frame's picture starts its way back */
    if (!start) return KS_OK;
    int w = 0, h = 0, queued = 0;
    const unsigned tex = ks_renderer_image_texture(r, &w, &h);
    if (tex && w > 0 && h > 0) KS_TRY(ks_readback_push(ds->readback, tex, w, h, ds->pushed, &queued));
    ds->pushed += queued;
    return KS_OK;
}

ks_status ks_display_serve_frame(ks_display_serve *ds, ks_renderer *r, const unsigned char *rgba, int w, int h,
                                 const ks_view *v, int force)
{
    if (!ds) return KS_OK;
    const double t = ks_now_seconds();
    if (force || t - ds->last_state >= 1.0 / 60.0) {
        KS_TRY(publish_state(ds, v));
        ds->last_state = t;
    }
    /* Pictures only while a viewer waits, at the pace the encoder takes them
     * and at most fps a second: a faster loop (spheres run at 1000 fps)
     * would spend GPU and encoder time on pictures no screen shows. A
     * finished read-back is handed over on any frame, so the pace adds no
     * latency. */
    if (ks_server_wants_frame(ds->server) && !ks_server_frame_pending(ds->server)) {
        const int due = t >= ds->next_picture;
        if (due) /* on a schedule, so a loop a little faster than fps still sends fps */
            ds->next_picture = t - ds->next_picture > ds->picture_period ? t + ds->picture_period
                                                                         : ds->next_picture + ds->picture_period;
        if (rgba) {
            if (due) {
                const ks_frame_image img = {rgba, w, h, (size_t)w * 4, 0};
                KS_TRY(ks_server_publish_frame(ds->server, &img));
            }
        } else {
            KS_TRY(publish_picture(ds, r, due));
        }
    }
    return KS_OK;
}

ks_status ks_display_serve_publish_state(ks_display_serve *ds, const ks_view *v)
{
    if (!ds) return KS_OK;
    ds->last_state = ks_now_seconds();
    return publish_state(ds, v);
}

int ks_display_serve_port(const ks_display_serve *ds) { return ds ? ks_server_port(ds->server) : 0; }

const char *ks_display_serve_url(const ks_display_serve *ds) { return ds ? ks_server_url(ds->server) : ""; }

const char *ks_display_serve_encoder(const ks_display_serve *ds, int h264)
{
    return ds ? ks_server_encoder_name(ds->server, h264 ? KS_FRAME_H264 : KS_FRAME_JPEG) : "";
}

int ks_display_serve_viewer_stats(const ks_display_serve *ds, ks_server_viewer_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!ds) return 0;
    ks_server_viewer_stats_get(ds->server, out);
    return 1;
}
