/* Run-time compilation of a user's CUDA source with NVRTC (part of the CUDA
 * Toolkit; it needs no GPU). A desc goes in, a result with the code and the
 * log comes out; the log is also turned into "file:line: message" lines.
 * Built from nvrtc_compile.c where the toolkit has NVRTC, else from
 * nvrtc_compile_none.c, which refuses with one line saying how to get it. */
#ifndef KS_NVRTC_COMPILE_H
#define KS_NVRTC_COMPILE_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KS_NVRTC_DEFAULT_CC_MAJOR = 9, /* sm_90 (Hopper) when no device says otherwise */
    KS_NVRTC_DEFAULT_CC_MINOR = 0,
    KS_NVRTC_SOURCE_MAX = 64 * 1024, /* bytes of source kernelscope accepts */
};

typedef struct ks_nvrtc_desc {
    const char *source;  /* the CUDA source text (NUL-terminated) */
    const char *name;    /* the file name NVRTC reports ("kernel.cu"); NULL: "kernel.cu" */
    int cc_major, cc_minor; /* the target; 0.0: KS_NVRTC_DEFAULT_CC_* (sm_90) */
    int cubin;           /* 1: machine code for sm_XY (CUBIN); 0: PTX for compute_XY */
} ks_nvrtc_desc;

typedef struct ks_nvrtc_result {
    char *code;          /* PTX (NUL-terminated) or CUBIN; NULL when the compile failed */
    size_t code_size;    /* bytes of code (PTX: with its NUL) */
    int cubin;           /* code is a CUBIN */
    int cc_major, cc_minor; /* the architecture compiled for */
    char *log;           /* NVRTC's log as it wrote it ("" when empty) */
    char *lines;         /* the log as "file:line: message" lines, each ending in '\n' ("" when none) */
    int errors;          /* error lines among them */
} ks_nvrtc_result;

/* 1 when this build has NVRTC. */
int ks_nvrtc_built(void);
/* "NVRTC 13.0" or the stub's reason, for a notice. */
const char *ks_nvrtc_version_text(void);
/* Compiles desc->source with -lineinfo -std=c++17 for the target. *out is
 * filled in both cases (free it with ks_nvrtc_result_free): KS_OK with code,
 * or KS_ERR_PARSE when the source does not compile (out->lines says where;
 * the error text says how many errors). KS_ERR_UNSUPPORTED without NVRTC or
 * for an architecture this NVRTC does not know. */
ks_status ks_nvrtc_compile(const ks_nvrtc_desc *desc, ks_nvrtc_result *out);
void ks_nvrtc_result_free(ks_nvrtc_result *r);

/* Turns an NVRTC log ("name(12): error: ...", followed by the source line and
 * a caret) into "name:12: error: ..." lines, dropping the echoed source and
 * the summary; bytes that are not printable are escaped (ks_quote). A log
 * with no such line but text in it gives its first line as "name: text".
 * Returns a malloc'd string (NULL when out of memory); *errors counts the
 * error lines. Always built (tests need no NVRTC). */
char *ks_nvrtc_log_lines(const char *log, const char *name, int *errors);

#ifdef __cplusplus
}
#endif
#endif
