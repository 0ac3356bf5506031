/* What the recorder and the stream encoder share: opening an H.264 encoder
 * (h264_nvenc where a session opens, libx264 otherwise) and turning RGBA8
 * host frames into the encoder's YUV 4:2:0 frames. Internal to video/. */
#ifndef KS_VENC_H
#define KS_VENC_H

#include <stddef.h>

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>

#include "base/ks_error.h"

typedef enum ks_venc_use { KS_VENC_RECORD = 0, KS_VENC_STREAM } ks_venc_use;

typedef struct ks_venc_desc {
    ks_venc_use use;     /* RECORD: quality per bit, B-frames; STREAM: one packet per frame, no delay */
    int width, height;   /* even */
    int fps;
    int gop;             /* frames between keyframes; 0: the encoder's default */
    const char *encoder; /* NULL: h264_nvenc, then libx264 */
    const char *preset;  /* libx264 preset */
    int crf;             /* libx264 quality (0: 23) */
    int global_header;   /* SPS/PPS in extradata (MP4); 0: in-band before each keyframe (Annex B) */
} ks_venc_desc;

/* Opens the encoder. notice (may be NULL) receives one line when NVENC was
 * tried and libx264 is used instead, "" otherwise. */
ks_status ks_venc_open(const ks_venc_desc *d, AVCodecContext **out, char *notice, size_t notice_len);

/* FFmpeg's messages go quiet (errors are returned with text instead); once per process. */
void ks_venc_quiet_logs(void);

/* RGBA8 (rows top-down) at any size into frame (the encoder's size and
 * format), through a cached scaler. */
typedef struct ks_venc_convert {
    struct SwsContext *sws;
} ks_venc_convert;
ks_status ks_venc_convert_rgba(ks_venc_convert *c, const unsigned char *rgba, int w, int h, int stride,
                               AVFrame *frame);
void ks_venc_convert_free(ks_venc_convert *c);

/* A frame of the encoder's size and pixel format, with buffers. */
ks_status ks_venc_frame_alloc(const AVCodecContext *ctx, AVFrame **out);

/* "what: <FFmpeg's text for err>" as the current error. */
ks_status ks_venc_fail(ks_status code, int averr, const char *what);

#endif
