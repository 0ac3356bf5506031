#include "ks_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { KS_ERROR_TEXT_MAX = 1024 };
static _Thread_local char ks_error_text[KS_ERROR_TEXT_MAX];

ks_status ks_fail(ks_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ks_error_text, sizeof ks_error_text, fmt, ap);
    va_end(ap);
    return code;
}

void ks_error_prefix(const char *fmt, ...)
{
    char joined[KS_ERROR_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(joined, sizeof joined, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t used = (size_t)n < sizeof joined ? (size_t)n : sizeof joined - 1;
    /* "prefix: old text", cut to the buffer */
    size_t room = sizeof joined - used;
    if (room > 2) {
        memcpy(joined + used, ": ", 2);
        used += 2;
        room -= 2;
        size_t old = strnlen(ks_error_text, sizeof ks_error_text);
        if (old >= room) old = room - 1;
        memcpy(joined + used, ks_error_text, old);
        used += old;
    }
    joined[used] = '\0';
    memcpy(ks_error_text, joined, used + 1);
}

const char *ks_error_message(void) { return ks_error_text; }

void ks_error_clear(void) { ks_error_text[0] = '\0'; }

const char *ks_status_name(ks_status code)
{
    static const char *const names[KS_ERR_NUM] = {
        "ok", "invalid argument", "unsupported", "no device", "out of memory",
        "CUDA error", "OpenGL error", "I/O error", "parse error",
    };
    return (code >= 0 && code < KS_ERR_NUM) ? names[code] : "unknown error";
}
