/* What the two JPEG encoders share: the description they are created from,
 * and the colour conversion of the GPU encoder with its CPU reference.
 *
 * The encoders turn the pictures of this project (RGBA8, rows bottom-up, w*4
 * bytes a row, alpha ignored) into baseline JPEG, YCbCr 4:2:0, rows top-down
 * as every JPEG viewer expects. They are for showing a run somewhere other than
 * a window (a browser, an MJPEG stream): jpeg_gpu.h encodes a picture in device
 * memory with nvJPEG, jpeg_cpu.h one in host memory with libjpeg-turbo. Both
 * have the same calls (create from a ks_jpeg_desc / encode / destroy). */
#ifndef KS_JPEG_H
#define KS_JPEG_H

#include <stddef.h>
#include <stdint.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KS_JPEG_QUALITY_DEFAULT = 85, /* sharp text and plots at about 1/10 of the raw size */
    KS_JPEG_DIM_MAX = 16384,      /* widest / tallest picture an encoder is made for */
};

/* What the GPU encoder hands to nvJPEG (the CPU encoder ignores it). */
typedef enum ks_jpeg_gpu_input {
    KS_JPEG_INPUT_DEFAULT = 0, /* KS_JPEG_INPUT_YUV420 */
    KS_JPEG_INPUT_YUV420,      /* our kernel makes Y, Cb, Cr planes at 4:2:0; nvjpegEncodeYUV */
    KS_JPEG_INPUT_RGBI,        /* our kernel makes interleaved RGB top-down; nvjpegEncodeImage converts */
    KS_JPEG_INPUT_NUM
} ks_jpeg_gpu_input;

/* Zero means default in every field. */
typedef struct ks_jpeg_desc {
    int max_width, max_height; /* pixels: the largest picture encode will take (1 .. KS_JPEG_DIM_MAX, required) */
    int quality;               /* 1 .. 100; 0: KS_JPEG_QUALITY_DEFAULT */
    void *stream;              /* GPU: cudaStream_t for all of the encoder's work; NULL: the encoder makes its own */
    ks_jpeg_gpu_input input;   /* GPU: see above; 0: KS_JPEG_INPUT_YUV420 */
} ks_jpeg_desc;

/* d with its zero fields replaced by the defaults. */
ks_jpeg_desc ks_jpeg_desc_defaults(const ks_jpeg_desc *d);
/* KS_ERR_INVALID with a line naming the field when d (after defaults) is out of range. */
ks_status ks_jpeg_desc_check(const ks_jpeg_desc *d);
/* KS_ERR_INVALID unless 1 <= w <= max_width and 1 <= h <= max_height and pixels is set. */
ks_status ks_jpeg_frame_check(const ks_jpeg_desc *d, const void *pixels, int w, int h, const char *who);
const char *ks_jpeg_gpu_input_name(ks_jpeg_gpu_input input);

/* JFIF's full-range BT.601 YCbCr in 16.16 fixed point (libjpeg's constants),
 * one formula for the GPU kernel and the CPU reference so that they agree to
 * the bit. Cb and Cr of a 4:2:0 sample are the mean of the per-pixel values of
 * the 2x2 block (fewer pixels at an odd right or top edge). */
#if defined(__CUDACC__)
#define KS_JPEG_HD __host__ __device__
#else
#define KS_JPEG_HD
#endif

/* Chroma planes of a w x h picture at 4:2:0: ceil(w/2) x ceil(h/2). */
static inline KS_JPEG_HD int ks_jpeg_chroma_dim(int n) { return (n + 1) / 2; }

static inline KS_JPEG_HD uint8_t ks_jpeg_luma(uint32_t r, uint32_t g, uint32_t b)
{
    return (uint8_t)((19595u * r + 38470u * g + 7471u * b + 32768u) >> 16);
}
/* Cb and Cr of one pixel, offset by 128 and still in 16.16 (never negative). */
static inline KS_JPEG_HD uint32_t ks_jpeg_cb_fix(uint32_t r, uint32_t g, uint32_t b)
{
    return (128u << 16) + 32768u * b - 11059u * r - 21709u * g;
}
static inline KS_JPEG_HD uint32_t ks_jpeg_cr_fix(uint32_t r, uint32_t g, uint32_t b)
{
    return (128u << 16) + 32768u * r - 27439u * g - 5329u * b;
}
/* The rounded mean of n (1..4) 16.16 values summed in sum, as a byte. */
static inline KS_JPEG_HD uint8_t ks_jpeg_chroma_mean(uint32_t sum, uint32_t n)
{
    const uint32_t v = (sum + n * 32768u) / (n << 16);
    return (uint8_t)(v > 255u ? 255u : v);
}

/* CPU reference of the YUV420 kernel: rgba (w x h, rows bottom-up) to the
 * planes y (w x h), cb and cr (ceil(w/2) x ceil(h/2)), all tightly packed and
 * top-down. */
void ks_jpeg_yuv420_gold(const uint8_t *rgba, int w, int h, uint8_t *y, uint8_t *cb, uint8_t *cr);

#ifdef __cplusplus
}
#endif
#endif
