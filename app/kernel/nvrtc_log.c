/* NVRTC's log as "file:line: message" lines (nvrtc_compile.h). Built in every
 * configuration: the compile module and its stub share it, and tests need no
 * NVRTC to check it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_compile.h"

typedef struct text_buf {
    char *data;
    size_t len, cap;
    int failed;
} text_buf;

static void put(text_buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void put_str(text_buf *b, const char *s) { put(b, s, strlen(s)); }

/* "name(123): rest" at the start of line [p, end): the line number and where rest starts. */
static int located(const char *p, const char *end, const char *name, long *line, const char **rest)
{
    const size_t n = strlen(name);
    if ((size_t)(end - p) < n + 4 || memcmp(p, name, n) != 0 || p[n] != '(') return 0;
    const char *q = p + n + 1;
    long v = 0;
    int digits = 0;
    while (q < end && *q >= '0' && *q <= '9' && digits < 9) v = v * 10 + (*q++ - '0'), ++digits;
    if (!digits || q + 2 >= end || q[0] != ')' || q[1] != ':' || q[2] != ' ') return 0;
    *line = v;
    *rest = q + 3;
    return 1;
}

char *ks_nvrtc_log_lines(const char *log, const char *name, int *errors)
{
    text_buf b = {0};
    char quoted[1024], qname[KS_QUOTE_MAX], num[24];
    const char *first = NULL, *first_end = NULL;
    int found = 0;
    *errors = 0;
    if (!name) name = "kernel.cu";
    ks_quote(name, qname, sizeof qname);
    put(&b, "", 0);
    for (const char *p = log ? log : ""; *p;) {
        const char *end = strchr(p, '\n');
        if (!end) end = p + strlen(p);
        const char *rest;
        long line;
        if (located(p, end, name, &line, &rest)) {
            const char *stop = end > rest && end[-1] == '\r' ? end - 1 : end;
            ks_quote_n(rest, (size_t)(stop - rest), quoted, sizeof quoted);
            snprintf(num, sizeof num, ":%ld: ", line);
            put_str(&b, qname);
            put_str(&b, num);
            put_str(&b, quoted);
            put(&b, "\n", 1);
            if (strncmp(rest, "error", 5) == 0 || strncmp(rest, "catastrophic error", 18) == 0) ++*errors;
            ++found;
        } else if (!first && end > p && strspn(p, " \t\r") < (size_t)(end - p)) {
            first = p;
            first_end = end;
        }
        p = *end ? end + 1 : end;
    }
    if (!found && first) { /* a log without locations (a bad option, say): its first line */
        ks_quote_n(first, (size_t)(first_end - first), quoted, sizeof quoted);
        put_str(&b, qname);
        put_str(&b, ": ");
        put_str(&b, quoted);
        put(&b, "\n", 1);
        if (strstr(first, "error")) ++*errors;
    }
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    return b.data;
}
