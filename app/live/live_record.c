#include "app/live/live_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ks_util.h"
#include "app/run_outputs.h"

void ks_live_rec_init(ks_live_rec *r, int fps, int headless)
{
    memset(r, 0, sizeof *r);
    r->fps = fps > 0 ? fps : 60;
    r->by_frame = headless;
}

ks_status ks_live_rec_start(ks_live_rec *r, const char *path, int w, int h, int from_flag)
{
    if (r->rec) return KS_OK;
    ks_recorder_desc d = {0};
    d.path = path;
    d.width = w;
    d.height = h;
    d.fps = r->fps;
    char notice[256] = "";
    ks_status st = ks_recorder_open(&d, &r->rec, notice, sizeof notice);
    if (notice[0]) fprintf(stderr, "kernelscope: %s\n", notice);
    KS_TRY(st);
    r->from_flag = from_flag;
    r->started = ks_now_seconds();
    r->next_pts = 0;
    r->last_pts = -1;
    return KS_OK;
}

ks_status ks_live_rec_toggle(ks_live_rec *r, const char *dir, const char *scene, long long frame, int w, int h, char *msg,
                        size_t msg_len)
{
    char path[1024];
    ks_status st = KS_OK;
    msg[0] = '\0';
    if (r->rec) {
        st = ks_live_rec_stop(r, msg, msg_len);
    } else {
        const int n = snprintf(path, sizeof path, "%s/%s_%06lld.mp4", dir, scene, frame);
        st = n > 0 && (size_t)n < sizeof path
                 ? ks_live_rec_start(r, path, w, h, 0)
                 : ks_fail(KS_ERR_IO, "output path too long under '%s'", KS_QUOTED(dir));
        if (st == KS_OK) snprintf(msg, msg_len, "recording %s (E stops)", path);
    }
    if (st != KS_OK) snprintf(msg, msg_len, "%s", ks_error_message());
    return st;
}

/* The one place that reads the composed frame back for the video. */
static ks_status capture_and_push(ks_live_rec *r, ks_renderer *renderer, long long pts)
{
    unsigned char *rgba = NULL;
    int w = 0, h = 0;
    KS_TRY(ks_renderer_read_frame(renderer, &rgba, &w, &h));
    ks_status st = ks_recorder_push(r->rec, rgba, w, h, 4 * w, pts, NULL);
    free(rgba);
    return st;
}

ks_status ks_live_rec_frame(ks_live_rec *r, ks_renderer *renderer, char *msg, size_t msg_len)
{
    msg[0] = '\0';
    if (!r->rec) return KS_OK;
    /* headless runs as fast as they can: every frame is one period of the clock;
     * a window records at the wall clock, the nearest period (a view synced to a
     * 60 Hz display then lands one frame per period despite timing jitter) */
    const long long pts = r->by_frame ? r->next_pts++ : llround((ks_now_seconds() - r->started) * r->fps);
    if (pts <= r->last_pts) return KS_OK; /* this period has its frame already: nothing to read back */
    r->last_pts = pts;
    if (!ks_recorder_ready(r->rec)) {
        ks_recorder_drop(r->rec, pts);
        return KS_OK;
    }
    ks_status st = capture_and_push(r, renderer, pts);
    if (st != KS_OK && !r->from_flag) {
        snprintf(msg, msg_len, "%s", ks_error_message());
        ks_live_rec_abort(r);
        return KS_OK;
    }
    return st;
}

ks_status ks_live_rec_stop(ks_live_rec *r, char *summary, size_t summary_len)
{
    if (summary && summary_len) summary[0] = '\0';
    if (!r->rec) return KS_OK;
    char path[1024];
    snprintf(path, sizeof path, "%s", ks_recorder_path(r->rec));
    ks_recorder_stats stats;
    ks_status st = ks_recorder_close(r->rec, &stats);
    r->rec = NULL;
    KS_TRY(st);
    ks_note_wrote(path);
    ++r->videos;
    snprintf(r->last, sizeof r->last, "%s", path);
    if (summary && summary_len) {
        size_t used = 0;
        ks_text_append(summary, summary_len, &used, "video in %s (%lld %s, %.2f s", path, stats.frames_written,
                       ks_plural(stats.frames_written, "frame", "frames"), stats.seconds);
        if (stats.frames_dropped)
            ks_text_append(summary, summary_len, &used, ", %lld dropped: the encoder fell behind", stats.frames_dropped);
        ks_text_append(summary, summary_len, &used, ")");
    }
    return KS_OK;
}

void ks_live_rec_abort(ks_live_rec *r)
{
    ks_recorder_abort(r->rec);
    r->rec = NULL;
}

