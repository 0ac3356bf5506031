/* Byte histograms (256 bins) at memory speed: the kernels the histogram
 * scene's `warp` variant chooses among in bytes mode (histogram_kernels.cu
 * times a few of them on the actual input and runs the fastest), and the
 * sweep of tests/histogram/perf_hist. Each is one launch that adds the counts
 * of n bytes (any alignment, n < 2^32) into a device histogram of 256 uint32.
 *
 * Two families, every one with 16-byte loads (the unaligned head and tail
 * bytewise), `loads` of them a thread per tile and the next tile's issued
 * before this one is counted, a grid-stride loop over a wave of blocks of 256
 * threads, and 16 equal bytes counted as one add of 16:
 *  - copies (lane1x4 .. lane32x4, warp4x4 ..): `copies` 32-bit sub-histograms
 *    of the block in shared memory, interleaved (bin b of copy c at word
 *    b * copies + c), a thread's copy chosen by its lane (lane % copies) or by
 *    its warp (warp % copies); one shared atomicAdd of 1 per byte. lane1 is
 *    CUB's way (one histogram a block); lane32 gives each lane of a warp its
 *    own bank whatever the bytes (bin b of lane l at word 32 b + l). At the
 *    end each thread sums one bin's copies and adds it to the histogram with a
 *    global atomic.
 *  - own8 (own8x5): 8-bit counters per thread (64 KiB a block), lane l of
 *    every warp always in bank l; a shared atomicAdd per byte on the thread's
 *    own counter; every 240 bytes a thread counts, the block sums and clears
 *    them (8-bit counters cannot carry).
 * Shared atomics whose lanes share an address are merged by the hardware,
 * while distinct addresses in one bank are served one after another, so
 * which is fastest depends on the input (measured on an H200: CUB's one
 * histogram a block is fast on text, slow on uniform bytes; own8 is the same
 * on both). */
#ifndef KS_HIST_FAST_H
#define KS_HIST_FAST_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_hist_fast_kind {
    const char *name;    /* "lane32x4": copies chosen by lane, 32 of them, 4 16-byte loads a tile */
    const char *summary;
    int copies;          /* 32-bit sub-histograms per block; 0: own8 (8-bit counters per thread) */
    int by_warp;         /* copies: 1 chosen by warp, 0 by lane */
    int loads;           /* 16-byte loads per thread per tile (the next tile's as many again in flight) */
} ks_hist_fast_kind;

int ks_hist_fast_count(void);
const ks_hist_fast_kind *ks_hist_fast_get(int i); /* NULL outside 0..count-1 */
int ks_hist_fast_find(const char *name);          /* -1 when unknown */

typedef struct ks_hist_fast ks_hist_fast; /* per device: SM count, each kernel's occupancy */
ks_status ks_hist_fast_create(ks_hist_fast **out);
void ks_hist_fast_destroy(ks_hist_fast *h);

typedef struct ks_hist_fast_attrs {
    int max_per_sm;  /* resident blocks per SM (occupancy API); 0: the device cannot run it */
    int regs, local_bytes, smem_bytes;
} ks_hist_fast_attrs;
ks_status ks_hist_fast_attrs_get(const ks_hist_fast *h, int i, ks_hist_fast_attrs *out);
/* Adds the byte counts of data[0..n) (device, any alignment) into hist[256]
 * (device) on stream, with kernel i and per_sm blocks per SM (0 or more than
 * fit: as many as fit). KS_ERR_UNSUPPORTED for a kernel the device cannot run. */
ks_status ks_hist_fast_run(ks_hist_fast *h, int i, int per_sm, const unsigned char *data, size_t n, unsigned *hist,
                           void *stream);
/* The read alone (no counting): the same loads, an XOR of every word kept;
 * the floor under every kernel. *sink gets the XOR (device). data 16-byte aligned. */
ks_status ks_hist_fast_read_floor(ks_hist_fast *h, const unsigned char *data, size_t n, unsigned *sink,
                                  void *stream);

/* The choice among the finalists (a few kernels at their best block counts),
 * each timed on the input itself. */
typedef struct ks_hist_fast_pick {
    int kind, per_sm;     /* what runs (per_sm 0: as many blocks as fit) */
    double ms;            /* its time on the input: the best of a few launches */
    int timed;            /* finalists timed; 0: no choice made (the default kind runs) */
    int second_kind;      /* the runner-up, -1 when none */
    double second_ms;
} ks_hist_fast_pick;
/* The kernel that runs until a choice is made: own8x5, input-independent, where
 * the device has 64 KiB of shared memory a block, else lane32x4. */
void ks_hist_fast_default(const ks_hist_fast *h, ks_hist_fast_pick *out);
/* Times each finalist the device can run on data[0..n): one warm-up, then the
 * best of three launches, counting into scratch (device, 256 uint32, left
 * holding garbage); the fastest into *out. Synchronises stream. */
ks_status ks_hist_fast_choose(ks_hist_fast *h, const unsigned char *data, size_t n, unsigned *scratch, void *stream,
                              ks_hist_fast_pick *out);
/* "lane32x4 (chosen for this input: 0.0310 ms vs 0.0490 for own8x5)", or
 * "own8x5 (not chosen yet: input-independent default)". */
void ks_hist_fast_pick_text(const ks_hist_fast_pick *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
