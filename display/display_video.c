#include "display/display_video.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"

void ks_display_video_init(ks_display_video *v, int fps, int by_frame)
{
    memset(v, 0, sizeof *v);
    v->fps = fps > 0 ? fps : 60;
    v->by_frame = by_frame;
    v->last_pts = -1;
}

static ks_status open_at(ks_display_video *v, int w, int h)
{
    ks_recorder_desc d = {0};
    d.path = v->path;
    d.width = w;
    d.height = h;
    d.fps = v->fps;
    KS_TRY(ks_recorder_open(&d, &v->rec, v->notice, sizeof v->notice));
    v->started = ks_now_seconds();
    v->next_pts = 0;
    v->last_pts = -1;
    v->behind = 0;
    return KS_OK;
}

ks_status ks_display_video_start(ks_display_video *v, const char *path, int w, int h, int from_flag)
{
    if (ks_display_video_on(v)) return KS_OK;
    v->notice[0] = '\0';
    const int n = snprintf(v->path, sizeof v->path, "%s", path);
    if (n < 0 || (size_t)n >= sizeof v->path) {
        v->path[0] = '\0';
        return ks_fail(KS_ERR_INVALID, "video: the path is too long");
    }
    v->from_flag = from_flag;
    if (w > 0 && h > 0) {
        const ks_status st = open_at(v, w, h);
        if (st != KS_OK) v->path[0] = '\0';
        return st;
    }
    return KS_OK; /* opened by the first frame, at its size */
}

int ks_display_video_on(const ks_display_video *v) { return v->rec != NULL || v->path[0] != '\0'; }

ks_status ks_display_video_toggle(ks_display_video *v, const char *dir, const char *scene, long long frame, int w, int h,
                                  char *msg, size_t msg_len)
{
    char path[1024];
    ks_status st = KS_OK;
    msg[0] = '\0';
    if (ks_display_video_on(v)) {
        st = ks_display_video_stop(v, msg, msg_len);
    } else {
        const int n = snprintf(path, sizeof path, "%s/%s_%06lld.mp4", dir, scene, frame);
        st = n > 0 && (size_t)n < sizeof path
                 ? ks_display_video_start(v, path, w, h, 0)
                 : ks_fail(KS_ERR_IO, "output path too long under '%s'", KS_QUOTED(dir));
        if (st == KS_OK) snprintf(msg, msg_len, "recording %s (E stops)", path);
    }
    if (st != KS_OK) snprintf(msg, msg_len, "%s", ks_error_message());
    return st;
}

/* The frame to the encoder: the host picture given, or the composed frame
 * read back (the one place that reads it back for the video). */
static ks_status push(ks_display_video *v, ks_renderer *renderer, const unsigned char *rgba, int w, int h,
                      long long pts)
{
    if (rgba) return ks_recorder_push(v->rec, rgba, w, h, 4 * w, pts, NULL);
    unsigned char *frame = NULL;
    int fw = 0, fh = 0;
    KS_TRY(ks_renderer_read_frame(renderer, &frame, &fw, &fh));
    ks_status st = ks_recorder_push(v->rec, frame, fw, fh, 4 * fw, pts, NULL);
    free(frame);
    return st;
}

static ks_status frame(ks_display_video *v, ks_renderer *renderer, const unsigned char *rgba, int w, int h)
{
    if (!v->rec) { /* started at 0 x 0: opened at the first host picture's size */
        if (!rgba || w <= 0 || h <= 0) return KS_OK;
        KS_TRY(open_at(v, w, h));
    }
    /* headless runs go as fast as they can: every frame is one period of the
     * clock; otherwise the wall clock, the nearest period (a view synced to a
     * 60 Hz display then lands one frame per period despite timing jitter) */
    const long long pts = v->by_frame ? v->next_pts++ : llround((ks_now_seconds() - v->started) * v->fps);
    v->behind = pts <= v->last_pts;
    if (v->behind) return KS_OK; /* this period has its frame already: nothing to read back */
    v->last_pts = pts;
    if (!ks_recorder_ready(v->rec)) {
        ks_recorder_drop(v->rec, pts);
        return KS_OK;
    }
    return push(v, renderer, rgba, w, h, pts);
}

ks_status ks_display_video_frame(ks_display_video *v, ks_renderer *renderer, const unsigned char *rgba, int w, int h,
                                 char *msg, size_t msg_len)
{
    msg[0] = '\0';
    if (!ks_display_video_on(v)) return KS_OK;
    const ks_status st = frame(v, renderer, rgba, w, h);
    if (st != KS_OK && !v->from_flag) {
        snprintf(msg, msg_len, "%s", ks_error_message());
        ks_display_video_abort(v);
        return KS_OK;
    }
    return st;
}

ks_status ks_display_video_last(ks_display_video *v, ks_renderer *renderer, const unsigned char *rgba, int w, int h)
{
    if (!v->rec || !v->behind) return KS_OK;
    v->behind = 0;
    return push(v, renderer, rgba, w, h, ++v->last_pts);
}

ks_status ks_display_video_stop(ks_display_video *v, char *summary, size_t summary_len)
{
    if (summary && summary_len) summary[0] = '\0';
    if (!v->rec) { /* never opened: no frame came */
        v->path[0] = '\0';
        return KS_OK;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s", ks_recorder_path(v->rec));
    ks_recorder_stats stats;
    ks_status st = ks_recorder_close(v->rec, &stats);
    v->rec = NULL;
    v->path[0] = '\0';
    KS_TRY(st);
    ++v->videos;
    snprintf(v->last, sizeof v->last, "%s", path);
    if (summary && summary_len) {
        size_t used = 0;
        ks_text_append(summary, summary_len, &used, "video in %s (%lld %s, %.2f s", path, stats.frames_written,
                       stats.frames_written == 1 ? "frame" : "frames", stats.seconds);
        if (stats.frames_dropped)
            ks_text_append(summary, summary_len, &used, ", %lld dropped: the encoder fell behind", stats.frames_dropped);
        ks_text_append(summary, summary_len, &used, ")");
    }
    return KS_OK;
}

void ks_display_video_abort(ks_display_video *v)
{
    ks_recorder_abort(v->rec);
    v->rec = NULL;
    v->path[0] = '\0';
}
