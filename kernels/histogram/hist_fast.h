/* Byte histograms (256 bins) at memory speed: candidates for the histogram
 * scene's bytes mode, each one launch that writes (not adds) the counts of
 * n bytes into a device histogram of 256 uint32 (no clearing launch before it).
 *
 * All keep one 8-bit counter per bin per thread in shared memory, the four
 * counters of bins 4w..4w+3 in one 32-bit word that only their thread touches
 * (word w of thread t at w * 256 + t, so a warp's 32 lanes always use 32
 * banks, whatever the bytes). A count is then a plain read-add-write of that
 * word (rmw) or a shared atomicAdd on it (atom); 16 equal bytes are one add of
 * 16. Every 240 bytes or fewer a thread counts, the block sums each bin's 256
 * counters into a register of the bin's thread and clears them (8-bit
 * counters cannot carry). At the end each block adds its 256 totals into a
 * scratch of the context with global atomics; the last block to finish copies
 * the scratch into the histogram and clears it for the next launch.
 * Input: 16-byte loads (the unaligned head and tail bytewise), `loads` of
 * them in flight per thread, a grid-stride loop over one wave of blocks. */
#ifndef KS_HIST_FAST_H
#define KS_HIST_FAST_H

#include <stddef.h>

#include "kernels/common/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_hist_fast_kind {
    const char *name;  /* "rmw5": counting, 16-byte loads in flight per thread */
    const char *summary;
    int atomic;        /* 1: shared atomicAdd per byte, 0: read-add-write */
    int loads;         /* 16-byte loads per thread per tile */
} ks_hist_fast_kind;

int ks_hist_fast_count(void);
const ks_hist_fast_kind *ks_hist_fast_get(int i); /* NULL outside 0..count-1 */
int ks_hist_fast_find(const char *name);          /* -1 when unknown */

typedef struct ks_hist_fast ks_hist_fast; /* per device: SM count, the scratch */
ks_status ks_hist_fast_create(ks_hist_fast **out);
void ks_hist_fast_destroy(ks_hist_fast *h);
/* Resident blocks per SM of candidate i and its registers (occupancy API). */
ks_status ks_hist_fast_attrs(const ks_hist_fast *h, int i, int *blocks_per_sm, int *regs, int *local_bytes);
/* Writes the byte counts of data[0..n) (device, any alignment) into hist[256]
 * (device) on stream. Launches on one stream at a time per context (the
 * scratch is shared). n < 2^32. */
ks_status ks_hist_fast_run(ks_hist_fast *h, int i, const unsigned char *data, size_t n, unsigned *hist,
                           void *stream);
/* The read alone (no counting): the same loads and grid, an XOR of every
 * word kept; the floor under every candidate. *sink gets the XOR (device). */
ks_status ks_hist_fast_read_floor(ks_hist_fast *h, const unsigned char *data, size_t n, unsigned *sink,
                                  void *stream);

#ifdef __cplusplus
}
#endif

#endif
