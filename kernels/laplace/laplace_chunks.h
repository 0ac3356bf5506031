/* How the marching Laplace kernels cut their slow axis into chunks (plain C,
 * every build; the launchers in laplace_fast.cu and laplace_tblock.cu use
 * it, test_laplace_chunks checks it without a GPU). */
#ifndef KS_LAPLACE_CHUNKS_H
#define KS_LAPLACE_CHUNKS_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

unsigned ks_fdiv_up(long long a, long long b); /* ceil(a / b) */
/* How to cut a marched axis of `span` planes/rows into chunks. Each group of
 * `group` chunks costs `unit` blocks; `cap` blocks are resident at once.
 * Picks the chunk length that maximises (blocks / blocks the waves could
 * hold) x (chunk / (chunk + halo)): a tail wave idles SMs, short chunks
 * re-read `halo` planes each. */
int ks_pick_chunk(int span, long long unit, int group, long long cap, int halo, int min_len);

/* tblock's chunks for one launch (T steps) over planes [lo, hi) of nz, with
 * `tiles` tiles a plane and `resident` blocks resident at once. On a slab of
 * several GPUs (laplace_multi.cu) an edge range [edge_lo, edge_hi) comes
 * first (blockIdx.z 0), and the chunk starting at lo writes the low edge
 * [lo, low_end) early. */
typedef struct ks_tb_plan_desc {
    int nz, steps;
    int lo, hi;              /* 0, 0: [1, nz - 1) */
    int edge_lo, edge_hi;    /* equal: no edge range */
    int low_end;             /* 0: no low edge */
    long long tiles, resident;
} ks_tb_plan_desc;

typedef struct ks_tb_plan {
    int lo, hi;              /* the interior chunks' planes */
    int first_len, len;      /* the first chunk's planes, the others' */
    int chunks;              /* interior chunks: [lo, lo + first_len), then len each up to hi */
    int edges, edge_lo, edge_hi;
    int low_end;
    int signals;             /* blocks that signal (the edge's, the low chunk's): tiles each */
    unsigned gz;             /* blocks along z: edges + chunks */
} ks_tb_plan;

/* The plan: whole waves of resident blocks (ks_pick_chunk); with an edge
 * range, the first chunks, which start beside the edge blocks, longer by
 * about the edge's march, so that the chunks started once the edge blocks
 * end finish with them. KS_ERR_INVALID with one line for planes outside the
 * grid or a low edge beyond the first chunk. */
ks_status ks_tb_plan_make(const ks_tb_plan_desc *d, ks_tb_plan *out);

#ifdef __cplusplus
}
#endif
#endif
