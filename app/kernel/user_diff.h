/* The difference view (D) of a scene whose users' kernels write one output
 * (user_files.h with desc.diff: matmul's C, histogram's bins): each file's
 * newest check answers with |yours - ours| for every output cell, the build
 * refused or not, and the scene draws it in place of its picture. This module
 * keeps those answers (taken from the files each frame), says on the panel
 * what they show or why there is none, and gives the colour bar. A scene
 * reaches it through its variant set (variant_set.h); the Laplace scenes' view
 * is over the slice they show (slice_diff.h). */
#ifndef KS_USER_DIFF_H
#define KS_USER_DIFF_H

#include "app/kernel/user_files.h"
#include "base/diff_colour.h"
#include "render/view.h"

typedef struct ks_user_diff {
    int on;                                   /* D */
    ks_user_files_diff d[KS_USER_FILES_MAX];  /* each file's newest answer (values owned) */
    int have[KS_USER_FILES_MAX];              /* an answer came */
    ks_diff_stats stats[KS_USER_FILES_MAX];
    long long serial[KS_USER_FILES_MAX];      /* grows with each answer: the picture is drawn anew */
    unsigned char *rgba;                      /* the picture last drawn (ks_user_diff_picture), host */
    size_t rgba_cap;
    long long drawn_serial;                   /* the answer it was drawn from */
    int drawn_slot;                           /* its file; -1: none (nothing drawn since D) */
} ks_user_diff;

/* Takes the answers that came since the last frame. */
void ks_user_diff_poll(ks_user_diff *ud, ks_user_files *files);
/* The file the view is of: the one that runs (active >= 0), else the first. */
int ks_user_diff_slot(const ks_user_files *files, int active);
/* 1 when the view is on and file slot has values to show. */
int ks_user_diff_shown(const ks_user_diff *ud, int slot);
/* The largest value of slot's answer for the colour range (1 when all are 0). */
float ks_user_diff_range(const ks_user_diff *ud, int slot);
/* D: on / off; 0 and a line in notice when there is nothing to compare (no kernel file, or the CPU backend). */
int ks_user_diff_toggle(ks_user_diff *ud, const ks_user_files *files, int use_cuda, char *notice, size_t cap);
/* The panel's toggle and its line (what is shown, or why nothing); ours: the
 * reference the check compares with; cells: what a cell is ("elements of C",
 * "bins"); how: how the picture shows them (the line's end); colour_bar: the
 * picture is in the difference colours (diff_colour.h), so the colour bar is
 * theirs while it is shown. */
void ks_user_diff_view(const ks_user_diff *ud, const ks_user_files *files, int slot, const char *ours,
                       const char *cells, const char *how, int colour_bar, ks_view *v);
/* The scene's picture of an answer (w x h RGBA, rows bottom-up, host memory); max: its range. */
typedef void (*ks_user_diff_draw_fn)(void *user, const ks_user_files_diff *d, float max, int w, int h,
                                     unsigned char *rgba);
/* The view's picture of file slot into rgba: drawn by draw on the host when the file's answer (or
 * the file) is new since the last picture, else the one kept; then copied into rgba, which is
 * device memory, copied on stream, when on_device. Call only while ks_user_diff_shown. */
ks_status ks_user_diff_picture(ks_user_diff *ud, int slot, int w, int h, ks_user_diff_draw_fn draw, void *user,
                               int on_device, void *stream, void *rgba);
void ks_user_diff_free(ks_user_diff *ud);

#endif
