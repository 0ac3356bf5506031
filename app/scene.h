/* What the live loop needs from a scene: a small table of functions that the
 * scene's registry row points at (app/scenes.h), so the live loop holds no
 * scene logic. Every scene is built from the same files (docs/architecture.md,
 * "The files of a scene"):
 *   kernels/<scene>/      kernels, CPU gold, variant rows, one plain-C header
 *   app/scenes/<scene>/   its registry row (scene.c), flags (options.c), this API
 *                         (live.c: create validates its input first and fails
 *                         with KS_ERR_INVALID / KS_ERR_OUT_OF_MEMORY (exit 2) or
 *                         KS_ERR_CUDA / KS_ERR_GL (exit 1), leaving nothing
 *                         behind), its bench (bench.c) and its user-kernel
 *                         contract (check.c)
 *   tests/<scene>/        its tests (tests.cmake)
 * Option values are checked by the flag rows and the scene's finish; create
 * checks only what needs reading or sizing (files, memory). */
#ifndef KS_SCENE_H
#define KS_SCENE_H

#include <stddef.h>

#include "base/cuda_device.h"
#include "base/host_peak.h"
#include "base/stage_timer.h"
#include "render/view.h"
#include "render/viewport.h"
#include "render/window.h"
#include "app/best_config.h"
#include "app/options.h"

typedef struct ks_scene_env {
    const ks_options *opt;
    int use_cuda;                 /* 1: CUDA backend, 0: CPU */
    const ks_device_info *device; /* present == 0 on the CPU backend without a device */
    double t_peak_gbs;            /* copy bandwidth measured at start-up (CPU: memcpy) */
    const ks_host_peak *host_peak; /* the CPU backend's T_peak with its repetitions' spread (NULL on
                                     CUDA); a ratio to it is shown through app/scene_peak.h */
    double fma_gflops;            /* FP32 FMA peak measured at start-up; 0 on the CPU backend */
    const ks_best_store *best;    /* best measured configurations (may be empty) */
} ks_scene_env;

typedef struct ks_frame_ctx {
    ks_stage_timer *timer; /* stages: scene names its own (ks_stage_timer_stage) */
    int step;              /* 1: advance this frame (not paused, or N pressed) */
    int single;            /* 1: N pressed while paused: advance by the smallest step */
    long long frame;       /* frame number */
    int probe_valid;       /* cursor over the picture at pixel (probe_a, probe_b) */
    int probe_a, probe_b;
    /* A zoomable scene's view, owned by the live loop (area, zoom and pan
     * from the input, the grid from the scene's grid_size): the scene only
     * reads it and draws the picture of ks_viewport_map; probe_a/b are pixels
     * of that picture. NULL otherwise. */
    const ks_viewport *viewport;
} ks_frame_ctx;

/* What one measurement of the Hardware panel launches (ks_scene_api.counters):
 * the kernel of what runs now, once, and what the scene knows of it. */
enum { KS_SCENE_CONFIG = 160 };
typedef struct ks_scene_counters {
    /* Launches the kernel(s) of one step of what runs now (the variant as it
     * runs: its block, memory type, tile and size; ours or the user's code
     * from the variant set) once, on stream (the scene's own); self is the
     * scene. Called on the frame thread, between frames, under the counters'
     * kernel replay (counters/counters.h), so its results are those of one launch. */
    ks_status (*launch)(void *self, void *stream);
    double model_bytes;           /* the scene's DRAM byte model of that launch (T_eff's, the roofline's); <= 0: none */
    double occupancy;             /* its theoretical occupancy, 0..1 (ks_kernel_attrs.occupancy); 0: unknown */
    int load_bytes, store_bytes;  /* bytes a thread moves in one global load / store (4 a float, 16 a float4); 0: unknown */
    char what[KS_VIEW_TEXT];      /* in words: "one Jacobi launch of kmarch (1 iteration), block 128x2" */
    char config[KS_SCENE_CONFIG]; /* what runs, as a signature: when it changes (Tab, [ ], M, a reload) the
                                     panel measures the new one */
} ks_scene_counters;

typedef struct ks_scene_api {
    const char *help; /* scene keys, '\n'-separated, for the H panel and --help */
    /* Creates the scene; validation errors (grid too large, block refused,
     * malformed scene file) come back as KS_ERR_INVALID / KS_ERR_OUT_OF_MEMORY. */
    ks_status (*create)(const ks_scene_env *env, void **self);
    void (*destroy)(void *self);
    void *(*stream)(void *self); /* cudaStream_t of its work (NULL on CPU) */
    /* 1: the picture is the view of a cell grid through ctx->viewport, at
     * most the picture area's size, shown at one pixel per screen pixel; the
     * mouse wheel and the view keys zoom it, a drag pans it. 0: the scene
     * draws a picture of its own size, scaled to fit. */
    int zoomable;
    /* Largest picture it will draw, for the PBO size (a zoomable scene: the
     * window size asked for; the live loop allows for larger screens). */
    void (*max_image_size)(void *self, int *w, int *h);
    /* This frame's compute (solver iterations, sphere animation), timed by stage. */
    ks_status (*compute)(void *self, ks_frame_ctx *ctx);
    /* Writes the picture into rgba (device pointer on CUDA, host pointer on
     * CPU; rows bottom-up) and returns its size. */
    ks_status (*draw)(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h);
    /* Scene key; *handled = 1 when it used it. A failure (e.g. a block the
     * device refuses) is shown on screen and the scene keeps its old state. */
    ks_status (*key)(void *self, const ks_key_event *ev, int *handled);
    /* Fills the scene's part of the view (fields, controls, tables, colour
     * bar, plot, hover, image_name); the view comes zeroed, live.c adds the
     * frame-level fields and the stage timings. */
    void (*view)(void *self, ks_view *view);
    /* Optional: the bare picture at one pixel per cell for F (a zoomable
     * scene's picture is only what is shown); RGBA8 rows top-down, *rgba
     * malloc'd. NULL: F saves the picture as drawn. */
    ks_status (*full_picture)(void *self, unsigned char **rgba, int *w, int *h);
    /* End of run (--dump-field and such). */
    ks_status (*finish)(void *self);
    /* A few words on where the run stands, for the progress and summary lines
     * (e.g. "1200 iterations, residual 3.1e-05"). */
    void (*status)(void *self, char *buf, size_t cap);
    /* Fields added later go here, at the end; NULL means the default. */
    /* A zoomable scene's cell grid as it is now (e.g. the slice shown), which
     * the live loop's viewport views; required when zoomable. */
    void (*grid_size)(void *self, int *w, int *h);
    /* Optional: the work of one frame as it is now, for `bench live`'s per-
     * iteration figures, and *label, what it counts ("iterations/frame").
     * NULL: 1 a frame. */
    double (*work_per_frame)(void *self, const char **label);
    /* Optional: the scene's users' kernels (app/kernel/variant_set.h; NULL
     * when it has none, e.g. on the CPU backend). The live loop takes from it
     * the kernel file the browser page may edit (--edit; serve/server.h) and,
     * as from ready, a build or a difference answer that waits for a frame.
     * NULL: the scene takes no kernel files. */
    struct ks_variant_set *(*variant_set)(void *self);
    /* Optional: 1 when something else that came in off the frame loop waits
     * for a frame to take it and show it (a GPU readback of what the last
     * frames asked). A paused run that idles (app/live/live.c) asks this, and
     * the variant set, between its waits and draws a frame when one says 1.
     * NULL: never. */
    int (*ready)(void *self);
    /* Optional: the Hardware panel's measurement of what runs now (K, the
     * panel's Measure button, --counters-every): fills *out and returns 1, or
     * returns 0 with out->what saying why nothing can be measured now (a
     * kernel still being checked, several GPUs). Called on the frame thread
     * between frames, on the CUDA backend only. NULL: the scene has no counters
     * (the panel says so). */
    int (*counters)(void *self, ks_scene_counters *out);
} ks_scene_api;

#endif
