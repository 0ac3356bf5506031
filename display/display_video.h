/* The display's video (--record FILE.mp4|.mkv, the E key, a library viewer's
 * desc.record): each frame the display shows (the composed frame read back
 * from GL, or the host picture of a display without GL) goes to
 * video/recorder.h when the clock says a frame is due and the encoder has
 * room (otherwise the period is counted as dropped, without reading the
 * frame back). The clock is the wall clock at fps frames a second (a pause
 * shows as the picture held), or one period a frame for headless runs that go
 * as fast as they can. */
#ifndef KS_DISPLAY_VIDEO_H
#define KS_DISPLAY_VIDEO_H

#include <stddef.h>

#include "base/ks_error.h"
#include "render/renderer.h"
#include "video/recorder.h"

typedef struct ks_display_video {
    ks_recorder *rec;      /* NULL while not recording */
    int fps;               /* the clock, default 60 */
    int by_frame;          /* one video frame per frame shown (pts = frames recorded) */
    double started;        /* host seconds when the recording started (wall clock) */
    long long next_pts;    /* by_frame: the next frame's pts */
    long long last_pts;    /* the last period that got a frame (or a drop); -1 before the first */
    int behind;            /* the newest frame came within a period that had its frame: not in the video */
    int from_flag;         /* asked for by --record or desc.record: a failure fails the run */
    char path[1024];       /* opened at the first frame, at its size (start with w = h = 0) */
    int videos;            /* videos completed */
    char last[1024];       /* the last video completed */
    char notice[256];      /* the encoder's fallback notice of the last start ("" none), for the caller */
} ks_display_video;

void ks_display_video_init(ks_display_video *v, int fps, int by_frame);
/* Starts recording to path at w x h (0 x 0: at the first host picture's size);
 * from_flag: asked for by a flag (a failure later fails the run). */
ks_status ks_display_video_start(ks_display_video *v, const char *path, int w, int h, int from_flag);
/* The E key: stops the recording in progress, or starts one named
 * DIR/<scene>_<frame>.mp4 at w x h; msg receives what to show (the error on
 * failure, which the status says). */
ks_status ks_display_video_toggle(ks_display_video *v, const char *dir, const char *scene, long long frame, int w, int h,
                                  char *msg, size_t msg_len);
/* 1 while recording (or waiting for the first frame to open the file). */
int ks_display_video_on(const ks_display_video *v);
/* The frame just shown: rgba (rows top-down, w x h) when given, else the
 * renderer's composed frame. A recording started by the key that fails is
 * stopped, with the error in msg, and KS_OK returned; one asked for by a flag
 * returns the failure. */
ks_status ks_display_video_frame(ks_display_video *v, ks_renderer *renderer, const unsigned char *rgba, int w, int h,
                                 char *msg, size_t msg_len);
/* The newest frame again, when the clock left it out (ks_display_video_frame
 * came within a period that had its frame): at the next period, so that the
 * video ends on it. rgba as in ks_display_video_frame. */
ks_status ks_display_video_last(ks_display_video *v, ks_renderer *renderer, const unsigned char *rgba, int w, int h);
/* Finishes the file; *summary gets "video in PATH (N frames, S s)". */
ks_status ks_display_video_stop(ks_display_video *v, char *summary, size_t summary_len);
/* Drops an unfinished recording (its temporary file is removed). */
void ks_display_video_abort(ks_display_video *v);

#endif
