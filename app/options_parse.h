/* The small parsing helpers that the common flags (app/options.c) and the
 * scenes' own flags (app/scenes/<scene>/) share. */
#ifndef KS_OPTIONS_PARSE_H
#define KS_OPTIONS_PARSE_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_error.h"
#include "app/options.h"

static inline const char *quoted(const char *text)
{
    /* The parser runs once, on one thread: a few rotating buffers are enough. */
    static char bufs[4][KS_QUOTE_MAX];
    static int next;
    next = (next + 1) % 4;
    return ks_quote(text, bufs[next], sizeof bufs[next]);
}

/* Strict integer: the whole string, decimal, in [lo, hi]; no '+' (one spelling for each number). */
static inline int parse_int(const char *text, long long lo, long long hi, long long *out)
{
    if (!text || !*text || isspace((unsigned char)*text) || *text == '+') return -1;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Splits a comma list and calls fn for each item, with ctx (the options or a
 * scene's own option storage). */
typedef ks_status (*ks_item_fn)(void *ctx, const char *name, const char *item);

static inline ks_status for_each_item(void *ctx, const char *name, const char *value, ks_item_fn fn)
{
    char buf[512];
    if (strlen(value) >= sizeof buf)
        return ks_fail(KS_ERR_INVALID, "value of %s is too long", name);
    strcpy(buf, value);
    if (buf[0] == '\0' || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        return ks_fail(KS_ERR_INVALID, "%s: empty item in '%s'", name, quoted(value));
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        KS_TRY(fn(ctx, name, tok));
    return KS_OK;
}


/* "AxB[xC]" with each part in [lo, hi]; returns parts parsed (1..max_parts) or -1. */
static inline int parse_dims(const char *text, int max_parts, long long lo, long long hi, int out[3])
{
    char buf[128];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    int parts = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "xX", &save); tok; tok = strtok_r(NULL, "xX", &save)) {
        long long v;
        if (parts == max_parts || parse_int(tok, lo, hi, &v) != 0) return -1;
        out[parts++] = (int)v;
    }
    /* "64x" or "x64" leave an empty part that strtok skips: reject them. */
    size_t len = strlen(text);
    if (parts == 0 || text[0] == 'x' || text[0] == 'X' || text[len - 1] == 'x' ||
        text[len - 1] == 'X' || strstr(text, "xx") || strstr(text, "XX"))
        return -1;
    for (int i = parts; i < 3; ++i) out[i] = 1;
    return parts;
}

/* A count in lo..hi into *out, or a one-line refusal naming the flag. */
static inline ks_status set_count(const char *name, const char *v, long long lo, long long hi, int *out)
{
    long long n;
    if (parse_int(v, lo, hi, &n) != 0 && hi == INT_MAX)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a positive count", name, quoted(v));
    if (parse_int(v, lo, hi, &n) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a count of %lld..%lld", name, quoted(v), lo, hi);
    *out = (int)n;
    return KS_OK;
}

/* A flag without a value that sets an int to 1. */
#define KS_FLAG_SETS(fn, field)                                                        \
    static ks_status fn(ks_options *o, void *own, const char *name, const char *v)     \
    {                                                                                  \
        (void)o, (void)own, (void)name, (void)v;                                       \
        field = 1;                                                                     \
        return KS_OK;                                                                  \
    }

#endif
