/* The CPU backend's T_peak: the host's copy bandwidth, and whether it can be
 * trusted.
 *
 * One short copy by one thread says little on a busy machine: it can come out
 * below what the solver itself reaches, or differ by a factor of four from one
 * measurement to the next. So the copy is made by all the OpenMP threads the
 * solver uses, of a buffer larger than the caches, repeated (each repetition
 * long enough for the clock), and T_peak is the best repetition; the spread
 * of the repetitions, (best - median) / best, says how steady the machine was
 * while it measured. A ratio T_eff / T_peak is shown only when T_peak is
 * steady and T_eff does not exceed it (ks_host_peak_ratio). */
#ifndef KS_HOST_PEAK_H
#define KS_HOST_PEAK_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_HOST_PEAK_MAX_REPS = 64 };
/* Above this spread of the repetitions T_peak is not trusted. A quiet machine
 * repeats a large copy within a few per cent; a core shared with another busy
 * process spreads it by tens of per cent. */
#define KS_HOST_PEAK_MAX_SPREAD 0.20

typedef struct ks_host_peak_desc {
    size_t bytes;        /* the buffer copied; 0: 64 MiB (beyond the caches) */
    int reps;            /* repetitions, at most KS_HOST_PEAK_MAX_REPS; 0: 9 */
    double min_seconds;  /* each repetition copies the buffer as often as fits this long; 0: 0.02 */
} ks_host_peak_desc;

typedef struct ks_host_peak {
    double gbs;          /* T_peak: the best repetition, (read + written bytes) / time; 0: none */
    double median_gbs;   /* the median repetition */
    double spread;       /* (gbs - median_gbs) / gbs, 0 .. 1 */
    int reps;            /* repetitions measured */
    int threads;         /* threads that copied */
    int reliable;        /* 1: spread <= KS_HOST_PEAK_MAX_SPREAD */
} ks_host_peak;

/* Judges n repetitions' rates (GB/s, n <= KS_HOST_PEAK_MAX_REPS; rates <= 0
 * ignored) into *out (threads left 0). Pure. */
void ks_host_peak_judge(const double *gbs, int n, ks_host_peak *out);

/* Measures T_peak (desc may be NULL: the defaults). KS_ERR_OUT_OF_MEMORY when
 * the buffers cannot be had. */
ks_status ks_host_peak_measure(const ks_host_peak_desc *desc, ks_host_peak *out);

/* What may be said of T_eff / T_peak. */
typedef enum ks_peak_verdict {
    KS_PEAK_RATIO = 0,    /* *ratio holds T_eff / T_peak, at most 1 */
    KS_PEAK_NONE,         /* no T_peak (or no T_eff) */
    KS_PEAK_UNRELIABLE,   /* T_peak's repetitions spread too far (a busy CPU) */
    KS_PEAK_EXCEEDED,     /* T_eff above T_peak: the data sat in a cache, or the CPU was busier while T_peak was measured */
} ks_peak_verdict;

/* The verdict on t_eff_gbs against *p; *ratio gets T_eff / T_peak for
 * KS_PEAK_RATIO, else -1. Pure. */
ks_peak_verdict ks_host_peak_ratio(const ks_host_peak *p, double t_eff_gbs, double *ratio);
/* A few words for a verdict other than KS_PEAK_RATIO ("" for it), e.g.
 * "T_peak unreliable (busy CPU)". */
const char *ks_peak_verdict_text(ks_peak_verdict v);

#ifdef __cplusplus
}
#endif
#endif
