/* The difference view of a scene whose output is a field on its grid
 * (user_files.h with desc.diff = KS_USER_DIFF_SLICE: Laplace): |yours - ours|
 * over the slice the view shows, for the file checked last, as its check in
 * the checker process measures it on the live grid (kernel_checker.h). A
 * build's check brings the slice shown at the time; another slice is asked
 * for on the watch's worker thread (ks_kernel_watch_task), with the code of
 * the file checked last, so the frame loop never waits. */
#ifndef KS_SLICE_DIFF_H
#define KS_SLICE_DIFF_H

#include "app/kernel/kernel_checker.h"
#include "app/kernel/kernel_watch.h"
#include "base/diff_colour.h"

typedef enum ks_slice_diff_state {
    KS_SDIFF_NO_KERNEL = 0, /* no --kernel-file (no files) */
    KS_SDIFF_UNCHECKED,     /* no file has been checked yet */
    KS_SDIFF_WAITING,       /* asked of the checker process for this slice */
    KS_SDIFF_READY,         /* values, below */
    KS_SDIFF_NONE,          /* the check made none: why */
} ks_slice_diff_state;

/* What the view has of the difference now. */
typedef struct ks_slice_diff {
    ks_slice_diff_state state;
    char kernel[KS_KCHECK_FILE_MAX]; /* the file checked last (its variant's name), "" none */
    const char *reference;  /* our variant it runs against on the live grid */
    int passed;             /* READY / NONE: its check passed */
    int axis, index, w, h;  /* READY: the slice and its cells */
    const float *values;    /* READY: w x h, cell (a, b) at a + b*w; valid until the next ks_slice_diffs_get */
    ks_diff_stats stats;    /* READY: of the values */
    long long serial;       /* changes whenever the values do (the picture is made again) */
    char why[KS_KCHECK_MSG_MAX]; /* NONE: why there is no picture */
} ks_slice_diff;

/* The answers of one set of files (user_files.c keeps one; the worker thread
 * and the frame thread share it under its own lock). */
typedef struct ks_slice_diffs ks_slice_diffs;

/* scene: the registry row that checks the files; grid: the live grid;
 * reference: our variant's name; checker: the process the tasks ask. */
ks_status ks_slice_diffs_create(const char *scene, const int grid[3], const char *reference, ks_kchecker *checker,
                                ks_slice_diffs **out);
void ks_slice_diffs_destroy(ks_slice_diffs *sd);
/* Worker thread, before a build's check: the slice the view wants now goes
 * with it (the build's check brings the picture along, no second check). */
void ks_slice_diffs_request(ks_slice_diffs *sd, ks_kcheck_request *req);
/* Worker thread, after a build's check: it is the file checked last, its code
 * kept for the slices asked later, its picture stored when the check brought
 * one (taken from r). */
void ks_slice_diffs_checked(ks_slice_diffs *sd, const char *file, const ks_kcheck_request *req,
                            ks_kcheck_result *r);
/* ks_kernel_watch_desc.task (worker thread): the file checked last, checked
 * again with the slice the view shows now, for its picture alone. */
void ks_slice_diffs_task(void *sd);
/* Frame thread, once a frame, on = 1 while the view is on: when what there is
 * is of another slice or an older build, asks for a check of this slice on
 * watch's worker (never waits; a slice of more than KS_KCHECK_DIFF_MAX cells
 * is not asked for: NONE, saying so), and gives what there is now. */
void ks_slice_diffs_get(ks_slice_diffs *sd, ks_kernel_watch *watch, int on, int axis, int index, ks_slice_diff *out);
/* 1 when an answer waits for the frame thread to take it (0 for NULL). Any thread. */
int ks_slice_diffs_ready(ks_slice_diffs *sd);

#endif
