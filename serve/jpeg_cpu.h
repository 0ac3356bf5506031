/* JPEG encoded on the CPU with libjpeg-turbo (its TurboJPEG API): the same
 * calls as jpeg_gpu.h for a picture in host memory, for machines without a
 * GPU or without nvJPEG. RGBA8 rows bottom-up in, baseline JPEG YCbCr 4:2:0
 * rows top-down out (libjpeg-turbo does the flip and the colour conversion).
 *
 * Threading: an encoder is used by one thread at a time (no lock inside);
 * separate encoders are independent, so each worker thread makes its own.
 * encode allocates nothing: the output buffer is made at create for the
 * largest picture's worst case and reused. */
#ifndef KS_JPEG_CPU_H
#define KS_JPEG_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_jpeg_cpu ks_jpeg_cpu;

/* Makes an encoder for pictures up to desc->max_width x max_height (desc->stream
 * and desc->input are ignored). KS_ERR_INVALID for a bad description. */
ks_status ks_jpeg_cpu_create(const ks_jpeg_desc *desc, ks_jpeg_cpu **out);
void ks_jpeg_cpu_destroy(ks_jpeg_cpu *e);

/* Encodes the w x h host picture rgba (RGBA8, rows bottom-up, w*4 bytes a row).
 * *jpeg points into the encoder's buffer (a complete JPEG file of *bytes
 * bytes), valid until the next encode or destroy. */
ks_status ks_jpeg_cpu_encode(ks_jpeg_cpu *e, const void *rgba, int w, int h, const uint8_t **jpeg, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
