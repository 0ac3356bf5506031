/* Internal to app/bench/: what bench_serve.c (the cases and their rows),
 * bench_serve_output.c (the cases' names; the table, CSV and chart writers),
 * bench_serve_replot.c (--replot) and bench_serve_browser.c (--browser) share. */
#ifndef KS_BENCH_SERVE_INTERNAL_H
#define KS_BENCH_SERVE_INTERNAL_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

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

enum { KS_SERVE_MAX_CASES = 16, KS_SERVE_MAX_ROWS = KS_SERVE_MAX_CASES * 6 }; /* scene cases; rows: a case's runs */

/* ks_bench_text_fn writers of the table (stdout, bench_serve.txt) and bench_serve.csv. */
size_t ks_serve_table_text(const void *rows_, int n, char *buf, size_t cap);
size_t ks_serve_csv_text(const void *rows_, int n, char *buf, size_t cap);
/* bench_serve.png in dir: loop and viewer fps of each scene across the cases (none: no file). */
ks_status ks_serve_chart_write(const ks_serve_row *rows, int n, const char *dir);

/* --browser: a headless Chromium started on url with its own profile folder (its temporary
 * files go there too) in a process group of its own: its pid, -1 when it cannot be started;
 * stopped with SIGTERM, then SIGKILL after 5 s; nftw's callback that removes the profile. */
struct FTW;
pid_t ks_serve_browser_start(const char *path, const char *url, const char *profile);
void ks_serve_browser_stop(pid_t pid);
int ks_serve_browser_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw);

#endif
