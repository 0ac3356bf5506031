/* video/: the low-latency H.264 stream encoder (Annex B, SPS/PPS/IDR first,
 * keyframes on request, decodes back to the right size and colours) and the
 * recorder (MP4/MKV read back through libavformat, temporary name gone,
 * bad names refused, the drop count, a symlink planted beside the file never
 * written through, a replaced file's mode kept). libx264 on the CPU: no GPU needed. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "video/h264_stream.h"
#include "video/recorder.h"

/* Left half red, right half blue, a moving white bar so frames differ. */
static unsigned char *make_picture(int w, int h, int frame)
{
    unsigned char *p = malloc((size_t)w * (size_t)h * 4);
    assert_non_null(p);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            unsigned char *q = p + ((size_t)y * (size_t)w + (size_t)x) * 4;
            const int bar = x >= (frame * 7) % w && x < (frame * 7) % w + 8 && y < h / 8;
            q[0] = bar ? 255 : x < w / 2 ? 220 : 20;
            q[1] = bar ? 255 : 20;
            q[2] = bar ? 255 : x < w / 2 ? 20 : 220;
            q[3] = 255;
        }
    return p;
}

typedef struct nal_list {
    int types[64];
    int n;
} nal_list;

static void collect(void *user, const unsigned char *nal, size_t size)
{
    nal_list *l = user;
    assert_true(size > 0);
    assert_int_equal(nal[0] & 0x80, 0); /* forbidden_zero_bit */
    if (l->n < 64) l->types[l->n++] = nal[0] & 0x1f;
}

static int has_type(const nal_list *l, int t)
{
    for (int i = 0; i < l->n; ++i)
        if (l->types[i] == t) return 1;
    return 0;
}

static void test_annexb_parser(void **state)
{
    (void)state;
    /* SPS (High, level 4.0), PPS, IDR with 4- and 3-byte start codes and trailing zeros */
    const unsigned char au[] = {0, 0, 0, 1, 0x67, 0x64, 0x00, 0x28, 0xac, 0, 0, 1, 0x68, 0xee, 0x3c,
                                0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x00};
    nal_list l = {0};
    ks_h264_each_nal(au, sizeof au, collect, &l);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.types[0], 7);
    assert_int_equal(l.types[1], 8);
    assert_int_equal(l.types[2], 5);
    assert_true(ks_h264_is_keyframe(au, sizeof au));
    char codec[32];
    assert_int_equal(ks_h264_codec_string(au, sizeof au, codec, sizeof codec), KS_OK);
    assert_string_equal(codec, "avc1.640028");
    const unsigned char p_slice[] = {0, 0, 0, 1, 0x41, 0x9a, 0x02};
    assert_false(ks_h264_is_keyframe(p_slice, sizeof p_slice));
    assert_int_not_equal(ks_h264_codec_string(p_slice, sizeof p_slice, codec, sizeof codec), KS_OK);
    assert_false(ks_h264_is_keyframe(NULL, 0));
}

/* Decodes one access unit; returns the frame (caller frees) or NULL when the decoder wants more. */
static AVFrame *decode(AVCodecContext *dec, const unsigned char *data, size_t size)
{
    AVPacket *pkt = av_packet_alloc();
    assert_non_null(pkt);
    assert_int_equal(av_new_packet(pkt, (int)size), 0);
    memcpy(pkt->data, data, size);
    assert_int_equal(avcodec_send_packet(dec, pkt), 0);
    av_packet_free(&pkt);
    AVFrame *f = av_frame_alloc();
    if (avcodec_receive_frame(dec, f) != 0) av_frame_free(&f);
    return f;
}

static void test_stream_encoder(void **state)
{
    (void)state;
    const int w = 322, h = 241; /* odd height: rounded down to even */
    ks_h264_stream_desc d = {0};
    d.width = w;
    d.height = h;
    d.fps = 30;
    d.keyframe_every = 1000;
    d.encoder = "libx264";
    ks_h264_stream *s = NULL;
    char notice[256];
    assert_int_equal(ks_h264_stream_create(&d, &s, notice, sizeof notice), KS_OK);
    assert_string_equal(notice, "");
    assert_string_equal(ks_h264_stream_encoder(s), "libx264");
    int sw, sh;
    ks_h264_stream_size(s, &sw, &sh);
    assert_int_equal(sw, 322);
    assert_int_equal(sh, 240);
    assert_string_equal(ks_h264_stream_codec(s), "");

    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_H264);
    assert_non_null(codec);
    AVCodecContext *dec = avcodec_alloc_context3(codec);
    assert_non_null(dec);
    dec->thread_count = 1; /* one frame in, one frame out */
    assert_int_equal(avcodec_open2(dec, codec, NULL), 0);

    for (int i = 0; i < 12; ++i) {
        if (i == 7) ks_h264_stream_request_keyframe(s);
        unsigned char *pic = make_picture(w, h, i);
        ks_h264_au au;
        assert_int_equal(ks_h264_stream_encode(s, pic, w, h, 4 * w, &au), KS_OK);
        free(pic);
        /* zero latency: every frame gives its own unit at once */
        assert_true(au.size > 0);
        assert_int_equal(au.index, i);
        nal_list l = {0};
        ks_h264_each_nal(au.data, au.size, collect, &l);
        const int want_key = i == 0 || i == 7;
        if (au.keyframe != want_key) fail_msg("frame %d: keyframe %d, expected %d", i, au.keyframe, want_key);
        assert_int_equal(ks_h264_is_keyframe(au.data, au.size), want_key);
        if (want_key) { /* a viewer can join here: SPS and PPS come with the IDR */
            assert_true(has_type(&l, 7));
            assert_true(has_type(&l, 8));
            assert_true(has_type(&l, 5));
        } else {
            assert_false(has_type(&l, 5));
        }
        if (i == 0) {
            const char *c = ks_h264_stream_codec(s);
            assert_int_equal(strlen(c), 11);
            assert_memory_equal(c, "avc1.", 5);
        }
        AVFrame *f = decode(dec, au.data, au.size);
        if (!f) fail_msg("frame %d did not decode at once", i);
        assert_int_equal(f->width, 322);
        assert_int_equal(f->height, 240);
        assert_int_equal(f->format, AV_PIX_FMT_YUV420P);
        /* red on the left: V (Cr) high, U (Cb) low; blue on the right: the reverse */
        const int cy = 200 / 2, lx = 40 / 2, rx = 280 / 2;
        const int u_left = f->data[1][cy * f->linesize[1] + lx], v_left = f->data[2][cy * f->linesize[2] + lx];
        const int u_right = f->data[1][cy * f->linesize[1] + rx], v_right = f->data[2][cy * f->linesize[2] + rx];
        if (!(v_left > 180 && u_left < 128 && u_right > 180 && v_right < 128))
            fail_msg("frame %d: chroma left U %d V %d, right U %d V %d", i, u_left, v_left, u_right, v_right);
        av_frame_free(&f);
    }
    avcodec_free_context(&dec);
    ks_h264_stream_destroy(s);
}

/* Encoding on a thread of its own while another asks for keyframes: every
 * request is honoured by a later frame, and each unit stands on its own. */
typedef struct enc_job {
    ks_h264_stream *s;
    int frames;
    int keys;            /* keyframes seen */
    volatile int done;   /* frames encoded so far (read by the other thread) */
    int failed;
} enc_job;

static void *encode_thread(void *arg)
{
    enc_job *j = arg;
    unsigned char *pic = make_picture(96, 64, 0);
    for (int i = 0; i < j->frames; ++i) {
        ks_h264_au au;
        if (ks_h264_stream_encode(j->s, pic, 96, 64, 96 * 4, &au) != KS_OK || au.size == 0) j->failed = 1;
        j->keys += au.keyframe;
        __atomic_store_n(&j->done, i + 1, __ATOMIC_SEQ_CST);
        nanosleep(&(struct timespec){0, 2000000}, NULL); /* a frame every 2 ms or so: room for the requests */
    }
    free(pic);
    return NULL;
}

static void test_stream_other_thread(void **state)
{
    (void)state;
    ks_h264_stream_desc d = {0};
    d.width = 96;
    d.height = 64;
    d.keyframe_every = 100000;
    d.encoder = "libx264";
    enc_job j = {0};
    j.frames = 60;
    assert_int_equal(ks_h264_stream_create(&d, &j.s, NULL, 0), KS_OK);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, encode_thread, &j), 0);
    /* three requests, each once the encoder has moved on from the last */
    int asked = 0, last = -1;
    while (__atomic_load_n(&j.done, __ATOMIC_SEQ_CST) < j.frames - 2 && asked < 3) {
        const int now = __atomic_load_n(&j.done, __ATOMIC_SEQ_CST);
        if (now > last + 4) {
            ks_h264_stream_request_keyframe(j.s);
            ++asked;
            last = now;
        }
    }
    pthread_join(t, NULL);
    assert_false(j.failed);
    /* the first frame, and one per request (they are frames apart, each at least two before the end) */
    assert_true(asked >= 1);
    if (j.keys != 1 + asked) fail_msg("%d keyframes for %d requests", j.keys, asked);
    ks_h264_stream_destroy(j.s);
}

static void test_stream_bad_input(void **state)
{
    (void)state;
    ks_h264_stream_desc d = {0};
    d.width = 1;
    d.height = 64;
    ks_h264_stream *s = NULL;
    assert_int_equal(ks_h264_stream_create(&d, &s, NULL, 0), KS_ERR_INVALID);
    assert_null(s);
    d.width = 64;
    d.encoder = "no_such_encoder";
    assert_int_equal(ks_h264_stream_create(&d, &s, NULL, 0), KS_ERR_UNSUPPORTED);
    d.encoder = "libx264";
    assert_int_equal(ks_h264_stream_create(&d, &s, NULL, 0), KS_OK);
    ks_h264_au au;
    unsigned char px[4 * 4] = {0};
    assert_int_equal(ks_h264_stream_encode(s, px, 4, 1, 8, &au), KS_ERR_INVALID); /* stride < 4 w */
    assert_int_equal(ks_h264_stream_encode(s, NULL, 4, 1, 16, &au), KS_ERR_INVALID);
    ks_h264_stream_destroy(s);
}

static void tmpdir(char *buf, size_t len)
{
    snprintf(buf, len, "%s/ks_video_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(buf));
}

/* Entries of dir whose name holds needle. */
static int count_named(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, needle)) ++n;
    closedir(d);
    return n;
}

/* Frames, size and codec of a file, read back through libavformat. */
static void probe(const char *path, int *frames, int *w, int *h, int *is_h264)
{
    AVFormatContext *fmt = NULL;
    assert_int_equal(avformat_open_input(&fmt, path, NULL, NULL), 0);
    assert_true(avformat_find_stream_info(fmt, NULL) >= 0);
    assert_int_equal(fmt->nb_streams, 1);
    AVCodecParameters *par = fmt->streams[0]->codecpar;
    *w = par->width;
    *h = par->height;
    *is_h264 = par->codec_id == AV_CODEC_ID_H264;
    AVPacket *pkt = av_packet_alloc();
    int n = 0;
    while (av_read_frame(fmt, pkt) >= 0) {
        ++n;
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    avformat_close_input(&fmt);
    *frames = n;
}

static void record_file(const char *ext)
{
    char dir[512], path[600], tmp[700];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/clip.%s", dir, ext);
    snprintf(tmp, sizeof tmp, "clip.%s.tmp-", ext); /* the temporary's marker */
    ks_recorder_desc d = {0};
    d.path = path;
    d.width = 161; /* rounded down to 160 */
    d.height = 120;
    d.fps = 25;
    d.queue_frames = 64; /* nothing dropped in this test */
    d.encoder = "libx264";
    ks_recorder *r = NULL;
    assert_int_equal(ks_recorder_open(&d, &r, NULL, 0), KS_OK);
    assert_string_equal(ks_recorder_encoder(r), "libx264");
    assert_int_equal(count_named(dir, tmp), 1); /* written under a temporary name beside it */
    assert_int_not_equal(access(path, F_OK), 0);
    for (int i = 0; i < 20; ++i) {
        unsigned char *pic = make_picture(200, 150, i); /* scaled to the video's size */
        int taken = 0;
        assert_int_equal(ks_recorder_push(r, pic, 200, 150, 800, i, &taken), KS_OK);
        assert_int_equal(taken, 1);
        assert_int_equal(ks_recorder_push(r, pic, 200, 150, 800, i, &taken), KS_OK); /* same pts: ignored */
        assert_int_equal(taken, 0);
        free(pic);
    }
    ks_recorder_stats st;
    assert_int_equal(ks_recorder_close(r, &st), KS_OK);
    assert_int_equal(st.frames_written, 20);
    assert_int_equal(st.frames_dropped, 0);
    assert_int_equal(st.frames_pushed, 20);
    assert_true(st.seconds > 0.79 && st.seconds < 0.81);
    assert_int_equal(count_named(dir, tmp), 0);
    int frames, w, h, h264;
    probe(path, &frames, &w, &h, &h264);
    assert_int_equal(frames, 20);
    assert_int_equal(w, 160);
    assert_int_equal(h, 120);
    assert_true(h264);
    unlink(path);
    rmdir(dir);
}

static void test_record_mp4(void **state)
{
    (void)state;
    record_file("mp4");
}

static void test_record_mkv(void **state)
{
    (void)state;
    record_file("MKV");
}

static void test_record_drop_and_abort(void **state)
{
    (void)state;
    char dir[512], path[600];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.mp4", dir);
    ks_recorder_desc d = {0};
    d.path = path;
    d.width = 64;
    d.height = 64;
    d.encoder = "libx264";
    ks_recorder *r = NULL;
    assert_int_equal(ks_recorder_open(&d, &r, NULL, 0), KS_OK);
    assert_int_equal(ks_recorder_fps(r), 60);
    ks_recorder_drop(r, 0);
    ks_recorder_drop(r, 0); /* the same period twice: once */
    ks_recorder_drop(r, 3);
    unsigned char *pic = make_picture(64, 64, 0);
    assert_int_equal(ks_recorder_push(r, pic, 64, 64, 256, 2, NULL), KS_OK); /* behind the clock: ignored */
    assert_int_equal(ks_recorder_push(r, pic, 64, 64, 256, 4, NULL), KS_OK);
    free(pic);
    ks_recorder_abort(r); /* no file, no temporary */
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(count_named(dir, ""), 0);

    assert_int_equal(ks_recorder_open(&d, &r, NULL, 0), KS_OK);
    ks_recorder_drop(r, 0);
    ks_recorder_drop(r, 1);
    pic = make_picture(64, 64, 1);
    assert_int_equal(ks_recorder_push(r, pic, 64, 64, 256, 2, NULL), KS_OK);
    free(pic);
    ks_recorder_stats st;
    assert_int_equal(ks_recorder_close(r, &st), KS_OK);
    assert_int_equal(st.frames_pushed, 3);
    assert_int_equal(st.frames_dropped, 2);
    assert_int_equal(st.frames_written, 1);
    unlink(path);
    rmdir(dir);
}

/* A symlink planted where the recorder's temporary used to go
 * ("<path>.tmp-<pid>"): FFmpeg must not open it by name and write through it;
 * the video is a plain file of its own, and a video recorded over an
 * existing 0600 file stays 0600. */
static void test_record_planted_symlink(void **state)
{
    (void)state;
    char dir[512], path[600], victim[600], planted[700];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/v.mp4", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(planted, sizeof planted, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    assert_int_equal(symlink(victim, planted), 0);
    for (int round = 0; round < 2; ++round) { /* a new file, then one replaced */
        ks_recorder_desc d = {0};
        d.path = path;
        d.width = 64;
        d.height = 48;
        d.fps = 10;
        d.queue_frames = 64;
        d.encoder = "libx264";
        ks_recorder *r = NULL;
        if (ks_recorder_open(&d, &r, NULL, 0) != KS_OK) fail_msg("open: %s", ks_error_message());
        for (int i = 0; i < 5; ++i) {
            unsigned char *pic = make_picture(64, 48, i);
            assert_int_equal(ks_recorder_push(r, pic, 64, 48, 256, i, NULL), KS_OK);
            free(pic);
        }
        ks_recorder_stats st;
        if (ks_recorder_close(r, &st) != KS_OK) fail_msg("close: %s", ks_error_message());
        struct stat sb;
        assert_int_equal(lstat(path, &sb), 0);
        assert_true(S_ISREG(sb.st_mode));
        if (round == 1) assert_int_equal(sb.st_mode & 07777, 0600);
        assert_int_equal(chmod(path, 0600), 0);
        int frames, w, h, h264;
        probe(path, &frames, &w, &h, &h264);
        assert_int_equal(frames, 5);
        assert_int_equal(w, 64);
    }
    f = fopen(victim, "r");
    char text[32] = "";
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "precious\n");
    assert_int_equal(count_named(dir, ".tmp-"), 1); /* the planted link, nothing of ours */
    unlink(planted);
    unlink(victim);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

static void test_record_bad_names(void **state)
{
    (void)state;
    assert_int_equal(ks_recorder_check_name("a.avi"), KS_ERR_INVALID);
    assert_int_equal(ks_recorder_check_name("mp4"), KS_ERR_INVALID);
    assert_int_equal(ks_recorder_check_name("dir/.mp4"), KS_ERR_INVALID);
    assert_int_equal(ks_recorder_check_name(""), KS_ERR_INVALID);
    assert_int_equal(ks_recorder_check_name("x/clip.Mp4"), KS_OK);
    assert_int_equal(ks_recorder_check_path("/nonexistent-ks-folder/a.mp4"), KS_ERR_IO);
    assert_int_equal(ks_recorder_check_path("/etc/hostname/a.mkv"), KS_ERR_IO);
    assert_int_equal(ks_recorder_check_path("a.mkv"), KS_OK);
    struct stat sys;
    if (stat("/sys/kernel", &sys) == 0 && S_ISDIR(sys.st_mode)) /* access() says yes there to root; no file can be made */
        assert_int_equal(ks_recorder_check_path("/sys/kernel/v.mp4"), KS_ERR_IO);
    char dir[512], sub[600];
    tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/x.mp4", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(ks_recorder_check_path(sub), KS_ERR_INVALID); /* a folder named like a video */
    rmdir(sub);
    rmdir(dir);
    ks_recorder_desc d = {0};
    d.path = "/nonexistent-ks-folder/a.mp4";
    d.width = d.height = 64;
    ks_recorder *r = NULL;
    assert_int_not_equal(ks_recorder_open(&d, &r, NULL, 0), KS_OK);
    assert_null(r);
    assert_non_null(strstr(ks_error_message(), "nonexistent-ks-folder"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_annexb_parser),
        cmocka_unit_test(test_stream_encoder),
        cmocka_unit_test(test_stream_other_thread),
        cmocka_unit_test(test_stream_bad_input),
        cmocka_unit_test(test_record_mp4),
        cmocka_unit_test(test_record_mkv),
        cmocka_unit_test(test_record_drop_and_abort),
        cmocka_unit_test(test_record_planted_symlink),
        cmocka_unit_test(test_record_bad_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
