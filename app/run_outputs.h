/* What a live run writes and says besides its pictures: the timings CSV written
 * as the run goes, the "wrote PATH" lines, the progress line of headless runs
 * and the summary line at the end. */
#ifndef KS_RUN_OUTPUTS_H
#define KS_RUN_OUTPUTS_H

#include <stddef.h>

#include "base/stage_timer.h"
#include "render/image_io.h"

/* One line on stdout per written file: "kernelscope: wrote PATH". */
void ks_note_wrote(const char *path);
/* DIR/NAME into path (cap bytes); KS_ERR_IO "--out path too long" when it does not fit. */
ks_status ks_out_path(char *path, size_t cap, const char *dir, const char *name);
/* Writes text (malloc'd, freed here; NULL: out of memory) to DIR/NAME and says so. */
ks_status ks_write_text_out(const char *dir, const char *name, char *text);
/* "1 frame", "2 frames": count and the noun in singular or plural. */
const char *ks_plural(long long n, const char *one, const char *many);

/* DIR/<scene>_timings.csv: one row per finished frame, flushed as it comes. */
typedef struct ks_timings_csv {
    char path[1024];
    ks_out_stream *stream; /* opened with the first row */
    int columns;           /* stages in the header (fixed by the first row) */
    long long rows;
} ks_timings_csv;

/* Names the file; writes nothing yet. */
ks_status ks_timings_csv_init(ks_timings_csv *c, const char *dir, const char *scene);
/* Appends every frame the timer has finished (header first). */
ks_status ks_timings_csv_pump(ks_timings_csv *c, ks_stage_timer *timer);
/* Completes the file (renames it into place) and says so; on every exit path. */
ks_status ks_timings_csv_close(ks_timings_csv *c, ks_stage_timer *timer);

/* Progress of a headless run, at most one line a second on stderr. */
typedef struct ks_progress {
    int enabled;
    double started, last;  /* host seconds */
    long long last_frame;
} ks_progress;

void ks_progress_init(ks_progress *p, int enabled);
/* status: the scene's own words (iterations, residual); may be empty. */
void ks_progress_tick(ks_progress *p, long long frame, long long frames_asked, const char *status);

/* Two frame figures that must not be confused: the wall-clock interval
 * between frames (what fps is) and the "frame" stage, the span of one frame's
 * own work from the solver to the picture (CUDA events on the GPU, the host
 * clock on the CPU). The stage keeps the name "frame" in the CSVs (frame_ms);
 * what a person reads calls it "frame work". */
#define KS_FRAME_STAGE "frame"
#define KS_FRAME_WORK_LABEL "frame work"
#define KS_FRAME_INTERVAL_LABEL "frame interval"
/* The name a stage is shown by (panel, page, summary): name itself, but
 * KS_FRAME_WORK_LABEL for KS_FRAME_STAGE. */
const char *ks_stage_label(const char *name);

/* "kernelscope: <scene>: N frames, <status>; median ms: stage a, ..., frame work T[; solver share P %
 * of a T ms frame interval]; <written>" on stdout. */
void ks_summary_print(const char *scene, long long frames, const char *status,
                      const ks_stage_timer *timer, const char *written);

#endif
