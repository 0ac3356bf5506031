/* Users' kernel files (--kernel-file) of a scene, from the file to the code
 * that runs: each file is compiled with NVRTC and checked in the checker
 * process (kernel_checker.h) at the scene's size and the block it runs with;
 * a build that passes is handed to the scene's load (on the frame thread),
 * one that fails leaves the previous code running and says why (panel,
 * banner, stderr). With watch, every save builds again (kernel_watch.h) and
 * the frame loop never waits. The scene keeps its own handles (its load);
 * this module keeps the files, their builds and their blocks, and with
 * desc.edit the page's editor of the first file (kernel_page.h), and with
 * desc.diff the answers of the difference view. A scene reaches it through
 * its variant set (variant_set.h), which adds ours and the scene's handles. */
#ifndef KS_USER_FILES_H
#define KS_USER_FILES_H

#include <stddef.h>

#include "app/kernel/kernel_checker.h"
#include "app/kernel/kernel_watch.h"
#include "app/kernel/slice_diff.h"
#include "base/cuda_device.h"
#include "base/ks_error.h"
#include "render/view.h"

enum { KS_USER_FILES_MAX = KS_KERNEL_WATCH_MAX };

/* What a check answers for the difference view (ks_user_files_desc.diff). */
enum {
    KS_USER_DIFF_NONE = 0,
    KS_USER_DIFF_WHOLE, /* every check: the whole output (ks_user_files_take_diff): the slice across z
                           of grid, or diff_cells; the scene's kernel_check makes it, after a refusal too */
    KS_USER_DIFF_SLICE, /* the slice of the grid the view shows, asked for as it changes
                           (ks_user_files_slice_diff, slice_diff.h) */
};

typedef struct ks_user_files_desc {
    const char *const *paths;   /* the files; a file's variant name is its base name */
    int count;                  /* 1 .. KS_USER_FILES_MAX */
    const char *scene;          /* the registry row whose kernel_check checks them ("matmul") */
    const ks_device_info *device; /* compiled for its architecture */
    int grid[3];                /* the size the check runs at (the scene's; unused sizes 1) */
    int block[3];               /* the block every file starts with */
    int watch;                  /* 1: reload on save (the live view); 0: build once (bench) */
    int edit;                   /* with watch: the page edits the first file (--edit) */
    int diff;                   /* KS_USER_DIFF_*: what the checks answer for the difference view */
    int diff_cells[2];          /* KS_USER_DIFF_WHOLE: the output's w x h when it is not grid's (0 0: grid's) */
    const char *diff_reference; /* KS_USER_DIFF_SLICE: our variant the checks compare with */
    int swap;                   /* 1: a build replaces the code of a running solver (the lines say
                                   "swap", "swapped"); 0: "load", "loaded" */
    /* Called on the thread that calls create and poll, with a build that passed:
       the scene makes the code its own (its stream drained first). KS_OK, or a
       failure (with ks_fail's text) that refuses the build. */
    ks_status (*load)(void *user, int slot, const char *name, const void *code, size_t size, int cubin);
    void *user;
} ks_user_files_desc;

typedef struct ks_user_files ks_user_files;

/* A check's difference slice (desc.diff): |yours - ours| for each cell of the
 * output, w x h, cell (a, b) at a + b * w (kernel_checker.h); values NULL when
 * the check made none (why says why). The build it came from passed or not. */
typedef struct ks_user_files_diff {
    float *values;              /* malloc'd; the taker frees it */
    int w, h;
    int passed;                 /* the build passed its check */
    int asked;                  /* it was asked for (0: the output is too large to send) */
    char why[KS_KCHECK_MSG_MAX]; /* with no values: why there are none */
} ks_user_files_diff;

struct ks_options;
/* The --kernel-file paths of opt's scene (its registry row's kernel_file), at
 * most max of them into paths: their count, 0 when the scene takes none. */
int ks_user_files_paths(const struct ks_options *opt, const char **paths, int max);

/* Builds and checks every file and loads those that pass, waiting for them
 * (at start-up, a file that does not compile or pass is an error, its
 * compile lines on stderr first: nothing runs a kernel that was never right). */
ks_status ks_user_files_create(const ks_user_files_desc *desc, ks_user_files **out);
void ks_user_files_destroy(ks_user_files *u);
int ks_user_files_count(const ks_user_files *u);
struct ks_server_editor;
/* desc.edit: the page's editor of the first file, for the server; else NULL. */
const struct ks_server_editor *ks_user_files_editor(ks_user_files *u);
/* The newest difference slice of file slot's checks, when one came since the
 * last take: 1 and *out filled (the caller frees out->values); else 0. Any thread. */
int ks_user_files_take_diff(ks_user_files *u, int slot, ks_user_files_diff *out);
/* 1 when a finished build or a difference slice waits for the frame loop
 * to take it (0 for NULL). Any thread. */
int ks_user_files_ready(ks_user_files *u);
/* KS_USER_DIFF_SLICE, once a frame: what the view has of the difference on
 * this slice (axis, index of the grid), asking for it when needed (never
 * waits); on 0: the view is off. */
void ks_user_files_slice_diff(ks_user_files *u, int on, int axis, int index, ks_slice_diff *out);
/* The variant name of file slot (its base name). */
const char *ks_user_files_name(const ks_user_files *u, int slot);
/* 1 when file slot's code of a passed build runs. */
int ks_user_files_loaded(const ks_user_files *u, int slot);
/* 1 while a build is on its way (compiled or checked). */
int ks_user_files_busy(const ks_user_files *u);
/* Once a frame: finished builds loaded (desc.load), then the block file slot
 * `active` (-1: none of them runs) runs with this frame, run_block: block once
 * its code passed the check at it; until then the block it passed with, while
 * a check at the new one runs (a kernel right at one block may fault at
 * another). *changed: the active file's code was replaced. *reverted: the
 * check refused block; run_block is the one it runs at, which the scene
 * takes back. Never blocks. */
void ks_user_files_poll(ks_user_files *u, int active, const int block[3], int *changed, int run_block[3],
                        int *reverted);
/* The panel: the active file, and any whose last save was refused. */
void ks_user_files_view(const ks_user_files *u, int active, ks_view *v);

#endif
