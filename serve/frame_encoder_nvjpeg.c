/* JPEG frames encoded on the GPU with nvJPEG (serve/jpeg_gpu.h):
 * the host picture the readback gave is copied to the device, converted and
 * encoded there; the encode worker's thread only waits for its own stream. */
#include "frame_encoder.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/jpeg_gpu.h"

static ks_status nvjpeg_encode(ks_frame_encoder *e, const ks_frame_image *img, ks_byte_buf *out, int *keyframe)
{
    *keyframe = 1;
    out->size = 0;
    if (!img->bottom_up || img->stride != (size_t)img->width * 4)
        return ks_fail(KS_ERR_INVALID, "nvJPEG frames: the picture must be packed RGBA rows, bottom row first");
    const uint8_t *jpeg = NULL;
    size_t bytes = 0;
    KS_TRY(ks_jpeg_gpu_encode_host(e->self, img->rgba, img->width, img->height, &jpeg, &bytes));
    KS_TRY(ks_byte_buf_reserve(out, bytes));
    memcpy(out->data, jpeg, bytes);
    out->size = bytes;
    return KS_OK;
}

static void nvjpeg_destroy(ks_frame_encoder *e)
{
    ks_jpeg_gpu_destroy(e->self);
    free(e);
}

ks_status ks_frame_encoder_nvjpeg_create(const ks_frame_encoder_nvjpeg_desc *desc, ks_frame_encoder **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "nvJPEG frames: no output pointer");
    *out = NULL;
    if (!desc) return ks_fail(KS_ERR_INVALID, "nvJPEG frames: no desc (the largest picture is required)");
    ks_jpeg_desc d = {0}; /* its zero quality becomes KS_JPEG_QUALITY_DEFAULT in ks_jpeg_desc_defaults */
    d.max_width = desc->max_width;
    d.max_height = desc->max_height;
    d.quality = desc->quality;
    ks_jpeg_gpu *gpu = NULL;
    KS_TRY(ks_jpeg_gpu_create(&d, &gpu)); /* its own stream: used from the encode worker's thread */
    ks_frame_encoder *e = calloc(1, sizeof *e);
    if (!e) {
        ks_jpeg_gpu_destroy(gpu);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    e->name = "nvjpeg";
    e->kind = KS_FRAME_JPEG;
    e->self = gpu;
    e->encode = nvjpeg_encode;
    e->destroy = nvjpeg_destroy;
    *out = e;
    return KS_OK;
}
