/* The sphere arithmetic, written once for the CPU gold and every kernel.
 * Each operation is a single IEEE rounding: the device pass uses the _rn
 * intrinsics (never contracted into FMA), the host pass plain C (GCC keeps
 * -ffp-contract=off in ISO C mode), so CPU and GPU agree bit for bit. */
#ifndef KS_SPHERES_SHADE_H
#define KS_SPHERES_SHADE_H

#include <math.h>

#if defined(__CUDACC__)
#define KS_SPH_FN static __host__ __device__ __forceinline__
#else
#define KS_SPH_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define KS_SPH_ADD(a, b) __fadd_rn((a), (b))
#define KS_SPH_SUB(a, b) __fsub_rn((a), (b))
#define KS_SPH_MUL(a, b) __fmul_rn((a), (b))
#define KS_SPH_DIV(a, b) __fdiv_rn((a), (b))
#define KS_SPH_SQRT(a) __fsqrt_rn(a)
#else
#define KS_SPH_ADD(a, b) ((a) + (b))
#define KS_SPH_SUB(a, b) ((a) - (b))
#define KS_SPH_MUL(a, b) ((a) * (b))
#define KS_SPH_DIV(a, b) ((a) / (b))
#define KS_SPH_SQRT(a) sqrtf(a)
#endif

/* Ray coordinate of pixel index i in an image n pixels wide: i - n/2. */
KS_SPH_FN float ks_sph_ray(int i, int n) { return KS_SPH_SUB((float)i, KS_SPH_MUL((float)n, 0.5f)); }

/* Squared distance from the ray to the centre, in the xy plane. */
KS_SPH_FN float ks_sph_d2(float px, float py, float x, float y)
{
    const float dx = KS_SPH_SUB(px, x), dy = KS_SPH_SUB(py, y);
    return KS_SPH_ADD(KS_SPH_MUL(dx, dx), KS_SPH_MUL(dy, dy));
}

/* Depth of the hit; only meaningful when d2 < r2. */
KS_SPH_FN float ks_sph_depth(float z, float r2, float d2) { return KS_SPH_ADD(z, KS_SPH_SQRT(KS_SPH_SUB(r2, d2))); }

/* Colour channel of the winner: floor(255 * c * sqrt(r2 - d2) / r). */
KS_SPH_FN unsigned char ks_sph_channel(float c, float scale)
{
    float v = KS_SPH_MUL(255.0f, KS_SPH_MUL(c, scale));
    v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
    return (unsigned char)(int)v; /* v >= 0: truncation is floor */
}

KS_SPH_FN float ks_sph_scale(float r2, float d2, float radius)
{
    return KS_SPH_DIV(KS_SPH_SQRT(KS_SPH_SUB(r2, d2)), radius);
}

/* Pixel indices lo..hi (inclusive, clipped to 0..n-1) along one axis whose
 * rays may hit a sphere centred at c with radius r; lo > hi when none. A hit
 * needs |ray - c| < r, so one pixel of margin covers every rounding while
 * |c| <= KS_SPHERES_COORD_MAX. */
KS_SPH_FN void ks_sph_span(float c, float r, int n, int *lo, int *hi)
{
    const float centre = KS_SPH_ADD(c, KS_SPH_MUL((float)n, 0.5f));
    float a = KS_SPH_SUB(KS_SPH_SUB(centre, r), 1.0f);
    float b = KS_SPH_ADD(KS_SPH_ADD(centre, r), 1.0f);
    if (b < 0.0f || a > (float)(n - 1)) {
        *lo = 1;
        *hi = 0;
        return;
    }
    a = a < 0.0f ? 0.0f : a;
    b = b > (float)(n - 1) ? (float)(n - 1) : b;
    *lo = (int)floorf(a);
    *hi = (int)ceilf(b);
}

#endif
