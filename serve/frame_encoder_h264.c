/* H.264 frames for WebCodecs viewers: the low-latency Annex B stream encoder
 * of video/h264_stream.h (libx264, or NVENC where a session opens). The
 * stream is made for the first picture's size and made again when the size
 * changes (a zoom, a resized window), starting with a key frame. The read
 * back pictures are bottom-up; the encoder takes rows top-down, so the rows
 * are flipped into a scratch buffer on the encode thread. */
#include "frame_encoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "video/h264_stream.h"

typedef struct h264_state {
    ks_h264_stream *stream;
    int w, h; /* the stream's picture size */
    int fps;
    ks_byte_buf flipped;
    char name[32];  /* the encoder the probe stream opened: "libx264", "h264_nvenc" */
} h264_state;

static ks_status h264_encode(ks_frame_encoder *e, const ks_frame_image *img, ks_byte_buf *out, int *keyframe)
{
    h264_state *st = e->self;
    out->size = 0;
    *keyframe = 0;
    if (st->stream && (img->width != st->w || img->height != st->h)) {
        ks_h264_stream_destroy(st->stream);
        st->stream = NULL;
    }
    if (!st->stream) {
        ks_h264_stream_desc d = {0};
        d.width = img->width;
        d.height = img->height;
        d.fps = st->fps;
        KS_TRY(ks_h264_stream_create(&d, &st->stream, NULL, 0));
        st->w = img->width;
        st->h = img->height;
    }
    const unsigned char *rows = img->rgba;
    size_t stride = img->stride;
    if (img->bottom_up) {
        const size_t row = (size_t)img->width * 4;
        KS_TRY(ks_byte_buf_reserve(&st->flipped, row * (size_t)img->height));
        for (int y = 0; y < img->height; ++y)
            memcpy(st->flipped.data + (size_t)y * row, img->rgba + (size_t)(img->height - 1 - y) * img->stride, row);
        rows = st->flipped.data;
        stride = row;
    }
    ks_h264_au au;
    KS_TRY(ks_h264_stream_encode(st->stream, rows, img->width, img->height, (int)stride, &au));
    if (au.size == 0) return KS_OK;
    KS_TRY(ks_byte_buf_reserve(out, au.size));
    memcpy(out->data, au.data, au.size);
    out->size = au.size;
    *keyframe = au.keyframe;
    return KS_OK;
}

static void h264_request_keyframe(ks_frame_encoder *e)
{
    h264_state *st = e->self;
    if (st->stream) ks_h264_stream_request_keyframe(st->stream);
}

static void h264_destroy(ks_frame_encoder *e)
{
    h264_state *st = e->self;
    ks_h264_stream_destroy(st->stream);
    ks_byte_buf_free(&st->flipped);
    free(st);
    free(e);
}

ks_status ks_frame_encoder_h264_create(const ks_frame_encoder_h264_desc *desc, ks_frame_encoder **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "H.264 frame encoder: no handle to fill");
    *out = NULL;
    const ks_frame_encoder_h264_desc d = desc ? *desc : (ks_frame_encoder_h264_desc){0};
    if (d.fps < 0 || d.fps > 1000) return ks_fail(KS_ERR_INVALID, "H.264 frame encoder: %d pictures a second", d.fps);
    const int fps = d.fps > 0 ? d.fps : 60;
    char *notice = d.notice;
    const size_t notice_len = d.notice ? d.notice_len : 0;
    if (notice && notice_len) notice[0] = '\0';
    /* a small stream first: says at start whether this build and machine can encode H.264 at all */
    ks_h264_stream_desc probe = {0};
    probe.width = 64;
    probe.height = 64;
    probe.fps = fps;
    ks_h264_stream *s = NULL;
    KS_TRY(ks_h264_stream_create(&probe, &s, notice, notice_len));
    char name[32];
    snprintf(name, sizeof name, "%s", ks_h264_stream_encoder(s));
    ks_h264_stream_destroy(s);
    ks_frame_encoder *e = calloc(1, sizeof *e);
    h264_state *st = calloc(1, sizeof *st);
    if (!e || !st) {
        free(e);
        free(st);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    st->fps = fps;
    memcpy(st->name, name, sizeof name);
    e->name = st->name;
    e->kind = KS_FRAME_H264;
    e->self = st;
    e->encode = h264_encode;
    e->request_keyframe = h264_request_keyframe;
    e->destroy = h264_destroy;
    *out = e;
    return KS_OK;
}
