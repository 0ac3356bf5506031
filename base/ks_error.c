#include "ks_error.h"
#include "ks_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { KS_ERROR_TEXT_MAX = 1024 };
static _Thread_local char ks_error_text[KS_ERROR_TEXT_MAX];
static _Thread_local char ks_error_cause_text[256]; /* the library's own words of the last failure, "" none */

ks_status ks_fail(ks_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ks_error_text, sizeof ks_error_text, fmt, ap);
    va_end(ap);
    ks_error_cause_text[0] = '\0';
    return code;
}

ks_status ks_fail_call(ks_status code, const char *call, const char *cause, const char *file, int line)
{
    ks_fail(code, "%s failed: %s (%s:%d)", call, cause, file, line);
    snprintf(ks_error_cause_text, sizeof ks_error_cause_text, "%s", cause ? cause : "");
    return code;
}

const char *ks_error_cause(void) { return ks_error_cause_text[0] ? ks_error_cause_text : ks_error_text; }

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

void ks_error_clear(void)
{
    ks_error_text[0] = '\0';
    ks_error_cause_text[0] = '\0';
}

const char *ks_status_name(ks_status code)
{
    static const char *const names[KS_ERR_NUM] = {
        "ok", "invalid argument", "unsupported", "no device", "out of memory",
        "CUDA error", "OpenGL error", "I/O error", "parse error",
    };
    return (code >= 0 && code < KS_ERR_NUM) ? names[code] : "unknown error";
}

/* The escaped form of the input at p[k] into piece (at most 8 bytes, no NUL);
 * returns its length and sets *step to the input bytes it covers. */
static size_t quote_piece(const unsigned char *p, size_t k, size_t len, char piece[8], size_t *step)
{
    const unsigned char c = p[k];
    *step = 1;
    if (c == '\\') return (size_t)snprintf(piece, 8, "\\\\");
    if (c == '\r') return (size_t)snprintf(piece, 8, "\\r");
    if (c == '\n') return (size_t)snprintf(piece, 8, "\\n");
    if (c == '\t') return (size_t)snprintf(piece, 8, "\\t");
    if (c >= 0x20 && c < 0x7F) {
        piece[0] = (char)c;
        return 1;
    }
    const size_t n = c >= 0x80 ? ks_utf8_seq_len(p + k, len - k) : 0;
    /* valid UTF-8 stays, except a C1 control (U+0080..U+009F: U+009B is a CSI to some terminals) */
    if (n && !(c == 0xC2 && p[k + 1] < 0xA0)) {
        memcpy(piece, p + k, n);
        *step = n;
        return n;
    }
    return (size_t)snprintf(piece, 8, "\\x%02x", c);
}

const char *ks_quote_n(const char *in, size_t len, char *out, size_t out_len)
{
    if (!out || out_len == 0) return "";
    const unsigned char *p = (const unsigned char *)in;
    if (!in) len = 0;
    char piece[8];
    size_t total = 0, step;
    for (size_t k = 0; k < len; k += step) total += quote_piece(p, k, len, piece, &step);
    const int cut = total + 1 > out_len;
    size_t used = 0;
    for (size_t k = 0; k < len; k += step) {
        const size_t plen = quote_piece(p, k, len, piece, &step);
        /* when cutting, keep room for "..." so the cut never splits a piece */
        if (used + plen + (cut ? 3 : 0) + 1 > out_len) {
            if (used + 4 <= out_len) {
                memcpy(out + used, "...", 3);
                used += 3;
            }
            break;
        }
        memcpy(out + used, piece, plen);
        used += plen;
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
