/* The checker process: a user's compiled kernel runs first in a child
 * process, a fresh exec of this binary (CUDA does not survive fork), so that
 * a fault (illegal address, trap) or an endless loop costs the child, never
 * the live view. The child is started ahead of need and kept warm (its CUDA
 * context made before the first request); after a fault or a time-out it is
 * killed and a new one started at once, ready for the next check.
 *
 * The parent sends a request (a header line, then the code's bytes) down the
 * child's stdin and reads one answer line from its stdout, followed by the
 * difference slice when one was asked for; the scene's own check (its
 * registry row's kernel_check) does the work in the child.
 *
 * A check can also run under compute-sanitizer's memcheck (the CUDA
 * Toolkit's), in a second child: the same command line after the tool's, its
 * report in a log file of a private temporary folder. A check that faults is
 * run again there, so that the answer names the user's line
 * (sanitizer_report.h) instead of the CUDA error alone; with
 * KS_KCHECK_MEMCHECK_FIRST the first check of every build runs there before
 * the plain one, so that a kernel that writes out of bounds is stopped by the
 * tool and never faults the GPU itself (kernel_check_sanitizer.c). */
#ifndef KS_KERNEL_CHECKER_H
#define KS_KERNEL_CHECKER_H

#include <stddef.h>

#include "base/ks_error.h"
#include "kernels/user/user_code.h"

/* The argument that makes the binary a checker child: `kernelscope __kernel-check` */
#define KS_KCHECK_ARG "__kernel-check"
#define KS_KCHECK_DEVICE_ARG "--check-device" /* then the device's ordinal */

enum {
    KS_KCHECK_NAME_MAX = 32,     /* scene name bytes, NUL included */
    KS_KCHECK_FILE_MAX = 256,    /* kernel file name bytes, NUL included */
    KS_KCHECK_MSG_MAX = 512,     /* answer line bytes, NUL included */
    KS_KCHECK_CODE_MAX = 16 << 20, /* bytes of code a request may carry */
    KS_KCHECK_DIFF_MAX = 16 << 20, /* values of a difference slice (64 MiB of floats: 4096 x 4096) */
};

typedef struct ks_kcheck_request {
    char scene[KS_KCHECK_NAME_MAX]; /* the registry row that checks it ("laplace3d") */
    char file[KS_KCHECK_FILE_MAX];  /* the kernel's file name, for messages (any bytes but NUL) */
    int grid[3];                    /* the live grid (unused sizes 1) */
    int block[3];                   /* the block it will run with (unused sizes 1) */
    int iters;                      /* iterations on the live grid against our reference (0: 4) */
    const void *code;               /* the compiled code: CUBIN or PTX */
    size_t code_size;
    int cubin;
    /* The difference view: 1 asks for |yours - ours| on one slice of the live
       grid after the live run (which then runs even when the small grid already
       failed, so that a wrong kernel has a picture too). The slice is that of the
       box grid[0] x grid[1] x grid[2] across axis (0 x, 1 y, 2 z; a 2D grid: z,
       index 0), ks_slice_dims's cells: ks_kcheck_diff_dims. */
    int diff;
    int axis, index;
    /* With diff, for a scene whose output is not a field on grid (histogram's
       bins): the difference's w x h cells; 0 0: the slice of axis and index. */
    int cells[2];
    /* The first check of a new build: with KS_KCHECK_MEMCHECK_FIRST it runs
       under compute-sanitizer first, and the plain check only once it passed. */
    int first;
} ks_kcheck_request;

typedef struct ks_kcheck_result {
    int passed;                     /* 1: it matched everywhere */
    int fatal;                      /* set by a check: the CUDA context is lost (a fault); the
                                       child exits after answering and a new one is started */
    char message[KS_KCHECK_MSG_MAX]; /* one line: "matches the CPU gold (max error 0) and regq on
                                       the live grid", the CUDA error, "did not finish in 5 s",
                                       the first mismatching cell with its value, the expected
                                       one and the maximum error */
    double child_ms;                /* the check's time inside the child */
    double total_ms;                /* request to answer, seen from the parent */
    /* The difference slice (req.diff): diff_w x diff_h values, cell (a, b) at
       a + b * diff_w, each |yours - ours| >= 0, +inf where one of the two left the
       cell unwritten (NaN) and the other did not. malloc'd (ks_kcheck_result_free);
       NULL when the check could not make one (the message says why: a fault, a
       time-out, no room on the GPU for the live grid's copies). */
    float *diff;
    int diff_w, diff_h;
    int memchecked;                 /* 1: the check (also) ran under compute-sanitizer */
    double memcheck_ms;             /* ... that run's time, request to answer (its part of total_ms) */
} ks_kcheck_result;

/* The cells of the difference slice a request asks for (its cells when set);
 * 0 (w, h untouched) when its axis or index lies outside its grid. */
int ks_kcheck_diff_dims(const ks_kcheck_request *req, int *w, int *h);
/* Frees the difference slice (the rest is plain data). NULL is fine. */
void ks_kcheck_result_free(ks_kcheck_result *r);

/* ---- parent ---- */
/* When a check runs under compute-sanitizer memcheck. */
enum {
    KS_KCHECK_MEMCHECK_FAULT = 0, /* a check that faults (a fatal answer) runs again under it, to name the line */
    KS_KCHECK_MEMCHECK_FIRST,     /* that, and a request marked first runs under it before the plain check
                                     (its child then kept warm too) */
    KS_KCHECK_MEMCHECK_OFF,       /* never: the CUDA error alone */
};

typedef struct ks_kchecker_desc {
    const char *exe;        /* the binary to exec; NULL: this one (/proc/self/exe) */
    const char *const *extra_args; /* NULL-terminated, passed after KS_KCHECK_ARG (tests); may be NULL */
    double timeout_s;       /* one check's limit; 0: 10 */
    int device;             /* 1 + the CUDA device the child checks on (passed as
                               KS_KCHECK_DEVICE_ARG N after the extra args); 0: the default */
    int memcheck;           /* KS_KCHECK_MEMCHECK_*; 0: FAULT */
    const char *sanitizer;  /* compute-sanitizer's path; NULL: looked for (ks_kcheck_find_sanitizer) */
    double memcheck_timeout_s; /* one check under it; 0: 3 x timeout_s (the tool slows kernels down) */
} ks_kchecker_desc;

typedef struct ks_kchecker ks_kchecker;

/* Starts the child now, so that the first check finds it warm. KS_ERR_IO when
 * it cannot be started. */
ks_status ks_kchecker_create(const ks_kchecker_desc *desc, ks_kchecker **out);
/* Runs one check (blocks the calling thread, not meant for the frame loop).
 * KS_OK with *out filled, passed or not (free it with ks_kcheck_result_free): a child that dies gives "the check
 * process died: <signal or exit status>" (with its fatal message when it sent
 * one), one that does not answer in time "did not finish in N s"; either way
 * a new child is started before returning. An error status only when no
 * child can be started or the request is malformed (too long a name, code, a
 * slice outside the grid or of more than KS_KCHECK_DIFF_MAX cells). A
 * difference slice that is not what was asked (other sizes, a value that is
 * NaN or negative, cut short) is a malformed answer: that child is replaced. */
ks_status ks_kchecker_run(ks_kchecker *c, const ks_kcheck_request *req, ks_kcheck_result *out);
/* compute-sanitizer's path as found at create; NULL when memcheck is off, or
 * when there is none: a fault's answer then ends with "(compute-sanitizer not
 * found: the CUDA error alone)" and a first check runs plain. */
const char *ks_kchecker_sanitizer(const ks_kchecker *c);
/* Finds compute-sanitizer: explicit when not NULL (that one or none), else on
 * PATH, else beside nvcc on PATH (where its link leads), else in
 * $CUDA_HOME/bin, else in /usr/local/cuda/bin. 1 and its path in out, or 0. */
int ks_kcheck_find_sanitizer(const char *explicit_path, char *out, size_t cap);
/* Process id of the current child (tests), 0 when none. */
int ks_kchecker_pid(const ks_kchecker *c);
/* Ends the child (closes its stdin, then SIGKILL if it lingers) and frees. NULL is fine. */
void ks_kchecker_destroy(ks_kchecker *c);

/* ---- child ---- */
/* The scene's check: fills out (passed, message, fatal; with req->diff the
 * difference slice, malloc'd, of ks_kcheck_diff_dims's size, which the loop
 * sends and frees). Returns nonzero only
 * when the request cannot be served at all (unknown scene): the child answers
 * that as a failed check with the error text. */
typedef ks_status (*ks_kcheck_fn)(const ks_kcheck_request *req, ks_kcheck_result *out);
/* The child's loop: warm() once (may be NULL; makes the CUDA context), then
 * requests from in_fd, answers to out_fd, until in_fd closes (exit 0) or a
 * check says fatal (exit 3 after answering). Returns the exit code. */
int ks_kchecker_child_main(int in_fd, int out_fd, void (*warm)(void), ks_kcheck_fn check);
/* For a scene's check: st, a step's failure in the middle of a check, as the
 * answer (1, "what: the error"; a CUDA error may have cost the context, so
 * KS_ERR_CUDA makes it fatal: the process starts anew); 0 for KS_OK. */
int ks_kcheck_failed(ks_status st, ks_kcheck_result *out, const char *what);
/* st, a refusal (the code does not load, or cannot take the block), as the
 * answer in the error's own words (1); 0 for KS_OK. */
int ks_kcheck_refused(ks_status st, ks_kcheck_result *out);
/* The request's code loaded by the contract's loader (kernels/<scene>/<scene>_user.h):
 * NULL, with the loader's refusal as the answer, when it does not load. */
ks_user_code *ks_kcheck_load(const ks_kcheck_request *req,
                             ks_status (*load)(const char *name, const void *code, size_t size, ks_user_code **out),
                             ks_kcheck_result *out);
/* At a check's end: the code unloaded, unless the check lost the context
 * (fatal: the process ends, nothing to unload). */
void ks_kcheck_unload(ks_user_code *code, const ks_kcheck_result *out);
/* The difference the check made (made 1: w x h values, malloc'd, which the
 * loop sends and frees) into the answer; else diff is freed. */
void ks_kcheck_give_diff(ks_kcheck_result *out, float *diff, int made, int w, int h);

#endif
