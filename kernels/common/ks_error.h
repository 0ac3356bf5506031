/* Error reporting shared by every module: a status code plus one formatted line.
 * Functions that can fail return ks_status; the text of the most recent failure
 * on this thread is kept here so that only main() decides what to print. */
#ifndef KS_ERROR_H
#define KS_ERROR_H

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
const char *ks_error_message(void); /* "" when none */
const char *ks_status_name(ks_status code);
void ks_error_clear(void);

#define KS_TRY(expr)                                                                               \
    do {                                                                                           \
        ks_status ks_try_status_ = (expr);                                                         \
        if (ks_try_status_ != KS_OK) return ks_try_status_;                                        \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
