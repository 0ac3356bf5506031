#include "ks_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double ks_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
