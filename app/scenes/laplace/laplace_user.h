/* Users' kernels in the Laplace scenes (--kernel-file): compiled with NVRTC
 * and checked in the checker process before they run, then reloaded on every
 * save (app/kernel/kernel_watch.h) while the frame loop goes on; a build that
 * fails to compile or to pass the check leaves the previous code running and
 * says why, in the panel and on stderr. */
#ifndef KS_LAPLACE_USER_H
#define KS_LAPLACE_USER_H

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
/* The panel: what the last build of each file did. */
void ks_laplace_user_view(const ks_laplace_user *u, int variant, ks_view *v);

#endif
