/* Sphere ray casting (Sheffield CUDA lab exercise 2, "CUDA by Example" ch. 6): scene
 * data, the seeded generator, the scene-file parser, the CPU gold renderer,
 * the memory-variant table and the CUDA renderer, all behind plain C types.
 *
 * Picture: W x H pixels, RGBA8, row 0 at the bottom. Pixel (i, j) casts an
 * orthographic ray along z at (i - W/2, j - H/2) (halves in float). A sphere
 * is hit where dx^2 + dy^2 < r^2 at depth z + sqrt(r^2 - dx^2 - dy^2); the
 * largest depth wins, the sphere listed first on a tie; its colour is scaled
 * by sqrt(r^2 - dx^2 - dy^2) / r and a channel is floor(255 * value). No hit
 * is black. spheres_shade.h holds that arithmetic once for every backend. */
#ifndef KS_SPHERES_H
#define KS_SPHERES_H

#include <stddef.h>

#include "base/bench_timing.h"
#include "base/ks_error.h"
#include "base/cuda_device.h" /* ks_kernel_attrs */

#ifdef __cplusplus
extern "C" {
#endif

/* One sphere as a scene file or the generator gives it. */
typedef struct ks_sphere {
    float x, y, z;  /* centre in pixels, origin at the image centre, +z towards the viewer */
    float radius;   /* pixels, 0 < radius <= KS_SPHERES_RADIUS_MAX */
    float color[3]; /* red, green, blue in 0..1 */
} ks_sphere;

/* What every renderer reads: 32 bytes (two float4 on the GPU). r2 is rounded
 * once here, so the CPU gold and every kernel test against the same value. */
typedef struct ks_sphere_packed {
    float x, y, z, r2;               /* r2 = radius * radius in float */
    float red, green, blue, radius;
} ks_sphere_packed;

#define KS_SPHERES_RADIUS_MAX 1.0e5f /* larger radii are refused ("huge radius") */
#define KS_SPHERES_COORD_MAX 1.0e6f  /* |x|, |y|, |z| limit: keeps float rounding under a pixel */

enum {
    KS_SPHERES_CONST_MAX = 2048,     /* 64 KiB of __constant__ memory / 32 bytes per sphere */
    /* The one sphere limit: --spheres, scene files (read stops at the first
     * sphere over it), the live view's + key and the bench. It is the live
     * view's range; a file of 1<<20 spheres (the old file limit) made one CPU
     * frame take minutes. */
    KS_SPHERES_MAX = 65536,
    KS_SPHERES_LIVE_MIN = 16,        /* + and - stay within 16 .. KS_SPHERES_MAX */
    KS_SPHERES_LINE_MAX = 1024,      /* bytes per scene-file line, end of line excluded */
    KS_SPHERES_DEFAULT_COUNT = 256,
    KS_SPHERES_DEFAULT_WIDTH = 1024, /* live picture when --size is not given */
    KS_SPHERES_DEFAULT_HEIGHT = 768,
};

/* ---- Scenes (spheres.c) ---- */

/* count spheres from seed, placed as in the exercise: x uniform over
 * [-W/2, W/2), y over [-H/2, H/2), z over [-max(W,H)/2, max(W,H)/2), radius
 * uniform 20..120, colours uniform 0..1. splitmix64, so a seed gives the same
 * spheres on every machine, and the first n of a larger count are the same. */
void ks_spheres_generate(unsigned long long seed, int count, int width, int height,
                         ks_sphere *out);
/* Drift velocity of each sphere (pixels per frame, 3 floats each), from seed. */
void ks_spheres_velocities(unsigned long long seed, int count, float *vel);
/* Positions after t frames of drift: x, y, z bounce between the limits the
 * generator uses, so spheres stay in view. out may not alias base. */
void ks_spheres_animate(const ks_sphere *base, const float *vel, int count, double t, int width,
                        int height, ks_sphere *out);

/* Scene file: UTF-8 text, one sphere per line "x y z radius r g b", '#'
 * starts a comment, blank lines ignored. Fields are plain decimal numbers
 * ([+-]digits[.digits][e[+-]digits]; no hex, inf or nan) separated by spaces
 * or tabs; at most KS_SPHERES_MAX spheres. name is used in messages
 * ("name:line: what is wrong"). On success *out is malloc'ed (free() it) and
 * holds *count >= 1 spheres; on failure nothing is returned (KS_ERR_PARSE). */
ks_status ks_spheres_parse(const char *name, const char *text, size_t len, ks_sphere **out,
                           int *count);
/* Reads path and parses it (KS_ERR_IO when it cannot be read). */
ks_status ks_spheres_load(const char *path, ks_sphere **out, int *count);

void ks_spheres_pack(const ks_sphere *s, int count, ks_sphere_packed *out);

/* ---- CPU gold (spheres_gold.c; OpenMP over rows) ---- */

/* rgba: w*h*4 bytes, row 0 at the bottom. */
void ks_spheres_gold_render(const ks_sphere_packed *s, int count, int w, int h,
                            unsigned char *rgba);
/* One pixel, plus the sphere that won it (-1 when none): for tests and the hover text. */
int ks_spheres_gold_pixel(const ks_sphere_packed *s, int count, int w, int h, int i, int j,
                          unsigned char rgba[4]);

/* Image comparison: largest channel difference and share of pixels that match exactly. */
typedef struct ks_spheres_diff {
    int max_abs;          /* 0..255 over R, G, B, A */
    long long differing;  /* pixels with any channel different */
    double exact_share;   /* 0..1 */
    int first_i, first_j; /* first differing pixel, -1 when none */
} ks_spheres_diff;
void ks_spheres_compare(const unsigned char *a, const unsigned char *b, int w, int h,
                        ks_spheres_diff *out);
/* The house tolerance: max_abs <= 1 and exact_share >= 0.999. */
int ks_spheres_diff_ok(const ks_spheres_diff *d);

/* ---- Memory variants (spheres.c: plain C so the CLI validates names
 * without a device) ---- */
/* The variants, one row each in M key order (id, name, summary, render
 * kernel, tiled: 1 when a block shades a tile from a list staged in shared
 * memory): spheres.c makes the name table of the rows, spheres_render.cu the
 * launcher table (the kernel and ks_sph_launch_<name>). */
#define KS_SPHERES_MEM_ROWS(X)                                                                        \
    X(GLOBAL, global, "spheres in global memory, plain loads (Sheffield lab 2.0)", spheres_global_kernel, 0) \
    X(READONLY, readonly, "const __restrict__ + __ldg: read-only data cache (Sheffield lab 2.1)",     \
      spheres_readonly_kernel, 0)                                                                     \
    X(CONSTANT, constant, "__constant__ memory, broadcast to the warp (Sheffield lab 2.2)",           \
      spheres_constant_kernel, 0)                                                                     \
    X(SHARED, shared, "tiles of spheres staged in shared memory, culled to the block",                \
      spheres_shared_cull_kernel, 1)                                                                  \
    X(BINNED, binned, "spheres binned to screen tiles on the GPU, each tile tests its own",           \
      spheres_binned_kernel, 1)

#define KS_SPHERES_MEM_ENUM(id, name, summary, kernel, tiled) KS_SPHERES_MEM_##id,
typedef enum ks_spheres_mem {
    KS_SPHERES_MEM_DEFAULT = 0, /* global */
    KS_SPHERES_MEM_ROWS(KS_SPHERES_MEM_ENUM)
    KS_SPHERES_MEM_NUM
} ks_spheres_mem;
#undef KS_SPHERES_MEM_ENUM

const char *ks_spheres_mem_name(ks_spheres_mem m);    /* "global", ... */
const char *ks_spheres_mem_summary(ks_spheres_mem m); /* one line */
const char *ks_spheres_mem_kernel(ks_spheres_mem m);  /* kernel name for the overlay */
int ks_spheres_mem_parse(const char *name, ks_spheres_mem *m); /* 0 ok, -1 unknown */
ks_spheres_mem ks_spheres_mem_resolve(ks_spheres_mem m);       /* DEFAULT -> GLOBAL */
ks_spheres_mem ks_spheres_mem_next(ks_spheres_mem m);          /* M key order, wraps */
void ks_spheres_mem_list(char *buf, size_t len);               /* "global, readonly, ..." */
/* KS_ERR_UNSUPPORTED when count spheres do not fit the variant's memory
 * (constant: more than KS_SPHERES_CONST_MAX); the message says so. */
ks_status ks_spheres_mem_check(ks_spheres_mem m, int count);
/* Thread blocks: bx*by in 1..1024. The [ ] keys walk this list. */
ks_status ks_spheres_block_check(const int block[2]);
int ks_spheres_block_presets(const int (**list)[2]); /* returns how many */
void ks_spheres_block_default(int block[2]);         /* 16 x 16 */

/* ---- CUDA renderer (spheres_gpu.cu, spheres_render.cu, spheres_binning.cu) ----
 * Sphere data on the device, uploaded to the memory a variant reads
 * (constant memory, or one device array for the rest), plus the binning
 * buffers. Every call only enqueues work on the renderer's stream unless it
 * says otherwise. */
typedef struct ks_spheres_gpu ks_spheres_gpu;


ks_status ks_spheres_gpu_create(ks_spheres_gpu **out);
void ks_spheres_gpu_destroy(ks_spheres_gpu *g);
void *ks_spheres_gpu_stream(ks_spheres_gpu *g); /* cudaStream_t */
/* Copies count spheres (through a pinned staging buffer) to where variant m
 * reads them. Refuses a count the variant cannot hold (ks_spheres_mem_check). */
ks_status ks_spheres_gpu_upload(ks_spheres_gpu *g, ks_spheres_mem m, const ks_sphere_packed *s,
                                int count);
/* Renders the spheres last uploaded for m into dst (device pointer, w*h*4
 * bytes, row 0 at the bottom); dst NULL renders into the renderer's own
 * image. Binned bins first, on the same stream. */
ks_status ks_spheres_gpu_render(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2], int w,
                                int h, void *dst);
/* The renderer's own image: fill with a byte / copy to host (synchronous). */
ks_status ks_spheres_gpu_poison(ks_spheres_gpu *g, int w, int h, unsigned char byte);
ks_status ks_spheres_gpu_download(ks_spheres_gpu *g, int w, int h, unsigned char *rgba);
/* Registers, shared memory and occupancy of the variant's render kernel. */
ks_status ks_spheres_gpu_kernel_attrs(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2],
                                      ks_kernel_attrs *out);
/* Renders into the own image (binned: binning included) timed by the benches' loop
 * (base/bench_timing.h: the cache policy, repetitions until the median's
 * standard error is under 1 %); each render queued behind a short wait on the device,
 * so its launches run back to back and the events time the GPU's work alone. The
 * working set: the spheres and the picture. Synchronous. */
ks_status ks_spheres_gpu_time(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2], int w, int h,
                              const ks_timing_opts *o, ks_timing *out);

/* Live timings per variant without stalling: with tracking on, every upload
 * and render is bracketed by events; collect returns the finished ones. */
typedef enum ks_spheres_sample_kind { KS_SPHERES_SAMPLE_RENDER = 0, KS_SPHERES_SAMPLE_UPLOAD } ks_spheres_sample_kind;
typedef struct ks_spheres_sample {
    ks_spheres_sample_kind kind;
    ks_spheres_mem mem;
    int count;  /* spheres */
    double ms;
} ks_spheres_sample;
void ks_spheres_gpu_track(ks_spheres_gpu *g, int on);
/* Finished samples, oldest first, at most max; never blocks. */
int ks_spheres_gpu_collect(ks_spheres_gpu *g, ks_spheres_sample *out, int max);

#ifdef __cplusplus
}
#endif
#endif
