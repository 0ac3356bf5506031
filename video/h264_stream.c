#include "h264_stream.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "venc.h"

struct ks_h264_stream {
    AVCodecContext *enc;
    AVFrame *frame;
    AVPacket *pkt;
    ks_venc_convert conv;
    atomic_int want_key;  /* set by any thread, taken by encode */
    long long next_index;
    unsigned char *out;   /* the last access unit (the packets of one frame) */
    size_t out_size, out_cap;
    char codec[32];
};

/* ---- Annex B ------------------------------------------------------------- */

/* Offset of the next start code (00 00 01, or 00 00 00 01) at or after i, and
 * its length in *sc; size when there is none. */
static size_t next_start(const unsigned char *p, size_t size, size_t i, size_t *sc)
{
    for (; i + 3 <= size; ++i) {
        if (p[i] != 0 || p[i + 1] != 0) continue;
        if (p[i + 2] == 1) {
            *sc = 3;
            return i;
        }
        if (i + 4 <= size && p[i + 2] == 0 && p[i + 3] == 1) {
            *sc = 4;
            return i;
        }
    }
    *sc = 0;
    return size;
}

void ks_h264_each_nal(const unsigned char *au, size_t size, ks_h264_nal_fn fn, void *user)
{
    size_t sc = 0;
    size_t at = next_start(au, size, 0, &sc);
    while (at < size) {
        const size_t begin = at + sc;
        size_t sc_next = 0;
        size_t end = next_start(au, size, begin, &sc_next);
        size_t stop = end;
        /* a NAL never ends in a zero byte (its stop bit): zeros there are padding */
        while (stop > begin && au[stop - 1] == 0) --stop;
        if (stop > begin) fn(user, au + begin, stop - begin);
        at = end;
        sc = sc_next;
    }
}

static void find_idr(void *user, const unsigned char *nal, size_t size)
{
    if (size > 0 && (nal[0] & 0x1f) == 5) *(int *)user = 1;
}

int ks_h264_is_keyframe(const unsigned char *au, size_t size)
{
    int idr = 0;
    ks_h264_each_nal(au, size, find_idr, &idr);
    return idr;
}

typedef struct ks_sps_find {
    int found;
    unsigned char profile, constraints, level;
} ks_sps_find;

static void find_sps(void *user, const unsigned char *nal, size_t size)
{
    ks_sps_find *f = user;
    if (f->found || size < 4 || (nal[0] & 0x1f) != 7) return;
    /* profile_idc, the constraint_set flags and level_idc are the SPS's first
     * three bytes; none of them can hold an emulation-prevention byte */
    f->profile = nal[1];
    f->constraints = nal[2];
    f->level = nal[3];
    f->found = 1;
}

ks_status ks_h264_codec_string(const unsigned char *au, size_t size, char *buf, size_t len)
{
    ks_sps_find f = {0};
    ks_h264_each_nal(au, size, find_sps, &f);
    if (!f.found) return ks_fail(KS_ERR_PARSE, "no H.264 sequence parameter set in %zu bytes", size);
    snprintf(buf, len, "avc1.%02X%02X%02X", f.profile, f.constraints, f.level);
    return KS_OK;
}

/* ---- the encoder --------------------------------------------------------- */

ks_status ks_h264_stream_create(const ks_h264_stream_desc *d, ks_h264_stream **out, char *notice,
                                size_t notice_len)
{
    *out = NULL;
    if (notice && notice_len) notice[0] = '\0';
    if (d->width < 2 || d->height < 2 || d->width > 16384 || d->height > 16384)
        return ks_fail(KS_ERR_INVALID, "H.264 stream size %dx%d: each side must be 2..16384 pixels", d->width,
                       d->height);
    ks_h264_stream *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    ks_venc_desc vd = {0};
    vd.use = KS_VENC_STREAM;
    vd.width = d->width & ~1;
    vd.height = d->height & ~1;
    vd.fps = d->fps > 0 ? d->fps : 60;
    vd.gop = d->keyframe_every > 0 ? d->keyframe_every : 2 * vd.fps;
    vd.encoder = d->encoder;
    vd.preset = "ultrafast"; /* with zerolatency: the encode stays well under a frame at 1080p */
    vd.crf = d->crf > 0 ? d->crf : 23;
    vd.global_header = 0;    /* SPS/PPS in-band: every keyframe stands alone */
    ks_status st = ks_venc_open(&vd, &s->enc, notice, notice_len);
    if (st == KS_OK) st = ks_venc_frame_alloc(s->enc, &s->frame);
    if (st == KS_OK && !(s->pkt = av_packet_alloc()))
        st = ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory for a video packet");
    if (st != KS_OK) {
        ks_h264_stream_destroy(s);
        return st;
    }
    atomic_init(&s->want_key, 0);
    *out = s;
    return KS_OK;
}

void ks_h264_stream_destroy(ks_h264_stream *s)
{
    if (!s) return;
    avcodec_free_context(&s->enc);
    av_frame_free(&s->frame);
    av_packet_free(&s->pkt);
    ks_venc_convert_free(&s->conv);
    free(s->out);
    free(s);
}

void ks_h264_stream_request_keyframe(ks_h264_stream *s)
{
    atomic_store(&s->want_key, 1);
}

static ks_status append_out(ks_h264_stream *s, const unsigned char *p, size_t n)
{
    if (s->out_size + n > s->out_cap) {
        size_t cap = s->out_cap ? s->out_cap : 65536;
        while (cap < s->out_size + n) cap *= 2;
        unsigned char *q = realloc(s->out, cap);
        if (!q) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for an H.264 frame");
        s->out = q;
        s->out_cap = cap;
    }
    memcpy(s->out + s->out_size, p, n);
    s->out_size += n;
    return KS_OK;
}

ks_status ks_h264_stream_encode(ks_h264_stream *s, const unsigned char *rgba, int w, int h, int stride,
                                ks_h264_au *au)
{
    memset(au, 0, sizeof *au);
    KS_TRY(ks_venc_convert_rgba(&s->conv, rgba, w, h, stride, s->frame));
    const long long index = s->next_index++;
    s->frame->pts = index;
    s->frame->pict_type = atomic_exchange(&s->want_key, 0) ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
    int err = avcodec_send_frame(s->enc, s->frame);
    if (err < 0) return ks_venc_fail(KS_ERR_IO, err, "H.264 encoder");
    s->out_size = 0;
    int key = 0;
    for (;;) {
        err = avcodec_receive_packet(s->enc, s->pkt);
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) break;
        if (err < 0) return ks_venc_fail(KS_ERR_IO, err, "H.264 encoder");
        if (s->pkt->flags & AV_PKT_FLAG_KEY) key = 1;
        ks_status st = append_out(s, s->pkt->data, (size_t)s->pkt->size);
        av_packet_unref(s->pkt);
        KS_TRY(st);
    }
    au->data = s->out;
    au->size = s->out_size;
    au->keyframe = key || (s->out_size && ks_h264_is_keyframe(s->out, s->out_size));
    au->index = index;
    if (au->keyframe && !s->codec[0]) ks_h264_codec_string(s->out, s->out_size, s->codec, sizeof s->codec);
    return KS_OK;
}

const char *ks_h264_stream_codec(const ks_h264_stream *s)
{
    return s->codec;
}

const char *ks_h264_stream_encoder(const ks_h264_stream *s)
{
    return s->enc->codec->name;
}

void ks_h264_stream_size(const ks_h264_stream *s, int *w, int *h)
{
    *w = s->enc->width;
    *h = s->enc->height;
}
