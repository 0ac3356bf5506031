/* The FMA peak of a build without CUDA (the twin of fma_peak.cu). */
#include "base/fma_peak.h"
#include "base/ks_nocuda.h"

ks_status ks_cuda_measure_fma_gflops(int reps, double *gflops)
{
    (void)reps, (void)gflops;
    return KS_NO_CUDA("FMA peak");
}
