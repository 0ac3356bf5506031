/* Internal to kernels/laplace/: what the temporally blocked variant's files
 * share (laplace_tblock.cu: the scalar kernel and the launcher;
 * laplace_tblock_vec.cu: the vector path's kernel): a launch's chunks of
 * output planes, the signal its edge blocks give, the vector path's shape.
 * CUDA-only header (never included by C code). */
#ifndef KS_LAPLACE_TBLOCK_H
#define KS_LAPLACE_TBLOCK_H

#include "laplace_launch.h"

enum { KS_TBLOCK_MAX_STEPS = 6 };

/* Where a block's chunk of output planes lies: blockIdx.z < edges is the
 * edge range, the others cut [lo, hi) in order (the first chunk first_len
 * planes, the rest len). One GPU: no edge, [1, nz - 1) in equal chunks. On a
 * slab of several GPUs (ks_ledges) the edge and the first chunk signal. */
typedef struct tb_chunks {
    int lo, hi, first_len, len;
    int edges, edge_lo, edge_hi;
    int low_end;      /* the first chunk's blocks signal once planes < low_end are written; 0: never */
    unsigned *signal; /* what the signalling blocks add 1 to */
} tb_chunks;

__device__ __forceinline__ void tb_chunk(const tb_chunks &c, int *k0, int *k1)
{
    const int z = (int)blockIdx.z - c.edges;
    if (z < 0) {
        *k0 = c.edge_lo;
        *k1 = c.edge_hi;
        return;
    }
    *k0 = z == 0 ? c.lo : c.lo + c.first_len + (z - 1) * c.len;
    *k1 = min(z == 0 ? c.lo + c.first_len : *k0 + c.len, c.hi);
}

/* The step that writes the first chunk's last plane below low_end (step s
 * writes plane s - T); -1: this block never signals mid-way. */
__device__ __forceinline__ int tb_low_signal_step(const tb_chunks &c, int T)
{
    return c.low_end > 0 && (int)blockIdx.z == c.edges ? c.low_end - 1 + T : -1;
}

/* One add for the whole block once every thread's writes are done (a grid
 * barrier's pattern); system scope, as the planes may be read from a peer. */
__device__ __forceinline__ void tb_signal(unsigned *signal)
{
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        __threadfence_system();
        atomicAdd(signal, 1u);
    }
}

#ifndef KS_TBLOCK_ROWS
#define KS_TBLOCK_ROWS 4 /* rows per thread of the vector tblock path */
#endif
#ifndef KS_TBLOCK_MAXT
#define KS_TBLOCK_MAXT 384 /* threads per block, register cap (65536 / MAXT per thread) */
#endif
enum { KS_TBV_ROWS = KS_TBLOCK_ROWS, KS_TBV_MAX_THREADS = KS_TBLOCK_MAXT };

/* The vector path's kernel of T steps (1..KS_TBLOCK_MAX_STEPS), NULL past them
 * (laplace_tblock_vec.cu; its launch and shape checks are the launcher's). */
const void *ks_tblock_vec_fn(int steps);

#endif
