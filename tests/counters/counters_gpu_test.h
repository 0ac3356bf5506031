/* What the two files of the counters' gpu test share (test_counters_gpu.c:
 * the counters' tests and main; test_counters_gpu_timeline.c: the
 * timeline's). */
#ifndef KS_COUNTERS_GPU_TEST_H
#define KS_COUNTERS_GPU_TEST_H

#include <cuda_runtime.h>

#include "counters/counters.h"

extern ks_counters *counters; /* made by the first test, used by the next (NULL: none) */
extern cudaStream_t stream;

/* Fail the test with what and the error's words unless e (st) succeeded. */
void cuda_ok(cudaError_t e, const char *what);
void ok(ks_status st, const char *what);
/* A CUPTI trace line to stdout. */
void trace(void *user, const char *line);
/* A measurement as the panel's rows and the CSV line, to stdout. */
void print_set(const ks_counter_set *s, const char *title, double model_bytes);
/* A launch for ks_counters_measure: a copy of 2^20 floats within user's buffer. */
ks_status launch_small_copy(void *user, void *st);

/* test_counters_gpu_timeline.c */
void test_timeline(void **state);
void test_counters_after_timeline(void **state);

#endif
