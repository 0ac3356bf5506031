/* The lws protocol callback. Every connection is a raw socket: lws accepts,
 * reads and writes the bytes; the framing of requests, the answers and the
 * WebSocket frames are ours (request.c decides, this file acts), so that a
 * pipelined request, an oversized head or an unmasked frame is handled the
 * way docs/serve.md says and not the way lws's HTTP code happens to.
 * Everything here runs on the service thread. Each connection sends one
 * item at a time in chunks of KS_SERVE_CHUNK bytes, one chunk per writable
 * callback, so a slow client holds one reference and the kernel's socket
 * buffer, nothing more; when it is ready for the next item it takes the
 * newest, and what it missed is dropped. */
#include "server_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "serve/serve_keys.h"

extern const unsigned char ks_serve_page[];
extern const size_t ks_serve_page_len;

static ks_server *server_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi)); /* the cancel pipe has no vhost */
}

/* ---- sending ------------------------------------------------------------- */

/* A POST /kernel body that will not be acted on (the connection or the request ended). */
static void drop_source(ks_conn *c)
{
    ks_hub_item_unref(c->source);
    c->source = NULL;
}

static void release_item(ks_conn *c)
{
    ks_hub_item_unref(c->item);
    c->item = NULL;
    c->body = NULL;
    c->sending = 0;
    c->off = c->total = c->head_len = c->tail_len = 0;
}

/* Bytes [off, off + n) of head + body + tail into dst. */
static void gather(const ks_conn *c, size_t off, unsigned char *dst, size_t n)
{
    const size_t body_len = c->total - c->head_len - c->tail_len;
    while (n) {
        size_t k;
        if (off < c->head_len) {
            k = c->head_len - off < n ? c->head_len - off : n;
            memcpy(dst, c->head + off, k);
        } else if (off < c->head_len + body_len) {
            const size_t b = off - c->head_len;
            k = body_len - b < n ? body_len - b : n;
            memcpy(dst, c->body + b, k);
        } else {
            k = n; /* the tail: "\r\n" */
            memcpy(dst, "\r\n" + (off - c->head_len - body_len), k);
        }
        dst += k;
        off += k;
        n -= k;
    }
}

/* Writes the next chunk (lws keeps what the socket does not take and sends it
 * before the next writable callback). -1 to close the connection; c->sending
 * drops to 0 when the item is out. */
static int send_chunk(ks_server *s, struct lws *wsi, ks_conn *c)
{
    size_t n = c->total - c->off;
    if (n > KS_SERVE_CHUNK) n = KS_SERVE_CHUNK;
    unsigned char *p = s->scratch + LWS_PRE;
    gather(c, c->off, p, n);
    if (n && lws_write(wsi, p, n, LWS_WRITE_RAW) < (int)n) return -1;
    c->off += n;
    if (c->off == c->total) release_item(c);
    return 0;
}

static void start_item(struct lws *wsi, ks_conn *c, ks_hub_item *it, const unsigned char *body, size_t body_len)
{
    c->item = it;
    c->body = body;
    c->total = c->head_len + body_len + c->tail_len;
    c->off = 0;
    c->sending = 1;
    lws_callback_on_writable(wsi);
}

/* Our side is done: once lws has sent all it holds, shut it (a FIN, not a
 * reset that could destroy the answer in the client's buffer) and drop what
 * the client still sends until it closes or KS_SERVE_LINGER_SECS pass. */
static void close_gracefully(struct lws *wsi, ks_conn *c)
{
    c->shut_pending = 1;
    lws_callback_on_writable(wsi);
}

/* ---- answers ------------------------------------------------------------- */

static const char *reason_of(unsigned status)
{
    switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "";
    }
}

/* The page: its own inline script and style, fetch and WebSocket to this server, nothing from elsewhere, no framing. */
static const char ks_page_csp[] = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
                                  "img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; "
                                  "form-action 'none'; frame-ancestors 'none'";

/* An answer: its head into c->head, then the body (none for HEAD). len < 0:
 * no Content-Length (a stream). Every answer says no caching, no sniffing,
 * no token in a Referer. */
static int respond(struct lws *wsi, ks_conn *c, unsigned status, const char *type, ks_hub_item *it,
                   const unsigned char *body, long long len)
{
    const int close = c->then == KS_THEN_CLOSE;
    int n = snprintf(c->head, sizeof c->head,
                     "HTTP/1.1 %u %s\r\n%s%s%scache-control: no-store\r\nx-content-type-options: nosniff\r\n"
                     "referrer-policy: no-referrer\r\n%s%s%s",
                     status, reason_of(status), type ? "content-type: " : "", type ? type : "", type ? "\r\n" : "",
                     body == ks_serve_page ? "content-security-policy: " : "", body == ks_serve_page ? ks_page_csp : "",
                     body == ks_serve_page ? "\r\n" : "");
    if (len >= 0 && status != 204)
        n += snprintf(c->head + n, sizeof c->head - (size_t)n, "content-length: %lld\r\n", len);
    n += snprintf(c->head + n, sizeof c->head - (size_t)n, "%s\r\n", close ? "connection: close\r\n" : "");
    if (n >= (int)sizeof c->head) { /* cannot happen: the head is ours and short */
        ks_hub_item_unref(it);
        return -1;
    }
    c->head_len = (size_t)n;
    c->tail_len = 0;
    if (c->head_only || len <= 0) {
        ks_hub_item_unref(it);
        start_item(wsi, c, NULL, NULL, 0);
    } else {
        start_item(wsi, c, it, body, (size_t)len);
    }
    return 0;
}

static int respond_text(struct lws *wsi, ks_conn *c, unsigned status, const char *text)
{
    return respond(wsi, c, status, "text/plain; charset=utf-8", NULL, (const unsigned char *)text, (long long)strlen(text));
}

/* ---- streaming connections ----------------------------------------------- */

static void stream_add(ks_server *s, ks_conn *c, ks_conn_kind kind, ks_frame_kind want)
{
    c->kind = kind;
    c->want = want;
    c->next = s->streams;
    s->streams = c;
    c->streaming = 1;
    ks_encode_worker_want(s->worker, want, +1);
}

static void stream_remove(ks_server *s, ks_conn *c)
{
    if (!c->streaming) return;
    for (ks_conn **pp = &s->streams; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            ks_encode_worker_want(s->worker, c->want, -1);
            break;
        }
    c->streaming = 0;
}

static ks_hub_slot slot_of(ks_frame_kind k)
{
    return k == KS_FRAME_H264 ? KS_HUB_H264 : KS_HUB_JPEG;
}

/* Something newer than what c has seen (ready to send). */
static int stream_has_news(ks_server *s, const ks_conn *c)
{
    if (c->kind == KS_CONN_WS && ks_frame_hub_seq(s->hub, KS_HUB_STATE) > c->state_seq) return 1;
    return ks_frame_hub_seq(s->hub, slot_of(c->want)) > c->frame_seq;
}

/* A server's WebSocket frame header (FIN set, never masked) for a payload of n bytes into h: its length. */
static size_t ws_header(unsigned char *h, int opcode, size_t n)
{
    h[0] = (unsigned char)(0x80 | opcode);
    if (n < 126) {
        h[1] = (unsigned char)n;
        return 2;
    }
    if (n <= 0xffff) {
        h[1] = 126;
        h[2] = (unsigned char)(n >> 8);
        h[3] = (unsigned char)n;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; ++i) h[2 + i] = (unsigned char)((unsigned long long)n >> (56 - 8 * i));
    return 10;
}

/* Picks the next item for a stream (the state first, then the newest frame). 1: one started. */
static int stream_next(ks_server *s, struct lws *wsi, ks_conn *c)
{
    if (c->kind == KS_CONN_WS && ks_frame_hub_seq(s->hub, KS_HUB_STATE) > c->state_seq) {
        ks_hub_item *it = ks_frame_hub_get(s->hub, KS_HUB_STATE);
        if (it) {
            c->state_seq = it->seq;
            c->head_len = ws_header((unsigned char *)c->head, 1, it->size);
            c->tail_len = 0;
            start_item(wsi, c, it, it->data, it->size);
            return 1;
        }
    }
    ks_hub_item *it = ks_frame_hub_get(s->hub, slot_of(c->want));
    if (!it || it->seq <= c->frame_seq) {
        ks_hub_item_unref(it);
        return 0;
    }
    if (c->want == KS_FRAME_H264) {
        /* a gap breaks the chain of predicted frames: skip to the next key frame */
        if (c->frame_seq && it->seq != c->frame_seq + 1) c->need_key = 1;
        if (c->need_key && !it->keyframe) {
            c->frame_seq = it->seq;
            ks_encode_worker_request_keyframe(s->worker);
            ks_hub_item_unref(it);
            return 0;
        }
        c->need_key = 0;
    }
    c->frame_seq = it->seq;
    if (c->kind == KS_CONN_WS) {
        unsigned char *h = (unsigned char *)c->head;
        const size_t w = ws_header(h, 2, KS_SERVE_FRAME_HEADER + it->size);
        h += w;
        h[0] = (unsigned char)it->kind;
        h[1] = (unsigned char)(it->keyframe ? 1 : 0);
        h[2] = h[3] = 0;
        for (int i = 0; i < 4; ++i) {
            h[4 + i] = (unsigned char)((unsigned)it->width >> (8 * i));
            h[8 + i] = (unsigned char)((unsigned)it->height >> (8 * i));
        }
        c->head_len = w + KS_SERVE_FRAME_HEADER;
        c->tail_len = 0;
    } else {
        int n = snprintf(c->head, sizeof c->head,
                         "--ksframe\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n", it->size);
        c->head_len = (size_t)n;
        c->tail_len = 2;
    }
    start_item(wsi, c, it, it->data, it->size);
    return 1;
}

/* A control frame of ours (close, pong): payload at most 125 bytes. */
static void ws_control(struct lws *wsi, ks_conn *c, int opcode, const unsigned char *payload, size_t n)
{
    unsigned char *h = (unsigned char *)c->head;
    const size_t w = ws_header(h, opcode, n);
    memcpy(h + w, payload, n);
    c->head_len = w + n;
    c->tail_len = 0;
    start_item(wsi, c, NULL, NULL, 0);
}

/* The close frame of a connection that sent a bad message (or closed), once
 * no message of ours is half sent: a close frame cannot cut into one. */
static void ws_close_now(struct lws *wsi, ks_conn *c)
{
    const char *why = c->close_code == 1000 ? "" : c->close_code == 1003 ? "text only"
                      : c->close_code == 1009 ? "too large" : c->close_code == 1002 ? "protocol error" : "bad message";
    unsigned char payload[32];
    payload[0] = (unsigned char)(c->close_code >> 8);
    payload[1] = (unsigned char)c->close_code;
    memcpy(payload + 2, why, strlen(why));
    c->then = KS_THEN_CLOSE;
    ws_control(wsi, c, 8, payload, 2 + strlen(why));
}

static int stream_writable(ks_server *s, struct lws *wsi, ks_conn *c)
{
    if (c->sending) {
        if (send_chunk(s, wsi, c)) return -1;
        if (c->sending) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        if (c->then == KS_THEN_CLOSE) { /* that was our close frame */
            close_gracefully(wsi, c);
            return 0;
        }
    }
    /* between messages: a close that is due, a pong, then the newest news */
    if (c->close_code) {
        ws_close_now(wsi, c);
        return 0;
    }
    if (c->pong_pending) {
        c->pong_pending = 0;
        ws_control(wsi, c, 10, c->pong, c->pong_len);
        return 0;
    }
    if (stream_has_news(s, c)) stream_next(s, wsi, c);
    return 0;
}

/* ---- requests ------------------------------------------------------------ */

static int press_key(ks_server *s, int key, int shift)
{
    ks_input_event ev = {0};
    ev.type = KS_INPUT_KEY;
    ev.key = key;
    ev.shift = shift;
    return ks_input_queue_push(s->input, &ev);
}

/* GET /kernel: the editor's document. */
static int kernel_document(ks_server *s, struct lws *wsi, ks_conn *c)
{
    enum { DOC_MAX = 2 * KS_REQ_SOURCE_MAX + 8192 }; /* every source byte escaped, and the build's lines */
    ks_hub_item *it = ks_hub_item_new(DOC_MAX);
    if (!it) return respond_text(wsi, c, 503, "out of memory\n");
    it->size = s->editor.describe(s->editor.user, (char *)it->data, DOC_MAX);
    if (it->size == 0 || it->size >= DOC_MAX) {
        ks_hub_item_unref(it);
        return respond_text(wsi, c, 503, "the kernel file cannot be read now\n");
    }
    return respond(wsi, c, 200, "application/json", it, it->data, (long long)it->size);
}

/* POST /kernel, its body in: the editor takes it (202) or says why not. */
static int kernel_save(ks_server *s, struct lws *wsi, ks_conn *c)
{
    const char *src = c->source ? (const char *)c->source->data : "";
    const size_t len = c->source ? c->source->size : 0;
    char msg[512] = "";
    unsigned status = 400;
    if (memchr(src, '\0', len)) snprintf(msg, sizeof msg, "the source has a NUL byte");
    else status = s->editor.submit(s->editor.user, src, len, msg, sizeof msg);
    drop_source(c);
    ks_hub_item *it = ks_hub_item_new(sizeof msg + 64);
    if (!it) return respond_text(wsi, c, 503, "out of memory\n");
    /* a one-line answer; the build's outcome comes with GET /kernel */
    it->size = (size_t)snprintf((char *)it->data, sizeof msg + 64, "%s\n", status ? msg : "saved; building");
    return respond(wsi, c, status ? status : 202, "text/plain; charset=utf-8", it, it->data, (long long)it->size);
}

/* The 101 for /ws: the frames follow once it is out. */
static int accept_websocket(struct lws *wsi, ks_conn *c, const char *key)
{
    char accept[29];
    ks_ws_accept_key(key, accept);
    c->then = KS_THEN_WS;
    c->head_len = (size_t)snprintf(c->head, sizeof c->head,
                                   "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
                                   "sec-websocket-accept: %s\r\n\r\n",
                                   accept);
    c->tail_len = 0;
    start_item(wsi, c, NULL, NULL, 0);
    return 0;
}

/* Acts on a decided request: the request (and its body) is complete and valid. */
static int act(ks_server *s, struct lws *wsi, ks_conn *c, const ks_req_answer *a, const char *ws_key)
{
    switch (a->route) {
    case KS_ROUTE_KERNEL: return kernel_document(s, wsi, c);
    case KS_ROUTE_EDITOR_JS:
        return respond(wsi, c, 200, "text/javascript; charset=utf-8", NULL, s->editor_js, (long long)s->editor_js_len);
    case KS_ROUTE_EDITOR_CSS:
        return respond(wsi, c, 200, "text/css; charset=utf-8", NULL, s->editor_css, (long long)s->editor_css_len);
    case KS_ROUTE_KERNEL_SAVE: return kernel_save(s, wsi, c);
    case KS_ROUTE_PAGE:
        return respond(wsi, c, 200, "text/html; charset=utf-8", NULL, ks_serve_page, (long long)ks_serve_page_len);
    case KS_ROUTE_STATE: {
        ks_hub_item *it = ks_frame_hub_get(s->hub, KS_HUB_STATE);
        if (!it) return respond_text(wsi, c, 503, "no state yet\n");
        return respond(wsi, c, 200, "application/json", it, it->data, (long long)it->size);
    }
    case KS_ROUTE_KEY:
        if (press_key(s, a->key, a->shift) != 0) return respond_text(wsi, c, 503, "input queue full, try again\n");
        return respond(wsi, c, 204, NULL, NULL, NULL, 0);
    case KS_ROUTE_MJPEG:
        /* HEAD: no stream follows, and the connection ends with the head */
        c->then = c->head_only ? KS_THEN_CLOSE : KS_THEN_MJPEG;
        return respond(wsi, c, 200, "multipart/x-mixed-replace; boundary=ksframe", NULL, NULL, -1);
    case KS_ROUTE_WS: return accept_websocket(wsi, c, ws_key);
    default: return respond_text(wsi, c, a->status, a->text ? a->text : "\n");
    }
}

/* Decides a whole head. 0: answered or its body awaited; -1: close. */
static int http_head(ks_server *s, struct lws *wsi, ks_conn *c, const unsigned char *head, size_t len)
{
    char store[KS_REQ_HEAD_MAX + 1];
    ks_req r;
    const char *why = NULL;
    const unsigned status = ks_req_parse(head, len, store, &r, &why);
    c->head_only = 0;
    if (status) { /* where this head's body ends is unknown: answer and close */
        c->then = KS_THEN_CLOSE;
        return respond_text(wsi, c, status, why);
    }
    r.addr = s->addr;
    r.port = s->port;
    r.token = s->token;
    r.editor = s->editor.describe != NULL;
    r.editor_code = s->editor_js != NULL;
    ks_req_answer a;
    ks_req_decide(&r, &a);
    c->head_only = r.method == KS_REQ_HEAD;
    c->then = a.close ? KS_THEN_CLOSE : KS_THEN_NEXT;
    if (a.body_unread) /* refused before its body (413, 417, a bad length): that is not read */
        return act(s, wsi, c, &a, NULL);
    if (a.route == KS_ROUTE_WS) return act(s, wsi, c, &a, r.ws_key); /* frames follow the head (no body) */
    /* the body comes first, then the answer: nothing is acted on for a request cut short */
    c->body_in.declared = a.body_len;
    c->body_in.got = 0;
    c->pending = a;
    c->has_pending = 1;
    ks_req_stream_body(&c->stream, a.body_len);
    if (a.route == KS_ROUTE_KERNEL_SAVE) { /* kept: it is the new source */
        drop_source(c);
        if (!(c->source = ks_hub_item_new((size_t)a.body_len))) {
            c->has_pending = 0;
            c->then = KS_THEN_CLOSE;
            return respond_text(wsi, c, 503, "out of memory\n");
        }
        c->source->size = 0;
    }
    return 0;
}

static void drop_input(ks_conn *c, size_t n)
{
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

/* Takes requests from c->in, one at a time: a request waits while the one
 * before it is being answered (reading stops meanwhile). -1: close. */
static int http_input(ks_server *s, struct lws *wsi, ks_conn *c)
{
    while (!c->sending && c->kind == KS_CONN_HTTP && !c->shut_pending && !c->lingering) {
        ks_req_step st;
        ks_req_stream_step(&c->stream, c->in, c->in_len, &st);
        int rc = 0;
        switch (st.kind) {
        case KS_STEP_MORE: drop_input(c, st.used); break;
        case KS_STEP_HEAD:
            rc = http_head(s, wsi, c, c->in + st.head_off, st.head_len);
            drop_input(c, st.used);
            break;
        case KS_STEP_BODY:
            if (ks_req_body_feed(&c->body_in, st.used) < 0) return -1; /* cannot happen: the stream stops at the end */
            if (c->source) { /* within the declared size: the feed refuses more */
                memcpy(c->source->data + c->source->size, c->in, st.used);
                c->source->size += st.used;
            }
            drop_input(c, st.used);
            break;
        case KS_STEP_BODY_DONE:
            if (c->has_pending) {
                c->has_pending = 0;
                rc = act(s, wsi, c, &c->pending, NULL);
            }
            break;
        case KS_STEP_REFUSE: /* a head over the limit: where the next one starts is unknown */
            c->then = KS_THEN_CLOSE;
            c->head_only = 0;
            rc = respond_text(wsi, c, st.status,
                              st.status == 414 ? "URI too long\n" : "request header fields too large\n");
            break;
        }
        if (rc) return -1;
        if (st.kind == KS_STEP_MORE) break;
    }
    /* reading goes on only while a request is being gathered: pipelined ones wait in c->in */
    lws_rx_flow_control(wsi, !c->sending && !c->shut_pending);
    return 0;
}

/* ---- WebSocket input ----------------------------------------------------- */

static void ws_switch_to_h264(ks_server *s, ks_conn *c)
{
    if (!ks_encode_worker_has_video(s->worker) || c->want == KS_FRAME_H264) return;
    ks_encode_worker_want(s->worker, c->want, -1);
    c->want = KS_FRAME_H264;
    c->need_key = 1;
    c->frame_seq = 0;
    ks_encode_worker_want(s->worker, c->want, +1);
    ks_encode_worker_request_keyframe(s->worker);
}

/* One complete message from a page: 0, or the close code. */
static int ws_message(ks_server *s, ks_conn *c, const char *msg, size_t len)
{
    ks_ws_input in;
    const int code = ks_req_ws_message(msg, len, &in);
    if (code) return code;
    switch (in.kind) {
    case KS_WS_ACCEPT:
        if (in.accept_h264) ws_switch_to_h264(s, c); /* the page can decode H.264 (WebCodecs) */
        break;
    case KS_WS_STATS:
        pthread_mutex_lock(&s->stats_lock);
        s->viewer.fps = in.fps;
        s->viewer.kind = (ks_frame_kind)in.codec;
        s->viewer.fps_sum += in.fps;
        ++s->viewer.reports;
        pthread_mutex_unlock(&s->stats_lock);
        break;
    case KS_WS_KEY: press_key(s, in.key, in.shift); break;
    case KS_WS_MOUSE: {
        ks_input_event ev = {0};
        ev.type = in.mouse == KS_WS_MOUSE_MOVE ? KS_INPUT_MOUSE : in.mouse == KS_WS_MOUSE_WHEEL ? KS_INPUT_WHEEL : KS_INPUT_DRAG;
        ev.x = in.x;
        ev.y = in.y;
        ev.dx = in.dx;
        ev.dy = in.dy;
        ev.inside = in.inside;
        ks_input_queue_push(s->input, &ev);
        break;
    }
    default: break;
    }
    return 0;
}

/* Closes with code once the message on its way out is whole; nothing more is read. */
static void ws_refuse(struct lws *wsi, ks_conn *c, int code)
{
    c->close_code = code;
    c->rx_len = 0;
    lws_rx_flow_control(wsi, 0);
    lws_callback_on_writable(wsi);
}

/* Bytes from a page: frames (ks_ws_rx_step checks them), messages acted on when whole. */
static void ws_input(ks_server *s, struct lws *wsi, ks_conn *c, unsigned char *buf, size_t len)
{
    while (len && !c->close_code) {
        ks_ws_rx_out o;
        ks_ws_rx_step(&c->ws_rx, buf, len, &o);
        buf += o.used;
        len -= o.used;
        switch (o.kind) {
        case KS_WSRX_DATA: /* within KS_SERVE_WS_MSG_MAX: the frame parser refuses longer messages (1009) */
            memcpy(c->rx + c->rx_len, o.data, o.n);
            c->rx_len += o.n;
            if (o.end) {
                c->rx[c->rx_len] = '\0';
                const int code = ws_message(s, c, c->rx, c->rx_len);
                c->rx_len = 0;
                if (code) ws_refuse(wsi, c, code);
            }
            break;
        case KS_WSRX_PING:
            memcpy(c->pong, o.data, o.n);
            c->pong_len = o.n;
            c->pong_pending = 1;
            lws_callback_on_writable(wsi);
            break;
        case KS_WSRX_CLOSE: ws_refuse(wsi, c, (int)o.code); break;
        case KS_WSRX_ERROR: ws_refuse(wsi, c, (int)o.code); break;
        default: break;
        }
    }
}

/* ---- the callback -------------------------------------------------------- */

/* An answer is out: what its request asked to follow. -1: close. */
static int answered(ks_server *s, struct lws *wsi, ks_conn *c)
{
    switch (c->then) {
    case KS_THEN_CLOSE: close_gracefully(wsi, c); return 0;
    case KS_THEN_MJPEG:
        stream_add(s, c, KS_CONN_MJPEG, KS_FRAME_JPEG);
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0); /* a stream has no end to wait for */
        lws_rx_flow_control(wsi, 1);                 /* what the client sends is dropped; its close is seen */
        if (stream_has_news(s, c)) lws_callback_on_writable(wsi);
        return 0;
    case KS_THEN_WS:
        stream_add(s, c, KS_CONN_WS, KS_FRAME_JPEG);
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
        lws_rx_flow_control(wsi, 1);
        lws_callback_on_writable(wsi);
        if (c->in_len) { /* frames that came with the upgrade */
            const size_t n = c->in_len;
            c->in_len = 0;
            ws_input(s, wsi, c, c->in, n);
        }
        return 0;
    default: /* the next request, maybe already here: whole within KS_SERVE_HEAD_SECS, or the keep-alive time */
        c->begun = c->in_len > 0;
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, c->begun ? KS_SERVE_HEAD_SECS : KS_SERVE_KEEPALIVE_SECS);
        return http_input(s, wsi, c);
    }
}

static int ks_serve_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    ks_server *s = server_of(wsi);
    ks_conn *c = user;
    /* stopping: every connection that is served asks to be closed, so that the service loop always returns */
    const int stopping = s && atomic_load(&s->stop);
    switch (reason) {
    case LWS_CALLBACK_RAW_ADOPT:
        if (!c || !s) return -1;
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->begun = 1; /* the first request must be whole within KS_SERVE_HEAD_SECS of the connection */
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, KS_SERVE_HEAD_SECS);
        return 0;
    case LWS_CALLBACK_RAW_RX:
        if (!c || !s || stopping) return -1;
        if (c->lingering || c->kind == KS_CONN_MJPEG) return 0; /* dropped: nothing more is read from it */
        if (c->kind == KS_CONN_WS) {
            if (!c->close_code) ws_input(s, wsi, c, in, len);
            return 0;
        }
        if (len > sizeof c->in - c->in_len) return -1; /* cannot happen: reading stops before the room runs out */
        if (!c->begun) { /* a request's first byte: it must be whole, body and all, in time (slow clients) */
            c->begun = 1;
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, KS_SERVE_HEAD_SECS);
        }
        memcpy(c->in + c->in_len, in, len);
        c->in_len += len;
        return http_input(s, wsi, c);
    case LWS_CALLBACK_RAW_WRITEABLE:
        if (!c || !s || stopping) return -1;
        if (c->shut_pending) { /* all we sent has left lws: shut our side, read until the client closes */
            c->shut_pending = 0;
            c->lingering = 1;
            shutdown(lws_get_socket_fd(wsi), SHUT_WR);
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, KS_SERVE_LINGER_SECS);
            lws_rx_flow_control(wsi, 1);
            return 0;
        }
        if (c->lingering) return 0;
        if (c->kind != KS_CONN_HTTP) return stream_writable(s, wsi, c);
        if (!c->sending) return 0;
        if (send_chunk(s, wsi, c)) return -1;
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, KS_SERVE_HEAD_SECS); /* an answer goes on while it is read */
        if (c->sending) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        return answered(s, wsi, c);
    case LWS_CALLBACK_RAW_CLOSE:
        if (!c || !s) return 0;
        drop_source(c);
        stream_remove(s, c);
        release_item(c);
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (!s) return 0;
        for (ks_conn *k = s->streams; k; k = k->next)
            if (!k->sending && stream_has_news(s, k)) lws_callback_on_writable(k->wsi);
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

const struct lws_protocols ks_serve_protocols[] = {
    {"kernelscope", ks_serve_callback, sizeof(ks_conn), KS_SERVE_RX_MAX, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};
