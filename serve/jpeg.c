/* The JPEG encoders' shared description checks and the CPU reference of the
 * GPU encoder's colour conversion. */
#include "jpeg.h"

ks_jpeg_desc ks_jpeg_desc_defaults(const ks_jpeg_desc *d)
{
    ks_jpeg_desc out = *d;
    if (out.quality == 0) out.quality = KS_JPEG_QUALITY_DEFAULT;
    if (out.input == KS_JPEG_INPUT_DEFAULT) out.input = KS_JPEG_INPUT_YUV420;
    return out;
}

ks_status ks_jpeg_desc_check(const ks_jpeg_desc *d)
{
    if (d->max_width < 1 || d->max_width > KS_JPEG_DIM_MAX || d->max_height < 1 || d->max_height > KS_JPEG_DIM_MAX)
        return ks_fail(KS_ERR_INVALID, "JPEG encoder: largest picture %dx%d is outside 1x1 .. %dx%d", d->max_width,
                       d->max_height, KS_JPEG_DIM_MAX, KS_JPEG_DIM_MAX);
    if (d->quality < 1 || d->quality > 100)
        return ks_fail(KS_ERR_INVALID, "JPEG encoder: quality %d is outside 1 .. 100", d->quality);
    if ((int)d->input <= KS_JPEG_INPUT_DEFAULT || (int)d->input >= KS_JPEG_INPUT_NUM)
        return ks_fail(KS_ERR_INVALID, "JPEG encoder: unknown GPU input kind %d", (int)d->input);
    return KS_OK;
}

ks_status ks_jpeg_frame_check(const ks_jpeg_desc *d, const void *pixels, int w, int h, const char *who)
{
    if (!pixels) return ks_fail(KS_ERR_INVALID, "%s: no picture", who);
    if (w < 1 || h < 1 || w > d->max_width || h > d->max_height)
        return ks_fail(KS_ERR_INVALID, "%s: picture %dx%d is outside 1x1 .. %dx%d (the size it was made for)", who, w,
                       h, d->max_width, d->max_height);
    return KS_OK;
}

const char *ks_jpeg_gpu_input_name(ks_jpeg_gpu_input input)
{
    switch (input) {
    case KS_JPEG_INPUT_DEFAULT:
    case KS_JPEG_INPUT_YUV420: return "yuv420";
    case KS_JPEG_INPUT_RGBI: return "rgbi";
    case KS_JPEG_INPUT_NUM: break;
    }
    return "?";
}

void ks_jpeg_yuv420_gold(const uint8_t *rgba, int w, int h, uint8_t *y, uint8_t *cb, uint8_t *cr)
{
    const int cw = ks_jpeg_chroma_dim(w), ch = ks_jpeg_chroma_dim(h);
    for (int row = 0; row < h; ++row) { /* row 0 = top = the last input row */
        const uint8_t *src = rgba + (size_t)(h - 1 - row) * w * 4;
        for (int x = 0; x < w; ++x)
            y[(size_t)row * w + x] = ks_jpeg_luma(src[4 * x], src[4 * x + 1], src[4 * x + 2]);
    }
    for (int cy = 0; cy < ch; ++cy)
        for (int cx = 0; cx < cw; ++cx) {
            uint32_t sb = 0, sr = 0, n = 0;
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                    const int row = 2 * cy + dy, x = 2 * cx + dx;
                    if (row >= h || x >= w) continue;
                    const uint8_t *p = rgba + ((size_t)(h - 1 - row) * w + x) * 4;
                    sb += ks_jpeg_cb_fix(p[0], p[1], p[2]);
                    sr += ks_jpeg_cr_fix(p[0], p[1], p[2]);
                    ++n;
                }
            cb[(size_t)cy * cw + cx] = ks_jpeg_chroma_mean(sb, n);
            cr[(size_t)cy * cw + cx] = ks_jpeg_chroma_mean(sr, n);
        }
}
