/* JPEG encoded on the GPU with nvJPEG (part of the CUDA Toolkit; runs on any
 * CUDA GPU, the data-centre ones without a video encoder included).
 *
 * A picture in device memory (RGBA8, rows bottom-up, as render/renderer.h
 * keeps it) goes through one kernel of ours (flip, colour conversion, 4:2:0
 * chroma: see jpeg.h) and nvJPEG's encoder on the encoder's stream; the
 * bitstream comes back into a pinned host buffer that the encoder reuses.
 *
 * nvJPEG is optional. In a build without it (a CUDA Toolkit that lacks
 * libnvjpeg, or -DKS_CUDA=OFF) these calls exist but create fails with
 * KS_ERR_UNSUPPORTED and a one-line reason for the caller to show before it
 * falls back to jpeg_cpu.h; ks_jpeg_gpu_built() says which build this is.
 *
 * Threading: an encoder is used by one thread at a time (calls on one encoder
 * must not overlap; there is no lock inside). Separate encoders are
 * independent, so each worker thread makes its own, each on its own stream.
 * encode blocks its caller until the encoder's own work is done (an event on
 * its stream; it never synchronises the device or other streams) and
 * allocates nothing: create allocates every buffer and runs one encode of the
 * largest size so that nvJPEG's work buffers are allocated there too (a
 * cudaFree inside encode would stall the whole device).
 * The caller orders the picture before the encoder's reads: write it on the
 * encoder's stream, or make that stream wait for the writer's event
 * (cudaStreamWaitEvent) before calling encode. Once encode returns the picture
 * has been read and may be overwritten. */
#ifndef KS_JPEG_GPU_H
#define KS_JPEG_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_jpeg_gpu ks_jpeg_gpu;

/* 1 when this build has the nvJPEG encoder, 0 when it was compiled out. */
int ks_jpeg_gpu_built(void);

/* Makes an encoder for pictures up to desc->max_width x max_height (see jpeg.h
 * for the fields). Fails with KS_ERR_UNSUPPORTED in a build without nvJPEG,
 * KS_ERR_INVALID for a bad description, KS_ERR_CUDA when CUDA or nvJPEG fails. */
ks_status ks_jpeg_gpu_create(const ks_jpeg_desc *desc, ks_jpeg_gpu **out);
void ks_jpeg_gpu_destroy(ks_jpeg_gpu *e);

/* Encodes the w x h device picture rgba (RGBA8, rows bottom-up, w*4 bytes a
 * row). *jpeg points into the encoder's pinned host buffer (a complete JPEG
 * file of *bytes bytes), valid until the next encode or destroy. */
ks_status ks_jpeg_gpu_encode(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg, size_t *bytes);

/* The same from a host picture (RGBA8, rows bottom-up, w*4 bytes a row):
 * copied into a device buffer for the largest picture (made on the first
 * call), then encoded. For pictures that are already in host memory, such as
 * the browser viewer's GL readback. */
ks_status ks_jpeg_gpu_encode_host(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg,
                                  size_t *bytes);

/* For tests: runs only the colour kernel on rgba and copies what it hands to
 * nvJPEG to host, tightly packed and top-down: for KS_JPEG_INPUT_YUV420 the
 * planes Y (w*h), Cb, Cr (ceil(w/2)*ceil(h/2) each) one after the other, for
 * KS_JPEG_INPUT_RGBI w*h*3 bytes of RGB. out holds at least that many bytes. */
ks_status ks_jpeg_gpu_convert(ks_jpeg_gpu *e, const void *rgba, int w, int h, uint8_t *out);

#ifdef __cplusplus
}
#endif
#endif
