/* The last step of every bench, in one place: the table on stdout, then the
 * text files (CSV), then the charts, each file written whole (temporary name,
 * rename) and named on stdout ("kernelscope: wrote PATH"). */
#ifndef KS_BENCH_OUTPUT_H
#define KS_BENCH_OUTPUT_H

#include <stddef.h>

#include "app/options.h"
#include "base/bench_timing.h"
#include "base/ks_error.h"
#include "render/chart.h"

/* A bench's rows as text, snprintf style: at most cap bytes into buf (buf may
 * be NULL when cap is 0), terminated; returns the whole length. n: rows (0 for
 * writers whose result keeps its own count). */
typedef size_t (*ks_bench_text_fn)(const void *rows, int n, char *buf, size_t cap);

typedef struct ks_bench_file {
    const char *name;      /* in the output folder: "bench_matmul.csv"; NULL ends the list */
    ks_bench_text_fn text;
} ks_bench_file;

enum { KS_BENCH_OUTPUT_FILES = 3 };

typedef struct ks_bench_output_desc {
    const char *dir;                            /* output folder; NULL: "." */
    const void *rows;                           /* the results, handed to every text function */
    int n;
    ks_bench_text_fn table;                     /* printed on stdout first; NULL: none */
    ks_bench_file files[KS_BENCH_OUTPUT_FILES]; /* then written in this order */
    /* last, the charts: each through ks_bench_chart_write; NULL: none */
    ks_status (*charts)(const void *ctx, const char *dir);
    const void *ctx;                            /* the charts' argument */
} ks_bench_output_desc;

/* Writes what d names, stopping at the first failure. measured: how the
 * measuring ended. When it failed, what was measured is still written and the
 * measuring's status and message are returned over the writers'. */
ks_status ks_bench_output_write(const ks_bench_output_desc *d, ks_status measured);

/* How the bench's GPU rows are timed (base/bench_timing.h): --cache,
 * and --reps N exactly when it was given, else until the median's standard
 * error is under 1 %. */
ks_timing_opts ks_bench_timing_opts(const ks_options *opt);

/* fn's text for rows, malloc'd; NULL when out of memory. */
char *ks_bench_text(ks_bench_text_fn fn, const void *rows, int n);

/* Draws d into DIR/NAME (PNG) and says so. Width and height 0: the benches'
 * 1100 x 650. path (NULL: not wanted) gets the file's path. */
ks_status ks_bench_chart_write(const ks_chart_desc *d, const char *dir, const char *name, char *path,
                               size_t path_cap);

#endif
