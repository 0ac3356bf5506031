#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavformat/avformat.h>

#include "base/out_file.h"
#include "venc.h"

enum { KS_REC_QUEUE_MAX = 64, KS_REC_IO_BUFFER = 1 << 16 };

/* AVIOContext's write callback took a non-const buffer before libavformat 61. */
#if LIBAVFORMAT_VERSION_MAJOR < 61
typedef uint8_t ks_avio_bytes;
#else
typedef const uint8_t ks_avio_bytes;
#endif

typedef struct ks_rec_slot {
    unsigned char *rgba;
    size_t cap;        /* bytes allocated */
    int w, h, stride;
    long long pts;
} ks_rec_slot;

struct ks_recorder {
    char path[1024];
    ks_out_file *file;             /* the temporary beside path; NULL once committed or removed */
    AVIOContext *io;               /* FFmpeg writes through our descriptor: it never opens a name */
    int fps, width, height;
    AVFormatContext *fmt;
    AVStream *stream;
    AVCodecContext *enc;
    AVFrame *frame;                /* the encoder's input, YUV 4:2:0 */
    AVPacket *pkt;
    ks_venc_convert conv;
    int header_written;

    /* the queue: slots [head, head + count) wait for the worker; the one
     * producer fills slot (head + count) outside the lock, then counts it */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t worker;
    int worker_started;
    ks_rec_slot slots[KS_REC_QUEUE_MAX];
    int nslots, head, count;
    int closing;
    ks_status err;                 /* first failure of the worker; KS_OK while fine */
    char err_text[512];

    long long last_pts;            /* producer side: -1 before the first frame */
    long long pushed, dropped;
    long long written;             /* worker side */
};

static int ext_is(const char *path, const char *ext)
{
    const size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

/* "mp4" / "matroska" from the name; NULL when neither. */
static const char *container_of(const char *path)
{
    if (ext_is(path, ".mp4")) return "mp4";
    if (ext_is(path, ".mkv")) return "matroska";
    return NULL;
}

/* The folder of path exists and takes a file (a real try: access() says yes to root on sysfs). */
static ks_status folder_writable(const char *path)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat sb;
    int e = 0;
    if (stat(dir, &sb) != 0) e = errno;
    else if (!S_ISDIR(sb.st_mode)) e = ENOTDIR;
    else e = ks_out_file_probe(path);
    if (e) return ks_fail(KS_ERR_IO, "cannot write '%s': folder '%s': %s", KS_QUOTED(path), KS_QUOTED(dir), strerror(e));
    return KS_OK;
}

ks_status ks_recorder_check_name(const char *path)
{
    if (!path || !*path) return ks_fail(KS_ERR_INVALID, "empty file name");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!container_of(path) || base[0] == '.')
        return ks_fail(KS_ERR_INVALID, "'%s' must name a .mp4 or .mkv file", KS_QUOTED(path));
    if (strlen(path) >= sizeof ((ks_recorder *)0)->path)
        return ks_fail(KS_ERR_INVALID, "'%.64s...' is too long a file name", KS_QUOTED(path));
    return KS_OK;
}

ks_status ks_recorder_check_path(const char *path)
{
    KS_TRY(ks_recorder_check_name(path));
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) /* the rename at the end would fail */
        return ks_fail(KS_ERR_INVALID, "'%s' is a folder, not a file", KS_QUOTED(path));
    return folder_writable(path);
}

/* ---- the worker ---------------------------------------------------------- */

static void worker_fail(ks_recorder *r, ks_status code, const char *text)
{
    pthread_mutex_lock(&r->lock);
    if (r->err == KS_OK) {
        r->err = code;
        snprintf(r->err_text, sizeof r->err_text, "recording %.200s: %.280s", r->path, text);
    }
    pthread_mutex_unlock(&r->lock);
}

/* Sends frame (NULL: flush) and writes every packet that comes out. */
static ks_status encode_and_write(ks_recorder *r, AVFrame *frame)
{
    int err = avcodec_send_frame(r->enc, frame);
    if (err < 0) return ks_venc_fail(KS_ERR_IO, err, "encoder");
    for (;;) {
        err = avcodec_receive_packet(r->enc, r->pkt);
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return KS_OK;
        if (err < 0) return ks_venc_fail(KS_ERR_IO, err, "encoder");
        if (r->pkt->duration <= 0) r->pkt->duration = 1;
        av_packet_rescale_ts(r->pkt, r->enc->time_base, r->stream->time_base);
        r->pkt->stream_index = r->stream->index;
        err = av_interleaved_write_frame(r->fmt, r->pkt); /* takes the packet's data */
        if (err < 0) return ks_venc_fail(KS_ERR_IO, err, "cannot write the file");
    }
}

static ks_status encode_slot(ks_recorder *r, const ks_rec_slot *s)
{
    KS_TRY(ks_venc_convert_rgba(&r->conv, s->rgba, s->w, s->h, s->stride, r->frame));
    r->frame->pts = s->pts;
    KS_TRY(encode_and_write(r, r->frame));
    ++r->written;
    return KS_OK;
}

static void *worker_main(void *arg)
{
    ks_recorder *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (r->count == 0 && !r->closing) pthread_cond_wait(&r->wake, &r->lock);
        if (r->count == 0) break; /* closing and drained */
        ks_rec_slot *s = &r->slots[r->head];
        const int failed = r->err != KS_OK;
        pthread_mutex_unlock(&r->lock);
        if (!failed && encode_slot(r, s) != KS_OK) worker_fail(r, KS_ERR_IO, ks_error_message());
        pthread_mutex_lock(&r->lock);
        r->head = (r->head + 1) % r->nslots;
        --r->count;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* ---- open / push / close -------------------------------------------------- */

/* ---- the file: an AVIOContext over the temporary's descriptor ------------- */

static int io_write(void *opaque, ks_avio_bytes *buf, int size)
{
    ks_out_file *f = opaque;
    if (ks_out_file_write(f, buf, (size_t)size) != KS_OK) return AVERROR(ks_out_file_error(f));
    return size;
}

static int64_t io_seek(void *opaque, int64_t offset, int whence)
{
    const int fd = ks_out_file_fd(opaque);
    if (whence & AVSEEK_SIZE) {
        struct stat sb;
        return fstat(fd, &sb) == 0 ? (int64_t)sb.st_size : AVERROR(errno);
    }
    const off_t at = lseek(fd, (off_t)offset, whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : (int64_t)at;
}

/* Creates the temporary and the context FFmpeg writes through. */
static ks_status io_open(ks_recorder *r)
{
    KS_TRY(ks_out_file_open(&(ks_out_file_desc){.path = r->path}, &r->file));
    unsigned char *buf = av_malloc(KS_REC_IO_BUFFER);
    if (buf) r->io = avio_alloc_context(buf, KS_REC_IO_BUFFER, 1, r->file, NULL, io_write, io_seek);
    if (!r->io) {
        av_free(buf);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory for the video file's buffer");
    }
    r->fmt->pb = r->io;
    return KS_OK;
}

/* Writes out what the context holds and frees it; its first write error, else 0. */
static int io_close(ks_recorder *r)
{
    if (!r->io) return 0;
    avio_flush(r->io);
    const int err = r->io->error;
    if (r->fmt) r->fmt->pb = NULL;
    av_freep(&r->io->buffer); /* the context's buffer may have been replaced: free the one it holds */
    avio_context_free(&r->io);
    return err;
}

static void free_all(ks_recorder *r)
{
    io_close(r);
    ks_out_file_abort(r->file);
    r->file = NULL;
    if (r->fmt) avformat_free_context(r->fmt);
    avcodec_free_context(&r->enc);
    av_frame_free(&r->frame);
    av_packet_free(&r->pkt);
    ks_venc_convert_free(&r->conv);
    for (int i = 0; i < KS_REC_QUEUE_MAX; ++i) free(r->slots[i].rgba);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
    free(r);
}

static ks_status open_file(ks_recorder *r, const ks_recorder_desc *d, char *notice, size_t notice_len)
{
    int err = avformat_alloc_output_context2(&r->fmt, NULL, container_of(r->path), r->path);
    if (err < 0 || !r->fmt) return ks_venc_fail(KS_ERR_UNSUPPORTED, err, "no muxer for the file");
    ks_venc_desc vd = {0};
    vd.use = KS_VENC_RECORD;
    vd.width = r->width;
    vd.height = r->height;
    vd.fps = r->fps;
    vd.gop = 2 * r->fps; /* a keyframe every 2 s: seeking stays quick */
    vd.encoder = d->encoder;
    vd.preset = d->preset;
    vd.crf = d->crf > 0 ? d->crf : 20;
    vd.global_header = (r->fmt->oformat->flags & AVFMT_GLOBALHEADER) != 0;
    KS_TRY(ks_venc_open(&vd, &r->enc, notice, notice_len));
    r->stream = avformat_new_stream(r->fmt, NULL);
    if (!r->stream) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory for the video stream");
    r->stream->time_base = r->enc->time_base;
    r->stream->avg_frame_rate = r->enc->framerate;
    err = avcodec_parameters_from_context(r->stream->codecpar, r->enc);
    if (err < 0) return ks_venc_fail(KS_ERR_UNSUPPORTED, err, "video stream parameters");
    KS_TRY(ks_venc_frame_alloc(r->enc, &r->frame));
    r->pkt = av_packet_alloc();
    if (!r->pkt) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory for a video packet");
    KS_TRY(io_open(r));
    err = avformat_write_header(r->fmt, NULL);
    if (err < 0) return ks_venc_fail(KS_ERR_IO, err, "cannot write the file header");
    r->header_written = 1;
    return KS_OK;
}

ks_status ks_recorder_open(const ks_recorder_desc *d, ks_recorder **out, char *notice, size_t notice_len)
{
    *out = NULL;
    if (notice && notice_len) notice[0] = '\0';
    KS_TRY(ks_recorder_check_path(d->path));
    if (d->width < 2 || d->height < 2 || d->width > 16384 || d->height > 16384)
        return ks_fail(KS_ERR_INVALID, "video size %dx%d: each side must be 2..16384 pixels", d->width,
                       d->height);
    ks_recorder *r = calloc(1, sizeof *r);
    if (!r) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    r->last_pts = -1;
    r->fps = d->fps > 0 ? d->fps : 60;
    r->width = d->width & ~1;
    r->height = d->height & ~1;
    r->nslots = d->queue_frames > 0 ? d->queue_frames : 4;
    if (r->nslots > KS_REC_QUEUE_MAX) r->nslots = KS_REC_QUEUE_MAX;
    snprintf(r->path, sizeof r->path, "%s", d->path);
    ks_status st = open_file(r, d, notice, notice_len);
    if (st == KS_OK) {
        if (pthread_create(&r->worker, NULL, worker_main, r) != 0)
            st = ks_fail(KS_ERR_OUT_OF_MEMORY, "cannot start the video encoder thread");
        else
            r->worker_started = 1;
    }
    if (st != KS_OK) {
        ks_error_prefix("--record '%s'", KS_QUOTED(d->path));
        ks_recorder_abort(r);
        return st;
    }
    *out = r;
    return KS_OK;
}

int ks_recorder_ready(const ks_recorder *r)
{
    ks_recorder *m = (ks_recorder *)r; /* the lock only */
    pthread_mutex_lock(&m->lock);
    const int ready = m->count < m->nslots;
    pthread_mutex_unlock(&m->lock);
    return ready;
}

ks_status ks_recorder_push(ks_recorder *r, const unsigned char *rgba, int w, int h, int stride, long long pts,
                           int *taken)
{
    if (taken) *taken = 0;
    if (!rgba || w < 1 || h < 1 || stride < 4 * w)
        return ks_fail(KS_ERR_INVALID, "video frame: bad picture %dx%d, %d bytes per row", w, h, stride);
    pthread_mutex_lock(&r->lock);
    if (r->err != KS_OK) {
        ks_status st = ks_fail(r->err, "%s", r->err_text);
        pthread_mutex_unlock(&r->lock);
        return st;
    }
    if (pts <= r->last_pts) {
        pthread_mutex_unlock(&r->lock);
        return KS_OK;
    }
    ++r->pushed;
    if (r->count == r->nslots) { /* the encoder is behind: this frame is dropped, the clock goes on */
        ++r->dropped;
        r->last_pts = pts;
        pthread_mutex_unlock(&r->lock);
        return KS_OK;
    }
    ks_rec_slot *s = &r->slots[(r->head + r->count) % r->nslots];
    pthread_mutex_unlock(&r->lock);

    const size_t row = (size_t)w * 4, need = row * (size_t)h;
    if (s->cap < need) {
        unsigned char *p = realloc(s->rgba, need);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for a video frame");
        s->rgba = p;
        s->cap = need;
    }
    for (int y = 0; y < h; ++y) memcpy(s->rgba + (size_t)y * row, rgba + (size_t)y * (size_t)stride, row);
    s->w = w;
    s->h = h;
    s->stride = (int)row;
    s->pts = pts;

    pthread_mutex_lock(&r->lock);
    ++r->count;
    r->last_pts = pts;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    if (taken) *taken = 1;
    return KS_OK;
}

void ks_recorder_drop(ks_recorder *r, long long pts)
{
    pthread_mutex_lock(&r->lock);
    if (pts > r->last_pts) {
        ++r->pushed;
        ++r->dropped;
        r->last_pts = pts;
    }
    pthread_mutex_unlock(&r->lock);
}

static void stop_worker(ks_recorder *r)
{
    if (!r->worker_started) return;
    pthread_mutex_lock(&r->lock);
    r->closing = 1;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->worker, NULL);
    r->worker_started = 0;
}

ks_status ks_recorder_close(ks_recorder *r, ks_recorder_stats *stats)
{
    if (stats) memset(stats, 0, sizeof *stats);
    if (!r) return KS_OK;
    stop_worker(r);
    ks_status st = KS_OK;
    if (r->err != KS_OK) st = ks_fail(r->err, "%s", r->err_text);
    if (st == KS_OK) {
        st = encode_and_write(r, NULL); /* flush: the frames the encoder still holds */
        if (st == KS_OK) {
            int err = av_write_trailer(r->fmt);
            if (err < 0) st = ks_venc_fail(KS_ERR_IO, err, "cannot write the file's end");
        }
        const int err = io_close(r);
        if (st == KS_OK && err < 0) st = ks_venc_fail(KS_ERR_IO, err, "cannot write the file");
        if (st == KS_OK) st = ks_out_file_commit(r->file); /* renamed into place, or removed */
        else ks_out_file_abort(r->file);
        r->file = NULL;
        if (st != KS_OK) ks_error_prefix("recording '%s'", KS_QUOTED(r->path));
    }
    if (stats) {
        stats->frames_pushed = r->pushed;
        stats->frames_written = r->written;
        stats->frames_dropped = r->dropped;
        stats->seconds = r->last_pts >= 0 ? (double)(r->last_pts + 1) / r->fps : 0.0;
    }
    free_all(r); /* after a failure before the trailer: removes the temporary */
    return st;
}

void ks_recorder_abort(ks_recorder *r)
{
    if (!r) return;
    stop_worker(r);
    free_all(r); /* the temporary is removed */
}

const char *ks_recorder_path(const ks_recorder *r)
{
    return r->path;
}

const char *ks_recorder_encoder(const ks_recorder *r)
{
    return r->enc->codec->name;
}

void ks_recorder_size(const ks_recorder *r, int *w, int *h)
{
    *w = r->width;
    *h = r->height;
}

int ks_recorder_fps(const ks_recorder *r)
{
    return r->fps;
}
