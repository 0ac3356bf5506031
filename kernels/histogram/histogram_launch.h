/* Internal to kernels/histogram/: the contract's launch of a user's kernel
 * on device buffers (histogram_user.cu), for the context's runs
 * (histogram_gpu.cu). CUDA-only. */
#ifndef KS_HISTOGRAM_LAUNCH_H
#define KS_HISTOGRAM_LAUNCH_H

#include <cuda_runtime.h>

#include "histogram_user.h"

/* Adds the counts of data[0..n) into bins (256) with u; n 0: nothing. */
ks_status ks_hist_user_launch(const ks_hist_user *u, const int block[3], const unsigned char *data, size_t n,
                              unsigned *bins, cudaStream_t stream);

#endif
