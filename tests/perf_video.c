/* Perf harness for video/ (not a ctest test): how many frames a second the
 * recorder's encoder takes at a size (frames pushed as fast as it accepts
 * them, through close), and the stream encoder's median milliseconds per
 * frame (one Annex B unit per call). Synthetic frames: a gradient with a
 * moving disc and a moving band of text-like stripes, like a live view.
 * Usage: perf_video [--size WxH] [--frames N] [--encoder libx264|h264_nvenc] [--preset P] [--out DIR]
 * (--preset: the recorder's libx264 preset, default superfast) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "video/h264_stream.h"
#include "video/recorder.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void draw(unsigned char *p, int w, int h, int frame)
{
    const int cx = (frame * 9) % w, cy = h / 2, r = h / 6;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            unsigned char *q = p + ((size_t)y * (size_t)w + (size_t)x) * 4;
            const int dx = x - cx, dy = y - cy;
            const int disc = dx * dx + dy * dy < r * r;
            const int stripes = y > h - 60 && ((x + frame * 3) / 4 + y / 3) % 3 == 0;
            q[0] = (unsigned char)(disc ? 250 : stripes ? 230 : 40 + 150 * x / w);
            q[1] = (unsigned char)(disc ? 200 : stripes ? 230 : 20 + 100 * y / h);
            q[2] = (unsigned char)(disc ? 30 : stripes ? 230 : 120);
            q[3] = 255;
        }
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int w = 1920, h = 1080, frames = 240;
    const char *encoder = NULL, *dir = "/tmp", *preset = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) sscanf(argv[++i], "%dx%d", &w, &h);
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--encoder") == 0 && i + 1 < argc) encoder = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) dir = argv[++i];
        else if (strcmp(argv[i], "--preset") == 0 && i + 1 < argc) preset = argv[++i];
        else {
            fprintf(stderr, "usage: perf_video [--size WxH] [--frames N] [--encoder NAME] [--preset P] [--out DIR]\n");
            return 2;
        }
    }
    if (w < 16 || h < 16 || frames < 10) {
        fprintf(stderr, "perf_video: size at least 16x16, at least 10 frames\n");
        return 2;
    }
    enum { NPIC = 32 };
    unsigned char *pics[NPIC];
    for (int i = 0; i < NPIC; ++i) {
        pics[i] = malloc((size_t)w * (size_t)h * 4);
        if (!pics[i]) return 1;
        draw(pics[i], w, h, i);
    }

    /* the recorder: throughput of its worker (the caller waits only here, to count every frame) */
    char path[1024], notice[256];
    snprintf(path, sizeof path, "%s/perf_video_%ld.mp4", dir, (long)getpid());
    ks_recorder_desc rd = {0};
    rd.path = path;
    rd.width = w;
    rd.height = h;
    rd.encoder = encoder;
    rd.preset = preset;
    ks_recorder *rec = NULL;
    if (ks_recorder_open(&rd, &rec, notice, sizeof notice) != KS_OK) {
        fprintf(stderr, "perf_video: %s\n", ks_error_message());
        return 1;
    }
    if (notice[0]) printf("notice: %s\n", notice);
    const double t0 = now();
    for (int i = 0; i < frames; ++i) {
        while (!ks_recorder_ready(rec)) nanosleep(&(struct timespec){0, 200000}, NULL);
        if (ks_recorder_push(rec, pics[i % NPIC], w, h, 4 * w, i, NULL) != KS_OK) {
            fprintf(stderr, "perf_video: %s\n", ks_error_message());
            return 1;
        }
    }
    ks_recorder_stats st;
    const char *rec_encoder = ks_recorder_encoder(rec);
    char rec_name[32];
    snprintf(rec_name, sizeof rec_name, "%s", rec_encoder);
    if (ks_recorder_close(rec, &st) != KS_OK) {
        fprintf(stderr, "perf_video: %s\n", ks_error_message());
        return 1;
    }
    const double t_rec = now() - t0;
    printf("recorder  %dx%d %s %s: %lld frames in %.2f s = %.1f frames/s (%lld dropped)\n", w, h, rec_name, preset ? preset : "(default preset)",
           st.frames_written, t_rec, (double)st.frames_written / t_rec, st.frames_dropped);
    unlink(path);

    /* the stream encoder: milliseconds per frame, colour conversion included */
    ks_h264_stream_desc sd = {0};
    sd.width = w;
    sd.height = h;
    sd.encoder = encoder;
    ks_h264_stream *s = NULL;
    if (ks_h264_stream_create(&sd, &s, NULL, 0) != KS_OK) {
        fprintf(stderr, "perf_video: %s\n", ks_error_message());
        return 1;
    }
    double *ms = malloc(sizeof *ms * (size_t)frames);
    size_t bytes = 0;
    for (int i = 0; i < frames; ++i) {
        ks_h264_au au;
        const double t = now();
        if (ks_h264_stream_encode(s, pics[i % NPIC], w, h, 4 * w, &au) != KS_OK) {
            fprintf(stderr, "perf_video: %s\n", ks_error_message());
            return 1;
        }
        ms[i] = (now() - t) * 1e3;
        bytes += au.size;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
    printf("stream    %dx%d %s (%s): median %.2f ms per frame = %.1f frames/s, p90 %.2f ms, %.0f kbit/s at 60 fps\n",
           w, h, ks_h264_stream_encoder(s), ks_h264_stream_codec(s), ms[frames / 2], 1e3 / ms[frames / 2],
           ms[frames * 9 / 10], (double)bytes * 8.0 / frames * 60.0 / 1e3);
    ks_h264_stream_destroy(s);
    free(ms);
    for (int i = 0; i < NPIC; ++i) free(pics[i]);
    return 0;
}
