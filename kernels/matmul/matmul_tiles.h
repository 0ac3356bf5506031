/* regtile's tile shapes (matmul_regtile.cu is the kernel): the table of shapes
 * the kernel is built in, and which one runs at a size on a GPU: the shape
 * measured fastest there (a table keyed by compute capability, SM count and
 * size), else the fastest of a quick tune on the caller's matrices (the GPU
 * context does it at set-up), else a heuristic; the shape for any M, N, K when
 * K or N is not a multiple of 4. Plain C, so the choice is tested without a GPU. */
#ifndef KS_MATMUL_TILES_H
#define KS_MATMUL_TILES_H

#include <stddef.h>

#include "matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shapes, one row each:
 * X(name, BM, BN, BK, WM, WN, TR, MI, NI, THREADS, MINB, VEC)
 * block tile BM x BN of C and BK of K per stage; warp tile WM x WN, a warp's lanes TR rows x 32/TR
 * columns, each lane (4 MI) x (4 NI) elements of C; THREADS per block; MINB blocks per SM for
 * __launch_bounds__ (the register cap); VEC 1: 16-byte loads (K, N multiples of 4), 0: any shape.
 * Measured on an H200 (tests/matmul/perf_sgemm, docs/perf-limits.md): 128x256 fastest from 2048^3 up,
 * 128x64 at 1024^3; 8-deep K slices (BK 8) and B through registers were slower everywhere. */
#define KS_MM_RT_CONFIGS(X)                                                                           \
    X("128x256x16/64x64/8x16", 128, 256, 16, 64, 64, 8, 2, 4, 256, 1, 1)                               \
    X("128x128x16/64x32/8x8", 128, 128, 16, 64, 32, 8, 2, 2, 256, 2, 1)                                \
    X("128x128x16/32x64/8x8", 128, 128, 16, 32, 64, 4, 2, 2, 256, 2, 1)                                \
    X("128x128x16/64x64/8x16", 128, 128, 16, 64, 64, 8, 2, 4, 128, 2, 1)                              \
    X("256x128x16/64x64/16x8", 256, 128, 16, 64, 64, 4, 4, 2, 256, 1, 1)                               \
    X("128x64x16/64x32/8x8", 128, 64, 16, 64, 32, 8, 2, 2, 128, 3, 1)                                  \
    X("64x64x16/32x64/8x8", 64, 64, 16, 32, 64, 4, 2, 2, 64, 8, 1)                                     \
    X("128x64x16/64x32/8x8/any", 128, 64, 16, 64, 32, 8, 2, 2, 128, 3, 0)

typedef struct ks_matmul_rt_config {
    const char *name; /* "128x128x16/64x32/8x8": block tile BMxBNxBK / warp tile / thread tile */
    int bm, bn, bk;   /* block tile of C and the K slice per stage */
    int wm, wn;       /* warp tile */
    int tm, tn;       /* elements of C per thread */
    int threads;      /* per block */
    int min_blocks;   /* __launch_bounds__ minimum resident blocks per SM */
    int vec;          /* 1: needs K % 4 == 0 and N % 4 == 0; 0: any shape */
} ks_matmul_rt_config;

int ks_matmul_rt_count(void);
const ks_matmul_rt_config *ks_matmul_rt_get(int i); /* NULL outside 0..count-1 */
int ks_matmul_rt_find(const char *name);            /* -1 when unknown */
/* 1 when the 16-byte shapes can run s (K and N multiples of 4). */
int ks_matmul_rt_vec_ok(const ks_matmul_size *s);
/* The block tile of C config i computes (rows bm x columns bn); {0, 0} for an unknown i. */
ks_matmul_tile ks_matmul_rt_tile(int i);

/* How the shape that runs was chosen. */
typedef enum ks_matmul_rt_how {
    KS_MM_RT_TABLE = 0,  /* measured fastest on this GPU (cc, SMs) near this size */
    KS_MM_RT_TUNED,      /* this GPU or size is not in the table: the fastest of a quick tune here */
    KS_MM_RT_HEURISTIC,  /* neither: the shape whose tiles fill the SMs' waves best */
    KS_MM_RT_ANY_SHAPE,  /* K or N is not a multiple of 4: the shape that takes any M, N, K */
    KS_MM_RT_ASKED,      /* set by the caller (ks_matmul_gpu_set_regtile: tests, comparisons) */
} ks_matmul_rt_how;

typedef struct ks_matmul_rt_choice {
    int config;          /* index into the shapes */
    ks_matmul_rt_how how;
    const char *device;  /* KS_MM_RT_TABLE: the GPU it was measured on ("H200") */
    int measured_size;   /* KS_MM_RT_TABLE: the size of the table's row */
    double tuned_ms;     /* KS_MM_RT_TUNED: its time in the tune */
    int tuned_of;        /* KS_MM_RT_TUNED: shapes timed */
} ks_matmul_rt_choice;

/* The choice without timing anything: the any-shape config when K or N is not
 * a multiple of 4; the table's row for this GPU (cc = 10 major + minor, its SM
 * count) at the measured size nearest to s's (the cube root of M N K) when it
 * is within a factor of 2; else the heuristic (the 16-byte shape whose grid
 * fills the last wave of blocks best, larger tiles first). Returns 1 when the
 * answer is final (table, any shape), 0 when it is the heuristic's, which a
 * caller that can time should replace by a tune. */
int ks_matmul_rt_choose(const ks_matmul_size *s, int cc, int sm_count, ks_matmul_rt_choice *out);
/* The shape the GPU context runs for regtile at its size (chosen at ks_matmul_gpu_setup: the
 * table, else a tune on its matrices, else the heuristic). */
ks_status ks_matmul_gpu_regtile(ks_matmul_gpu *g, ks_matmul_rt_choice *out);
/* Runs regtile in shape i from now until the next setup (KS_ERR_UNSUPPORTED when a 16-byte
 * shape meets K or N not a multiple of 4, KS_ERR_INVALID for an unknown i). */
ks_status ks_matmul_gpu_set_regtile(ks_matmul_gpu *g, int i);
/* "tile 128x256x16 (measured table, H200 at 4096^3)", "tile 128x128x16 (tuned here: fastest of 7)",
 * "tile 128x64x16 (heuristic)", "tile 128x64x16 (any shape: K or N not a multiple of 4)", "tile 64x64x16 (asked)". */
void ks_matmul_rt_choice_text(const ks_matmul_rt_choice *c, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
