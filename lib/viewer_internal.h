/* What the files of libkernelscope share: the viewer's state and their calls
 * to one another. lib/kernelscope.map exports ks_viewer_* alone, so the
 * names here carry ks_vw_ and stay inside the library.
 *
 *   viewer.c         a viewer made and ended; the calls' status and last error
 *   viewer_field.c   a field shown: checked, sampled into the picture's floats
 *   viewer_thread.c  the viewer's thread: pictures colormapped and drawn
 *                    through display/ (window, page, video); ks_viewer_save
 *   viewer_panels.c  the values and stage timings, and the view they make
 *   viewer_input.c   keys from the window and the page, for ks_viewer_poll
 * and beside them, sharing no state: viewer_sample.h, the one pixel rule of
 * the host path and the kernel; viewer_gpu.h, the device path (viewer_gpu.cu,
 * or viewer_gpu_none.c in a build without CUDA). */
#ifndef KS_VIEWER_INTERNAL_H
#define KS_VIEWER_INTERNAL_H

#include <pthread.h>

#include "base/colormap.h"
#include "base/ks_error.h"
#include "display/display.h"
#include "render/view.h"
#include "serve/serve_auth.h"
#include "lib/kernelscope.h"
#include "lib/viewer_gpu.h"

enum {
    KS_VIEWER_SERIES = 8,        /* value series kept */
    KS_VIEWER_STAGE_WINDOW = 64, /* timings a stage's median is taken over */
};

typedef struct ks_vw_stage {
    char name[32];
    double ms[KS_VIEWER_STAGE_WINDOW]; /* the newest timings, a ring */
    int n, next;
    void *ev_start, *ev_end; /* ks_viewer_stage: the newest pair of your events not yet timed */
    int ev_pending;
} ks_vw_stage;

typedef struct ks_vw_series {
    char name[64];
    double last;
    long long count;
} ks_vw_series;

struct ks_viewer {
    char title[32];
    ks_colormap cmap;
    double lo, hi; /* lo == hi: each picture's own range */
    int max_w, max_h;
    ks_display *display; /* the viewer's thread's own */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* a field to draw, or stop */
    pthread_cond_t drawn; /* a picture made */
    int stop;
    /* the newest field sampled, not yet drawn (under lock) */
    float *pending;            /* a host field's picture floats; NULL when the newest is on the device */
    int pending_w, pending_h;
    /* fields in device memory (lib/viewer_gpu.h): the newest one's slot (-1: none), and the slots
     * of fields it superseded whose copies may still be in flight (a bit a slot: the thread waits
     * for them, then frees them) */
    ks_vgpu *gpu;
    int dev_pending;
    unsigned dev_stale;
    long long shown, taken; /* fields shown; the newest one the thread took */
    /* the newest picture (under lock) */
    unsigned char *rgba;
    int pic_w, pic_h;
    long long drawn_seq; /* the field it was drawn from */
    double pic_lo, pic_hi;
    ks_vw_series values[KS_VIEWER_SERIES];
    int nvalues;
    ks_vw_stage stages[KS_VIEW_STAGES];
    int nstages;
    float plot_x[KS_VIEW_PLOT], plot_y[KS_VIEW_PLOT];
    int plot_n;
    /* the page's and the window's input */
    int paused, steps, quit;
    int keys[KS_VIEWER_KEYS], nkeys, keys_dropped; /* the other keys, for ks_viewer_poll */
    /* what the display is made with, on the viewer's thread (ks_viewer_create waits for the outcome) */
    int serve;
    char serve_addr[KS_SERVE_ADDR_MAX], token[KS_SERVE_TOKEN_MAX];
    int serve_port;
    int want_window;
    char record[1024];
    int record_fps;
    int display_state;    /* 0 being made, 1 made, -1 failed (display_status and display_error say why) */
    ks_status display_status;
    char display_error[512];
    char url[KS_SERVE_ADDR_MAX + KS_SERVE_TOKEN_MAX + 64];
    ks_status rec_status; /* the video's first failure, for ks_viewer_close */
    char rec_error[512];
};

/* viewer.c: a call's public status, 0 or KS_VIEWER_E*, with the message kept for ks_viewer_last_error. */
int ks_vw_result(ks_status st);

/* viewer_thread.c: the thread's body (pthread_create's), started by ks_viewer_create. */
void *ks_vw_thread_main(void *viewer);
/* Waits (lock held) until the last field shown is drawn, a bounded time at most. */
void ks_vw_wait_drawn(ks_viewer *v);

/* viewer_panels.c: the view the display shows (the window's panels, the page's state), lock held. */
void ks_vw_make_view(const ks_viewer *v, ks_view *view, int picture_width);

/* viewer_input.c: a key from the window, its panels or the page (lock held). */
void ks_vw_take_key(ks_viewer *v, int key);
/* The window's and the page's input since the last call (lock not held). */
void ks_vw_take_input(ks_viewer *v);

#endif
