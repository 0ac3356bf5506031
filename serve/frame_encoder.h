/* A frame encoder: RGBA8 picture in, one compressed frame out. JPEG with
 * libjpeg-turbo here; an H.264 (Annex B) or a GPU JPEG encoder plugs in by
 * filling the same struct. The encode worker (encode_worker.h) calls it on
 * its own thread, one frame at a time. */
#ifndef KS_FRAME_ENCODER_H
#define KS_FRAME_ENCODER_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_frame_kind {
    KS_FRAME_NONE = 0,
    KS_FRAME_JPEG = 1, /* one baseline JPEG per frame */
    KS_FRAME_H264 = 2, /* H.264 Annex B access unit (start codes, SPS/PPS on key frames) */
    KS_FRAME_KIND_NUM
} ks_frame_kind;

/* One picture to encode; the encoder only reads it during encode. */
typedef struct ks_frame_image {
    const unsigned char *rgba; /* RGBA8 */
    int width, height;         /* pixels */
    size_t stride;             /* bytes per row */
    int bottom_up;             /* 1: the first row in memory is the bottom of the picture */
} ks_frame_image;

/* Grown by the encoder as it needs; kept between frames. */
typedef struct ks_byte_buf {
    unsigned char *data;
    size_t size, cap;
} ks_byte_buf;

/* Makes room for cap bytes (keeps size and contents). */
ks_status ks_byte_buf_reserve(ks_byte_buf *b, size_t cap);
void ks_byte_buf_free(ks_byte_buf *b);

typedef struct ks_frame_encoder ks_frame_encoder;
struct ks_frame_encoder {
    const char *name;   /* "libjpeg-turbo", "nvjpeg", "libx264", "h264_nvenc" */
    ks_frame_kind kind;
    void *self;         /* the encoder's own state */
    /* Encodes img into out (out->size set); *keyframe 1 when the frame decodes alone. */
    ks_status (*encode)(ks_frame_encoder *e, const ks_frame_image *img, ks_byte_buf *out, int *keyframe);
    /* Optional (NULL: every frame is a key frame): the next frame must be a key frame. */
    void (*request_keyframe)(ks_frame_encoder *e);
    void (*destroy)(ks_frame_encoder *e);
};

/* The libjpeg-turbo encoder's quality when none is given. (nvJPEG's is
 * KS_JPEG_QUALITY_DEFAULT, 85, in serve/jpeg.h.) */
enum { KS_FRAME_JPEG_QUALITY_DEFAULT = 80 };

typedef struct ks_frame_encoder_jpeg_desc {
    int quality; /* 1..100; 0 -> KS_FRAME_JPEG_QUALITY_DEFAULT (80) */
} ks_frame_encoder_jpeg_desc;

/* libjpeg-turbo (TurboJPEG API), 4:2:0. desc NULL: every default; quality
 * out of range: KS_ERR_INVALID. */
ks_status ks_frame_encoder_jpeg_create(const ks_frame_encoder_jpeg_desc *desc, ks_frame_encoder **out);
typedef struct ks_frame_encoder_h264_desc {
    int fps;              /* pictures a second; 0 -> 60 */
    char *notice;         /* gets the encoder's own line (NVENC tried, libx264 used); NULL: none */
    size_t notice_len;
} ks_frame_encoder_h264_desc;
/* H.264 Annex B (video/h264_stream.h: libx264, or NVENC where a session
 * opens); fails with one line in a build without video. desc NULL: every default. */
ks_status ks_frame_encoder_h264_create(const ks_frame_encoder_h264_desc *desc, ks_frame_encoder **out);

typedef struct ks_frame_encoder_nvjpeg_desc {
    int quality;               /* 1..100; 0 -> KS_JPEG_QUALITY_DEFAULT (85, serve/jpeg.h) */
    int max_width, max_height; /* pixels: the largest picture, 1..KS_JPEG_DIM_MAX; required */
} ks_frame_encoder_nvjpeg_desc;

/* nvJPEG on the GPU, for pictures up to max_width x max_height; fails (one
 * line) in a build without nvJPEG or CUDA, or without a usable device.
 * desc NULL, or (in a build with nvJPEG) a field out of range: KS_ERR_INVALID. */
ks_status ks_frame_encoder_nvjpeg_create(const ks_frame_encoder_nvjpeg_desc *desc, ks_frame_encoder **out);
void ks_frame_encoder_destroy(ks_frame_encoder *e);

#ifdef __cplusplus
}
#endif
#endif
