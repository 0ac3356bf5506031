/* JPEG frames with libjpeg-turbo's TurboJPEG API: straight from RGBA, rows
 * flipped by the library (TJFLAG_BOTTOMUP), into a buffer sized once with
 * tjBufSize so the library never reallocates it. */
#include "frame_encoder.h"

#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

typedef struct jpeg_state {
    tjhandle tj;
    int quality;
} jpeg_state;

ks_status ks_byte_buf_reserve(ks_byte_buf *b, size_t cap)
{
    if (cap <= b->cap) return KS_OK;
    unsigned char *p = realloc(b->data, cap);
    if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory (%zu bytes for a frame)", cap);
    b->data = p;
    b->cap = cap;
    return KS_OK;
}

void ks_byte_buf_free(ks_byte_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

static ks_status jpeg_encode(ks_frame_encoder *e, const ks_frame_image *img, ks_byte_buf *out, int *keyframe)
{
    jpeg_state *s = e->self;
    *keyframe = 1;
    if (!img->rgba || img->width <= 0 || img->height <= 0 || img->stride < (size_t)img->width * 4)
        return ks_fail(KS_ERR_INVALID, "jpeg: bad picture %dx%d", img->width, img->height);
    unsigned long cap = tjBufSize(img->width, img->height, TJSAMP_420);
    if (cap == (unsigned long)-1) return ks_fail(KS_ERR_INVALID, "jpeg: picture %dx%d too large", img->width, img->height);
    KS_TRY(ks_byte_buf_reserve(out, cap));
    unsigned char *dst = out->data;
    unsigned long size = cap;
    const int flags = TJFLAG_NOREALLOC | TJFLAG_FASTDCT | (img->bottom_up ? TJFLAG_BOTTOMUP : 0);
    if (tjCompress2(s->tj, img->rgba, img->width, (int)img->stride, img->height, TJPF_RGBA, &dst, &size,
                    TJSAMP_420, s->quality, flags) != 0)
        return ks_fail(KS_ERR_IO, "jpeg: %s", tjGetErrorStr2(s->tj));
    out->size = size;
    return KS_OK;
}

static void jpeg_destroy(ks_frame_encoder *e)
{
    jpeg_state *s = e->self;
    if (s && s->tj) tjDestroy(s->tj);
    free(s);
    free(e);
}

/* The one place zero fields become defaults. */
static ks_frame_encoder_jpeg_desc jpeg_desc_defaults(const ks_frame_encoder_jpeg_desc *desc)
{
    ks_frame_encoder_jpeg_desc d = desc ? *desc : (ks_frame_encoder_jpeg_desc){0};
    if (d.quality == 0) d.quality = KS_FRAME_JPEG_QUALITY_DEFAULT;
    return d;
}

ks_status ks_frame_encoder_jpeg_create(const ks_frame_encoder_jpeg_desc *desc, ks_frame_encoder **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "jpeg: no output pointer");
    *out = NULL;
    const int quality = jpeg_desc_defaults(desc).quality;
    if (quality < 0 || quality > 100) return ks_fail(KS_ERR_INVALID, "jpeg: quality %d not in 1..100", quality);
    ks_frame_encoder *e = calloc(1, sizeof *e);
    jpeg_state *s = calloc(1, sizeof *s);
    if (!e || !s) {
        free(e);
        free(s);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    s->quality = quality;
    s->tj = tjInitCompress();
    if (!s->tj) {
        free(e);
        free(s);
        return ks_fail(KS_ERR_IO, "jpeg: cannot start libjpeg-turbo: %s", tjGetErrorStr2(NULL));
    }
    e->name = "libjpeg-turbo";
    e->kind = KS_FRAME_JPEG;
    e->self = s;
    e->encode = jpeg_encode;
    e->destroy = jpeg_destroy;
    *out = e;
    return KS_OK;
}

void ks_frame_encoder_destroy(ks_frame_encoder *e)
{
    if (e && e->destroy) e->destroy(e);
}
