/* The live view: window or headless EGL, the frame loop, keys, overlay,
 * saving frames and the per-frame timing CSV. */
#ifndef KS_LIVE_H
#define KS_LIVE_H

#include "app/scene.h"
#include "app/live/live_stats.h"

typedef struct ks_live ks_live;

/* Where the frames go. */
typedef enum ks_live_display {
    KS_LIVE_WINDOW = 0,
    KS_LIVE_HEADLESS = 1,       /* EGL, no window */
    KS_LIVE_HEADLESS_HIDDEN = 2 /* no window shown: an invisible window's GL context (see ks_window_desc) */
} ks_live_display;

typedef struct ks_live_desc {
    const ks_scene_env *env;   /* options, backend, device; required, and kept until destroy */
    const ks_scene_api *api;   /* the scene; required */
    ks_live_display display;   /* 0: a window */
} ks_live_desc;

/* Sets up scene, window, renderer, display path and timer. Failures here are
 * the user's input (grid too large, block refused, no display, bad scene
 * file): main exits with status 2. On failure *out may hold what was made so
 * far, for ks_live_destroy. */
ks_status ks_live_create(const ks_live_desc *desc, ks_live **out);
/* Runs until Esc/Q, the window closes or --frames frames ran. */
ks_status ks_live_run(ks_live *live);
void ks_live_destroy(ks_live *live);

/* Fills *out from the finished run (the scene's work_per_frame, the path, the timer):
 * medians over the last last_frames frames (0: all kept, at most 256), so
 * that warm-up frames are left out. Takes the timer's finished frames, so
 * call it once; a run with --save-every (whose CSV took them) falls back to
 * the timer's window of the last 64. */
void ks_live_get_stats(ks_live *live, int last_frames, ks_live_stats *out);

/* For a benchmark that drives the loop (`kernelscope bench serve`): called
 * after every frame, between frames; returns 1 to end the run as Esc would.
 * NULL: none. */
typedef int (*ks_live_frame_hook)(void *user, ks_live *live, long long frames_done);
void ks_live_set_frame_hook(ks_live *live, ks_live_frame_hook hook, void *user);
/* ks_live_get_stats in the middle of a run (from the frame hook): waits for
 * the frames in flight first, so the last frames count. */
ks_status ks_live_measure(ks_live *live, int last_frames, ks_live_stats *out);
/* --serve: the port the server listens on (0 without --serve), and the name
 * of its JPEG or H.264 encoder ("libjpeg-turbo", "nvjpeg", "libx264"; "" when
 * it has none). */
int ks_live_serve_port_of(const ks_live *live);
const char *ks_live_serve_encoder_of(const ks_live *live, int h264);
/* --serve: what the pages report of themselves (frames a second they drew);
 * 0 without --serve. */
struct ks_server_viewer_stats;
int ks_live_serve_viewer_stats_of(const ks_live *live, struct ks_server_viewer_stats *out);
/* The encoder of the recording in progress ("libx264", "h264_nvenc"); "" when none. */
const char *ks_live_record_encoder_of(const ks_live *live);

#endif
