/* What a live run writes: its pictures (--save-every, the last frame of a
 * headless --frames run, the S / P / F keys), the timings CSV, the progress
 * line of headless runs and the summary at the end (app/run_outputs.h). */
#ifndef KS_LIVE_OUTPUT_H
#define KS_LIVE_OUTPUT_H

#include <stddef.h>

#include "base/stage_timer.h"
#include "render/image_io.h"
#include "render/renderer.h"
#include "display/display_video.h"
#include "app/run_outputs.h"
#include "app/scene.h"

/* What a save holds: the frame on screen, the bare picture as drawn, or the
 * bare picture at one pixel per cell (F; the scene's full_picture when it has one). */
typedef enum ks_live_save {
    KS_SAVE_SCREEN = 0,
    KS_SAVE_PICTURE,
    KS_SAVE_FIELD
} ks_live_save;

typedef struct ks_live_output_desc {
    const ks_options *opt;    /* out_dir, save_every, frames, format, dump_field, progress; required */
    int headless;             /* saves say nothing on screen; progress lines; the last frame is saved */
    ks_renderer *renderer;    /* the frame and picture read back; required */
    const ks_scene_api *api;  /* full_picture, status; required */
    void *scene;
} ks_live_output_desc;

/* A plain struct the frame loop holds; its fields are this module's. */
typedef struct ks_live_output {
    ks_live_output_desc d;
    const char *scene_name;   /* the saved files' prefix */
    ks_timings_csv csv;       /* with --save-every */
    ks_progress progress;
    long long saved;          /* pictures written */
} ks_live_output;

void ks_live_output_init(ks_live_output *o, const ks_live_output_desc *desc);
/* At the start of the run: names the CSV (with --save-every), starts the progress line. */
ks_status ks_live_output_start(ks_live_output *o);
/* 1 when the frame that makes the count frames_done is saved without a key:
 * every --save-every K-th, and the last of a headless --frames run with
 * --save-every (once, named like the others), so a run shorter than K still
 * leaves its picture. */
int ks_live_output_saves(const ks_live_output *o, long long frames_done);
/* Writes DIR/<scene>_<frame><tag>.<ext> and says so on stdout; in a window,
 * msg gets "saved PATH (WxH)" for the overlay (else ""). */
ks_status ks_live_output_save(ks_live_output *o, ks_image_format fmt, ks_live_save what, const char *tag,
                              long long frame, char *msg, size_t msg_cap);
/* After frame frames_done: its picture when ks_live_output_saves (the screen,
 * or the bare picture when the overlay is hidden). */
ks_status ks_live_output_frame(ks_live_output *o, long long frames_done, int overlay);
/* The timer's finished frames into the CSV (with --save-every). */
ks_status ks_live_output_pump(ks_live_output *o, ks_stage_timer *timer);
/* Headless: the progress line (at most one a second), with the scene's status. */
void ks_live_output_progress(ks_live_output *o, long long frames_done);
/* End of the run (every exit path): completes the CSV. */
ks_status ks_live_output_close(ks_live_output *o, ks_stage_timer *timer);
/* The summary line after the scene's finish: frames, the scene's status,
 * stage medians, what was written (pictures, CSV, --dump-field, video). */
void ks_live_output_summary(ks_live_output *o, long long frames, const ks_stage_timer *timer, const char *video,
                            const ks_display_video *rec);
/* A run that never reached its end: drops the CSV in progress. */
void ks_live_output_abort(ks_live_output *o);

#endif
