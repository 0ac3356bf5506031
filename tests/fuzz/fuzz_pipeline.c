/* libFuzzer target: one connection's bytes, as routes.c takes them. The
 * input's first byte picks the size of the reads (1..64 bytes, or all at
 * once) and the server (with or without a token, with or without an editor);
 * the rest is what the client sent: pipelined requests, their bodies, and
 * after an accepted WebSocket upgrade, frames. The stream is framed
 * (ks_req_stream_step), each head parsed and decided (ks_req_parse,
 * ks_req_decide) and its body passed on, the same way whatever the reads:
 * the run in pieces must give the same transcript as the run at once. And
 * whatever the bytes: a head is at most KS_REQ_HEAD_MAX bytes and ends with
 * its empty line, a body is never longer than declared, a request is acted
 * on only once its whole body is in, the kept bytes never outgrow the
 * server's buffer, each step makes progress, and frames after an upgrade
 * are taken only masked. Built and run by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/request.h"

enum { READ_MAX = 4096, IN_MAX = KS_REQ_HEAD_MAX + READ_MAX, LOG_MAX = 1 << 16 };

typedef struct transcript {
    char text[LOG_MAX];
    size_t len;
} transcript;

static void note(transcript *t, const char *fmt, long long a, long long b)
{
    if (t->len + 64 < sizeof t->text) t->len += (size_t)snprintf(t->text + t->len, 64, fmt, a, b);
}

/* The frames after a 101, all of them at once or in pieces. */
static void frames(unsigned char *buf, size_t len, size_t piece, transcript *t)
{
    ks_ws_rx st;
    memset(&st, 0, sizeof st);
    unsigned long long msg = 0;
    while (len) {
        const size_t n = piece < len ? piece : len;
        unsigned char *p = buf;
        size_t left = n;
        while (left) {
            ks_ws_rx_out o;
            ks_ws_rx_step(&st, p, left, &o);
            if (o.used == 0 || o.used > left) abort(); /* no progress, or past the bytes given */
            p += o.used;
            left -= o.used;
            if (o.kind == KS_WSRX_DATA) {
                if (o.n > o.used || (o.n && (o.data < buf || o.data + o.n > buf + n))) abort();
                msg += o.n;
                if (msg > KS_REQ_WS_MSG_MAX) abort(); /* the parser refuses a longer message */
                if (o.end) {
                    note(t, "T%lld ", (long long)msg, 0);
                    msg = 0;
                }
            } else if (o.kind == KS_WSRX_PING) {
                if (o.n > 125) abort();
                note(t, "P%lld ", (long long)o.n, 0);
            } else if (o.kind == KS_WSRX_CLOSE || o.kind == KS_WSRX_ERROR) {
                if (o.kind == KS_WSRX_ERROR && o.code != 1002 && o.code != 1003 && o.code != 1007 && o.code != 1009) abort();
                note(t, o.kind == KS_WSRX_CLOSE ? "C%lld" : "E%lld", o.code, 0);
                return;
            }
        }
        buf += n;
        len -= n;
    }
}

/* The connection as routes.c's http_input runs it, reading `piece` bytes at a time. */
static void run(const uint8_t *data, size_t size, size_t piece, int token, int editor, transcript *t)
{
    static unsigned char in[IN_MAX];
    static char store[KS_REQ_HEAD_MAX + 1];
    size_t have = 0, fed = 0;
    ks_req_stream st;
    memset(&st, 0, sizeof st);
    ks_req_body body = {0, 0};
    ks_req_answer pending;
    int has_pending = 0;
    memset(t, 0, sizeof *t);
    for (size_t steps = 0;; ++steps) {
        if (steps > 4 * size + 64) abort(); /* every step takes bytes, or ends a body, or waits */
        ks_req_step s;
        ks_req_stream_step(&st, in, have, &s);
        if (s.used > have) abort();
        switch (s.kind) {
        case KS_STEP_MORE: break;
        case KS_STEP_HEAD: {
            if (s.head_len > KS_REQ_HEAD_MAX || s.head_off + s.head_len != s.used || s.head_len < 2) abort();
            const unsigned char *h = in + s.head_off;
            if (h[s.head_len - 1] != '\n' || (h[s.head_len - 2] != '\n' && h[s.head_len - 2] != '\r')) abort();
            if (h[0] == '\n') abort(); /* empty lines before a request were skipped */
            if (has_pending) abort(); /* a head only once the request before is done */
            ks_req r;
            const char *why = NULL;
            const unsigned status = ks_req_parse(h, s.head_len, store, &r, &why);
            note(t, "H%lld:%lld ", (long long)s.head_len, status);
            if (status) {
                if (!why || (status != 400 && status != 505)) abort();
                return; /* answered, then closed */
            }
            r.addr = "127.0.0.1";
            r.port = 8000;
            r.token = token ? "secret-token" : NULL;
            r.editor = editor;
            ks_req_answer a;
            ks_req_decide(&r, &a);
            note(t, "A%lld:%lld ", a.status, a.route);
            if (a.body_unread) {
                if (!a.close) abort();
                return;
            }
            if (a.route == KS_ROUTE_WS) {
                if (a.body_len || a.close) abort(); /* an upgrade with a body is refused */
                memmove(in, in + s.used, have - s.used);
                have -= s.used;
                /* everything after the head is frames: what is here, then the rest */
                static unsigned char rest[1 << 17];
                if (have + (size - fed) > sizeof rest) return;
                memcpy(rest, in, have);
                memcpy(rest + have, data + fed, size - fed);
                frames(rest, have + (size - fed), piece, t);
                return;
            }
            if (a.body_len < 0 || a.body_len > KS_REQ_SOURCE_MAX) abort();
            body.declared = a.body_len;
            body.got = 0;
            pending = a;
            has_pending = 1;
            ks_req_stream_body(&st, a.body_len);
            break;
        }
        case KS_STEP_BODY:
            if (!has_pending || ks_req_body_feed(&body, s.used) < 0) abort(); /* never more than declared */
            break;
        case KS_STEP_BODY_DONE:
            if (!has_pending || body.got != body.declared) abort(); /* acted on only with its whole body */
            note(t, "D%lld:%lld ", body.got, pending.route);
            has_pending = 0;
            if (pending.close) return;
            break;
        case KS_STEP_REFUSE:
            if (s.status != 414 && s.status != 431) abort();
            if (have < KS_REQ_HEAD_MAX) abort(); /* refused only past the limit */
            note(t, "R%lld ", s.status, 0);
            return;
        }
        memmove(in, in + s.used, have - s.used);
        have -= s.used;
        if (s.kind == KS_STEP_MORE) {
            if (!st.in_body && have >= KS_REQ_HEAD_MAX) abort(); /* a head that long is refused, not kept */
            if (fed == size) return;
            const size_t n = size - fed < piece ? size - fed : piece;
            if (have + n > sizeof in) abort(); /* the server's buffer holds a head and one read */
            memcpy(in + have, data + fed, n);
            have += n;
            fed += n;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 16)) return 0;
    const unsigned cfg = data[0];
    const size_t piece = (cfg & 63) + 1;
    static transcript whole, pieces;
    run(data + 1, size - 1, READ_MAX, cfg & 64, cfg & 128, &whole);
    run(data + 1, size - 1, piece, cfg & 64, cfg & 128, &pieces);
    if (whole.len != pieces.len || memcmp(whole.text, pieces.text, whole.len) != 0) abort();
    return 0;
}
