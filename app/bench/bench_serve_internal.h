/* Internal to app/bench/: what bench_serve.c (the cases and their rows) and
 * bench_serve_output.c (the table, CSV and chart writers) share. */
#ifndef KS_BENCH_SERVE_INTERNAL_H
#define KS_BENCH_SERVE_INTERNAL_H

#include <stddef.h>

#include "app/bench/bench_serve.h"

typedef enum {
    KS_CASE_NONE = 0,
    KS_CASE_JPEG,
    KS_CASE_H264,
    KS_CASE_RECORD,
    KS_CASE_BROWSER_JPEG, /* --browser: a headless Chromium on the page, JPEG frames (?codec=jpeg) */
    KS_CASE_BROWSER_H264, /* the same, H.264 through WebCodecs */
    KS_CASE_NUM
} ks_case;
extern const char *const ks_case_names[KS_CASE_NUM]; /* "none", "jpeg", ... */

/* ks_bench_text_fn writers of the table (stdout, bench_serve.txt) and bench_serve.csv. */
size_t ks_serve_table_text(const void *rows_, int n, char *buf, size_t cap);
size_t ks_serve_csv_text(const void *rows_, int n, char *buf, size_t cap);
/* bench_serve.png in dir: loop and viewer fps of each scene across the cases (none: no file). */
ks_status ks_serve_chart_write(const ks_serve_row *rows, int n, const char *dir);

#endif
