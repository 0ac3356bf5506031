/* A build without FFmpeg's libraries (-DKS_VIDEO=OFF, or libavcodec-dev
 * missing): the video API answers every request with one line saying so, so
 * --record and the E key fail the way any refused output does and the rest of
 * kernelscope works. Replaces recorder.c, h264_stream.c and venc.c. */
#include <stddef.h>

#include "video/h264_stream.h"
#include "video/recorder.h"

static ks_status no_video(void)
{
    return ks_fail(KS_ERR_INVALID, "this kernelscope was built without video (FFmpeg's libraries were not found "
                   "at build time: install libavcodec-dev libavformat-dev libswscale-dev and rebuild)");
}

ks_status ks_recorder_check_name(const char *path)
{
    (void)path;
    return no_video();
}

ks_status ks_recorder_check_path(const char *path)
{
    (void)path;
    return no_video();
}

ks_status ks_recorder_open(const ks_recorder_desc *desc, ks_recorder **out, char *notice, size_t notice_len)
{
    (void)desc;
    if (out) *out = NULL;
    if (notice && notice_len) notice[0] = '\0';
    return no_video();
}

int ks_recorder_ready(const ks_recorder *r)
{
    (void)r;
    return 0;
}

ks_status ks_recorder_push(ks_recorder *r, const unsigned char *rgba, int w, int h, int stride, long long pts,
                           int *taken)
{
    (void)r, (void)rgba, (void)w, (void)h, (void)stride, (void)pts;
    if (taken) *taken = 0;
    return no_video();
}

void ks_recorder_drop(ks_recorder *r, long long pts) { (void)r, (void)pts; }

ks_status ks_recorder_close(ks_recorder *r, ks_recorder_stats *stats)
{
    (void)r;
    if (stats) *stats = (ks_recorder_stats){0};
    return KS_OK;
}

void ks_recorder_abort(ks_recorder *r) { (void)r; }
const char *ks_recorder_path(const ks_recorder *r) { return (void)r, ""; }
const char *ks_recorder_encoder(const ks_recorder *r) { return (void)r, "none"; }

void ks_recorder_size(const ks_recorder *r, int *w, int *h)
{
    (void)r;
    if (w) *w = 0;
    if (h) *h = 0;
}

int ks_recorder_fps(const ks_recorder *r) { return (void)r, 0; }

ks_status ks_h264_stream_create(const ks_h264_stream_desc *desc, ks_h264_stream **out, char *notice,
                                size_t notice_len)
{
    (void)desc;
    if (out) *out = NULL;
    if (notice && notice_len) notice[0] = '\0';
    return no_video();
}

void ks_h264_stream_destroy(ks_h264_stream *s) { (void)s; }

ks_status ks_h264_stream_encode(ks_h264_stream *s, const unsigned char *rgba, int w, int h, int stride,
                                ks_h264_au *au)
{
    (void)s, (void)rgba, (void)w, (void)h, (void)stride;
    if (au) *au = (ks_h264_au){0};
    return no_video();
}

void ks_h264_stream_request_keyframe(ks_h264_stream *s) { (void)s; }
const char *ks_h264_stream_codec(const ks_h264_stream *s) { return (void)s, ""; }
const char *ks_h264_stream_encoder(const ks_h264_stream *s) { return (void)s, "none"; }

void ks_h264_stream_size(const ks_h264_stream *s, int *w, int *h)
{
    (void)s;
    if (w) *w = 0;
    if (h) *h = 0;
}

int ks_h264_is_keyframe(const unsigned char *au, size_t size) { return (void)au, (void)size, 0; }

void ks_h264_each_nal(const unsigned char *au, size_t size, ks_h264_nal_fn fn, void *user)
{
    (void)au, (void)size, (void)fn, (void)user;
}

ks_status ks_h264_codec_string(const unsigned char *au, size_t size, char *buf, size_t len)
{
    (void)au, (void)size;
    if (buf && len) buf[0] = '\0';
    return no_video();
}
