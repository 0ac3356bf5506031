/* Cold-cache timing's flush (bench_timing.h, KS_CACHE_COLD): a write of twice
 * the device's L2, as GPU MODE's and KernelBench's harnesses flush it, then a
 * read of the same bytes, so that the lines the flush leaves in the L2 are
 * clean and the timed work that follows pays no write-back of the flush's
 * data. Queued on the caller's stream ahead of the sample's events, so it is
 * outside the timed region. Plain C interface. */
#ifndef KS_L2_FLUSH_H
#define KS_L2_FLUSH_H

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_l2_flush ks_l2_flush;

/* The current device's L2 in bytes (cudaDevAttrL2CacheSize). */
ks_status ks_cuda_l2_bytes(double *bytes);
/* Queues the flush on stream (a cudaStream_t; NULL: the default stream). *f is
 * made on the first call (a buffer of 2 x L2 on the current device) and kept
 * for the next ones; ks_l2_flush_destroy frees it. */
ks_status ks_l2_flush_run(ks_l2_flush **f, void *stream);
void ks_l2_flush_destroy(ks_l2_flush *f);

#ifdef __cplusplus
}
#endif
#endif
