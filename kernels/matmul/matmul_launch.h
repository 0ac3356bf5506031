/* Internal to kernels/matmul/: the launches the context (matmul_gpu.cu) runs:
 * the course's kernels (matmul_kernels.cu), regtile in its tile shapes
 * (matmul_regtile.cu, matmul_tiles.h) and a user's by the contract's rule
 * (matmul_user.cu), on device buffers; the per-block record they share.
 * CUDA-only. */
#ifndef KS_MATMUL_LAUNCH_H
#define KS_MATMUL_LAUNCH_H

#include <cuda_runtime.h>

#include <stdint.h>

#include "matmul_tiles.h"
#include "matmul_user.h"

/* The per-block record: who computed this tile of C, and when it was done.
 * Thread 0 of the block, after its own store of C: %smid and %globaltimer, one
 * 16-byte store. rec NULL (recording off) is a uniform branch past it. tiled
 * and regtile: every warp passed the same last barrier, so the others end a
 * few instructions later; naive has no barrier, so its record is the end of
 * the block's first warp. */
__device__ __forceinline__ void ks_mm_record(ks_matmul_tile_rec *rec)
{
    if (rec == nullptr || (threadIdx.x | threadIdx.y) != 0) return;
    unsigned int sm;
    unsigned long long t;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    reinterpret_cast<uint4 *>(rec)[blockIdx.y * gridDim.x + blockIdx.x] =
        make_uint4(sm, 1u, (unsigned int)t, (unsigned int)(t >> 32));
}

/* The course's kernel v (naive, tiled at tile) on A, B into C of size s; rec (NULL:
 * none) one record a block. */
ks_status ks_matmul_launch_ours(ks_matmul_variant v, int tile, const float *A, const float *B, float *C,
                                const ks_matmul_size *s, ks_matmul_tile_rec *rec, cudaStream_t stream);
ks_status ks_matmul_user_launch(const ks_matmul_user *u, const int block[3], const float *A, const float *B,
                                float *C, const ks_matmul_size *s, cudaStream_t stream);

/* ---- regtile (matmul_regtile.cu) ---- */
typedef struct ks_matmul_rt_attrs {
    int regs;          /* registers per thread */
    int local_bytes;   /* local memory per thread (spills, stack) */
    int smem_bytes;    /* dynamic shared memory per block */
    int blocks_per_sm; /* resident blocks per SM (occupancy API) */
    int warps_per_sm;
} ks_matmul_rt_attrs;
/* Raises the dynamic shared-memory limit of every shape that needs more than
 * 48 KiB; once per device before the first run. */
ks_status ks_matmul_rt_prepare(void);
ks_status ks_matmul_rt_attrs_get(int i, ks_matmul_rt_attrs *out);
/* Enqueues C = A * B of size s with shape i on stream; rec (NULL: none) one record a block.
 * KS_ERR_UNSUPPORTED when a 16-byte shape meets K or N not a multiple of 4. */
ks_status ks_matmul_rt_run(int i, const float *A, const float *B, float *C, const ks_matmul_size *s,
                           ks_matmul_tile_rec *rec, cudaStream_t stream);
/* Times every 16-byte shape on the caller's buffers (C overwritten): one warm-up, the best of two
 * timed launches each; the fastest into *out (how KS_MM_RT_TUNED). Synchronises. */
ks_status ks_matmul_rt_tune(const float *A, const float *B, float *C, const ks_matmul_size *s, cudaStream_t stream,
                            ks_matmul_rt_choice *out);

#endif
