/* Hot reload of a user's kernel files (--kernel-file): each file is watched
 * with inotify (on its folder, so an editor that saves through a temporary
 * name and a rename is seen too); a change is read and compiled with NVRTC on
 * the watch's own worker thread, then handed to the caller's check (the
 * checker process, app/kernel/kernel_checker.h), and the result waits for the
 * frame loop to collect it with ks_kernel_watch_poll, which never blocks.
 * The frame loop never waits for a compile or a check. */
#ifndef KS_KERNEL_WATCH_H
#define KS_KERNEL_WATCH_H

#include <stddef.h>

#include "base/ks_error.h"

enum {
    KS_KERNEL_WATCH_MAX = 8,       /* files one watch follows */
    KS_KERNEL_WATCH_MSG = 1024,    /* bytes of a build's one-line message */
};

/* What one build (a save, or a ks_kernel_watch_rebuild) produced. */
typedef struct ks_kernel_build {
    int slot;                   /* the file: its index in desc.paths */
    ks_status status;           /* KS_OK: compiled and passed the check */
    int compiled;               /* 1 when NVRTC produced code (the check may still have refused it) */
    char message[KS_KERNEL_WATCH_MSG]; /* one line: "compiled in 21 ms, checked in 40 ms",
                                   "2 errors", the check's own line, a read failure */
    char *lines;                /* NVRTC's log as "file:line: message" lines (malloc'd; NULL or "" when none) */
    void *code;                 /* the compiled code (malloc'd), NULL unless status == KS_OK */
    size_t code_size;           /* bytes of code */
    int cubin;                  /* code is a CUBIN (else PTX) */
    double seen_at;             /* ks_now_seconds() when the change was noticed (or the rebuild asked) */
    double read_ms, compile_ms, check_ms; /* reading the file, NVRTC, the check (0 when not reached) */
    long long generation;       /* per slot: 1 for its first build, then 2, 3, ... */
    int checked_block[3];       /* the block the check ran this code at (0 0 0 without a check):
                                   carried with the build, since the caller's block may change
                                   again while a later build is being checked */
} ks_kernel_build;

/* The check a compiled build must pass before it is handed out, called on
 * the worker thread: KS_OK, or a failure whose one-line reason goes into msg
 * (cap bytes); block gets the block it checked the code at (the build's
 * checked_block). The caller's own state (grid, block) is its to lock. */
typedef ks_status (*ks_kernel_check_fn)(void *user, int slot, const void *code, size_t code_size, int cubin,
                                        char *msg, size_t cap, int block[3]);

typedef struct ks_kernel_watch_desc {
    const char *const *paths;   /* the files (their text is copied); each is a slot */
    int count;                  /* 1 .. KS_KERNEL_WATCH_MAX */
    int cc_major, cc_minor;     /* the target (0.0: NVRTC's default, sm_90) */
    int cubin;                  /* 1: compile to a CUBIN for sm_XY; 0: PTX */
    ks_kernel_check_fn check;   /* NULL: compiled code is handed out unchecked */
    void *check_user;
    int debounce_ms;            /* quiet time after the last change before a build; 0: 30 */
    int initial_build;          /* 1: build every file once at create, as if saved */
    /* Other work for the worker thread, between builds (the difference view's
       checks: the checker process serves one thread): called with check_user
       once per ks_kernel_watch_task; NULL: none. */
    void (*task)(void *user);
} ks_kernel_watch_desc;

typedef struct ks_kernel_watch ks_kernel_watch;

/* Starts watching (and the worker thread). KS_ERR_INVALID for a bad desc or a
 * path whose folder cannot be watched; KS_ERR_IO when inotify is not to be had. */
ks_status ks_kernel_watch_create(const ks_kernel_watch_desc *desc, ks_kernel_watch **out);
/* Stops the worker (a compile or check in flight is finished first) and frees
 * everything, results not collected included. NULL is fine. */
void ks_kernel_watch_destroy(ks_kernel_watch *w);
/* Moves the oldest finished build into *out (free it with ks_kernel_build_free)
 * and returns 1; 0 when none is waiting. Never blocks. */
int ks_kernel_watch_poll(ks_kernel_watch *w, ks_kernel_build *out);
/* Asks for a build of slot now, as if it had been saved (a browser save, a
 * retry). Builds of one slot never overlap; a request while one runs is
 * served once it ends (requests in between merge into one). */
ks_status ks_kernel_watch_rebuild(ks_kernel_watch *w, int slot);
/* Asks the worker to call desc.task once, after the build it may be running
 * (requests in between merge into one; one asked before the worker stops on
 * an error still runs). Never blocks. KS_ERR_INVALID without a task;
 * KS_ERR_IO once the worker stopped on an error. */
ks_status ks_kernel_watch_task(ks_kernel_watch *w);
/* 1 while a build is queued or running (for tests and the panel). */
int ks_kernel_watch_busy(ks_kernel_watch *w);
/* 1 when a finished build waits for ks_kernel_watch_poll (0 for NULL). */
int ks_kernel_watch_ready(ks_kernel_watch *w);
void ks_kernel_build_free(ks_kernel_build *b);

#endif
