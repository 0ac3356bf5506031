/* Colormaps shared by the CPU renderer, the CUDA slice kernel and the colour bar.
 * Each map is 256 RGB entries (matplotlib's published viridis, inferno, turbo
 * tables; gray is the identity ramp). ks_colormap_index() is the one mapping
 * rule from a value to a table entry, used by every backend so images match. */
#ifndef KS_COLORMAP_H
#define KS_COLORMAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define KS_HOST_DEVICE __host__ __device__
#else
#define KS_HOST_DEVICE
#endif

typedef enum ks_colormap {
    KS_CMAP_DEFAULT = 0, /* viridis */
    KS_CMAP_VIRIDIS,
    KS_CMAP_INFERNO,
    KS_CMAP_TURBO,
    KS_CMAP_GRAY,
    KS_CMAP_NUM
} ks_colormap;

extern const unsigned char ks_colormap_viridis_rgb[256][3];
extern const unsigned char ks_colormap_inferno_rgb[256][3];
extern const unsigned char ks_colormap_turbo_rgb[256][3];

const char *ks_colormap_name(ks_colormap map);
/* Returns 0 and sets *map for "viridis", "inferno", "turbo", "gray"; -1 otherwise. */
int ks_colormap_parse(const char *name, ks_colormap *map);
/* Fills rgba[256][4] (alpha 255) with the table of map. */
void ks_colormap_table_rgba(ks_colormap map, unsigned char rgba[256][4]);
ks_colormap ks_colormap_next(ks_colormap map);
/* Writes "viridis, inferno, ..." (every name a user can give) into buf. */
void ks_colormap_list(char *buf, size_t len);

/* Value -> entry index 0..255 for the range [lo, lo + 1/inv_span]. inv_span is
 * 1/(hi-lo) computed once on the host; NaN maps to 0. Written with explicit
 * single-rounding operations so CPU and GPU agree bit for bit. */
static inline KS_HOST_DEVICE int ks_colormap_index(float value, float lo, float inv_span)
{
#if defined(__CUDA_ARCH__)
    /* the _rn intrinsics are never fused into an FMA (nvcc fuses a * b + c
     * by default), so each step rounds once, as on the host */
    float t = __fmul_rn(__fsub_rn(value, lo), inv_span);
    if (!(t > 0.0f)) return 0; /* also catches NaN */
    if (t >= 1.0f) return 255;
    return (int)__fadd_rn(__fmul_rn(t, 255.0f), 0.5f);
#else
    float t = (value - lo) * inv_span;
    if (!(t > 0.0f)) return 0; /* also catches NaN */
    if (t >= 1.0f) return 255;
    float scaled = t * 255.0f;
    return (int)(scaled + 0.5f);
#endif
}

/* 1/(hi-lo), or 0 when the range is empty (everything maps to entry 0). */
float ks_colormap_inv_span(float lo, float hi);

#ifdef __cplusplus
}
#endif
#endif
