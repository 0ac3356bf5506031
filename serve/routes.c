/* The lws protocol callback: the routes, the token check, and sending.
 * Everything here runs on the service thread. Each connection sends one item
 * at a time in chunks of KS_SERVE_CHUNK bytes, one chunk per writable
 * callback, so a slow client holds one reference and the kernel's socket
 * buffer, nothing more; when it is ready for the next item it takes the
 * newest, and what it missed is dropped. */
#include "server_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve_keys.h"

extern const unsigned char ks_serve_page[];
extern const size_t ks_serve_page_len;

static ks_server *server_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi)); /* the cancel pipe has no vhost */
}

/* ---- sending ------------------------------------------------------------- */

/* A POST /kernel body that will not be acted on (the connection or the transaction ended). */
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

/* Writes the next chunk. Returns -1 to close the connection, 0 otherwise; c->sending drops to 0 when done. */
static int send_chunk(ks_server *s, struct lws *wsi, ks_conn *c, int http_final)
{
    size_t n = c->total - c->off;
    if (n > KS_SERVE_CHUNK) n = KS_SERVE_CHUNK;
    unsigned char *p = s->scratch + LWS_PRE;
    gather(c, c->off, p, n);
    const int first = c->off == 0, last = c->off + n == c->total;
    enum lws_write_protocol mode;
    if (c->kind == KS_CONN_WS) mode = lws_write_ws_flags(c->text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY, first, last);
    else mode = (last && http_final) ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP;
    if (lws_write(wsi, p, n, mode) < (int)n) return -1;
    c->off += n;
    if (last) release_item(c);
    return 0;
}

static void start_item(ks_conn *c, ks_hub_item *it, const unsigned char *body, size_t body_len)
{
    c->item = it;
    c->body = body;
    c->total = c->head_len + body_len + c->tail_len;
    c->off = 0;
    c->sending = 1;
}

/* ---- one-shot responses -------------------------------------------------- */

/* Headers every answer carries: no caching, no sniffing, no token in a Referer. */
static int common_headers(struct lws *wsi, unsigned char **p, unsigned char *end)
{
    return lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:", (const unsigned char *)"no-store", 8,
                                       p, end) ||
           lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
                                       (const unsigned char *)"nosniff", 7, p, end) ||
           lws_add_http_header_by_name(wsi, (const unsigned char *)"referrer-policy:",
                                       (const unsigned char *)"no-referrer", 11, p, end);
}

/* The page: its own inline script and style, fetch and WebSocket to this server, nothing from elsewhere, no framing. */
static const char ks_page_csp[] = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
                                  "img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; "
                                  "form-action 'none'; frame-ancestors 'none'";

static int respond(struct lws *wsi, ks_conn *c, unsigned status, const char *type, ks_hub_item *it,
                   const unsigned char *body, size_t len)
{
    unsigned char buf[LWS_PRE + 1536], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    c->kind = KS_CONN_HTTP;
    const int page = body == ks_serve_page;
    if (lws_add_http_common_headers(wsi, status, type, len, &p, end) || common_headers(wsi, &p, end) ||
        (page && lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
                                             (const unsigned char *)ks_page_csp, (int)strlen(ks_page_csp), &p, end)) ||
        (c->close_after && lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
                                                       (const unsigned char *)"close", 5, &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end)) {
        ks_hub_item_unref(it);
        return -1;
    }
    if (len == 0 || c->head_only) {
        /* ended from the writable callback, as a body would be: pipelined requests stay in order */
        ks_hub_item_unref(it);
        c->complete_pending = 1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    start_item(c, it, body, len);
    lws_callback_on_writable(wsi);
    return 0;
}

static int respond_text(struct lws *wsi, ks_conn *c, unsigned status, const char *text)
{
    return respond(wsi, c, status, "text/plain; charset=utf-8", NULL, (const unsigned char *)text, strlen(text));
}

/* ---- streaming connections ----------------------------------------------- */

static void stream_add(ks_server *s, ks_conn *c, struct lws *wsi, ks_conn_kind kind, ks_frame_kind want)
{
    c->kind = kind;
    c->wsi = wsi;
    c->want = want;
    c->next = s->streams;
    s->streams = c;
    ks_encode_worker_want(s->worker, want, +1);
}

static void stream_remove(ks_server *s, ks_conn *c)
{
    for (ks_conn **pp = &s->streams; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            ks_encode_worker_want(s->worker, c->want, -1);
            break;
        }
    release_item(c);
    c->kind = KS_CONN_NONE;
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

/* Picks the next item for a stream (the state first, then the newest frame). 1: one started. */
static int stream_next(ks_server *s, ks_conn *c)
{
    if (c->kind == KS_CONN_WS && ks_frame_hub_seq(s->hub, KS_HUB_STATE) > c->state_seq) {
        ks_hub_item *it = ks_frame_hub_get(s->hub, KS_HUB_STATE);
        if (it) {
            c->state_seq = it->seq;
            c->text = 1;
            c->head_len = c->tail_len = 0;
            start_item(c, it, it->data, it->size);
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
        h[0] = (unsigned char)it->kind;
        h[1] = (unsigned char)(it->keyframe ? 1 : 0);
        h[2] = h[3] = 0;
        for (int i = 0; i < 4; ++i) {
            h[4 + i] = (unsigned char)((unsigned)it->width >> (8 * i));
            h[8 + i] = (unsigned char)((unsigned)it->height >> (8 * i));
        }
        c->head_len = KS_SERVE_FRAME_HEADER;
        c->tail_len = 0;
        c->text = 0;
    } else {
        int n = snprintf(c->head, sizeof c->head,
                         "--ksframe\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n", it->size);
        c->head_len = (size_t)n;
        c->tail_len = 2;
    }
    start_item(c, it, it->data, it->size);
    return 1;
}

/* The close of a connection that sent a bad message, once no message of ours
 * is half sent: a close frame cannot cut into one, and lws, asked to close
 * mid-message, drops the connection without a close frame at all. */
static int ws_close_now(struct lws *wsi, ks_conn *c)
{
    const char *why = c->close_code == LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE ? "text only"
                      : c->close_code == LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE  ? "too large"
                                                                              : "bad message";
    lws_close_reason(wsi, (enum lws_close_status)c->close_code, (unsigned char *)why, strlen(why));
    return -1;
}

static int stream_writable(ks_server *s, struct lws *wsi, ks_conn *c)
{
    if (c->close_code) {
        if (!c->sending) return ws_close_now(wsi, c);
        if (send_chunk(s, wsi, c, 0)) return -1;
        lws_callback_on_writable(wsi); /* the rest of the message, then the close */
        return 0;
    }
    if (!c->sending && !stream_next(s, c)) return 0;
    if (send_chunk(s, wsi, c, 0)) return -1;
    if (c->sending || stream_has_news(s, c)) lws_callback_on_writable(wsi);
    return 0;
}

/* ---- requests ------------------------------------------------------------ */

/* A ks_req and the bytes it points at. */
typedef struct req_store {
    ks_req r;
    char args[KS_REQ_ARGS_MAX][256];
    char host[256], origin[256], length[64], expect[64];
} req_store;

/* The header's text into dst, or NULL when absent (or longer than dst: the checks refuse "" too). */
static const char *header(struct lws *wsi, enum lws_token_indexes t, char *dst, int cap)
{
    if (lws_hdr_total_length(wsi, t) <= 0) return NULL;
    if (lws_hdr_copy(wsi, dst, cap, t) < 0) dst[0] = '\0';
    return dst;
}

static void fill_req(ks_server *s, struct lws *wsi, const char *path, int upgrade, req_store *q)
{
    memset(&q->r, 0, sizeof q->r);
    ks_req *r = &q->r;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0) r->method = KS_REQ_GET;
    else if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0) r->method = KS_REQ_HEAD;
    else if (lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0) r->method = KS_REQ_POST;
    r->upgrade = upgrade;
    r->path = path;
    for (int i = 0; i < KS_REQ_ARGS_MAX; ++i) {
        if (lws_hdr_copy_fragment(wsi, q->args[i], (int)sizeof q->args[i], WSI_TOKEN_HTTP_URI_ARGS, i) <= 0) break;
        r->args[r->nargs++] = q->args[i];
    }
    r->host = header(wsi, WSI_TOKEN_HOST, q->host, (int)sizeof q->host);
    r->origin = header(wsi, WSI_TOKEN_ORIGIN, q->origin, (int)sizeof q->origin);
    r->content_length = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, q->length, (int)sizeof q->length);
    r->expect = header(wsi, WSI_TOKEN_HTTP_EXPECT, q->expect, (int)sizeof q->expect);
    r->uri_len = strlen(path) + (size_t)lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS);
    for (int t = 0; t < WSI_TOKEN_COUNT; ++t) r->head_len += (size_t)lws_hdr_total_length(wsi, (enum lws_token_indexes)t);
    r->addr = s->addr;
    r->port = s->port;
    r->token = s->token;
    r->editor = s->editor.describe != NULL;
    r->editor_code = s->editor_js != NULL;
}

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
    return respond(wsi, c, 200, "application/json", it, it->data, it->size);
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
    return respond(wsi, c, status ? status : 202, "text/plain; charset=utf-8", it, it->data, it->size);
}

/* Acts on a decided request: the request (and its body) is complete and valid. */
static int act(ks_server *s, struct lws *wsi, ks_conn *c, const ks_req_answer *a)
{
    switch (a->route) {
    case KS_ROUTE_KERNEL: return kernel_document(s, wsi, c);
    case KS_ROUTE_EDITOR_JS:
        return respond(wsi, c, 200, "text/javascript; charset=utf-8", NULL, s->editor_js, s->editor_js_len);
    case KS_ROUTE_EDITOR_CSS: return respond(wsi, c, 200, "text/css; charset=utf-8", NULL, s->editor_css, s->editor_css_len);
    case KS_ROUTE_KERNEL_SAVE: return kernel_save(s, wsi, c);
    case KS_ROUTE_PAGE: return respond(wsi, c, 200, "text/html; charset=utf-8", NULL, ks_serve_page, ks_serve_page_len);
    case KS_ROUTE_STATE: {
        ks_hub_item *it = ks_frame_hub_get(s->hub, KS_HUB_STATE);
        if (!it) return respond_text(wsi, c, 503, "no state yet\n");
        return respond(wsi, c, 200, "application/json", it, it->data, it->size);
    }
    case KS_ROUTE_KEY:
        if (press_key(s, a->key, a->shift) != 0) return respond_text(wsi, c, 503, "input queue full, try again\n");
        return respond(wsi, c, 204, NULL, NULL, NULL, 0);
    case KS_ROUTE_MJPEG: {
        unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        if (lws_add_http_common_headers(wsi, 200, "multipart/x-mixed-replace; boundary=ksframe",
                                        LWS_ILLEGAL_HTTP_CONTENT_LEN, &p, end) ||
            common_headers(wsi, &p, end) || lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        if (c->head_only) { /* no stream to follow: the connection ends here */
            c->complete_pending = 1;
            c->close_after = 1;
            lws_callback_on_writable(wsi);
            return 0;
        }
        stream_add(s, c, wsi, KS_CONN_MJPEG, KS_FRAME_JPEG);
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0); /* a stream has no end to wait for */
        if (stream_has_news(s, c)) lws_callback_on_writable(wsi);
        return 0;
    }
    default: return respond_text(wsi, c, a->status, a->text ? a->text : "\n");
    }
}

static int http_request(ks_server *s, struct lws *wsi, ks_conn *c, const char *path)
{
    req_store store, *q = &store;
    fill_req(s, wsi, path, 0, q);
    ks_req_answer a;
    ks_req_decide(&q->r, &a);
    c->kind = KS_CONN_HTTP;
    c->head_only = q->r.method == KS_REQ_HEAD;
    /* HEAD: lws would wait for the body its content-length announced; close instead */
    c->close_after = a.close || c->head_only;
    c->has_pending = 0;
    if (a.body_len > 0 && !a.close) {
        /* the body comes first, then the answer: nothing is acted on for a request cut short */
        c->body_in.declared = a.body_len;
        c->body_in.got = 0;
        c->pending = a;
        c->has_pending = 1;
        if (a.route == KS_ROUTE_KERNEL_SAVE) { /* kept: it is the new source */
            drop_source(c);
            if (!(c->source = ks_hub_item_new((size_t)a.body_len))) return respond_text(wsi, c, 503, "out of memory\n");
            c->source->size = 0;
        }
        return 0;
    }
    return act(s, wsi, c, &a);
}

/* The upgrade to /ws, checked like a request. 0: accept; 1: refused (answered here). */
static int confirm_upgrade(ks_server *s, struct lws *wsi)
{
    char path[KS_REQ_URI_MAX + 1] = "";
    if (lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) < 0) path[0] = '\0';
    req_store store, *q = &store;
    fill_req(s, wsi, path, 1, q);
    ks_req_answer a;
    ks_req_decide(&q->r, &a);
    if (a.route == KS_ROUTE_WS) return 0;
    const char *text = a.text ? a.text : "\n";
    unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    if (lws_add_http_common_headers(wsi, a.status, "text/plain; charset=utf-8", strlen(text), &p, end) ||
        common_headers(wsi, &p, end) || lws_finalize_http_header(wsi, &p, end) || (size_t)(end - p) < strlen(text))
        return -1;
    memcpy(p, text, strlen(text));
    p += strlen(text);
    lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS);
    return 1;
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

/* Refuses what the page sent: the close goes out from the writable callback
 * (ws_close_now), after the message being sent; nothing more is read. */
static int ws_refuse(struct lws *wsi, ks_conn *c, int code)
{
    c->close_code = code;
    c->rx_len = 0;
    lws_rx_flow_control(wsi, 0);
    lws_callback_on_writable(wsi);
    return 0;
}

static int ws_receive(ks_server *s, struct lws *wsi, ks_conn *c, const void *in, size_t len)
{
    if (c->close_code) return 0; /* refused already: the close is on its way */
    if (lws_frame_is_binary(wsi)) return ws_refuse(wsi, c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE);
    if (c->rx_len + len > KS_SERVE_WS_MSG_MAX) return ws_refuse(wsi, c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE);
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return 0;
    c->rx[c->rx_len] = '\0';
    const int code = ws_message(s, c, c->rx, c->rx_len);
    c->rx_len = 0;
    return code ? ws_refuse(wsi, c, code) : 0;
}

/* ---- the callback -------------------------------------------------------- */

static int ks_serve_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    ks_server *s = server_of(wsi);
    ks_conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return http_request(s, wsi, c, in ? (const char *)in : "");
    case LWS_CALLBACK_HTTP_BODY:
        if (!c->has_pending) return 0; /* a refused request's body: the connection closes after the answer */
        if (ks_req_body_feed(&c->body_in, len) < 0) return -1;
        if (c->source) { /* within the declared size: the feed refuses more */
            memcpy(c->source->data + c->source->size, in, len);
            c->source->size += len;
        }
        return 0;
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if (!c->has_pending || c->body_in.got != c->body_in.declared) return 0;
        c->has_pending = 0;
        return act(s, wsi, c, &c->pending);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (!s) return 0;
        if (c->kind == KS_CONN_MJPEG) return stream_writable(s, wsi, c);
        if (c->kind != KS_CONN_HTTP) return 0;
        if (c->complete_pending) {
            c->complete_pending = 0;
        } else {
            if (!c->sending) return 0;
            if (send_chunk(s, wsi, c, 1)) return -1;
            if (c->sending) {
                lws_callback_on_writable(wsi);
                return 0;
            }
        }
        if (c->close_after) return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return confirm_upgrade(s, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof *c);
        stream_add(s, c, wsi, KS_CONN_WS, KS_FRAME_JPEG);
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return ws_receive(s, wsi, c, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return c->kind == KS_CONN_WS ? stream_writable(s, wsi, c) : 0;
    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_CLOSED_HTTP:
        if (!c || !s) return 0;
        drop_source(c);
        if (c->kind == KS_CONN_WS || c->kind == KS_CONN_MJPEG) stream_remove(s, c);
        else release_item(c);
        return 0;
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        /* the HTTP transaction is over (keep-alive goes on): drop what it held */
        if (c && c->kind == KS_CONN_HTTP) {
            drop_source(c);
            release_item(c);
        }
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
    {"kernelscope", ks_serve_callback, sizeof(ks_conn), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};
