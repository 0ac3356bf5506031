/* Video recording: RGBA8 frames from host memory to an H.264 file (.mp4 or
 * .mkv) through FFmpeg's libraries. The encoder is h264_nvenc where the GPU
 * has a video engine (found by opening a session), libx264 otherwise.
 *
 * Colour conversion, encoding and writing happen on a worker thread fed by a
 * bounded queue: ks_recorder_push never waits for the encoder. When the queue
 * is full the frame is dropped and counted; the timestamps of the frames that
 * are written stay on the caller's clock (pts in 1/fps units), so a drop shows
 * as a held frame, never as a faster video.
 *
 * The file is written under a temporary name beside it (base/out_file.h:
 * created exclusively, never through a symlink, removed by a second Ctrl-C);
 * FFmpeg writes through our descriptor and never opens a file by name. It is
 * renamed by ks_recorder_close once the encoder is flushed and the trailer
 * written. */
#ifndef KS_RECORDER_H
#define KS_RECORDER_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_recorder ks_recorder;

typedef struct ks_recorder_desc {
    const char *path;    /* FILE.mp4 or FILE.mkv */
    int width, height;   /* picture size in pixels; odd sizes are rounded down to even */
    int fps;             /* timestamps in 1/fps seconds; default 60 */
    int queue_frames;    /* frames waiting for the encoder before one is dropped; default 4 */
    const char *encoder; /* NULL: h264_nvenc where a session opens, else libx264 */
    const char *preset;  /* libx264 preset; default "superfast" (real time on a few cores) */
    int crf;             /* libx264 constant-quality factor; default 20 */
} ks_recorder_desc;

typedef struct ks_recorder_stats {
    long long frames_pushed;  /* frames handed to ks_recorder_push */
    long long frames_written; /* frames encoded into the file */
    long long frames_dropped; /* frames dropped because the encoder fell behind */
    double seconds;           /* length of the video: (last pts + 1) / fps */
} ks_recorder_stats;

/* The name ends in ".mp4" or ".mkv" (case-insensitive) and fits. */
ks_status ks_recorder_check_name(const char *path);
/* The name, and its folder exists and takes a file (one is made and removed): the checks
 * made before a run starts. */
ks_status ks_recorder_check_path(const char *path);

/* Opens the encoder and the temporary file. *notice (may be NULL) receives a
 * line to show the user when NVENC was not available and libx264 is used
 * ("" otherwise). */
ks_status ks_recorder_open(const ks_recorder_desc *desc, ks_recorder **out, char *notice,
                           size_t notice_len);

/* 1 when a pushed frame would be taken now (the queue has room); a caller
 * whose frames are costly to read back asks first. */
int ks_recorder_ready(const ks_recorder *r);

/* Hands a frame (RGBA8, rows top-down, stride bytes per row) to the encoder,
 * copied; any size (scaled to the video's size). pts counts 1/fps periods
 * from the start and must grow; a frame with pts at or below the last one is
 * ignored (returns KS_OK, not counted as dropped). *taken (may be NULL) is 1
 * when it was queued, 0 when dropped or ignored. Fails only when the worker
 * failed earlier (the file cannot be written, the encoder broke). */
ks_status ks_recorder_push(ks_recorder *r, const unsigned char *rgba, int w, int h, int stride,
                           long long pts, int *taken);

/* Counts the frame due at pts as dropped without reading it (a caller that
 * saw ks_recorder_ready say 0); ignored when pts is not past the last one. */
void ks_recorder_drop(ks_recorder *r, long long pts);

/* Waits for the queue, flushes the encoder, writes the trailer, renames the
 * file into place and frees r (also on failure, when the temporary file is
 * removed). stats may be NULL. */
ks_status ks_recorder_close(ks_recorder *r, ks_recorder_stats *stats);

/* Stops without finishing the file: the temporary file is removed. NULL is fine. */
void ks_recorder_abort(ks_recorder *r);

const char *ks_recorder_path(const ks_recorder *r);
const char *ks_recorder_encoder(const ks_recorder *r); /* "h264_nvenc" or "libx264" */
void ks_recorder_size(const ks_recorder *r, int *w, int *h);
int ks_recorder_fps(const ks_recorder *r);

#ifdef __cplusplus
}
#endif
#endif
