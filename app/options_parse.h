/* Internal to app/options*.c: the small parsing helpers that the flag table
 * (options.c) and the scenes' option checks (options_scenes.c) share. */
#ifndef KS_OPTIONS_PARSE_H
#define KS_OPTIONS_PARSE_H

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ks_error.h"
#include "options.h"

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

/* Splits a comma list and calls parse_one for each item. */
typedef ks_status (*ks_item_fn)(ks_options *o, const char *name, const char *item);

static inline ks_status for_each_item(ks_options *o, const char *name, const char *value, ks_item_fn fn)
{
    char buf[512];
    if (strlen(value) >= sizeof buf)
        return ks_fail(KS_ERR_INVALID, "value of %s is too long", name);
    strcpy(buf, value);
    if (buf[0] == '\0' || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        return ks_fail(KS_ERR_INVALID, "%s: empty item in '%s'", name, quoted(value));
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        KS_TRY(fn(o, name, tok));
    return KS_OK;
}

#endif
