/* Kernels whose counters are known, for the counters' gpu test and probe.
 * Plain C; each launches on stream (a cudaStream_t) and checks the launch. */
#ifndef KS_COUNTERS_TEST_KERNELS_H
#define KS_COUNTERS_TEST_KERNELS_H

#include <stddef.h>

#include "kernels/common/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = the value kst_expected(i) for i < n. */
ks_status kst_fill(float *out, size_t n, void *stream);
float kst_expected(size_t i);
/* out[i] = in[i], n a multiple of 4 (one 16-byte load and store a thread): 2 * n * 4 bytes of DRAM. */
ks_status kst_copy(const float *in, float *out, size_t n, void *stream);
/* out[i] = 2 * in[i]: a warp's 32 loads of consecutive floats, 4 sectors a request. */
ks_status kst_read_coalesced(const float *in, float *out, size_t n, void *stream);
/* out[i] = 2 * in[32 * i]: a warp's loads 128 bytes apart, 32 sectors a request (in holds 32 * n). */
ks_status kst_read_strided(const float *in, float *out, size_t n, void *stream);
/* Each warp stores and loads its own 1024 floats of shared memory at index
 * (lane * stride + r) mod 1024, r = 0..31: stride 32 puts a warp's 32 threads
 * in one bank (a 32-way conflict), stride 1 in 32 banks (none). Loads repeat
 * reps times. out[block * 128 + t] = kst_shared_expected(t % 32, reps). */
ks_status kst_shared(float *out, int blocks, int stride, int reps, void *stream);
float kst_shared_expected(int lane, int reps);
/* Every thread spins on the GPU's global timer for ns nanoseconds: the SMs busy, no DRAM. */
ks_status kst_spin(unsigned long long ns, int blocks, void *stream);

#ifdef __cplusplus
}
#endif
#endif
