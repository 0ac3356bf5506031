/* The Laplace scene's state, shared by its frame code (live.c), its field
 * and variant (live_field.c), its picture (live_draw.c), its keys
 * (live_keys.c) and its view (live_view.c). Private to those files. */
#ifndef KS_LAPLACE_LIVE_STATE_H
#define KS_LAPLACE_LIVE_STATE_H

#include <stddef.h>

#include "app/kernel/variant_set.h"
#include "app/scene.h"
#include "app/scenes.h"
#include "app/scenes/laplace/cadence.h"
#include "app/scenes/laplace/iters_auto.h"
#include "app/scenes/laplace/options.h"

enum { KS_HISTORY = KS_VIEW_PLOT, KS_LAPLACE_INTERVALS = 4096 };
/* Frames a paused run still draws after one that asked the GPU anything new:
 * its readback lands a frame or two later. */
enum { KS_LAPLACE_READBACK_FRAMES = 3 };

typedef struct ks_laplace_scene {
    const ks_scene_env *env;
    ks_grid grid;
    ks_bc bc;
    int use_cuda;
    ks_lsolver *solver;      /* CUDA backend */
    float *u, *u_prev;       /* CPU backend: current and previous iterate */
    int variant;
    int block[3];
    char block_from[96];       /* where the block came from: --block, the best-config store, the defaults */
    int run_block[3];        /* the block the last frame ran at (a user's kernel: the one it passed its check
                                with, while a newly asked block is checked) */
    int iters;               /* per frame, as asked (--iters, + / -) or sized (auto) */
    ks_iters_auto iters_auto; /* --iters auto: the count sized for --fps-target (0: the fastest) */
    long long total_iters;
    int last_iters;          /* iterations run in the last frame that stepped */
    ks_axis axis;
    int index;
    ks_colormap cmap;
    int auto_range;
    float lo, hi;            /* colour range in use */
    double residual;         /* RMS change, -1 before the first */
    long long residual_iter;
    int have_minmax;
    float slice_min, slice_max;
    ks_viewport own_view;    /* the view when the live loop gives none: the fit at --size */
    ks_cellmap view;         /* this frame's picture: which cells each pixel shows */
    int probe_valid;
    int probe[3];
    int keyed;               /* a scene key came since the last frame */
    int asked_probe_valid, asked_probe[3]; /* the probe the last frame asked for */
    int readback_frames;     /* frames still to draw before what was asked is back (ready) */
    int probe_span[2];       /* cells the probed pixel covers along its two axes */
    float probe_value;
    float hist_x[KS_HISTORY], hist_y[KS_HISTORY];
    int hist_n;
    long long hist_stride;   /* keep one residual every hist_stride iterations */
    ks_kernel_attrs attrs;
    int have_attrs;
    ks_stage_timer *timer;
    int stage_jacobi, stage_residual, stage_slice;
    ks_roof_log roof;        /* last roofline point of each variant */
    ks_lhist vhist;          /* the field's values over the colour range (bins 0: none yet) */
    int stage_hist;
    ks_cadence res_cad;      /* residual every res_cad.every frames */
    ks_cadence hist_cad;     /* field histogram likewise */
    int use_graph;           /* CUDA backend: the frame's launches as one CUDA graph */
    /* ours (their ids for the scene's rank), then the users' kernels (--kernel-file), and
     * D: |yours - ours| on the slice for the file checked last (app/kernel/slice_diff.h),
     * drawn instead of the field when there is one */
    ks_variant_set *set;
    int ours;
    int our_ids[KS_VARIANT_OURS_MAX];
    const char *our_names[KS_VARIANT_OURS_MAX];
    ks_slice_diff diff;      /* this frame's state of D */
    unsigned char *diff_rgba; /* its picture, made on the host for the view (NULL: none yet) */
    size_t diff_cap;         /* bytes of diff_rgba */
    long long diff_serial;   /* the values diff_rgba was made of (their serial; 0: none) */
    ks_cellmap diff_map;     /* and the view it was made for */
    int diff_drawn;          /* the last frame drew the difference, not the field */
    int probe_cell[2];       /* the probed cell in slice cells (a, b) */
    char notice[KS_VIEW_TEXT]; /* a key's one-line notice (D without a user kernel) */
    double notice_until;     /* host seconds */
    /* Frame intervals, split by whether a build was on its way: what compiling and
     * checking on the side cost the frames, said at the end. */
    struct {
        double ms[2][KS_LAPLACE_INTERVALS]; /* [0] no build, [1] a build running */
        int n[2];
        double last;                        /* the previous frame, host seconds */
    } intervals;
    /* --gpus N (N > 1): the field lives on N GPUs (kernels/laplace/laplace_multi.h); solver
     * is then the display GPU's solver of the slice alone (views[axis], made on first use,
     * all on the first one's stream) */
    struct ks_lmulti *multi;
    ks_lsolver *views[3];
    ks_lsolver *view_owner;  /* the first of them made: the stream's owner, destroyed last */
    int gpus;
} ks_laplace_scene;

/* The slice's index in the solver that draws it: the field's own, or with
 * --gpus the display's slice solver. */
int ks_laplace_scene_view_index(const ks_laplace_scene *s);

/* Iterations a stepping frame runs: the request, rounded to whole time blocks
 * for a temporally blocked variant (CUDA backend). */
static inline int scene_frame_iters(const ks_laplace_scene *s)
{
    return s->use_cuda ? ks_lvariant_frame_iters(s->variant, s->iters) : s->iters;
}

/* Bins of the colour bar's histogram. */
enum { KS_LAPLACE_HIST_BINS = 64 };

static inline size_t scene_points(const ks_laplace_scene *s) { return ks_grid_points(&s->grid); }

static inline const char *scene_name(const ks_laplace_scene *s) { return s->env->opt->scene->name; }

/* 1 when this frame shows the difference view's values (D), not the field. */
int ks_laplace_scene_diff_shown(const ks_laplace_scene *s);
/* The difference picture's colour range: [0, the largest finite value], or
 * [0, 1] when there is none (every value 0 or +inf). */
static inline float scene_diff_range(const ks_slice_diff *d) { return d->stats.max > 0.0f ? d->stats.max : 1.0f; }

/* live_view.c: the scene's part of the view model (ks_scene_api.view). */
void ks_laplace_scene_view(void *self, ks_view *v);
/* live_counters.c: the Hardware panel's launch (ks_scene_api.counters). */
int ks_laplace_scene_counters(void *self, ks_scene_counters *out);
/* With kernel files, once a frame: its interval, on the side of whether a build was on its way
 * (live_intervals.c); at the end, what compiling and checking on the side cost the frames. */
void ks_laplace_note_interval(ks_laplace_scene *s);
void ks_laplace_say_intervals(ks_laplace_scene *s);
/* live_keys.c: the keys (ks_scene_api.key). */
ks_status ks_laplace_scene_key(void *self, const ks_key_event *ev, int *handled);
/* live_draw.c: the picture (ks_scene_api.draw) and F's (full_picture). */
ks_status ks_laplace_scene_draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h);
ks_status ks_laplace_scene_full_picture(void *self, unsigned char **rgba, int *w, int *h);

/* live_field.c: fails unless `fields` fields of the grid fit in the host memory
 * available now (SIZE_MAX: report that an allocation failed); the initial field
 * onto the backend (R, create); the colour range from a slice's min and max
 * (auto range); a block's check for a variant (the device's limits on the CUDA
 * backend), the kernel attributes of the variant and block in use, the default
 * block of a variant; the variant id of the k-th in the set's Tab order. */
ks_status ks_laplace_scene_check_host_memory(const ks_laplace_scene *s, size_t fields);
ks_status ks_laplace_scene_upload_initial(ks_laplace_scene *s);
void ks_laplace_scene_apply_minmax(ks_laplace_scene *s, float mn, float mx);
ks_status ks_laplace_scene_check_block(ks_laplace_scene *s, int variant, const int block[3]);
void ks_laplace_scene_refresh_attrs(ks_laplace_scene *s);
void ks_laplace_scene_default_block(ks_laplace_scene *s, int variant, int block[3]);
/* Sets s->block and s->block_from at start: --block, else ks_laplace_scene_default_block. */
void ks_laplace_scene_first_block(ks_laplace_scene *s);
int ks_laplace_scene_variant_at(const ks_laplace_scene *s, int k);

#endif
