/* Kernels whose counters are known, for the counters' gpu test and probe.
 * Plain C; each launches on stream (a cudaStream_t) and checks the launch. */
#ifndef KS_COUNTERS_TEST_KERNELS_H
#define KS_COUNTERS_TEST_KERNELS_H

#include <stddef.h>

#include "base/ks_error.h"

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

/* ---- The probe's set: the same kernels and sizes whether measured by the
 * counters or run alone for Nsight Compute (counters_probe --kernels-only) ---- */

enum { KST_SET_KERNELS = 6 };

typedef struct kst_set {
    size_t n;              /* floats copied */
    size_t nr;             /* outputs of the coalesced and strided reads (the strided one reads 32 * nr) */
    int shared_blocks;
    float *in, *out, *out_coalesced, *out_strided, *shared_free, *shared_conflict;
} kst_set;

/* Buffers for the set: a copy of n floats (n a multiple of 4 and >= 32 * 2^20). */
ks_status kst_set_alloc(kst_set *s, size_t n);
void kst_set_free(kst_set *s);
/* Launches, in order: fill, copy, read_coalesced, read_strided, shared stride 1, shared stride 32. */
ks_status kst_set_run(const kst_set *s, void *stream);

typedef struct kst_launch_info {
    const char *name;          /* the kernel's name as CUPTI and ncu print it, without parameters */
    unsigned grid, block;      /* one-dimensional */
    double occupancy;          /* theoretical, 0..1 (cudaOccupancyMaxActiveBlocksPerMultiprocessor) */
    int load_bytes, store_bytes; /* global bytes a thread per access (0: none) */
    double model_bytes;        /* DRAM bytes the launch must move at least (0: no model) */
} kst_launch_info;

/* The i-th launch of kst_set_run (0 <= i < KST_SET_KERNELS), on the current device. */
ks_status kst_set_info(const kst_set *s, int i, kst_launch_info *out);

#ifdef __cplusplus
}
#endif
#endif
