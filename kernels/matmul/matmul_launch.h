/* Internal to kernels/matmul/: the contract's launch of a user's kernel on
 * device buffers (matmul_user.cu), for the context's run (matmul_cuda.cu). CUDA-only. */
#ifndef KS_MATMUL_USER_LAUNCH_H
#define KS_MATMUL_USER_LAUNCH_H

#include <cuda_runtime.h>

#include "matmul_user.h"

ks_status ks_matmul_user_launch(const ks_matmul_user *u, const int block[3], const float *A, const float *B,
                                float *C, const ks_matmul_size *s, cudaStream_t stream);

#endif
