/* Internal to kernels/matmul/: the launches the context (matmul_gpu.cu) runs:
 * our kernels (matmul_kernels.cu) and a user's by the contract's rule
 * (matmul_user.cu), on device buffers. CUDA-only. */
#ifndef KS_MATMUL_LAUNCH_H
#define KS_MATMUL_LAUNCH_H

#include <cuda_runtime.h>

#include "matmul_user.h"

/* Our kernel v (naive, tiled at tile, regtile) on A, B into C of size s; rec (NULL:
 * none) one record a block. */
ks_status ks_matmul_launch_ours(ks_matmul_variant v, int tile, const float *A, const float *B, float *C,
                                const ks_matmul_size *s, ks_matmul_tile_rec *rec, cudaStream_t stream);
ks_status ks_matmul_user_launch(const ks_matmul_user *u, const int block[3], const float *A, const float *B,
                                float *C, const ks_matmul_size *s, cudaStream_t stream);

#endif
