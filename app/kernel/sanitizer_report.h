/* The first error of a compute-sanitizer memcheck report, in a kernel
 * author's words: "mine.cu:12: out-of-bounds write of 4 bytes, 1 float past
 * the end of v (block (0,0,5), thread (3,0,0))". The report is the tool's
 * text (its "=========" lines); the file is named as the user named it, never
 * by the directory the code was built in. Plain C, no CUDA. */
#ifndef KS_SANITIZER_REPORT_H
#define KS_SANITIZER_REPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An allocation the kernel was given, to name the one an access missed. */
typedef struct ks_sanitizer_alloc {
    const char *name;          /* "v" */
    unsigned long long base;   /* device address */
    unsigned long long bytes;
} ks_sanitizer_alloc;

/* Writes the report's first error into msg (cap bytes) as one line, file
 * naming the source (its basename is used when the report names another
 * path for it, or none); allocs (n of them, NULL for none) name the
 * allocation an access missed. Returns 1 when the report holds an error it
 * understands, 0 when it holds none (msg then "" ). */
int ks_sanitizer_first_error(const char *report, const char *file, const ks_sanitizer_alloc *allocs, int n,
                             char *msg, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
