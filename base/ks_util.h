/* Small helpers every layer uses: a monotonic clock, medians, and bounded text
 * appends. One copy here instead of one per module. */
#ifndef KS_UTIL_H
#define KS_UTIL_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on a monotonic clock (for host timing and rate limits). */
double ks_now_seconds(void);
/* The last part of a path: what follows its last '/' ("" for "dir/"), the path itself without one. */
const char *ks_path_base_name(const char *path);

/* qsort comparator for doubles, ascending. */
int ks_cmp_double(const void *a, const void *b);

/* Sorts v[0..n) in place and returns its median (mean of the middle two for
 * even n); 0 for n <= 0. */
double ks_median_sort(double *v, int n);

/* Appends printf-formatted text at buf + *used (cap bytes in all); text that
 * does not fit is cut and the buffer stays terminated. Returns 0, or -1 when
 * something was cut. */
int ks_text_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Opens path for reading when it is a regular file: without blocking in
 * open() on a named pipe (O_NONBLOCK, cleared once the file is known to be
 * regular), and refusing pipes, devices and folders. 0 and *out, -1 when
 * not a regular file, else the errno of open(). */
int ks_fopen_regular(const char *path, FILE **out);

/* Length of the valid multi-byte UTF-8 sequence at p (2..4 bytes, left bytes
 * available), or 0 when invalid (overlong forms, surrogates, code points above
 * U+10FFFF, or a byte below 0x80). */
size_t ks_utf8_seq_len(const unsigned char *p, size_t left);

/* text as one CSV field: in double quotes, inner quotes doubled (RFC 4180);
 * cut to fit cap. */
void ks_csv_quote(const char *text, char *out, size_t cap);

/* Appends like ks_text_append, but *used keeps counting past cap: a first
 * pass with buf NULL and cap 0 measures the length a writer needs. */
void ks_text_measure(char *buf, size_t cap, size_t *used, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
