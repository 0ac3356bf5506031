/* Histograms (course exercise 3): the inputs (generated text, uniform bytes,
 * all-equal bytes, a file), the CPU gold, the variant table and the CUDA
 * launches, all behind plain C types.
 *
 * Three modes, each counting the "items" of a byte range [begin, end) of an
 * input of n bytes:
 *  - bytes: each byte is an item, bin = the byte (256 bins);
 *  - pairs: the 16-bit view: the byte pairs at even offsets, v = b[2k] | b[2k+1] << 8
 *    (little-endian uint16), bin = v * B / 65536 (integer division), 1 <= B <= 65536;
 *    an odd final byte is a pair of its own with a zero high byte (v = b[n-1]);
 *  - words: a word is a maximal run of ASCII letters (A-Z, a-z); it is
 *    lower-cased and hashed with FNV-1a 32-bit, bin = hash % B. A word is
 *    counted by the range holding its first letter (it may read past end).
 * Counts are exact; device histograms are uint32, so inputs are limited to
 * KS_HIST_MAX_BYTES (no count can overflow). */
#ifndef KS_HISTOGRAM_H
#define KS_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/bench_timing.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_hist_mode { KS_HIST_BYTES = 0, KS_HIST_PAIRS, KS_HIST_WORDS } ks_hist_mode;

typedef enum ks_hist_input_kind {
    KS_HIST_IN_TEXT = 0, /* generated English-like text */
    KS_HIST_IN_UNIFORM,  /* uniform random bytes */
    KS_HIST_IN_EQUAL,    /* every byte 'a' (maximum contention) */
    KS_HIST_IN_FILE,
    KS_HIST_IN_NUM
} ks_hist_input_kind;

#define KS_HIST_MAX_BYTES 4294967295ull /* 2^32 - 1: every count fits in uint32 */
enum {
    KS_HIST_MAX_BINS = 65536,
    KS_HIST_BYTE_BINS = 256,
    KS_HIST_WORD_BINS_DEFAULT = 1024,
};

/* ---- Gold and inputs (histogram_gold.c) ---- */

const char *ks_hist_mode_name(ks_hist_mode m);        /* "bytes", "pairs", "words" */
const char *ks_hist_input_name(ks_hist_input_kind k); /* "text", "uniform", "equal", "file" */
/* The bin of a 16-bit value among bins (v * bins / 65536). */
unsigned ks_hist_pair_bin(unsigned v, unsigned bins);
/* FNV-1a 32-bit of the lower-cased letters s[0..len). */
uint32_t ks_hist_fnv1a_lower(const unsigned char *s, size_t len);
/* Items of [begin, end) for the mode: bytes, pairs (odd byte counts), or positions (words). */
size_t ks_hist_items(ks_hist_mode m, size_t begin, size_t end);

/* Generated inputs, deterministic per seed (splitmix64). Text: words from a
 * fixed 128-word vocabulary, rank r drawn with probability ~ 1/(r+1) (Zipf),
 * separated by spaces; after a word: ", " (1/16), ". " with the next word
 * capitalised (1/16), or a newline (1/24). The last word may be cut short. */
void ks_hist_generate(ks_hist_input_kind k, unsigned long long seed, unsigned char *out, size_t n);
/* Reads a whole file (1..KS_HIST_MAX_BYTES bytes); *out malloc'ed. */
ks_status ks_hist_load_file(const char *path, unsigned char **out, size_t *n);

/* Adds the counts of [begin, end) of data[0..n) to hist (bins entries). */
void ks_hist_gold(const unsigned char *data, size_t n, size_t begin, size_t end, ks_hist_mode m,
                  unsigned bins, uint64_t *hist);
/* ---- Variants (histogram_kernels.cu) ---- */

typedef struct ks_hist_input {
    const unsigned char *data; /* device pointer, n bytes (any alignment) */
    size_t n;
    ks_hist_mode mode;
    unsigned bins; /* 256 for bytes */
} ks_hist_input;

typedef struct ks_hist_ctx ks_hist_ctx; /* per device: SM count, CUB scratch */

typedef ks_status (*ks_hist_launch_fn)(ks_hist_ctx *ctx, const ks_hist_input *in, size_t begin,
                                       size_t end, unsigned *d_hist, void *stream);

typedef struct ks_hist_variant {
    const char *name;
    const char *summary;      /* one line for the overlay / README */
    int words;                /* 1: supports word mode */
    int overwrites;           /* 1 (cub): writes the counts of [begin, end) instead of adding */
    ks_hist_launch_fn launch; /* adds [begin, end)'s counts into d_hist (bins uint32) */
} ks_hist_variant;

/* The variants, one row each (name, summary, word mode, overwrites): the CUDA
 * table adds each row's launch function (launch_<name>); a build without CUDA
 * keeps the same rows with no launcher. */
#define KS_HIST_VARIANT_ROWS(X)                                                                      \
    X(global, "one global atomicAdd per item, one thread per item", 1, 0)                            \
    X(strided, "grid-stride loop, one global atomicAdd per item", 1, 0)                              \
    X(shared, "block histogram in shared memory (bin ranges when it does not fit), merged by global " \
              "atomics", 1, 0)                                                                       \
    X(warp, "bytes: the fastest on this input of a few byte kernels (per-lane or per-thread counters in " \
            "shared memory, 16-byte loads; timed at start); pairs, words: per-warp sub-histograms, runs " \
            "of equal bins added at once", 1, 0)                                                       \
    X(cub, "cub::DeviceHistogram (HistogramEven; pairs: HistogramRange), the reference", 0, 1)

enum { KS_HIST_VARIANT_NUM = 5 };
const ks_hist_variant *ks_hist_variant_get(int i); /* NULL outside 0..NUM-1 */
int ks_hist_variant_find(const char *name);        /* -1 when unknown */
/* Model atomics per input byte: global and shared separately, for the items
 * per byte given (bytes 1, pairs 0.5, words: words/bytes) and a launch over
 * `bytes` bytes. cub: -1 (not modelled). */
void ks_hist_atomics_model(ks_hist_ctx *ctx, int variant, const ks_hist_input *in, size_t bytes,
                           double items_per_byte, double *global, double *shared);

ks_status ks_hist_ctx_create(ks_hist_ctx **ctx);
void ks_hist_ctx_destroy(ks_hist_ctx *ctx);
/* warp in bytes mode: times a few byte kernels (kernels/histogram/hist_fast.h) on
 * the input and runs the fastest from now on; nothing in other modes.
 * Synchronises stream. ks_hist_gpu_create does it for its input. */
ks_status ks_hist_choose(ks_hist_ctx *ctx, const ks_hist_input *in, void *stream);
/* Which byte kernel warp runs and why: "lane32x4 (chosen for this input:
 * 0.0310 ms vs 0.0490 for own8x5)". */
void ks_hist_choice_text(const ks_hist_ctx *ctx, char *buf, size_t len);
/* Runs variant i; KS_ERR_UNSUPPORTED for cub in word mode. */
ks_status ks_hist_run(ks_hist_ctx *ctx, int variant, const ks_hist_input *in, size_t begin,
                      size_t end, unsigned *d_hist, void *stream);
/* d_dst[b] += d_src[b] for b < bins (chunks of an overwriting variant). */
ks_status ks_hist_add(unsigned *d_dst, const unsigned *d_src, unsigned bins, void *stream);
/* ---- The picture: bars in a plot area, a count axis on the left, bin labels below ---- */
/* Where the bars go and what the axis top means; made on the host from the counts by
 * ks_hist_axes_make, with the label mask (text and axis lines, grid lines) that both
 * backends lay over the bars, so CPU and GPU draw the same labelled picture. */
typedef struct ks_hist_axes {
    int x0, y0;      /* the plot area's bottom-left pixel (rows bottom-up) */
    int pw, ph;      /* its size in pixels */
    int cols, cw;    /* columns (bins grouped, each column the sum of its bins) and pixels per column:
                        at least 3 where bins are many, so a shrunk view cannot drop a 1-pixel bar;
                        pw = cols * cw */
    float top;       /* the column value at the plot's top (count, or log10(1 + count)) */
    int labels;      /* labels drawn (0: the picture is too small for them; the plot fills it) */
} ks_hist_axes;
enum {
    KS_HIST_MASK_NONE = 0, /* bars or background */
    KS_HIST_MASK_INK,      /* text, axis lines and ticks: over everything */
    KS_HIST_MASK_GRID,     /* count grid lines: behind the bars */
};
/* A bin's label: bytes: a printable character as itself (e; the space as "space"), others in hex
 * (0x0A); pairs: the two characters when one bin is one pair and both print ('th'), else the
 * bin's first 16-bit value in hex; words: the bin number (#17: hashed words have no order). */
void ks_hist_bin_label(ks_hist_mode mode, unsigned bins, unsigned b, char *buf, size_t len);
/* Count for an axis label: 0, 950, 12k, 1.5M, 2G. */
void ks_hist_count_label(double count, char *buf, size_t len);
/* Column value of column x of pw (sum of its bins; log10(1 + s) on a log scale). */
float ks_hist_column(const uint64_t *hist, unsigned bins, int log_scale, int x, int pw);
/* The layout and the mask (w*h bytes, rows bottom-up, KS_HIST_MASK_*) for these counts: count
 * ticks at 1-2-5 steps (log: powers of ten), bin ticks below, the tallest bars named above
 * them. */
void ks_hist_axes_make(const uint64_t *hist, unsigned bins, ks_hist_mode mode, int log_scale, int w, int h,
                       ks_hist_axes *ax, unsigned char *mask);
/* Bars of the histogram into an RGBA picture (device, rows bottom-up): one column per bin
 * group in the axes' plot area, height by column value against ax->top; mask (device, w*h)
 * laid over it. */
ks_status ks_hist_draw_bars(const unsigned *d_hist, unsigned bins, int log_scale, const ks_hist_axes *ax,
                            const unsigned char *d_mask, unsigned char *rgba, int w, int h, void *stream);
/* The same picture from host counts (CPU backend). */
void ks_hist_draw_bars_cpu(const uint64_t *hist, unsigned bins, int log_scale, const ks_hist_axes *ax,
                           const unsigned char *mask, unsigned char *rgba, int w, int h);
/* One pixel of that picture: the bar height in rows for a column value (both backends). */
static inline int ks_hist_bar_rows(float col, float top, int ph)
{
    return top > 0.0f ? (int)(col / top * (float)(ph - 1) + 0.5f) : 0;
}

/* ---- One input on the device, a stream and a histogram (histogram_gpu.cu) ---- */

typedef struct ks_hist_gpu ks_hist_gpu;

typedef struct ks_hist_gpu_desc {
    const unsigned char *data; /* host bytes to upload; required */
    size_t n;                  /* bytes of data, 1..KS_HIST_MAX_BYTES; required (0 is invalid) */
    ks_hist_mode mode;         /* 0: KS_HIST_BYTES */
    unsigned bins;             /* 1..KS_HIST_MAX_BINS; 0 -> KS_HIST_WORD_BINS_DEFAULT (pairs, words);
                                  bytes always have KS_HIST_BYTE_BINS */
    size_t misalign;           /* bytes into a fresh allocation where data starts, 0..15, so tests
                                  can start at any address; 0 default */
} ks_hist_gpu_desc;

/* Uploads desc->data[0..n) to the device. desc NULL, no data or a field out
 * of range: KS_ERR_INVALID. */
ks_status ks_hist_gpu_create(const ks_hist_gpu_desc *desc, ks_hist_gpu **out);
void ks_hist_gpu_destroy(ks_hist_gpu *g);
void *ks_hist_gpu_stream(ks_hist_gpu *g);
const ks_hist_input *ks_hist_gpu_input(ks_hist_gpu *g);
ks_hist_ctx *ks_hist_gpu_ctx(ks_hist_gpu *g);
/* Sets every count to `value` (0 to clear; tests poison with other values). */
ks_status ks_hist_gpu_fill(ks_hist_gpu *g, unsigned value);
/* Adds the counts of [begin, end) by variant (an overwriting variant goes
 * through a scratch histogram); *ms: GPU time of the launch(es) (events). */
ks_status ks_hist_gpu_chunk(ks_hist_gpu *g, int variant, size_t begin, size_t end, double *ms);
/* The counts now (bins values, waits for the stream). */
ks_status ks_hist_gpu_counts(ks_hist_gpu *g, uint64_t *out);
/* Whole input into a cleared histogram, as the bench times it: own
 * variants = memset + kernel(s); cub writes the counts itself. */
ks_status ks_hist_gpu_whole(ks_hist_gpu *g, int variant);
/* ks_hist_gpu_whole timed by the benches' loop (base/bench_timing.h: the
 * cache policy, repetitions until the median's standard error is under 1 %);
 * working set: the input and the counts. */
ks_status ks_hist_gpu_time(ks_hist_gpu *g, int variant, const ks_timing_opts *o, ks_timing *out);
/* The labelled picture (ks_hist_draw_bars) of the counts now; the mask (host, w*h, from
 * ks_hist_axes_make) is copied to the device when it differs from the last one. */
ks_status ks_hist_gpu_draw(ks_hist_gpu *g, int log_scale, const ks_hist_axes *ax, const unsigned char *mask,
                           unsigned char *rgba, int w, int h);

#ifdef __cplusplus
}
#endif
#endif
