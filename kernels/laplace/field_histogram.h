/* A float field's values in bins (the histogram panel beside a colour bar):
 * the CPU gold (field_histogram.c) and the CUDA count (field_histogram.cu),
 * which give the same counts bit for bit. Shared, so a scene with a field
 * needs no other scene's code. */
#ifndef KS_FIELD_HISTOGRAM_H
#define KS_FIELD_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_FIELD_HIST_MAX_BINS = 4096 };
/* The scale both sides use: (float)bins / (hi - lo), computed in float. */
float ks_field_hist_scale(float lo, float hi, unsigned bins);
/* Adds the counts of v[0..n): t = (v - lo) * scale in float, bin = floor(t),
 * clamped to 0 .. bins-1 (values outside [lo, hi] land in the end bins);
 * NaN is not counted. lo < hi, 1 <= bins <= KS_FIELD_HIST_MAX_BINS. */
void ks_field_hist_gold(const float *v, size_t n, float lo, float hi, unsigned bins, uint64_t *hist);
/* The same on the current device (d_v: device pointer), adding into d_hist
 * (uint32) on stream (a cudaStream_t; NULL: the default stream): a block
 * histogram in shared memory, grid-stride, runs of equal bins added at once.
 * KS_ERR_INVALID for a bad range or bin count. */
ks_status ks_field_hist_run(const float *d_v, size_t n, float lo, float hi, unsigned bins, unsigned *d_hist,
                            void *stream);

#ifdef __cplusplus
}
#endif
#endif
