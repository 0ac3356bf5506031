/* serve/: the pieces without a network: [ADDR:]PORT parsing and the token
 * rules, key names, the bounded input queue, the frame hub's references, and
 * the JPEG encoder (decoded back with libjpeg-turbo and compared); and the
 * kernel editor's routes on a real server (a fake editor behind them, plain
 * sockets in front). The request decisions, framing and WebSocket input are
 * in test_serve_request.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <turbojpeg.h>

#include "render/window.h"
#include "serve/frame_encoder.h"
#include "serve/frame_hub.h"
#include "serve/input_queue.h"
#include "serve/request.h"
#include "serve/serve_auth.h"
#include "serve/serve_keys.h"
#include "serve/server.h"
#include "serve/state_json.h"
#include "tests/test_util.h"

static void test_listen(void **state)
{
    (void)state;
    char addr[KS_SERVE_ADDR_MAX];
    int port = -1;
    assert_int_equal(ks_serve_parse_listen("8080", addr, &port), KS_OK);
    assert_string_equal(addr, "127.0.0.1");
    assert_int_equal(port, 8080);
    assert_int_equal(ks_serve_parse_listen("0.0.0.0:0", addr, &port), KS_OK);
    assert_string_equal(addr, "0.0.0.0");
    assert_int_equal(port, 0);
    assert_int_equal(ks_serve_parse_listen("[::1]:9000", addr, &port), KS_OK);
    assert_string_equal(addr, "::1");
    assert_int_equal(port, 9000);
    const char *bad[] = {"", "x", "65536", "-1", "1.2.3.4:", ":80", "a:b:80", "[::1]80", "[]:80", "ho st:80", "80x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        assert_int_equal(ks_serve_parse_listen(bad[i], addr, &port), KS_ERR_INVALID);
    assert_true(ks_serve_addr_is_loopback("127.0.0.1"));
    assert_true(ks_serve_addr_is_loopback("::1"));
    assert_true(ks_serve_addr_is_loopback("localhost"));
    assert_false(ks_serve_addr_is_loopback("0.0.0.0"));
    assert_false(ks_serve_addr_is_loopback("192.168.1.2"));
}

static void test_tokens(void **state)
{
    (void)state;
    char t1[64], t2[64];
    assert_int_equal(ks_serve_make_token(t1, sizeof t1), KS_OK);
    assert_int_equal(ks_serve_make_token(t2, sizeof t2), KS_OK);
    assert_int_equal(strlen(t1), 32);
    assert_string_not_equal(t1, t2);
    assert_int_equal(ks_serve_check_token_text(t1), KS_OK);
    assert_int_equal(ks_serve_check_token_text("short"), KS_ERR_INVALID);
    assert_int_equal(ks_serve_check_token_text("has space in it"), KS_ERR_INVALID);
    assert_int_equal(ks_serve_check_token_text("amp&ersand12"), KS_ERR_INVALID);
    assert_true(ks_serve_token_matches("abcdefgh", "abcdefgh"));
    assert_false(ks_serve_token_matches("abcdefgh", "abcdefg"));
    assert_false(ks_serve_token_matches("abcdefgh", "abcdefghi"));
    assert_false(ks_serve_token_matches("abcdefgh", NULL));
    assert_false(ks_serve_token_matches("", ""));
}

static void test_keys(void **state)
{
    (void)state;
    int shift = 0;
    assert_int_equal(ks_serve_key_from_name("space", &shift), KS_KEY_SPACE);
    assert_int_equal(ks_serve_key_from_name("tab", &shift), KS_KEY_TAB);
    assert_int_equal(ks_serve_key_from_name("m", &shift), 'M');
    assert_int_equal(ks_serve_key_from_name("right", &shift), KS_KEY_RIGHT);
    assert_int_equal(ks_serve_key_from_name("page_down", &shift), KS_KEY_PAGE_DOWN);
    assert_int_equal(ks_serve_key_from_name("plus", &shift), KS_KEY_PLUS);
    assert_int_equal(shift, 1);
    assert_int_equal(ks_serve_key_from_name("M", &shift), 0); /* lower case only */
    assert_int_equal(ks_serve_key_from_name("", &shift), 0);
    assert_int_equal(ks_serve_key_from_name("spacebar", &shift), 0);
    assert_int_equal(ks_serve_key_from_name(NULL, &shift), 0);
    for (int k = KS_KEY_ESCAPE; k <= KS_KEY_F1; ++k) { /* every name goes both ways */
        const char *name = ks_serve_key_name(k);
        assert_non_null(name);
        assert_int_equal(ks_serve_key_from_name(name, &shift), k);
    }
    assert_string_equal(ks_serve_key_name('X'), "x");
}

static void test_input_queue(void **state)
{
    (void)state;
    ks_input_queue *q = NULL;
    assert_int_equal(ks_input_queue_create(&q), KS_OK);
    ks_input_event ev = {0};
    ev.type = KS_INPUT_KEY;
    int queued = 0;
    for (int i = 0; i < KS_INPUT_QUEUE_CAP + 50; ++i) {
        ev.key = i;
        queued += ks_input_queue_push(q, &ev) == 0;
    }
    assert_int_equal(queued, KS_INPUT_QUEUE_CAP); /* bounded: the rest is dropped */
    for (int i = 0; i < KS_INPUT_QUEUE_CAP; ++i) {
        assert_int_equal(ks_input_queue_pop(q, &ev), 1);
        assert_int_equal(ev.key, i); /* oldest first */
    }
    assert_int_equal(ks_input_queue_pop(q, &ev), 0);
    ks_input_queue_destroy(q);
}

static void *push_one(void *arg)
{
    const ks_input_event ev = {.type = KS_INPUT_KEY, .key = 'N'};
    ks_input_queue_push(arg, &ev);
    return NULL;
}

/* The paused live loop's wait: it ends when another thread queues an event
 * (which stays queued), and says 0 when nothing came. */
static void test_input_queue_wait(void **state)
{
    (void)state;
    ks_input_queue *q = NULL;
    assert_int_equal(ks_input_queue_create(&q), KS_OK);
    assert_int_equal(ks_input_queue_wait(q, 0.01), 0);
    assert_int_equal(ks_input_queue_wait(q, 0.0), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, push_one, q), 0);
    while (!ks_input_queue_wait(q, 1.0)) {} /* a loaded machine may take a while to run the thread */
    pthread_join(t, NULL);
    ks_input_event ev;
    assert_int_equal(ks_input_queue_wait(q, 0.0), 1); /* still queued */
    assert_int_equal(ks_input_queue_pop(q, &ev), 1);
    assert_int_equal(ev.key, 'N');
    assert_int_equal(ks_input_queue_wait(q, 0.0), 0);
    ks_input_queue_destroy(q);
}

static void test_hub(void **state)
{
    (void)state;
    const long base = ks_frame_hub_live_items();
    ks_frame_hub *h = NULL;
    assert_int_equal(ks_frame_hub_create(&h), KS_OK);
    assert_null(ks_frame_hub_get(h, KS_HUB_JPEG));
    ks_hub_item *a = ks_hub_item_new(10), *b = ks_hub_item_new(20);
    ks_frame_hub_put(h, KS_HUB_JPEG, a);
    ks_hub_item *held = ks_frame_hub_get(h, KS_HUB_JPEG); /* a client sending a */
    assert_ptr_equal(held, a);
    ks_frame_hub_put(h, KS_HUB_JPEG, b); /* newest wins; a lives while held */
    assert_int_equal(ks_frame_hub_live_items() - base, 2);
    assert_int_equal(ks_frame_hub_seq(h, KS_HUB_JPEG), 2);
    ks_hub_item_unref(held);
    assert_int_equal(ks_frame_hub_live_items() - base, 1);
    for (int i = 0; i < 1000; ++i) ks_frame_hub_put(h, KS_HUB_STATE, ks_hub_item_new(100));
    assert_int_equal(ks_frame_hub_live_items() - base, 2);
    ks_frame_hub_destroy(h);
    assert_int_equal(ks_frame_hub_live_items(), base);
}

static void test_jpeg(void **state)
{
    (void)state;
    const int w = 96, h = 64;
    unsigned char *rgba = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; ++y) /* bottom-up rows: row 0 is the bottom */
        for (int x = 0; x < w; ++x) {
            unsigned char *p = rgba + ((size_t)y * w + x) * 4;
            p[0] = (unsigned char)(x * 255 / (w - 1));
            p[1] = (unsigned char)(y * 255 / (h - 1));
            p[2] = 128;
            p[3] = 255;
        }
    ks_frame_encoder *e = NULL;
    assert_int_equal(ks_frame_encoder_jpeg_create(&(ks_frame_encoder_jpeg_desc){.quality = 90}, &e), KS_OK);
    assert_int_equal(e->kind, KS_FRAME_JPEG);
    ks_byte_buf out = {0};
    int key = 0;
    const ks_frame_image img = {rgba, w, h, (size_t)w * 4, 1};
    assert_int_equal(e->encode(e, &img, &out, &key), KS_OK);
    assert_int_equal(key, 1);
    assert_true(out.size > 4);
    assert_int_equal(out.data[0], 0xFF); /* SOI ... EOI */
    assert_int_equal(out.data[1], 0xD8);
    assert_int_equal(out.data[out.size - 2], 0xFF);
    assert_int_equal(out.data[out.size - 1], 0xD9);
    tjhandle d = tjInitDecompress();
    int dw = 0, dh = 0, sub = 0, cs = 0;
    assert_int_equal(tjDecompressHeader3(d, out.data, out.size, &dw, &dh, &sub, &cs), 0);
    assert_int_equal(dw, w);
    assert_int_equal(dh, h);
    unsigned char *back = malloc((size_t)w * h * 4);
    assert_int_equal(tjDecompress2(d, out.data, out.size, back, w, 0, h, TJPF_RGBA, 0), 0);
    /* top row of the JPEG = last row in memory: green high; red grows to the right */
    double err = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                err += abs((int)back[((size_t)y * w + x) * 4 + c] - (int)rgba[((size_t)(h - 1 - y) * w + x) * 4 + c]);
    assert_true(err / (w * h * 3) < 4.0);
    const ks_frame_image bad = {rgba, 0, h, 0, 0};
    assert_int_equal(e->encode(e, &bad, &out, &key), KS_ERR_INVALID);
    ks_frame_encoder *none = NULL;
    assert_int_equal(ks_frame_encoder_jpeg_create(&(ks_frame_encoder_jpeg_desc){.quality = 101}, &none), KS_ERR_INVALID);
    assert_null(none);
    assert_int_equal(ks_frame_encoder_jpeg_create(&(ks_frame_encoder_jpeg_desc){.quality = -1}, &none), KS_ERR_INVALID);
    assert_null(none);
    assert_int_equal(ks_frame_encoder_nvjpeg_create(NULL, &none), KS_ERR_INVALID); /* the size is required */
    assert_null(none);
    /* H.264: a rate out of range is refused before any encoder opens, in every build */
    assert_int_equal(ks_frame_encoder_h264_create(&(ks_frame_encoder_h264_desc){.fps = -1}, &none), KS_ERR_INVALID);
    assert_null(none);
    assert_int_equal(ks_frame_encoder_h264_create(NULL, NULL), KS_ERR_INVALID);
    /* quality 0 (and a NULL desc): the default, byte for byte the same frame as quality 80 */
    ks_frame_encoder *q0 = NULL, *q80 = NULL, *qnull = NULL;
    assert_int_equal(ks_frame_encoder_jpeg_create(&(ks_frame_encoder_jpeg_desc){0}, &q0), KS_OK);
    assert_int_equal(ks_frame_encoder_jpeg_create(&(ks_frame_encoder_jpeg_desc){.quality = KS_FRAME_JPEG_QUALITY_DEFAULT},
                                                  &q80), KS_OK);
    assert_int_equal(ks_frame_encoder_jpeg_create(NULL, &qnull), KS_OK);
    ks_byte_buf b0 = {0}, b80 = {0}, bnull = {0}, b90 = {0};
    assert_int_equal(q0->encode(q0, &img, &b0, &key), KS_OK);
    assert_int_equal(q80->encode(q80, &img, &b80, &key), KS_OK);
    assert_int_equal(qnull->encode(qnull, &img, &bnull, &key), KS_OK);
    assert_int_equal(e->encode(e, &img, &b90, &key), KS_OK);
    assert_int_equal(b0.size, b80.size);
    assert_memory_equal(b0.data, b80.data, b0.size);
    assert_int_equal(bnull.size, b80.size);
    assert_memory_equal(bnull.data, b80.data, bnull.size);
    assert_true(b90.size != b80.size || memcmp(b90.data, b80.data, b80.size) != 0); /* quality does reach the encoder */
    ks_byte_buf_free(&b0);
    ks_byte_buf_free(&b80);
    ks_byte_buf_free(&bnull);
    ks_byte_buf_free(&b90);
    ks_frame_encoder_destroy(q0);
    ks_frame_encoder_destroy(q80);
    ks_frame_encoder_destroy(qnull);
    tjDestroy(d);
    free(back);
    ks_byte_buf_free(&out);
    free(rgba);
    ks_frame_encoder_destroy(e);
}

/* The pages' report spliced into the state document: valid JSON, and nothing changed when it does not fit. */
static void test_state_viewer(void **state)
{
    (void)state;
    char buf[128] = "{\"scene\":\"spheres\"}";
    size_t len = strlen(buf);
    assert_int_equal(ks_serve_state_json_viewer(buf, sizeof buf, &len, 59.5, "h\"264", 3), KS_OK);
    assert_string_equal(buf, "{\"scene\":\"spheres\",\"viewer_fps\":59.5,\"viewer_codec\":\"h\\\"264\",\"viewer_reports\":3}");
    assert_int_equal(len, strlen(buf));
    char small[40] = "{\"scene\":\"spheres\"}";
    len = strlen(small);
    assert_int_equal(ks_serve_state_json_viewer(small, sizeof small, &len, 1.0, "jpeg", 1), KS_ERR_INVALID);
    assert_string_equal(small, "{\"scene\":\"spheres\"}");
    assert_int_equal(len, strlen(small));
    char bad[16] = "[1,2]";
    len = strlen(bad);
    assert_int_equal(ks_serve_state_json_viewer(bad, sizeof bad, &len, 1.0, "jpeg", 1), KS_ERR_INVALID);
    char nan[128] = "{}";
    len = 2;
    assert_int_equal(ks_serve_state_json_viewer(nan, sizeof nan, &len, -4.0, NULL, 0), KS_OK);
    assert_string_equal(nan, "{\"viewer_fps\":0,\"viewer_codec\":\"\",\"viewer_reports\":0}");
}

/* issue 21, defect 8: "localhost" is loopback, as serve_auth.h says, and can be listened on */
static void test_serve_localhost(void **state)
{
    (void)state;
    char addr[KS_SERVE_ADDR_MAX];
    int port = -1;
    assert_int_equal(ks_serve_parse_listen("localhost:0", addr, &port), KS_OK);
    ks_server_desc d = {0};
    d.addr = addr;
    d.port = port;
    ks_server *s = NULL;
    assert_int_equal(ks_server_create(&d, &s), KS_OK);
    assert_true(ks_server_port(s) > 0);
    assert_non_null(strstr(ks_server_url(s), "http://127.0.0.1:"));
    ks_server_destroy(s);
}

/* A fake editor: its document, and what it was given. */
typedef struct fake_editor {
    char saved[KS_REQ_SOURCE_MAX + 1];
    size_t saved_len;
    int saves;
    int busy;
} fake_editor;

static size_t fake_describe(void *user, char *buf, size_t cap)
{
    const fake_editor *f = user;
    return (size_t)snprintf(buf, cap, "{\"file\":\"mine.cu\",\"saves\":%d}", f->saves);
}

static unsigned fake_submit(void *user, const char *src, size_t len, char *msg, size_t cap)
{
    fake_editor *f = user;
    if (f->busy) {
        snprintf(msg, cap, "a build is running; save again when it is done");
        return 409;
    }
    memcpy(f->saved, src, len);
    f->saved_len = len;
    ++f->saves;
    return 0;
}

static int http(int port, const char *method, const char *target, const char *body, size_t body_len, int send_len,
                char *answer, size_t cap)
{
    const int status = ks_test_http(port, method, target, body, body_len, send_len, answer, cap);
    assert_true(status > 0);
    return status;
}

static void test_kernel_editor_server(void **state)
{
    (void)state;
    static fake_editor f;
    memset(&f, 0, sizeof f);
    const ks_server_editor ed = {&f, fake_describe, fake_submit};
    ks_server_desc d = {0};
    d.token = "sesame-1234";
    d.editor = &ed;
    d.codemirror_dir = "/nonexistent-codemirror"; /* the plain text area: no /editor.js */
    ks_server *s = NULL;
    assert_int_equal(ks_server_create(&d, &s), KS_OK);
    const int port = ks_server_port(s);
    static char answer[KS_REQ_SOURCE_MAX + 4096], big[KS_REQ_SOURCE_MAX + 2];
    assert_int_equal(http(port, "GET", "/kernel?token=sesame-1234", NULL, 0, 0, answer, sizeof answer), 200);
    assert_string_equal(answer, "{\"file\":\"mine.cu\",\"saves\":0}");
    assert_int_equal(http(port, "GET", "/kernel", NULL, 0, 0, answer, sizeof answer), 403);
    assert_int_equal(http(port, "GET", "/editor.js?token=sesame-1234", NULL, 0, 0, answer, sizeof answer), 404);
    const char src[] = "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz) {}\n";
    assert_int_equal(http(port, "POST", "/kernel?token=sesame-1234", src, sizeof src - 1, 1, answer, sizeof answer), 202);
    assert_int_equal(f.saves, 1);
    assert_int_equal(f.saved_len, sizeof src - 1);
    assert_memory_equal(f.saved, src, sizeof src - 1);
    /* the largest source arrives whole; one byte more is refused before anything is taken */
    for (size_t i = 0; i < sizeof big; ++i) big[i] = (char)('a' + i % 26);
    assert_int_equal(http(port, "POST", "/kernel?token=sesame-1234", big, KS_REQ_SOURCE_MAX, 1, answer, sizeof answer),
                     202);
    assert_int_equal(f.saved_len, KS_REQ_SOURCE_MAX);
    assert_memory_equal(f.saved, big, KS_REQ_SOURCE_MAX);
    assert_int_equal(http(port, "POST", "/kernel?token=sesame-1234", big, KS_REQ_SOURCE_MAX + 1, 1, answer,
                          sizeof answer),
                     413);
    assert_int_equal(f.saves, 2);
    /* a NUL byte, a build running, no token: refused, nothing taken */
    assert_int_equal(http(port, "POST", "/kernel?token=sesame-1234", "a\0b", 3, 1, answer, sizeof answer), 400);
    f.busy = 1;
    assert_int_equal(http(port, "POST", "/kernel?token=sesame-1234", src, sizeof src - 1, 1, answer, sizeof answer), 409);
    assert_non_null(strstr(answer, "a build is running"));
    f.busy = 0;
    assert_int_equal(http(port, "POST", "/kernel", src, sizeof src - 1, 1, answer, sizeof answer), 403);
    assert_int_equal(f.saves, 2);
    assert_int_equal(http(port, "GET", "/kernel?token=sesame-1234", NULL, 0, 0, answer, sizeof answer), 200);
    assert_non_null(strstr(answer, "\"saves\":2"));
    ks_server_destroy(s);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listen),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_input_queue),
        cmocka_unit_test(test_input_queue_wait),
        cmocka_unit_test(test_hub),
        cmocka_unit_test(test_jpeg),
        cmocka_unit_test(test_state_viewer),
        cmocka_unit_test(test_serve_localhost),
        cmocka_unit_test(test_kernel_editor_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
