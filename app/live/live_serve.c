#include "app/live/live_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ks_util.h"
#include "render/readback.h"
#include "serve/server.h"
#include "serve/serve_auth.h"
#include "serve/state_json.h"

enum { KS_STATE_JSON_START = 256 * 1024 };

struct ks_live_serve {
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
        snprintf(note, cap, "--serve: JPEG frames are encoded on the GPU (nvJPEG)");
        return e;
    }
    snprintf(note, cap, "--serve: no GPU JPEG encoder (%s); JPEG frames are encoded with libjpeg-turbo on a CPU "
             "thread", ks_error_message());
    return NULL;
}

/* H.264 for pages with WebCodecs; NULL (JPEG only) in a build without video. */
static ks_frame_encoder *h264(const ks_options *opt, char *note, size_t cap)
{
    ks_frame_encoder *e = NULL;
    char notice[256];
    const ks_frame_encoder_h264_desc d = {opt->fps, notice, sizeof notice};
    if (ks_frame_encoder_h264_create(&d, &e) != KS_OK) {
        snprintf(note, cap, "--serve: no H.264 (%s); pages get JPEG frames", ks_error_message());
        return NULL;
    }
    if (notice[0]) snprintf(note, cap, "--serve: %s", notice);
    return e;
}

ks_status ks_live_serve_create(const ks_live_serve_desc *desc, ks_live_serve **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "--serve: no output pointer");
    *out = NULL;
    if (!desc || !desc->opt) return ks_fail(KS_ERR_INVALID, "--serve: desc needs the options");
    const ks_options *opt = desc->opt;
    const int use_cuda = desc->use_cuda, max_w = desc->max_width, max_h = desc->max_height;
    ks_live_serve *ls = calloc(1, sizeof *ls);
    if (!ls) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    char token[KS_SERVE_TOKEN_MAX] = "";
    ks_status st = KS_OK;
    if (opt->token) snprintf(token, sizeof token, "%s", opt->token);
    else if (!ks_serve_addr_is_loopback(opt->serve_addr) || desc->editor)
        st = ks_serve_make_token(token, sizeof token); /* editing writes a file: never without one */
    ks_server_desc d = {0};
    d.addr = opt->serve_addr;
    d.port = opt->serve_port;
    d.token = token;
    d.editor = desc->editor;
    char jpeg_note[400] = "", h264_note[400] = "";
    if (st == KS_OK) d.jpeg = gpu_jpeg(use_cuda, max_w, max_h, jpeg_note, sizeof jpeg_note);
    if (st == KS_OK) d.video = h264(opt, h264_note, sizeof h264_note);
    if (st == KS_OK) st = ks_server_create(&d, &ls->server);
    if (st != KS_OK) {
        ks_live_serve_destroy(ls);
        return st;
    }
    ls->picture_period = 1.0 / (opt->fps > 0 ? opt->fps : 60);
    ls->json_cap = KS_STATE_JSON_START;
    ls->json = malloc(ls->json_cap);
    if (!ls->json) {
        ks_live_serve_destroy(ls);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    if (jpeg_note[0]) fprintf(stderr, "kernelscope: %s\n", jpeg_note);
    if (h264_note[0]) fprintf(stderr, "kernelscope: %s\n", h264_note);
    fprintf(stderr, "kernelscope: serving the live view at %s  (also /stream.mjpg, /state.json)\n",
            ks_server_url(ls->server));
    if (desc->editor) fprintf(stderr, "kernelscope: --edit: the page edits the kernel file (Compile saves it)\n");
    fflush(stderr);
    *out = ls;
    return KS_OK;
}

void ks_live_serve_destroy(ks_live_serve *ls)
{
    if (!ls) return;
    ks_server_destroy(ls->server);
    ks_readback_destroy(ls->readback);
    free(ls->json);
    free(ls);
}

int ks_live_serve_next_input(ks_live_serve *ls, ks_input_event *ev)
{
    return ls ? ks_server_next_input(ls->server, ev) : 0;
}

static ks_status publish_state(ks_live_serve *ls, const ks_view *v)
{
    size_t len = 0;
    ks_server_viewer_stats vs;
    ks_server_viewer_stats_get(ls->server, &vs);
    const char *codec = vs.kind == KS_FRAME_H264 ? "h264" : vs.kind == KS_FRAME_JPEG ? "jpeg" : "";
    for (;;) {
        if (ks_serve_state_json(v, ls->json, ls->json_cap, &len) == KS_OK &&
            ks_serve_state_json_viewer(ls->json, ls->json_cap, &len, vs.fps, codec, vs.reports) == KS_OK)
            break;
        if (ls->json_cap >= (size_t)16 << 20) return ks_fail(KS_ERR_INVALID, "serve: state larger than 16 MiB");
        char *p = realloc(ls->json, ls->json_cap * 2);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
        ls->json = p;
        ls->json_cap *= 2;
    }
    return ks_server_publish_state(ls->server, ls->json, len);
}

/* Hands a finished read-back to the encoder; when start is set, this
 * frame's picture starts its way back too. */
static ks_status publish_picture(ks_live_serve *ls, ks_renderer *r, int start)
{
    if (!ls->readback) KS_TRY(ks_readback_create(&(ks_readback_desc){.slots = 3}, &ls->readback));
    /* the oldest finished copy goes to the encoder... */
    ks_readback_image img;
    int ready = 0;
    KS_TRY(ks_readback_poll(ls->readback, &img, &ready));
    if (ready) {
        const ks_frame_image fi = {img.rgba, img.width, img.height, (size_t)img.width * 4, 1};
        ks_status st = ks_server_publish_frame(ls->server, &fi);
        ks_status st_rel = ks_readback_release(ls->readback);
        KS_TRY(st);
        KS_TRY(st_rel);
    }
    /* ...and this frame's picture starts its way back */
    if (!start) return KS_OK;
    int w = 0, h = 0, queued = 0;
    const unsigned tex = ks_renderer_image_texture(r, &w, &h);
    if (tex && w > 0 && h > 0) KS_TRY(ks_readback_push(ls->readback, tex, w, h, ls->pushed, &queued));
    ls->pushed += queued;
    return KS_OK;
}

ks_status ks_live_serve_frame(ks_live_serve *ls, ks_renderer *r, const ks_view *v, int force)
{
    if (!ls) return KS_OK;
    const double t = ks_now_seconds();
    if (force || t - ls->last_state >= 1.0 / 60.0) {
        KS_TRY(publish_state(ls, v));
        ls->last_state = t;
    }
    /* Pictures only while a viewer waits, at the pace the encoder takes them
     * and at most --fps a second: a faster loop (spheres run at 1000 fps)
     * would spend GPU and encoder time on pictures no screen shows. A
     * finished read-back is handed over on any frame, so the pace adds no
     * latency. */
    if (ks_server_wants_frame(ls->server) && !ks_server_frame_pending(ls->server)) {
        const int due = t >= ls->next_picture;
        if (due) /* on a schedule, so a loop a little faster than --fps still sends --fps */
            ls->next_picture = t - ls->next_picture > ls->picture_period ? t + ls->picture_period
                                                                         : ls->next_picture + ls->picture_period;
        KS_TRY(publish_picture(ls, r, due));
    }
    return KS_OK;
}

int ks_live_serve_port(const ks_live_serve *ls) { return ls ? ks_server_port(ls->server) : 0; }

const char *ks_live_serve_encoder(const ks_live_serve *ls, int h264)
{
    return ls ? ks_server_encoder_name(ls->server, h264 ? KS_FRAME_H264 : KS_FRAME_JPEG) : "";
}

int ks_live_serve_viewer_stats(const ks_live_serve *ls, ks_server_viewer_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!ls) return 0;
    ks_server_viewer_stats_get(ls->server, out);
    return 1;
}
