/* The view's JSON writer, shared by view.c and view_hw.c: appends into a
 * fixed buffer and remembers an overflow instead of failing each call.
 * Private to render/. */
#ifndef KS_VIEW_JSON_H
#define KS_VIEW_JSON_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct jw {
    char *buf;
    size_t cap, len;
    int overflow;
} jw;

static inline void jw_raw(jw *w, const char *s, size_t n)
{
    if (w->overflow || w->len + n + 1 > w->cap) {
        w->overflow = 1;
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static inline void jw_puts(jw *w, const char *s) { jw_raw(w, s, strlen(s)); }

static inline void jw_str(jw *w, const char *s)
{
    jw_raw(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        char esc[8];
        switch (*p) {
        case '"': jw_raw(w, "\\\"", 2); break;
        case '\\': jw_raw(w, "\\\\", 2); break;
        case '\n': jw_raw(w, "\\n", 2); break;
        case '\r': jw_raw(w, "\\r", 2); break;
        case '\t': jw_raw(w, "\\t", 2); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                jw_raw(w, esc, 6);
            } else {
                jw_raw(w, (const char *)p, 1); /* UTF-8 bytes pass through */
            }
        }
    }
    jw_raw(w, "\"", 1);
}

static inline void jw_num(jw *w, double x)
{
    if (!isfinite(x)) {
        jw_puts(w, "null");
        return;
    }
    char t[40];
    snprintf(t, sizeof t, "%.17g", x);
    jw_puts(w, t);
}

static inline void jw_key(jw *w, const char *k)
{
    jw_str(w, k);
    jw_raw(w, ":", 1);
}

#endif
