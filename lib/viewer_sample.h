/* A picture pixel of a shown field's slice: the mean of the cells it covers,
 * summed in double, rows top-down (the slice's last row at the top). One rule
 * for both paths, the host's (lib/viewer_field.c) and the kernel on the
 * caller's stream (lib/viewer_gpu.cu), so that their pictures agree bit for bit. */
#ifndef KS_VIEWER_SAMPLE_H
#define KS_VIEWER_SAMPLE_H

#include <stdint.h>
#include <string.h>

#include "lib/kernelscope.h"

#if defined(__CUDACC__)
#define KS_VSAMPLE_FN static inline __host__ __device__
#else
#define KS_VSAMPLE_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The slice's w x h cells from base, step_x / step_y bytes apart (0 along a
 * broadcast axis), of dtype (ks_viewer_dtype). */
typedef struct ks_vslice {
    const void *base;
    long long w, h;
    long long step_x, step_y;
    int dtype;
} ks_vslice;

KS_VSAMPLE_FN double ks_vslice_value(const unsigned char *p, int dtype)
{
#if defined(__CUDA_ARCH__)
    /* the kernel loads each point as its type: ks_viewer_show refused a misaligned device field */
    switch (dtype) {
    case KS_VIEWER_F64: return *(const double *)p;
    case KS_VIEWER_U8: return (double)*p;
    case KS_VIEWER_I32: return (double)*(const int32_t *)p;
    default: return (double)*(const float *)p;
    }
#else
    /* a host field may be misaligned (strides in bytes): read through memcpy */
    switch (dtype) {
    case KS_VIEWER_F64: { double d; memcpy(&d, p, sizeof d); return d; }
    case KS_VIEWER_U8: return (double)*p;
    case KS_VIEWER_I32: { int32_t i; memcpy(&i, p, sizeof i); return (double)i; }
    default: { float f; memcpy(&f, p, sizeof f); return (double)f; }
    }
#endif
}

/* Pixel (px, py) of a pw x ph picture of s. */
KS_VSAMPLE_FN float ks_vslice_pixel(ks_vslice s, int pw, int ph, int px, int py)
{
    const int qy = ph - 1 - py; /* y grows upward */
    const long long y0 = (long long)qy * s.h / ph, y1 = (long long)(qy + 1) * s.h / ph;
    const long long x0 = (long long)px * s.w / pw, x1 = (long long)(px + 1) * s.w / pw;
    /* along a broadcast axis (a step of 0) every cell is the same one: read it once */
    const long long ye = s.step_y == 0 || y1 <= y0 ? y0 + 1 : y1, xe = s.step_x == 0 || x1 <= x0 ? x0 + 1 : x1;
    const unsigned char *base = (const unsigned char *)s.base;
    double sum = 0.0;
    for (long long y = y0; y < ye; ++y)
        for (long long x = x0; x < xe; ++x) sum += ks_vslice_value(base + x * s.step_x + y * s.step_y, s.dtype);
    return (float)(sum / (double)((ye - y0) * (xe - x0)));
}

#ifdef __cplusplus
}
#endif
#endif
