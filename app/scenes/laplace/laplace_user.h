/* Users' kernels in the Laplace scenes (--kernel-file): compiled with NVRTC
 * and checked in the checker process before they run, then reloaded on every
 * save (app/kernel/kernel_watch.h) while the frame loop goes on; a build that
 * fails to compile or to pass the check leaves the previous code running and
 * says why, in the panel and on stderr. */
#ifndef KS_LAPLACE_USER_H
#define KS_LAPLACE_USER_H

#include "app/kernel/kernel_checker.h"
#include "app/scene.h"
#include "kernels/laplace/laplace.h"

typedef struct ks_laplace_user ks_laplace_user;

typedef struct ks_laplace_user_desc {
    const ks_options *opt;
    const ks_device_info *device;
    const char *scene;          /* "laplace3d" / "laplace2d" */
    ks_grid grid;               /* the live grid (the check runs on it too) */
    int watch;                  /* 1: reload on save (the live view); 0: build once (bench) */
    int edit;                   /* 1 (with watch): the browser edits the first file (--edit) */
} ks_laplace_user_desc;

/* Builds and checks every --kernel-file, loads those that pass and, with
 * watch, keeps following the files. At start-up a file that does not compile
 * or pass is an error (its compile lines on stderr first): nothing runs a
 * kernel that was never right. *out is NULL when there are no files. */
ks_status ks_laplace_user_create(const ks_laplace_user_desc *desc, ks_laplace_user **out);
void ks_laplace_user_destroy(ks_laplace_user *u);
/* The first user variant (its id), -1 without any. */
int ks_laplace_user_first(const ks_laplace_user *u);
/* Once a frame: any finished build swapped in (the solver's stream drained
 * first, so no launch of the old code is in flight), then the block variant
 * runs with this frame, run_block: block (the one asked for) once the code
 * has passed the check at it; before that the block it passed with, while a
 * check at the new one runs (a kernel right at one block may fault at
 * another). *changed: the code of the variant in use was replaced (its
 * attributes change). *reverted: the check refused block; run_block is the
 * one it runs on, which the scene takes back. Not a user variant: run_block
 * is block. */
ks_status ks_laplace_user_poll(ks_laplace_user *u, ks_lsolver *solver, int variant, const int block[3],
                               int *changed, int run_block[3], int *reverted);
/* --edit: the first file as the server's kernel editor (serve/server.h):
 * its source and last build as JSON; a new source written through a
 * temporary name and a rename (the watch then builds it), refused (409)
 * while a build is on its way. NULL without --edit. */
const struct ks_server_editor *ks_laplace_user_editor(ks_laplace_user *u);
/* 1 when a finished build or a difference answer waits for the frame loop (0 for NULL). */
int ks_laplace_user_ready(ks_laplace_user *u);
/* The panel: what the last build of each file did. */
void ks_laplace_user_view(const ks_laplace_user *u, int variant, ks_view *v);

/* The difference view (the live view's D): |yours - ours| over the slice the
 * view shows, for the file checked last, as its check in the checker process
 * measures it on the live grid (app/kernel/kernel_checker.h). */
typedef enum ks_ldiff_state {
    KS_LDIFF_NO_KERNEL = 0, /* no --kernel-file (u is NULL) */
    KS_LDIFF_UNCHECKED,     /* no file has been checked yet */
    KS_LDIFF_WAITING,       /* asked of the checker process for this slice */
    KS_LDIFF_READY,         /* values, below */
    KS_LDIFF_NONE,          /* the check made none: why */
} ks_ldiff_state;

typedef struct ks_laplace_diff {
    ks_ldiff_state state;
    char kernel[KS_LUSER_NAME_MAX]; /* the file checked last (its variant's name), "" none */
    const char *reference;  /* our variant it runs against on the live grid */
    int passed;             /* READY / NONE: its check passed */
    int axis, index, w, h;  /* READY: the slice and its cells */
    const float *values;    /* READY: w x h, cell (a, b) at a + b*w (laplace.h's difference view);
                               the module's, valid until the next ks_laplace_user_diff */
    ks_diff_stats stats;   /* READY: of the values */
    long long serial;       /* changes whenever the values do (the picture is made again) */
    char why[KS_KCHECK_MSG_MAX]; /* NONE: why there is no picture */
} ks_laplace_diff;

/* Once a frame, on = 1 while the view is on: when what there is is of
 * another slice or an older build, asks for a check of the file with this
 * slice on the watch's worker thread (never waits; a slice of more than
 * KS_KCHECK_DIFF_MAX cells is not asked for: NONE, saying so), and gives what
 * there is now. u NULL: KS_LDIFF_NO_KERNEL. */
void ks_laplace_user_diff(ks_laplace_user *u, int on, ks_axis axis, int index, ks_laplace_diff *out);

#endif
