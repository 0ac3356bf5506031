#include "venc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>

static pthread_once_t ks_venc_log_once = PTHREAD_ONCE_INIT;
/* While NVENC is probed, its last error line is kept: it says why (no driver,
 * no video engine on this GPU) better than the error code does. */
static atomic_int ks_log_capture;
static char ks_log_line[160];

static void log_sink(void *avcl, int level, const char *fmt, va_list vl)
{
    (void)avcl;
    if (!atomic_load(&ks_log_capture) || level > AV_LOG_ERROR) return;
    char line[sizeof ks_log_line];
    vsnprintf(line, sizeof line, fmt, vl);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == ' ' || line[n - 1] == '.')) line[--n] = '\0';
    if (n) memcpy(ks_log_line, line, n + 1);
}

static void quiet_logs_once(void)
{
    av_log_set_callback(log_sink);
}

void ks_venc_quiet_logs(void)
{
    pthread_once(&ks_venc_log_once, quiet_logs_once);
}

ks_status ks_venc_fail(ks_status code, int averr, const char *what)
{
    char text[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(averr, text, sizeof text);
    return ks_fail(code, "%s: %s", what, text);
}

/* NVENC is probed once per process: a GPU without a video engine (H100, H200)
 * or a machine without the NVIDIA driver gives the same answer every time. */
static pthread_mutex_t ks_nvenc_lock = PTHREAD_MUTEX_INITIALIZER;
static int ks_nvenc_state;          /* 0 not tried, 1 opens, -1 does not, -2 no NVIDIA driver to try */
static char ks_nvenc_reason[128];

/* NVENC lives in the NVIDIA driver (libcuda, libnvidia-encode). Without it
 * there is nothing to try and nothing to say: the device probe has said "no
 * NVIDIA driver found" already, or the CPU backend was asked for, and libx264
 * is then simply the encoder. */
static int nvidia_driver_loadable(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE); /* FFmpeg's NVENC opens it too */
    if (h) dlclose(h);
    return h != NULL;
}

static void set_common(AVCodecContext *c, const ks_venc_desc *d)
{
    c->width = d->width;
    c->height = d->height;
    c->time_base = (AVRational){1, d->fps};
    c->framerate = (AVRational){d->fps, 1};
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    /* what swscale writes by default: BT.601 matrix, limited range */
    c->colorspace = AVCOL_SPC_SMPTE170M;
    c->color_range = AVCOL_RANGE_MPEG;
    c->color_primaries = AVCOL_PRI_SMPTE170M;
    c->color_trc = AVCOL_TRC_SMPTE170M;
    if (d->gop > 0) c->gop_size = d->gop;
    if (d->use == KS_VENC_STREAM) c->max_b_frames = 0;
    if (d->global_header) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
}

/* 0 on success, else an AVERROR with *ctx freed. */
static int try_open(const char *name, const ks_venc_desc *d, AVCodecContext **out)
{
    *out = NULL;
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec) return AVERROR_ENCODER_NOT_FOUND;
    AVCodecContext *c = avcodec_alloc_context3(codec);
    if (!c) return AVERROR(ENOMEM);
    set_common(c, d);
    AVDictionary *opts = NULL;
    char crf[16];
    snprintf(crf, sizeof crf, "%d", d->crf > 0 ? d->crf : 23);
    av_dict_set(&opts, "forced-idr", "1", 0); /* a requested keyframe is an IDR a decoder can join at */
    if (strcmp(name, "libx264") == 0) {
        /* libavcodec's default of one thread would make x264 encode 1080p on
         * one core; 0 lets x264 use all of them (sliced threads with
         * zerolatency, so no frames of delay) */
        c->thread_count = 0;
        av_dict_set(&opts, "preset", d->preset ? d->preset : "superfast", 0);
        av_dict_set(&opts, "crf", crf, 0);
        if (d->use == KS_VENC_STREAM) av_dict_set(&opts, "tune", "zerolatency", 0);
    } else { /* h264_nvenc */
        av_dict_set(&opts, "rc", "vbr", 0);
        av_dict_set(&opts, "cq", crf, 0);
        if (d->use == KS_VENC_STREAM) {
            av_dict_set(&opts, "preset", "p2", 0);
            av_dict_set(&opts, "tune", "ull", 0);
            av_dict_set(&opts, "zerolatency", "1", 0);
            av_dict_set(&opts, "delay", "0", 0);
        } else {
            av_dict_set(&opts, "preset", "p4", 0);
        }
    }
    int err = avcodec_open2(c, codec, &opts);
    av_dict_free(&opts);
    if (err < 0) {
        avcodec_free_context(&c);
        return err;
    }
    *out = c;
    return 0;
}

ks_status ks_venc_open(const ks_venc_desc *d, AVCodecContext **out, char *notice, size_t notice_len)
{
    *out = NULL;
    if (notice && notice_len) notice[0] = '\0';
    ks_venc_quiet_logs();
    if (d->width < 2 || d->height < 2 || (d->width & 1) || (d->height & 1) || d->fps < 1)
        return ks_fail(KS_ERR_INVALID, "video size %dx%d at %d fps: sizes must be even and at least 2",
                       d->width, d->height, d->fps);
    if (d->encoder) { /* asked for by name: no fallback */
        int err = try_open(d->encoder, d, out);
        if (err < 0) {
            char what[96];
            snprintf(what, sizeof what, "cannot open the %s encoder", d->encoder);
            return ks_venc_fail(KS_ERR_UNSUPPORTED, err, what);
        }
        return KS_OK;
    }
    pthread_mutex_lock(&ks_nvenc_lock);
    if (ks_nvenc_state == 0 && !nvidia_driver_loadable()) ks_nvenc_state = -2;
    int state = ks_nvenc_state;
    if (state >= 0) {
        ks_log_line[0] = '\0';
        atomic_store(&ks_log_capture, 1);
        int err = try_open("h264_nvenc", d, out);
        atomic_store(&ks_log_capture, 0);
        if (err == 0) {
            ks_nvenc_state = 1;
            pthread_mutex_unlock(&ks_nvenc_lock);
            return KS_OK;
        }
        if (state == 0) { /* the first try decides; a later failure (sessions used up) is said every time */
            ks_nvenc_state = -1;
        }
        if (ks_log_line[0]) snprintf(ks_nvenc_reason, sizeof ks_nvenc_reason, "%.120s", ks_log_line);
        else av_strerror(err, ks_nvenc_reason, sizeof ks_nvenc_reason);
    }
    char reason[sizeof ks_nvenc_reason];
    memcpy(reason, ks_nvenc_reason, sizeof reason);
    pthread_mutex_unlock(&ks_nvenc_lock);
    int err = try_open("libx264", d, out);
    if (err < 0) return ks_venc_fail(KS_ERR_UNSUPPORTED, err, "cannot open the libx264 encoder");
    if (notice && notice_len && state != -2)
        snprintf(notice, notice_len, "no NVENC session could be opened (%s); H.264 is encoded with libx264 on the CPU",
                 reason);
    return KS_OK;
}

ks_status ks_venc_frame_alloc(const AVCodecContext *ctx, AVFrame **out)
{
    AVFrame *f = av_frame_alloc();
    if (!f) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory for a video frame");
    f->format = ctx->pix_fmt;
    f->width = ctx->width;
    f->height = ctx->height;
    f->colorspace = ctx->colorspace;
    f->color_range = ctx->color_range;
    int err = av_frame_get_buffer(f, 0);
    if (err < 0) {
        av_frame_free(&f);
        return ks_venc_fail(KS_ERR_OUT_OF_MEMORY, err, "video frame buffers");
    }
    *out = f;
    return KS_OK;
}

ks_status ks_venc_convert_rgba(ks_venc_convert *c, const unsigned char *rgba, int w, int h, int stride,
                               AVFrame *frame)
{
    if (!rgba || w < 1 || h < 1 || stride < 4 * w)
        return ks_fail(KS_ERR_INVALID, "video frame: bad picture %dx%d, %d bytes per row", w, h, stride);
    const int same = w == frame->width && h == frame->height;
    c->sws = sws_getCachedContext(c->sws, w, h, AV_PIX_FMT_RGBA, frame->width, frame->height,
                                  (enum AVPixelFormat)frame->format, same ? SWS_POINT : SWS_BILINEAR, NULL,
                                  NULL, NULL);
    if (!c->sws) return ks_fail(KS_ERR_UNSUPPORTED, "no colour converter from RGBA %dx%d to the video's %dx%d", w, h,
                                frame->width, frame->height);
    int err = av_frame_make_writable(frame);
    if (err < 0) return ks_venc_fail(KS_ERR_OUT_OF_MEMORY, err, "video frame");
    const uint8_t *src[4] = {rgba, NULL, NULL, NULL};
    const int src_stride[4] = {stride, 0, 0, 0};
    sws_scale(c->sws, src, src_stride, 0, h, frame->data, frame->linesize);
    return KS_OK;
}

void ks_venc_convert_free(ks_venc_convert *c)
{
    sws_freeContext(c->sws);
    c->sws = NULL;
}
