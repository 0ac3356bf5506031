/* Register- and warp-tiled FP32 SGEMM, C = A * B, row-major (A MxK, B KxN,
 * C MxN), in several tile shapes (template instances, one row each in a
 * table). Plain FP32: one fmaf per product, no tensor cores, no TF32.
 *
 * Each block computes a BM x BN tile of C from BK-wide slices of A and B held
 * in two shared-memory buffers; each warp a WM x WN part of it; each thread
 * TM x TN elements in registers, as (TM/4) x (TN/4) 4x4 pieces spread across
 * the warp tile so that a warp's shared-memory reads are 128-byte rows (no
 * bank conflicts). A's slice is stored transposed (k-major) through registers,
 * with an XOR swizzle that keeps both the stores and the 16-byte reads free of
 * bank conflicts; B's slice is copied with cp.async (sm_80 and later; through
 * registers before). Needs K % 4 == 0 and N % 4 == 0 (16-byte rows); any M,
 * N, K otherwise (edges zero-filled and masked).
 *
 * The tile shape is picked per size: ks_matmul_wt_pick (a table measured on
 * the GPU, a wave heuristic elsewhere) or ks_matmul_wt_tune (times every
 * shape once on the caller's matrices). */
#ifndef KS_SGEMM_WARPTILE_H
#define KS_SGEMM_WARPTILE_H

#include "kernels/common/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_matmul_wt_config {
    const char *name; /* "128x128x16/64x32/8x8": block tile BMxBNxBK / warp tile / thread tile */
    int bm, bn, bk;   /* block tile of C and the K slice per stage */
    int wm, wn;       /* warp tile */
    int tm, tn;       /* elements of C per thread */
    int threads;      /* per block */
    int min_blocks;   /* __launch_bounds__ minimum resident blocks per SM (register cap) */
    int async_b;      /* 1: B's slice by cp.async where the GPU has it */
} ks_matmul_wt_config;

typedef struct ks_matmul_wt_attrs {
    int regs;            /* registers per thread */
    int local_bytes;     /* local memory per thread (spills, stack) */
    int smem_bytes;      /* dynamic shared memory per block */
    int blocks_per_sm;   /* resident blocks per SM (occupancy API) */
    int warps_per_sm;
} ks_matmul_wt_attrs;

int ks_matmul_wt_count(void);
const ks_matmul_wt_config *ks_matmul_wt_get(int i); /* NULL outside 0..count-1 */
int ks_matmul_wt_find(const char *name);            /* -1 when unknown */
/* 1 when config i can run this shape (K % 4 == 0, N % 4 == 0, sizes > 0). */
int ks_matmul_wt_supported(int m, int n, int k);
/* Raises the dynamic shared-memory limit of every instance that needs more
 * than 48 KiB; call once per device before the first run. */
ks_status ks_matmul_wt_prepare(void);
ks_status ks_matmul_wt_attrs_get(int i, ks_matmul_wt_attrs *out);
/* Enqueues C = A * B with config i on stream (a cudaStream_t; NULL: the default stream). */
ks_status ks_matmul_wt_run(int i, const float *a, const float *b, float *c, int m, int n, int k, void *stream);
/* The config for this shape on this device: the measured table when the
 * device and size are in it, else the config whose tiles fill the SMs' waves
 * best, larger tiles first. sm_count: multiprocessors; cc: 10 * major + minor. */
int ks_matmul_wt_pick(int m, int n, int k, int sm_count, int cc);
/* Times every config once (after one warm-up) on the caller's buffers, which
 * it overwrites (c), and returns the fastest in *best; *best_ms its time. */
ks_status ks_matmul_wt_tune(const float *a, const float *b, float *c, int m, int n, int k, void *stream, int *best,
                            double *best_ms);

#ifdef __cplusplus
}
#endif

#endif
