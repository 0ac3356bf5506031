/* Recording the live view as a video (--record FILE.mp4|.mkv, the E key):
 * what is shown (the composed frame, overlay included), at the --fps clock,
 * through video/recorder.h. The live loop calls ks_live_rec_frame once per
 * frame after the frame is composed. */
#ifndef KS_LIVE_RECORD_H
#define KS_LIVE_RECORD_H

#include "kernels/common/ks_error.h"
#include "render/renderer.h"
#include "video/recorder.h"

typedef struct ks_live_rec {
    ks_recorder *rec;      /* NULL while not recording */
    int fps;               /* --fps, default 60 */
    int by_frame;          /* headless: one video frame per live frame (pts = frames recorded) */
    double started;        /* host seconds when the recording started (windowed clock) */
    long long next_pts;    /* headless: the next frame's pts */
    long long last_pts;    /* the last period that got a frame (or a drop); -1 before the first */
    int from_flag;         /* started by --record: a failure fails the run */
    int videos;            /* videos completed in this run */
    char last[1024];       /* the last video completed */
} ks_live_rec;

void ks_live_rec_init(ks_live_rec *r, int fps, int headless);
/* Starts recording to path (w x h: the composed frame's size); from_flag: asked
 * for by --record (a failure later fails the run). The encoder's fallback
 * notice, if any, goes to stderr. */
ks_status ks_live_rec_start(ks_live_rec *r, const char *path, int w, int h, int from_flag);
/* The E key: stops the recording in progress, or starts one named
 * DIR/<scene>_<frame>.mp4; msg receives what to show (the error on failure,
 * which the status says). */
ks_status ks_live_rec_toggle(ks_live_rec *r, const char *dir, const char *scene, long long frame, int w, int h, char *msg,
                        size_t msg_len);
/* Hands the frame just composed to the recorder when the --fps clock says a
 * frame is due and the encoder has room (otherwise the frame is counted as
 * dropped, without reading it back). A recording started by the key that
 * fails is stopped, with the error in msg, and KS_OK returned; one asked for
 * by --record returns the failure. */
ks_status ks_live_rec_frame(ks_live_rec *r, ks_renderer *renderer, char *msg, size_t msg_len);
/* Finishes the file; *summary gets "video PATH (N frames, D dropped)". */
ks_status ks_live_rec_stop(ks_live_rec *r, char *summary, size_t summary_len);
/* Drops an unfinished recording (its temporary file is removed). */
void ks_live_rec_abort(ks_live_rec *r);

#endif
