/* What the JPEG encoder tests share: test pictures (RGBA8, rows bottom-up, as
 * the encoders take them) and a check of an encoded JPEG by decoding it with
 * libjpeg-turbo: markers, size, 4:2:0, orientation and PSNR. */
#ifndef KS_JPEG_CHECK_H
#define KS_JPEG_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* PSNR floors (dB, over R, G and B) at the default quality 85 with 4:2:0.
 * jc_fill_smooth's picture gives about 43 dB at 1920x1080 with libjpeg-turbo:
 * the floor is 30 dB, room for another encoder's tables and rounding. Below
 * 256x256 its edges (the quadrant, the blocks) are a large share of the
 * pixels, and 4:2:0 blurs their colour: 25 dB there (17x33 gives about 27).
 * Noise gives about 13 dB (floor 10: a picture upside down or another picture
 * gives about 6 to 8). */
#define KS_JPEG_PSNR_SMOOTH 30.0
#define KS_JPEG_PSNR_SMALL 25.0
#define KS_JPEG_PSNR_NOISE 10.0
static inline double jc_psnr_floor(int w, int h)
{
    return (long)w * h >= 256L * 256 ? KS_JPEG_PSNR_SMOOTH : KS_JPEG_PSNR_SMALL;
}

/* A smooth gradient with a few sharp blocks and a flat orange top-left
 * quadrant (top = the last rows; both only from 16x16 up: in a smaller picture
 * 4:2:0 would average them away), random non-zero alpha; seed varies it. */
void jc_fill_smooth(uint8_t *rgba, int w, int h, unsigned seed);
/* Random bytes in 1..255 everywhere. */
void jc_fill_noise(uint8_t *rgba, int w, int h, unsigned seed);
/* Decodes jpeg (cmocka failure when it is not a w x h 4:2:0 baseline JPEG)
 * and returns its PSNR against rgba. With check_quadrant (pictures of
 * jc_fill_smooth at least 16x16) it also checks that the orange quadrant came
 * out at the top left. */
double jc_check_jpeg(const uint8_t *jpeg, size_t bytes, const uint8_t *rgba, int w, int h, int check_quadrant,
                     const char *what);

#endif
