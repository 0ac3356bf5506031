#include "ks_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Length of the valid UTF-8 sequence at p (2..4 bytes), or 0 when invalid
 * (overlong forms, surrogates, code points above U+10FFFF). */
static size_t ks_utf8_multi(const unsigned char *p, size_t left)
{
    const unsigned char c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
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

const char *ks_quote_n(const char *in, size_t len, char *out, size_t out_len)
{
    if (!out || out_len == 0) return "";
    size_t used = 0;
    const unsigned char *p = (const unsigned char *)in;
    for (size_t k = 0; in && k < len;) {
        char piece[8];
        size_t plen, step = 1;
        const unsigned char c = p[k];
        if (c == '\\') plen = (size_t)snprintf(piece, sizeof piece, "\\\\");
        else if (c == '\r') plen = (size_t)snprintf(piece, sizeof piece, "\\r");
        else if (c == '\n') plen = (size_t)snprintf(piece, sizeof piece, "\\n");
        else if (c == '\t') plen = (size_t)snprintf(piece, sizeof piece, "\\t");
        else if (c < 0x20 || c == 0x7F) plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", c);
        else if (c < 0x80) {
            piece[0] = (char)c;
            plen = 1;
        } else if ((step = ks_utf8_multi(p + k, len - k)) != 0) {
            memcpy(piece, p + k, step);
            plen = step;
        } else {
            step = 1;
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", c);
        }
        if (used + plen + 1 > out_len) { /* no room: end with "..." where it fits */
            size_t dots = out_len > 4 ? 3 : 0;
            if (used + dots + 1 > out_len) used = out_len - 1 - dots;
            memcpy(out + used, "...", dots);
            used += dots;
            break;
        }
        memcpy(out + used, piece, plen);
        used += plen;
        k += step;
    }
    out[used] = '\0';
    return out;
}

const char *ks_quote(const char *in, char *out, size_t out_len)
{
    return ks_quote_n(in, in ? strlen(in) : 0, out, out_len);
}

double ks_host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kib = 0;
        int found = 0;
        while (!found && fgets(line, sizeof line, f))
            found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
        fclose(f);
        if (found) return (double)kib * 1024.0;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
}

ks_status ks_host_memory_check(double need_bytes, const char *what)
{
    const double avail = ks_host_memory_available();
    if (avail <= 0.0) return KS_OK; /* unknown: let the allocation decide */
    double margin = 0.1 * avail;
    if (margin < 268435456.0) margin = 268435456.0;
    if (need_bytes <= avail - margin) return KS_OK;
    return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s needs %.2f GiB of host memory, %.2f GiB available",
                   what, need_bytes / 1073741824.0, avail / 1073741824.0);
}
