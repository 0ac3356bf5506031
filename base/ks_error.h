/* Error reporting shared by every module: a status code plus one formatted line.
 * Functions that can fail return ks_status; the text of the most recent failure
 * on this thread is kept here so that only main() decides what to print. */
#ifndef KS_ERROR_H
#define KS_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_status {
    KS_OK = 0,
    KS_ERR_INVALID,      /* bad argument or option value */
    KS_ERR_UNSUPPORTED,  /* valid request the device or build cannot do */
    KS_ERR_NO_DEVICE,    /* no CUDA device, or no display/EGL device */
    KS_ERR_OUT_OF_MEMORY,
    KS_ERR_CUDA,         /* a CUDA runtime call failed */
    KS_ERR_GL,           /* an OpenGL/EGL/GLFW call failed */
    KS_ERR_IO,           /* file could not be read or written */
    KS_ERR_PARSE,        /* malformed input file */
    KS_ERR_NUM
} ks_status;

/* Records "fmt..." as the current error and returns code (so callers can
 * `return ks_fail(KS_ERR_IO, "cannot open %s", path);`). */
ks_status ks_fail(ks_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prefixes the current error text with "fmt...: " (adds context on the way up). */
void ks_error_prefix(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A library call that failed (KS_STATUS_TRY, cuda_check.h): the error is "CALL failed: CAUSE
 * (FILE:LINE)", for us; the cause alone, the library's words, is kept for users (ks_error_cause). */
ks_status ks_fail_call(ks_status code, const char *call, const char *cause, const char *file, int line);
const char *ks_error_message(void); /* "" when none */
/* The last failure in words a user of kernelscope can read: a library call's
 * own error text ("an illegal memory access was encountered") without our
 * call, file or line; any other failure's whole message. */
const char *ks_error_cause(void);
const char *ks_status_name(ks_status code);
void ks_error_clear(void);

/* Writes an escaped copy of len bytes of in to out (always NUL-terminated,
 * cut with "..." between two characters when out is too small) and returns
 * out. Control bytes (C0, DEL, and C1 U+0080..U+009F) and bytes that are not
 * valid UTF-8 become \r, \n, \t or \xNN, a backslash becomes \\. Every
 * message that quotes a file or an argument goes through it, so input bytes
 * never reach the terminal raw. */
const char *ks_quote_n(const char *in, size_t len, char *out, size_t out_len);
/* ks_quote_n over a NUL-terminated string (NULL quotes as ""). */
const char *ks_quote(const char *in, char *out, size_t out_len);
enum { KS_QUOTE_MAX = 256 }; /* a handy buffer size for quoted tokens */
/* ks_quote into a temporary that lives until the end of the enclosing block:
 * ks_fail(KS_ERR_IO, "cannot write '%s'", KS_QUOTED(path)). C only. */
#define KS_QUOTED(text) ks_quote((text), (char[KS_QUOTE_MAX]){0}, KS_QUOTE_MAX)

/* Bytes of host memory available now: MemAvailable from /proc/meminfo (the
 * kernel's estimate, page cache included), else free pages; 0 when unknown. */
double ks_host_memory_available(void);
/* KS_ERR_OUT_OF_MEMORY with "WHAT needs X GiB of host memory, Y GiB available"
 * unless need_bytes fits in what is available minus a margin (10 %, at least
 * 256 MiB), so an allocation that would swap or meet the OOM killer is refused
 * before it starts. KS_OK when the amount available is unknown. */
ks_status ks_host_memory_check(double need_bytes, const char *what);

#define KS_TRY(expr)                                                                               \
    do {                                                                                           \
        ks_status ks_try_status_ = (expr);                                                         \
        if (ks_try_status_ != KS_OK) return ks_try_status_;                                        \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
