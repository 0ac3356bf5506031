/* Candidates for the 3D single-sweep Jacobi step `regq` (laplace_fast.cu),
 * measured against it before one replaces it: the same work (one float4 of a
 * row per thread, a chunk of k planes marched with k-1, k, k+1 in registers,
 * x-neighbours by warp shuffle, the gold's rounding order), with one change
 * each: streaming stores, L2 eviction hints on the planes a neighbouring chunk
 * reads again, the next plane's load issued a step early, a register cap for
 * full occupancy, and combinations. "ref" is regq's own body with the chunk
 * as a parameter. Interior points of out are written; its boundary is left
 * alone. Rows must be float4: nx % 4 == 0, in and out 16-byte aligned. */
#ifndef KS_REGQ_FAST_H
#define KS_REGQ_FAST_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_lrq_kind {
    const char *name;
    const char *summary;
    int max_threads; /* per block (a register cap lowers it) */
} ks_lrq_kind;

int ks_lrq_count(void);
const ks_lrq_kind *ks_lrq_get(int i); /* NULL outside 0..count-1 */
int ks_lrq_find(const char *name);    /* -1 when unknown */
/* Registers, local memory per thread and resident blocks per SM at block bx x by. */
ks_status ks_lrq_attrs(int i, int bx, int by, int *regs, int *local_bytes, int *blocks_per_sm);
/* One Jacobi step in -> out of the nx x ny x nz grid with candidate i, blocks
 * of bx x by threads (bx float4 columns, by rows), kchunk planes per thread. */
ks_status ks_lrq_run(int i, const float *in, float *out, int nx, int ny, int nz, int bx, int by, int kchunk,
                     void *stream);

#ifdef __cplusplus
}
#endif

#endif
