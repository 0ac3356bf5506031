#include "ks_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double ks_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *ks_path_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int ks_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ks_median_sort(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, ks_cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int ks_text_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (cap == 0) return -1;
    if (*used + 1 >= cap) {
        buf[cap - 1] = '\0';
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n < 0) {
        buf[*used] = '\0';
        return -1;
    }
    if ((size_t)n >= cap - *used) {
        *used = cap - 1;
        return -1;
    }
    *used += (size_t)n;
    return 0;
}

void ks_text_measure(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const size_t room = *used < cap ? cap - *used : 0;
    const int n = vsnprintf(room ? buf + *used : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}

size_t ks_utf8_seq_len(const unsigned char *p, size_t left)
{
    const unsigned char c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (left < n || p[1] < lo || p[1] > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (p[k] < 0x80 || p[k] > 0xBF) return 0;
    return n;
}

void ks_csv_quote(const char *text, char *out, size_t cap)
{
    size_t q = 0;
    if (cap < 3) {
        if (cap) out[0] = '\0';
        return;
    }
    out[q++] = '"';
    for (const char *c = text; *c && q + 3 < cap; ++c) {
        if (*c == '"') out[q++] = '"';
        out[q++] = *c;
    }
    out[q++] = '"';
    out[q] = '\0';
}

int ks_fopen_regular(const char *path, FILE **out)
{
    *out = NULL;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO would block here until a writer came */
    if (fd < 0) return errno ? errno : EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*out = fdopen(fd, "rb"))) {
        const int e = errno ? errno : EIO;
        close(fd);
        return e;
    }
    return 0;
}
