/* A scene's variants: ours (built in), then the users' kernel files
 * (--kernel-file), in one place for every scene with a user-kernel contract.
 * The set keeps Tab's order (ours in order, then the files, then round again),
 * which one runs, the files' builds (user_files.h: checked in the checker
 * process, reloaded on save, each run only at a block its check passed), the
 * code each file's last passed build was loaded into (the scene's handle), the
 * panel, the page's editor (--edit), the difference view (D; user_diff.h,
 * slice_diff.h) and, for a bench, the files built once. A scene gives what
 * differs as its contract (its check.c): how code becomes a handle
 * (kernels/user/user_code.h) and which blocks a handle takes. */
#ifndef KS_VARIANT_SET_H
#define KS_VARIANT_SET_H

#include <stddef.h>

#include "app/kernel/user_diff.h"
#include "app/kernel/user_files.h"
#include "base/cuda_device.h"
#include "base/timing_window.h"
#include "kernels/user/user_code.h"
#include "render/view.h"

enum { KS_VARIANT_OURS_MAX = 32 }; /* our variants a set names */

/* A scene's user-kernel contract, as the set calls it (the scene's check.c). */
typedef struct ks_variant_contract {
    /* Code of a build that passed its check loaded: *handle, which the set frees
       (NULL when the scene's kernels keep the code themselves). Called on the
       frame thread once the scene's runs of the file's old code have ended. */
    ks_status (*load)(const char *name, const void *code, size_t size, ks_user_code **handle);
    /* KS_OK when handle can run at block on the live size (grid: the check's,
       ks_variant_set_desc.grid), else why not; NULL: any block. */
    ks_status (*check_block)(const ks_user_code *handle, const int grid[3], const int block[3]);
    int swap;                       /* 1: a load replaces the code of a running solver (the lines say "swap") */
} ks_variant_contract;

/* D: the scene's picture of a whole-output difference (w x h RGBA, rows bottom-up, host). */
typedef void (*ks_variant_diff_draw)(void *scene, const ks_user_files_diff *d, float max, int w, int h,
                                     unsigned char *rgba);

typedef struct ks_variant_set_desc {
    const ks_variant_contract *contract;
    void *scene;                      /* the first argument of quiesce, times and draw_diff */
    /* Before a file's code is replaced: ends the scene's runs of it that may be in
       flight (drains its stream); NULL: the scene's runs never outlast a frame. */
    ks_status (*quiesce)(void *scene);
    /* The window the variant that runs keeps its times in, which the set clears
       when a file's new code or a new block runs (their own times); NULL: the
       scene keeps its times itself. */
    ks_timing_window *(*times)(void *scene);
    const struct ks_options *opt;     /* its row's --kernel-file files, --kernel (the first names the
                                         variant to start with), --edit */
    int use_cuda;                     /* 0: ours alone (the CPU backend runs no files) */
    const ks_device_info *device;     /* the files are compiled for it */
    int ours;                         /* our variants, 0 .. KS_VARIANT_OURS_MAX */
    const char *const *our_names;     /* ours' names (kept, not copied) */
    int first;                        /* our variant that runs when no file does */
    int grid[3];                      /* the size the checks run at (the scene's; unused sizes 1) */
    int block[3];                     /* the block every file starts with */
    int watch;                        /* 1: the live view (reload on save); 0: a bench (built once) */
    int diff;                         /* KS_USER_DIFF_*: what the checks answer for D */
    int diff_cells[2];                /* KS_USER_DIFF_WHOLE: the output's w x h when it is not grid's */
    const char *diff_reference;       /* the variant of ours a check compares with ("regtile") */
    const char *diff_cells_name;      /* WHOLE: what a cell is, for the panel ("elements of C") */
    const char *diff_how;             /* WHOLE: how the picture shows them, the panel line's end */
    int diff_colour_bar;              /* WHOLE: the picture is in the difference colours (diff_colour.h) */
    ks_variant_diff_draw draw_diff;   /* WHOLE: the picture; NULL: none */
} ks_variant_set_desc;

typedef struct ks_variant_set ks_variant_set;

/* The set; with files (use_cuda, and the row's --kernel-file given) every file
 * is built, checked and loaded before it returns (at start-up a file that does
 * not compile or pass is an error: nothing runs a kernel that was never
 * right). The variant that runs: the first file, unless --kernel names ours
 * (desc.first) or another file. */
ks_status ks_variant_set_create(const ks_variant_set_desc *desc, ks_variant_set **out);
void ks_variant_set_destroy(ks_variant_set *vs);

/* The files: their count, a file's name (its base name), its handle (NULL
 * before a passed build, or when the scene's kernels keep its code). */
int ks_variant_set_files(const ks_variant_set *vs);
const char *ks_variant_set_file_name(const ks_variant_set *vs, int slot);
ks_user_code *ks_variant_set_code_at(const ks_variant_set *vs, int slot);

/* What runs: the file (its slot, -1: one of ours), ours (its index, -1: a
 * file), its name, and the active file's handle (NULL: ours). */
int ks_variant_set_file(const ks_variant_set *vs);
int ks_variant_set_ours(const ks_variant_set *vs);
const char *ks_variant_set_name(const ks_variant_set *vs);
/* All in Tab's order (ours then the files): their count, the name of the k-th. */
int ks_variant_set_count(const ks_variant_set *vs);
const char *ks_variant_set_name_at(const ks_variant_set *vs, int k);
ks_user_code *ks_variant_set_code(const ks_variant_set *vs);
/* Tab: the next (dir 1) or previous (-1) in Tab's order from the one that
 * runs; a file without code that passed is passed over, and so is each of
 * ours that skip (may be NULL) refuses (*skipped then 1; may be NULL). */
int ks_variant_set_next(const ks_variant_set *vs, int dir, int (*skip)(void *user, int ours), void *user,
                        int *skipped);
/* Makes the k-th in Tab's order (ours, then the files) the one that runs. */
void ks_variant_set_select(ks_variant_set *vs, int k);

/* Once a frame: finished builds loaded, then the block the active file runs
 * with this frame (ks_variant_set_run_block): block (the one asked for) once
 * it passed the check at it, until then the one it passed with while a check
 * at the new one runs; a refusal there puts block back to the one it passed
 * with. *changed (may be NULL): the active file's code was replaced (its
 * times, desc.times, are then cleared). Never blocks. */
void ks_variant_set_poll(ks_variant_set *vs, int block[3], int *changed);
const int *ks_variant_set_run_block(const ks_variant_set *vs);
/* [ ] on a file: the next block of list (n blocks by thread count; a block off
 * the list goes to the next one past it) in dir that the active file's handle
 * takes (the contract's check_block) into block (its times, desc.times,
 * cleared); it runs there once its check passed. KS_ERR_UNSUPPORTED "no
 * larger block for NAME" at the list's end. */
ks_status ks_variant_set_next_block(ks_variant_set *vs, const int (*list)[3], int n, int dir, int block[3]);
/* 1 while a build is on its way. */
int ks_variant_set_busy(const ks_variant_set *vs);
/* 1 when a finished build or a difference answer waits for the frame loop
 * to take it (a paused run then draws a frame; 0 for NULL). Any thread. */
int ks_variant_set_ready(const ks_variant_set *vs);

/* The panel: the kernel control's choices in Tab's order from the one that
 * runs (its value), the files' lines and the difference view's line (D). */
void ks_variant_set_choices(const ks_variant_set *vs, ks_vcontrol *c);
void ks_variant_set_view(const ks_variant_set *vs, ks_view *v);
/* --edit: the page's editor of the first file, NULL without. */
const struct ks_server_editor *ks_variant_set_editor(ks_variant_set *vs);

/* D: on / off; 0 and a line in notice when there is nothing to compare (no
 * kernel file, or the CPU backend). */
int ks_variant_set_diff_key(ks_variant_set *vs, char *notice, size_t cap);
int ks_variant_set_diff_on(const ks_variant_set *vs);
/* KS_USER_DIFF_WHOLE: the answer the view shows (the file that runs, else the
 * first), NULL when it shows none; its picture (desc.draw_diff) into rgba,
 * device memory copied on stream when on_device. */
const ks_user_files_diff *ks_variant_set_diff_shown(const ks_variant_set *vs);
ks_status ks_variant_set_diff_picture(ks_variant_set *vs, int w, int h, int on_device, void *stream, void *rgba);
/* KS_USER_DIFF_SLICE, once a frame: what the view has of the slice (axis,
 * index of the grid), asked for when needed (never waits). */
void ks_variant_set_slice_diff(ks_variant_set *vs, int axis, int index, ks_slice_diff *out);

#endif
