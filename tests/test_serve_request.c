/* serve/request.h, the pure functions the server acts on: the decisions
 * (Host and Origin, POST bodies, methods, the kernel editor's routes), the
 * framing of a connection's bytes into heads and bodies, the head's parser,
 * WebSocket frames and input messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/window.h"
#include "serve/request.h"
#include "serve/serve_keys.h"

/* A request to 127.0.0.1:8000 from our own page, as a browser sends it. */
static ks_req req_of(ks_req_method m, const char *path, const char *arg)
{
    ks_req r;
    memset(&r, 0, sizeof r);
    r.method = m;
    r.path = path;
    if (arg) r.args[r.nargs++] = arg;
    r.host = "127.0.0.1:8000";
    r.addr = "127.0.0.1";
    r.port = 8000;
    return r;
}

static unsigned decide(const ks_req *r)
{
    ks_req_answer a;
    ks_req_decide(r, &a);
    return a.status;
}

/* issue 21, defect 1: a foreign Origin may not act, a foreign Host may not read */
static void test_origin_host(void **state)
{
    (void)state;
    ks_req r = req_of(KS_REQ_POST, "/key", "k=space");
    assert_int_equal(decide(&r), 204);
    r.origin = "http://evil.example";
    assert_int_equal(decide(&r), 403);
    r.origin = "null";
    assert_int_equal(decide(&r), 403);
    r.origin = "http://127.0.0.1:8000";
    assert_int_equal(decide(&r), 204);
    r.origin = "http://localhost:8000";
    assert_int_equal(decide(&r), 204);
    r.origin = "http://127.0.0.1:8001";
    assert_int_equal(decide(&r), 403);
    r.origin = "http://127.0.0.1:8000.evil.example";
    assert_int_equal(decide(&r), 403);
    ks_req u = req_of(KS_REQ_GET, "/ws", NULL);
    u.upgrade = 1;
    u.ws_key = "dGhlIHNhbXBsZSBub25jZQ==";
    u.ws_version = "13";
    assert_int_equal(decide(&u), 101);
    u.origin = "http://evil.example";
    assert_int_equal(decide(&u), 403);
    ks_req g = req_of(KS_REQ_GET, "/state.json", NULL);
    assert_int_equal(decide(&g), 200);
    g.origin = "http://evil.example"; /* reading needs the Host check, not the Origin one */
    assert_int_equal(decide(&g), 200);
    const char *bad_hosts[] = {"evil.example", "evil.example:8000", "127.0.0.1", "127.0.0.1:80", "127.0.0.1:8000x",
                               "localhost.evil.example:8000", "", "127.0.0.1:8000,evil.example"};
    for (size_t i = 0; i < sizeof bad_hosts / sizeof bad_hosts[0]; ++i) {
        g.host = bad_hosts[i];
        assert_int_equal(decide(&g), 421);
    }
    g.host = NULL;
    assert_int_equal(decide(&g), 400);
    g.host = "LOCALHOST:8000";
    assert_int_equal(decide(&g), 200);
    assert_true(ks_req_host_ok("[::1]:9000", "::1", 9000));
    assert_false(ks_req_host_ok("[::2]:9000", "::1", 9000));
    assert_true(ks_req_host_ok("anything:1", "0.0.0.0", 9000)); /* a wildcard address: the token guards it */
}

/* issue 21, defects 2 and 3: a body is read before anything is done; bad lengths refused */
static void test_bodies(void **state)
{
    (void)state;
    ks_req r = req_of(KS_REQ_POST, "/key", "k=space");
    ks_req_answer a;
    const char *bad[] = {"-1", "abc", "1,1", "", " 1", "+1", "0x10", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        r.content_length = bad[i];
        ks_req_decide(&r, &a);
        assert_int_equal(a.status, 400);
        assert_int_equal(a.route, KS_ROUTE_ANSWER);
        assert_true(a.close);
    }
    const char *big[] = {"1025", "2000", "5000"};
    for (size_t i = 0; i < 3; ++i) {
        r.content_length = big[i];
        ks_req_decide(&r, &a);
        assert_int_equal(a.status, 413);
        assert_int_equal(a.route, KS_ROUTE_ANSWER); /* no key pressed */
    }
    r.content_length = "20";
    ks_req_decide(&r, &a);
    assert_int_equal(a.route, KS_ROUTE_KEY);
    assert_int_equal(a.body_len, 20);
    ks_req_body b = {a.body_len, 0};
    assert_int_equal(ks_req_body_feed(&b, 10), 0);
    assert_int_equal(ks_req_body_feed(&b, 11), -1); /* more than declared */
    assert_int_equal(ks_req_body_feed(&b, 10), 1);
    r.content_length = NULL;
    r.expect = "100-continue";
    assert_int_equal(decide(&r), 417);
    /* a body on a GET is read and dropped: one answer, after it */
    ks_req g = req_of(KS_REQ_GET, "/state.json", NULL);
    g.content_length = "5";
    ks_req_decide(&g, &a);
    assert_int_equal(a.route, KS_ROUTE_STATE);
    assert_int_equal(a.body_len, 5);
    assert_int_equal(ks_req_content_length("1024"), 1024);
    /* issue 34: whatever the answer, the next request starts after this one's body: a refusal reads a
     * small body and drops it, and closes the connection after one it cannot frame */
    ks_req o = req_of(KS_REQ_OTHER, "/", NULL);
    o.content_length = "5";
    ks_req_decide(&o, &a);
    assert_int_equal(a.status, 405);
    assert_int_equal(a.body_len, 5);
    assert_false(a.close);
    o.transfer_encoding = "chunked";
    ks_req_decide(&o, &a);
    assert_int_equal(a.status, 405);
    assert_true(a.body_unread && a.close);
    o.transfer_encoding = NULL;
    o.content_length = "5000";
    ks_req_decide(&o, &a);
    assert_true(a.body_unread && a.close);
    ks_req h = req_of(KS_REQ_GET, "/state.json", NULL);
    h.host = "evil.example:8000";
    h.content_length = "3";
    ks_req_decide(&h, &a);
    assert_int_equal(a.status, 421);
    assert_int_equal(a.body_len, 3);
    h.host = "127.0.0.1:8000";
    h.uri_len = KS_REQ_URI_MAX + 1;
    ks_req_decide(&h, &a);
    assert_int_equal(a.status, 414);
    assert_int_equal(a.body_len, 3);
}

/* issue 21, defect 4: methods and routes */
static void test_methods(void **state)
{
    (void)state;
    ks_req r = req_of(KS_REQ_HEAD, "/state.json", NULL);
    assert_int_equal(decide(&r), 200);
    r.method = KS_REQ_OTHER;
    assert_int_equal(decide(&r), 405);
    r = req_of(KS_REQ_POST, "/state.json", NULL);
    assert_int_equal(decide(&r), 405);
    r = req_of(KS_REQ_POST, "/nothing", NULL);
    assert_int_equal(decide(&r), 404);
    r = req_of(KS_REQ_GET, "/key", "k=space");
    assert_int_equal(decide(&r), 405);
    r = req_of(KS_REQ_POST, "/key", "k=nosuchkey");
    assert_int_equal(decide(&r), 400);
    r = req_of(KS_REQ_GET, "/", NULL);
    r.uri_len = KS_REQ_URI_MAX + 1;
    assert_int_equal(decide(&r), 414);
    r.uri_len = 0;
    r.head_len = KS_REQ_HEAD_MAX + 1;
    assert_int_equal(decide(&r), 431);
    r = req_of(KS_REQ_GET, "/", "token=abcdefgh");
    r.token = "abcdefgh";
    assert_int_equal(decide(&r), 200);
    r.args[0] = "token=abcdefgx";
    assert_int_equal(decide(&r), 403);
}

/* --edit: /kernel exists only with an editor, always needs the token, takes
 * up to 64 KiB of source and needs its length */
static void test_kernel_routes(void **state)
{
    (void)state;
    ks_req r = req_of(KS_REQ_GET, "/kernel", "token=abcdefgh");
    assert_int_equal(decide(&r), 404); /* no editor */
    r.editor = 1;
    assert_int_equal(decide(&r), 403); /* no token on the server: not even on loopback */
    r.token = "abcdefgh";
    ks_req_answer a;
    ks_req_decide(&r, &a);
    assert_int_equal(a.status, 200);
    assert_int_equal(a.route, KS_ROUTE_KERNEL);
    r.args[0] = "token=abcdefgx";
    assert_int_equal(decide(&r), 403);
    ks_req p = req_of(KS_REQ_POST, "/kernel", "token=abcdefgh");
    p.editor = 1;
    p.token = "abcdefgh";
    assert_int_equal(decide(&p), 411); /* no Content-Length */
    p.content_length = "65536";
    ks_req_decide(&p, &a);
    assert_int_equal(a.route, KS_ROUTE_KERNEL_SAVE);
    assert_int_equal(a.status, 202);
    assert_int_equal(a.body_len, 65536);
    p.content_length = "65537";
    ks_req_decide(&p, &a);
    assert_int_equal(a.status, 413);
    assert_true(a.close);
    p.content_length = "2000"; /* the larger limit is this route's alone */
    p.path = "/key";
    assert_int_equal(decide(&p), 413);
    p.path = "/kernel";
    p.origin = "http://evil.example";
    assert_int_equal(decide(&p), 403);
    /* CodeMirror: only where the server has it */
    ks_req j = req_of(KS_REQ_GET, "/editor.js", "token=abcdefgh");
    j.token = "abcdefgh";
    assert_int_equal(decide(&j), 404);
    j.editor_code = 1;
    ks_req_decide(&j, &a);
    assert_int_equal(a.route, KS_ROUTE_EDITOR_JS);
    j.path = "/editor.css";
    ks_req_decide(&j, &a);
    assert_int_equal(a.route, KS_ROUTE_EDITOR_CSS);
}


/* The request's bytes as the server frames them: heads and bodies taken in
 * turn, whatever the pieces they came in. */
typedef struct framed {
    char log[4096];
    size_t log_len;
} framed;

/* Feeds text to a stream in pieces of `piece` bytes (as reads would hand
 * them over), each head's body being the Content-Length it names; a
 * transcript of what came out: H<len> per head, B<n> per body piece run,
 * D per body done, R<status> for a refusal. */
static void frame_all(const char *text, size_t len, size_t piece, framed *out)
{
    static unsigned char buf[KS_REQ_HEAD_MAX + 4096];
    size_t have = 0, fed = 0, body = 0;
    ks_req_stream st;
    memset(&st, 0, sizeof st);
    memset(out, 0, sizeof *out);
    for (;;) {
        ks_req_step step;
        ks_req_stream_step(&st, buf, have, &step);
        if (step.kind == KS_STEP_HEAD) {
            char head[KS_REQ_HEAD_MAX + 1];
            memcpy(head, buf + step.head_off, step.head_len);
            head[step.head_len] = '\0';
            const char *cl = strstr(head, "Content-Length: ");
            ks_req_stream_body(&st, cl ? atoll(cl + 16) : 0);
            out->log_len += (size_t)snprintf(out->log + out->log_len, sizeof out->log - out->log_len, "H%zu ", step.head_len);
        } else if (step.kind == KS_STEP_BODY) {
            body += step.used;
        } else if (step.kind == KS_STEP_BODY_DONE) {
            out->log_len += (size_t)snprintf(out->log + out->log_len, sizeof out->log - out->log_len, "B%zu D ", body);
            body = 0;
        } else if (step.kind == KS_STEP_REFUSE) {
            out->log_len += (size_t)snprintf(out->log + out->log_len, sizeof out->log - out->log_len, "R%u", step.status);
            return;
        }
        memmove(buf, buf + step.used, have - step.used);
        have -= step.used;
        if (step.kind == KS_STEP_MORE) {
            if (fed == len) return;
            const size_t n = len - fed < piece ? len - fed : piece;
            memcpy(buf + have, text + fed, n);
            have += n;
            fed += n;
        }
    }
}

/* issue 34, item 1: pipelined requests are split where their heads and bodies end, in order */
static void test_framing(void **state)
{
    (void)state;
    static const char two[] = "POST /key?k=space HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx"
                              "POST /key?k=space HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx";
    framed whole, bytewise;
    frame_all(two, sizeof two - 1, sizeof two, &whole);
    assert_string_equal(whole.log, "H58 B1 D H58 B1 D ");
    for (size_t piece = 1; piece < 70; ++piece) {
        frame_all(two, sizeof two - 1, piece, &bytewise);
        assert_string_equal(bytewise.log, whole.log);
    }
    /* a GET, then a POST whose body is not all here: that request is not done */
    static const char cut[] = "GET / HTTP/1.1\r\nHost: h\r\n\r\nPOST /key HTTP/1.1\r\nHost: h\r\nContent-Length: 15\r\n\r\nabc";
    frame_all(cut, sizeof cut - 1, 7, &whole);
    assert_string_equal(whole.log, "H27 B0 D H51 ");
    /* empty lines between requests are skipped; a bare-LF head is framed (the parser refuses it) */
    static const char blank[] = "\r\n\r\nGET / HTTP/1.1\r\n\r\n\nGET / HTTP/1.1\n\n";
    frame_all(blank, sizeof blank - 1, 3, &whole);
    assert_string_equal(whole.log, "H18 B0 D H16 B0 D ");
    /* the head limit counts every byte: KS_REQ_HEAD_MAX is served, one more is 431; no line end is 414 */
    static char big[KS_REQ_HEAD_MAX + 64];
    const char *start = "GET / HTTP/1.1\r\nX-Pad: ";
    const size_t pad = KS_REQ_HEAD_MAX - strlen(start) - 4;
    snprintf(big, sizeof big, "%s%0*d\r\n\r\n", start, (int)pad, 0);
    assert_int_equal(strlen(big), KS_REQ_HEAD_MAX);
    frame_all(big, KS_REQ_HEAD_MAX, 1000, &whole);
    assert_string_equal(whole.log, "H8192 B0 D ");
    snprintf(big, sizeof big, "%s%0*d\r\n\r\n", start, (int)pad + 1, 0);
    frame_all(big, KS_REQ_HEAD_MAX + 1, 1000, &whole);
    assert_string_equal(whole.log, "R431");
    memset(big, 'a', sizeof big);
    frame_all(big, sizeof big, 4096, &whole);
    assert_string_equal(whole.log, "R414");
}

static unsigned parse(const char *head, ks_req *r)
{
    static char store[KS_REQ_HEAD_MAX + 1];
    const char *why = NULL;
    const unsigned status = ks_req_parse((const unsigned char *)head, strlen(head), store, r, &why);
    if (status) assert_non_null(why);
    r->addr = "127.0.0.1";
    r->port = 8000;
    return status;
}

/* issue 34, item 5: the head's text; a method nobody serves is 405, HTTP/2 is 505 */
static void test_parse(void **state)
{
    (void)state;
    ks_req r;
    assert_int_equal(parse("POST /key?k=%73pace&x&token=a%2Bb HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
                           "content-length:  1 \r\nConnection: keep-alive, Close\r\n\r\n", &r), 0);
    assert_int_equal(r.method, KS_REQ_POST);
    assert_string_equal(r.path, "/key");
    assert_int_equal(r.nargs, 3);
    assert_string_equal(ks_req_arg(&r, "k"), "space");
    assert_string_equal(ks_req_arg(&r, "token"), "a+b");
    assert_string_equal(r.content_length, "1");
    assert_true(r.close);
    assert_int_equal(decide(&r), 204);
    assert_int_equal(parse("GET /state.json HTTP/1.0\r\nHost: 127.0.0.1:8000\r\n\r\n", &r), 0);
    assert_true(r.close); /* HTTP/1.0: one request */
    assert_int_equal(parse("BREW /pot HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n\r\n", &r), 0);
    assert_int_equal(decide(&r), 405);
    assert_int_equal(parse("get / HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n\r\n", &r), 0);
    assert_int_equal(decide(&r), 405); /* methods are case-sensitive */
    assert_int_equal(parse("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n\r\n", &r), 0);
    assert_int_equal(decide(&r), 405);
    assert_int_equal(parse("PRI * HTTP/2.0\r\n\r\n", &r), 505);
    assert_int_equal(parse("GET / HTTP/9.9\r\n\r\n", &r), 505);
    assert_int_equal(parse("POST /key HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nTransfer-Encoding: chunked\r\n\r\n", &r), 0);
    assert_int_equal(decide(&r), 501);
    assert_int_equal(parse("POST /key?k=m HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
                           &r), 0);
    assert_int_equal(decide(&r), 400);
    const char *bad[] = {
        "GET /state.json\r\n\r\n",                            /* HTTP/0.9 */
        "GET  / HTTP/1.1\r\n\r\n",                            /* two spaces */
        "GET / HTTP/1.1 x\r\n\r\n",                           /* three parts */
        "GET / HTTP/1.1\rHost: h\r\n\r\n",                    /* bare CR */
        "GET / HTTP/1.1\nHost: h\r\n\r\n",                    /* bare LF */
        "GET / HTTP/1.1\r\nHost: h\n\n",                      /* bare LF ends */
        "GET / HTTP/1.1\r\nX-A: 1\r\n 2\r\n\r\n",             /* folded */
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A : 1\r\n\r\n",                  /* space before the colon */
        "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",       /* two Host */
        "GET / HTTP/1.1\r\nX-A: a\x01b\r\n\r\n",              /* a control byte */
        "GET /?k=%zz HTTP/1.1\r\n\r\n",                       /* a bad escape */
        "GET /?k=%00 HTTP/1.1\r\n\r\n",                       /* NUL */
        "GET http://evil.example/ HTTP/1.1\r\n\r\n",          /* not a path */
        "GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n",       /* two heads: not one */
        "GET / HTTP/1.1\r\n",                                 /* no end */
        "GET / HTTP/1.x\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        if (parse(bad[i], &r) != 400) fail_msg("not refused with 400: %s", bad[i]);
    }
    static char nul[] = "GET / HTTP/1.1\r\nX-A: a\0b\r\n\r\n";
    static char store[KS_REQ_HEAD_MAX + 1];
    const char *why;
    assert_int_equal(ks_req_parse((const unsigned char *)nul, sizeof nul - 1, store, &r, &why), 400);
    /* the upgrade needs both headers, a good key and version 13 */
    assert_int_equal(parse("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", &r), 0);
    assert_true(r.upgrade);
    assert_int_equal(decide(&r), 101);
    r.ws_version = "12";
    assert_int_equal(decide(&r), 400);
    r.ws_version = "13";
    r.close = 1; /* HTTP/1.0 or Connection: close: no frames can follow (found by fuzz_pipeline) */
    assert_int_equal(decide(&r), 400);
    r.close = 0;
    const char *keys[] = {NULL, "", "short==", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZ!==", "dGhlIHNhbXBsZSBub25jZQ=x"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        r.ws_key = keys[i];
        assert_int_equal(decide(&r), 400);
    }
    assert_int_equal(parse("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: websocket\r\n\r\n", &r), 0);
    assert_false(r.upgrade); /* no Connection: upgrade */
    assert_int_equal(decide(&r), 400);
    char accept[29];
    ks_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", accept); /* RFC 6455 1.3's example */
    assert_string_equal(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

/* A client's frame: FIN + opcode, masked with key (NULL: unmasked). */
static size_t client_frame(unsigned char *out, int b0, const char *payload, size_t n, const unsigned char *key)
{
    size_t at = 0;
    out[at++] = (unsigned char)b0;
    const unsigned char m = key ? 0x80 : 0;
    if (n < 126) {
        out[at++] = (unsigned char)(m | n);
    } else {
        out[at++] = m | 126;
        out[at++] = (unsigned char)(n >> 8);
        out[at++] = (unsigned char)n;
    }
    if (key) memcpy(out + at, key, 4), at += 4;
    for (size_t i = 0; i < n; ++i) out[at + i] = (unsigned char)payload[i] ^ (key ? key[i & 3] : 0);
    return at + n;
}

/* What the frames in buf say, stepping as the server does: "T<text>|" per message, P ping, C<code> close,
 * E<code> error. */
static void ws_run(unsigned char *buf, size_t len, char *log, size_t cap)
{
    ks_ws_rx st;
    memset(&st, 0, sizeof st);
    size_t at = 0;
    log[0] = '\0';
    char msg[KS_REQ_WS_MSG_MAX + 1];
    size_t msg_len = 0;
    while (len) {
        ks_ws_rx_out o;
        ks_ws_rx_step(&st, buf, len, &o);
        assert_true(o.used > 0 && o.used <= len);
        buf += o.used;
        len -= o.used;
        if (o.kind == KS_WSRX_DATA) {
            memcpy(msg + msg_len, o.data, o.n);
            msg_len += o.n;
            if (o.end) {
                at += (size_t)snprintf(log + at, cap - at, "T%.*s|", (int)msg_len, msg);
                msg_len = 0;
            }
        } else if (o.kind == KS_WSRX_PING) {
            at += (size_t)snprintf(log + at, cap - at, "P%.*s|", (int)o.n, (const char *)o.data);
        } else if (o.kind == KS_WSRX_CLOSE || o.kind == KS_WSRX_ERROR) {
            snprintf(log + at, cap - at, "%c%u", o.kind == KS_WSRX_CLOSE ? 'C' : 'E', o.code);
            return;
        }
    }
}

/* issue 34, item 4: RFC 6455 5 for a client's frames: masked, or the connection closes with 1002 */
static void test_ws_frames(void **state)
{
    (void)state;
    static const unsigned char key[4] = {0x37, 0xfa, 0x21, 0x3d}, zero[4] = {0, 0, 0, 0};
    unsigned char b[4096];
    char log[256];
    size_t n = client_frame(b, 0x81, "{\"key\":\"m\"}", 11, key);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "T{\"key\":\"m\"}|");
    n = client_frame(b, 0x81, "hi", 2, zero); /* masked with a zero key: still masked */
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "Thi|");
    n = client_frame(b, 0x81, "{\"key\":\"m\"}", 11, NULL);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "E1002");
    n = client_frame(b, 0x81, "ok", 2, key);
    n += client_frame(b + n, 0x81, "{\"key\":\"m\"}", 11, NULL);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "Tok|E1002");
    /* fragments with a ping between them; a close with its code */
    n = client_frame(b, 0x01, "frag", 4, key);
    n += client_frame(b + n, 0x89, "p", 1, key);
    n += client_frame(b + n, 0x80, "ment", 4, key);
    n += client_frame(b + n, 0x88, "\x03\xe8" "bye", 5, key);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "Pp|Tfragment|C1000");
    struct {
        int b0;
        const char *payload;
        size_t n;
        unsigned code;
    } bad[] = {
        {0xc1, "x", 1, 1002},            /* RSV1 without an extension */
        {0x82, "\x00\x01", 2, 1003},     /* binary */
        {0x83, "", 0, 1002},             /* reserved data opcode */
        {0x8b, "", 0, 1002},             /* reserved control opcode */
        {0x80, "x", 1, 1002},            /* a continuation with nothing begun */
        {0x09, "x", 1, 1002},            /* a fragmented ping */
        {0x88, "\x03", 1, 1002},         /* a close code of one byte */
        {0x88, "\x03\xed", 2, 1002},     /* close code 1005 may not be sent */
        {0x88, "\x03\xe8\xff", 3, 1007}, /* a reason that is not UTF-8 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        n = client_frame(b, bad[i].b0, bad[i].payload, bad[i].n, key);
        ws_run(b, n, log, sizeof log);
        char want[16];
        snprintf(want, sizeof want, "E%u", bad[i].code);
        assert_string_equal(log, want);
    }
    /* a text frame while one is in progress; a ping of 126 bytes; a message over 1 KiB, refused from its header */
    n = client_frame(b, 0x01, "a", 1, key);
    n += client_frame(b + n, 0x81, "b", 1, key);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "E1002");
    static char big[KS_REQ_WS_MSG_MAX + 1];
    memset(big, 'a', sizeof big);
    n = client_frame(b, 0x89, big, 126, key);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "E1002");
    n = client_frame(b, 0x81, big, KS_REQ_WS_MSG_MAX, key);
    ws_run(b, n, log, sizeof log);
    assert_int_equal(log[0], 'T');
    n = client_frame(b, 0x01, big, 1000, key);
    n += client_frame(b + n, 0x80, big, 25, key);
    ws_run(b, n, log, sizeof log);
    assert_string_equal(log, "E1009");
    unsigned char huge[] = {0x81, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4}; /* 64-bit length, top bit set */
    ws_run(huge, sizeof huge, log, sizeof log);
    assert_string_equal(log, "E1002");
    /* byte by byte: the same */
    n = client_frame(b, 0x01, "frag", 4, key);
    n += client_frame(b + n, 0x89, "p", 1, key);
    n += client_frame(b + n, 0x80, "ment", 4, key);
    ks_ws_rx st;
    memset(&st, 0, sizeof st);
    char got[64] = "";
    size_t got_len = 0;
    for (size_t i = 0; i < n; ++i) {
        ks_ws_rx_out o;
        ks_ws_rx_step(&st, b + i, 1, &o);
        assert_int_equal(o.used, 1);
        if (o.kind == KS_WSRX_DATA) memcpy(got + got_len, o.data, o.n), got_len += o.n;
        assert_true(o.kind == KS_WSRX_DATA || o.kind == KS_WSRX_MORE || o.kind == KS_WSRX_PING);
    }
    assert_string_equal(got, "fragment");
}

/* issue 21, defect 5: the WebSocket messages */
static void test_ws_messages(void **state)
{
    (void)state;
    ks_ws_input in;
    assert_int_equal(ks_req_ws_message("{\"key\":\"space\"}", 15, &in), 0);
    assert_int_equal(in.kind, KS_WS_KEY);
    assert_int_equal(in.key, KS_KEY_SPACE);
    const char overlong[] = "{\"key\":\"\xc0\xaf\"}", invalid[] = "{\"key\":\"\xff\"}",
               surrogate[] = "{\"key\":\"\xed\xa0\x80\"}", cut[] = "{\"key\":\"\xe2\x82\"}";
    assert_int_equal(ks_req_ws_message(overlong, sizeof overlong - 1, &in), 1007);
    assert_int_equal(ks_req_ws_message(invalid, sizeof invalid - 1, &in), 1007);
    assert_int_equal(ks_req_ws_message(surrogate, sizeof surrogate - 1, &in), 1007);
    assert_int_equal(ks_req_ws_message(cut, sizeof cut - 1, &in), 1007);
    assert_int_equal(ks_req_ws_message("{\"key\":", 7, &in), 1007);
    assert_int_equal(ks_req_ws_message("nonsense", 8, &in), 1007);
    const char euro[] = "{\"key\":\"\xe2\x82\xac\"}";
    assert_int_equal(ks_req_ws_message(euro, sizeof euro - 1, &in), 0);
    assert_int_equal(in.kind, KS_WS_NONE); /* valid text, unknown key: ignored */
    assert_int_equal(ks_req_ws_message("{\"mouse\":\"drag\",\"x\":1e999,\"dx\":2}", 33, &in), 0);
    assert_int_equal(in.kind, KS_WS_MOUSE);
    assert_true(in.x == 0.0 && in.dx == 2.0); /* not finite: 0 */
    assert_int_equal(ks_req_ws_message("{\"stats\":{\"fps\":30,\"codec\":\"jpeg\"}}", 35, &in), 0);
    assert_int_equal(in.kind, KS_WS_STATS);
    assert_int_equal(in.codec, 1);
    char big[KS_REQ_WS_MSG_MAX + 2];
    memset(big, ' ', sizeof big);
    assert_int_equal(ks_req_ws_message(big, sizeof big, &in), 1009);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origin_host),
        cmocka_unit_test(test_bodies),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_kernel_routes),
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_ws_frames),
        cmocka_unit_test(test_ws_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
