/* The timeline: the GPU's DRAM throughput and SM activity sampled every
 * 20-100 us by CUPTI's PM sampler, and each kernel's start, end and name
 * from CUPTI's activity records, both put on the GPU's clock (its global
 * timer, nanoseconds), kept in bounded rings that the live loop reads each frame
 * without blocking. A worker thread decodes the samples and flushes the
 * records; reading copies the newest entries.
 *
 * The pure helpers below (the rings, what a strip chart draws, the clock
 * alignment) are plain C and tested on the CPU with recorded data. Plain C: no
 * CUDA or CUPTI types here. docs/counters.md describes it. */
#ifndef KS_TIMELINE_H
#define KS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One PM sample: a time interval and what the GPU did in it. */
typedef struct ks_tl_sample {
    uint64_t t0_ns, t1_ns; /* GPU clock */
    float dram_pct;        /* DRAM throughput, % of peak; NaN when not sampled */
    float sm_pct;          /* SMs active, % of the interval; NaN when not sampled */
} ks_tl_sample;

enum { KS_TL_NAME = 64 };

/* One kernel execution. */
typedef struct ks_tl_span {
    uint64_t start_ns, end_ns; /* GPU clock */
    uint32_t stream;           /* CUPTI's stream id */
    uint32_t correlation;      /* CUPTI's correlation id (matches the launch) */
    char name[KS_TL_NAME];     /* demangled, without its parameter list, cut */
} ks_tl_span;

/* ---- Rings: one writer thread, any number of readers that never wait ---- */

typedef struct ks_tl_ring {
    void *items;           /* capacity items of item_size bytes */
    size_t item_size;
    uint64_t capacity;
    uint64_t head;         /* items ever pushed (the newest is head - 1); read and
                              written with __atomic builtins, so C and C++ share it */
} ks_tl_ring;

/* capacity >= 2 items of item_size bytes. */
ks_status ks_tl_ring_init(ks_tl_ring *r, size_t item_size, uint64_t capacity);
void ks_tl_ring_free(ks_tl_ring *r);
/* The one writer appends an item; the oldest is overwritten when full. */
void ks_tl_ring_push(ks_tl_ring *r, const void *item);
/* Copies up to max of the newest items, oldest first, into out; returns how
 * many. Items the writer overwrote while they were copied are left out, so
 * what comes back is always whole. *first_seq (may be NULL) gets the sequence
 * number of out[0] (items are numbered from 0 as pushed). */
int ks_tl_ring_read(const ks_tl_ring *r, void *out, int max, uint64_t *first_seq);
uint64_t ks_tl_ring_pushed(const ks_tl_ring *r);

/* ---- Clocks ---- */

/* Which clock the PM sampler's timestamps are on: measured at every
 * ks_timeline_start, never assumed (on an H200 with CUDA 13 they were on
 * CUPTI's clock, 0.27 ms from the GPU's timer). */
typedef enum ks_tl_domain {
    KS_TL_DOMAIN_GPU = 0, /* the GPU's global timer (as the marker kernel reads it) */
    KS_TL_DOMAIN_CPU,     /* CUPTI's clock (host time, as its activity records carry) */
    KS_TL_DOMAIN_OTHER,   /* neither: an offset of its own, as fitted (to about a sample interval) */
} ks_tl_domain;

typedef struct ks_tl_clock_fit {
    int measured;                 /* 1: the marker showed in the samples; else nothing below is decided */
    ks_tl_domain domain;
    int64_t samples_minus_cpu_ns; /* the samples' clock minus CUPTI's: 0, gpu - cpu, or the fit's */
    int64_t fitted_ns;            /* what the samples alone gave (to about a sample interval) */
    double contrast;              /* SM % inside the marker minus outside it, at the fit; NaN: none */
    int distinct;                 /* 1: gpu - cpu is large enough for samples to tell the clocks apart */
} ks_tl_clock_fit;

/* Samples as the PM sampler decoded them (on their own clock), taken while a
 * marker kernel that kept every SM busy ran from cpu_start to cpu_end on
 * CUPTI's clock: the lag that lines the marker up with the samples' step in
 * SM activity, and from it the samples' clock (CPU when the lag is within two
 * intervals of 0, GPU within two intervals of gpu_minus_cpu, else OTHER).
 * Not measured when the step is under 20 points (SM not sampled, or other
 * work kept the SMs busy). */
ks_tl_clock_fit ks_tl_fit_clock(const ks_tl_sample *s, int ns, uint64_t cpu_start, uint64_t cpu_end,
                                int64_t gpu_minus_cpu_ns, int64_t interval_ns);

/* The lag (ns) that, added to every span, best lines the spans up with the
 * samples: the span edges cut time into segments, DRAM and SM activity is
 * taken as constant in each, and the lag with the least squared error wins
 * (so kernels back to back, a copy between spins, count by their own levels).
 * Tried from -max_lag_ns to +max_lag_ns in steps of step_ns; ties go to the
 * lag nearest 0, and 0 when nothing can be told. A check of the clock
 * alignment: within about a sample interval of 0 when it is right. */
int64_t ks_tl_best_lag(const ks_tl_sample *s, int ns, const ks_tl_span *spans, int nspans, int64_t max_lag_ns,
                       int64_t step_ns);

/* ---- A strip chart: what to draw in width columns for a time window ---- */

enum { KS_TL_STRIP_COLUMNS = 2048, KS_TL_STRIP_MARKS = 256 };

typedef struct ks_tl_mark {
    int x0, x1;             /* columns [x0, x1), at least one */
    int count;              /* kernels in it: neighbours closer than a column share a mark */
    int label;              /* 1: wide enough to print the name */
    char name[KS_TL_NAME];  /* the longest kernel's */
} ks_tl_mark;

typedef struct ks_tl_strip {
    int width;
    uint64_t t0_ns, t1_ns;                 /* the window */
    float dram_pct[KS_TL_STRIP_COLUMNS];   /* per column, time-weighted mean; NaN: no sample */
    float sm_pct[KS_TL_STRIP_COLUMNS];
    int nmarks;
    ks_tl_mark marks[KS_TL_STRIP_MARKS];   /* kernels in the window, oldest first */
    int marks_dropped;                     /* the oldest kernels, when more marks than fit */
    double dram_mean_pct, sm_mean_pct;     /* over the window's sampled time; NaN: none */
} ks_tl_strip;

/* Lays samples and spans (any order) over [t1 - window_ns, t1] in width
 * columns (<= KS_TL_STRIP_COLUMNS); t1 == 0: the newest sample's end (or
 * span's). label_px: columns a mark needs for its name. */
ks_status ks_tl_strip_build(const ks_tl_sample *s, int ns, const ks_tl_span *spans, int nspans, uint64_t t1,
                            uint64_t window_ns, int width, int label_px, ks_tl_strip *out);

/* From a CUPTI kernel name to a span's: demangled by the caller, here cut
 * before its parameter list ("copy(float const*, float*)" -> "copy") and to
 * the name's size. */
void ks_tl_short_name(const char *full, char *out, size_t cap);

/* A sample from the PM sampler's metric values: DRAM % from a combined
 * throughput or from read + write (each of the same peak), SM % as it is. NaN
 * inputs stay NaN. */
ks_tl_sample ks_tl_decode_sample(uint64_t t0_ns, uint64_t t1_ns, double dram_pct, double dram_read_pct,
                                 double dram_write_pct, double sm_pct);

/* ---- What is sampled ---- */

/* The PM sampler's metrics: DRAM throughput as one figure, or as read and
 * write (both needed), and SM activity; each in % of peak. */
typedef enum ks_tl_metric {
    KS_TL_DRAM = 0,
    KS_TL_DRAM_READ,
    KS_TL_DRAM_WRITE,
    KS_TL_SM,
    KS_TL_METRICS
} ks_tl_metric;

/* The PM metric names tried for m on gen, best first (HBM chips name DRAM
 * dram__, GDDR chips dramc__; both are tried); returns how many (<= cap). */
int ks_tl_candidates(ks_counter_gen gen, ks_tl_metric m, const char **out, int cap);

/* ---- The sampling object ---- */

typedef struct ks_timeline ks_timeline;

typedef struct ks_timeline_desc {
    int device;            /* CUDA device ordinal; < 0: the calling thread's current device */
    int cpu_backend;       /* 1: refused with words, like ks_counters_create */
    double interval_us;    /* PM sampling interval, 20..100 (0: 50) */
    int ring_samples;      /* samples kept (0: 65536, ~3 s at 50 us) */
    int ring_spans;        /* kernel spans kept (0: 8192) */
    int decode_ms;         /* how often the worker decodes (0: 10) */
    ks_counters_trace_fn trace; /* every CUPTI call and its status; NULL: silent */
    void *trace_user;
} ks_timeline_desc;

typedef struct ks_timeline_info {
    char dram_metric[2][KS_COUNTER_METRIC]; /* PM metric(s) for DRAM % (read, write; or one combined) */
    char sm_metric[KS_COUNTER_METRIC];
    double interval_us;        /* as configured */
    int time_trigger;          /* 1: interval in ns; 0: in system clocks (Turing, GA100) */
    int64_t gpu_minus_cpu_ns;  /* clock offset measured with the marker kernel */
    int domain_known;          /* 1 once a start measured the PM clock (ks_tl_fit_clock) */
    ks_tl_domain domain;       /* as measured; CUPTI's clock until a start could measure it */
    int64_t samples_minus_cpu_ns; /* the PM clock minus CUPTI's, as applied */
    int64_t clock_fit_ns;      /* the last start's fit (samples alone) */
    double clock_contrast;     /* and its step in SM %, NaN when it had none */
    uint64_t samples, spans;   /* pushed so far */
    uint64_t decode_passes, overflows, decode_errors, records_dropped;
    char last_error[256];      /* the worker's last failure ("" none) */
} ks_timeline_info;

/* Loads CUPTI, enables PM sampling on the device with a single-pass config
 * of DRAM throughput and SM activity (names from the generation's table,
 * each checked by CUPTI), enables kernel activity records, measures the
 * GPU-CPU clock offset, and starts the worker. Sampling starts with
 * ks_timeline_start. One timeline per process. */
ks_status ks_timeline_create(const ks_timeline_desc *desc, ks_timeline **out);
void ks_timeline_destroy(ks_timeline *tl);
/* Starts sampling and measures the samples' clock: a marker kernel keeps
 * every SM busy for 10 sampling intervals (0.5 ms at least) and
 * ks_tl_fit_clock finds its step in the samples (a few ms, on the calling
 * thread, whose device must be current). */
ks_status ks_timeline_start(ks_timeline *tl);
ks_status ks_timeline_stop(ks_timeline *tl); /* what was recorded stays readable */
/* Waits until everything the GPU did before the call is decoded and in the
 * rings (synchronises the device first). For tests and benches, not the live loop. */
ks_status ks_timeline_flush(ks_timeline *tl);
/* The newest samples and spans, oldest first; never waits. Either pointer
 * may be NULL. Returns KS_OK; *nsamples and *nspans get the counts. */
ks_status ks_timeline_read(ks_timeline *tl, ks_tl_sample *samples, int max_samples, int *nsamples,
                           ks_tl_span *spans, int max_spans, int *nspans);
void ks_timeline_get_info(ks_timeline *tl, ks_timeline_info *out);

#ifdef __cplusplus
}
#endif
#endif
