/* FP32 peak measured on this device: a kernel of independent FMA chains (no
 * memory traffic), timed with events. For the matmul scene's "per cent of
 * peak" and for roofline ceilings. */
#ifndef KS_FMA_PEAK_H
#define KS_FMA_PEAK_H

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Best GFLOP/s (an FMA counts 2 flops) of reps timed launches after a warm-up,
 * on the current device. */
ks_status ks_cuda_measure_fma_gflops(int reps, double *gflops);

#ifdef __cplusplus
}
#endif
#endif
