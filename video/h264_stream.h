/* A low-latency H.264 encoder for a live viewer: one RGBA8 host frame in,
 * one Annex B access unit out (start codes, SPS and PPS in-band before every
 * keyframe), ready for a browser's WebCodecs VideoDecoder. h264_nvenc where a
 * session opens (tuned for ultra-low latency), else libx264 with tune
 * zerolatency (no B-frames, no lookahead: the unit of frame n comes out of the
 * call that takes frame n).
 *
 * Threads: one thread at a time calls encode (it need not be the one that
 * created the encoder); ks_h264_stream_request_keyframe may be called from
 * any thread at any time (a viewer joins, a decoder reports an error). */
#ifndef KS_H264_STREAM_H
#define KS_H264_STREAM_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_h264_stream ks_h264_stream;

typedef struct ks_h264_stream_desc {
    int width, height;   /* odd sizes are rounded down to even */
    int fps;             /* frame rate the rate control plans for; default 60 */
    int keyframe_every;  /* frames between keyframes; default 2 * fps */
    int crf;             /* libx264 quality; default 23 */
    const char *encoder; /* NULL: h264_nvenc where a session opens, else libx264 */
} ks_h264_stream_desc;

typedef struct ks_h264_au {
    const unsigned char *data; /* Annex B bytes; valid until the next encode or destroy */
    size_t size;               /* 0 when the encoder gave nothing for this frame */
    int keyframe;              /* an IDR: a decoder can start here */
    long long index;           /* frame number (0, 1, ...), the WebCodecs timestamp's unit */
} ks_h264_au;

/* notice (may be NULL) receives one line when NVENC was tried and libx264 is used. */
ks_status ks_h264_stream_create(const ks_h264_stream_desc *desc, ks_h264_stream **out, char *notice,
                                size_t notice_len);
void ks_h264_stream_destroy(ks_h264_stream *s);

/* Encodes one frame (RGBA8, rows top-down, stride bytes per row; scaled when
 * its size differs from the stream's). */
ks_status ks_h264_stream_encode(ks_h264_stream *s, const unsigned char *rgba, int w, int h, int stride,
                                ks_h264_au *au);
/* The next frame encoded becomes an IDR with SPS/PPS. Any thread. */
void ks_h264_stream_request_keyframe(ks_h264_stream *s);

/* WebCodecs codec string "avc1.PPCCLL" (profile, constraint flags, level from
 * the SPS the encoder wrote); "" until the first keyframe came out. */
const char *ks_h264_stream_codec(const ks_h264_stream *s);
const char *ks_h264_stream_encoder(const ks_h264_stream *s); /* "h264_nvenc" or "libx264" */
void ks_h264_stream_size(const ks_h264_stream *s, int *w, int *h);

/* Annex B helpers, for any H.264 bytes. */
/* 1 when the access unit holds an IDR slice (NAL type 5). */
int ks_h264_is_keyframe(const unsigned char *au, size_t size);
/* Calls fn for each NAL unit (bytes after the start code, up to the next one). */
typedef void (*ks_h264_nal_fn)(void *user, const unsigned char *nal, size_t size);
void ks_h264_each_nal(const unsigned char *au, size_t size, ks_h264_nal_fn fn, void *user);
/* "avc1.PPCCLL" from the first SPS in the bytes; KS_ERR_PARSE when there is none. */
ks_status ks_h264_codec_string(const unsigned char *au, size_t size, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
