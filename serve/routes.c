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

static int respond(struct lws *wsi, ks_conn *c, unsigned status, const char *type, ks_hub_item *it,
                   const unsigned char *body, size_t len)
{
    unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    c->kind = KS_CONN_HTTP;
    if (lws_add_http_common_headers(wsi, status, type, len, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end)) {
        ks_hub_item_unref(it);
        return -1;
    }
    if (len == 0) {
        ks_hub_item_unref(it);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
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

static int stream_writable(ks_server *s, struct lws *wsi, ks_conn *c)
{
    if (!c->sending && !stream_next(s, c)) return 0;
    if (send_chunk(s, wsi, c, 0)) return -1;
    if (c->sending || stream_has_news(s, c)) lws_callback_on_writable(wsi);
    return 0;
}

/* ---- requests ------------------------------------------------------------ */

static int token_ok(ks_server *s, struct lws *wsi)
{
    if (!s->token[0]) return 1;
    char buf[KS_SERVE_TOKEN_MAX + 16];
    const char *given = lws_get_urlarg_by_name(wsi, "token=", buf, sizeof buf);
    return ks_serve_token_matches(s->token, given);
}

static int is_method(struct lws *wsi, enum lws_token_indexes t)
{
    return lws_hdr_total_length(wsi, t) > 0;
}

static int press_key(ks_server *s, int key, int shift)
{
    ks_input_event ev = {0};
    ev.type = KS_INPUT_KEY;
    ev.key = key;
    ev.shift = shift;
    return ks_input_queue_push(s->input, &ev);
}

/* POST /key?k=NAME: the answer (204, 400, 503 when the queue is full). */
static unsigned key_request(ks_server *s, struct lws *wsi)
{
    char buf[96];
    const char *name = lws_get_urlarg_by_name(wsi, "k=", buf, sizeof buf);
    int shift = 0;
    const int key = ks_serve_key_from_name(name, &shift);
    if (!key) return 400;
    return press_key(s, key, shift) == 0 ? 204 : 503;
}

static int key_answer(struct lws *wsi, ks_conn *c, unsigned status)
{
    if (status == 204) return respond(wsi, c, 204, NULL, NULL, NULL, 0);
    return respond_text(wsi, c, status, status == 400 ? "unknown key name (GLFW names in lower case: space, tab, m, right, ...)\n"
                                                    : "input queue full, try again\n");
}

/* Bytes of the request head lws parsed into known headers. */
static int head_bytes(struct lws *wsi)
{
    int n = 0;
    for (int t = 0; t < WSI_TOKEN_COUNT; ++t) n += lws_hdr_total_length(wsi, (enum lws_token_indexes)t);
    return n;
}

static int http_request(ks_server *s, struct lws *wsi, ks_conn *c, const char *path)
{
    const int get = is_method(wsi, WSI_TOKEN_GET_URI), post = is_method(wsi, WSI_TOKEN_POST_URI);
    c->kind = KS_CONN_HTTP;
    if (strlen(path) + (size_t)lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS) > KS_SERVE_URI_MAX)
        return respond_text(wsi, c, 414, "URI too long\n");
    if (head_bytes(wsi) > KS_SERVE_HEAD_MAX) return respond_text(wsi, c, 431, "request header fields too large\n");
    if (!get && !post) return respond_text(wsi, c, 405, "method not allowed\n");
    if (!token_ok(s, wsi)) return respond_text(wsi, c, 403, "forbidden: open the URL with ?token= as printed\n");
    if (post) {
        if (strcmp(path, "/key") != 0) return respond_text(wsi, c, 404, "not found\n");
        c->post_key = 1;
        c->post_status = key_request(s, wsi);
        char cl[32] = "";
        if (lws_hdr_copy(wsi, cl, sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 && atol(cl) > 0) {
            if (atol(cl) > KS_SERVE_BODY_MAX) return respond_text(wsi, c, 413, "request body too large\n");
            return 0; /* answered once the (ignored) body is in */
        }
        return key_answer(wsi, c, (unsigned)c->post_status);
    }
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0)
        return respond(wsi, c, 200, "text/html; charset=utf-8", NULL, ks_serve_page, ks_serve_page_len);
    if (strcmp(path, "/state.json") == 0) {
        ks_hub_item *it = ks_frame_hub_get(s->hub, KS_HUB_STATE);
        if (!it) return respond_text(wsi, c, 503, "no state yet\n");
        return respond(wsi, c, 200, "application/json", it, it->data, it->size);
    }
    if (strcmp(path, "/stream.mjpg") == 0) {
        unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        if (lws_add_http_common_headers(wsi, 200, "multipart/x-mixed-replace; boundary=ksframe",
                                        LWS_ILLEGAL_HTTP_CONTENT_LEN, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-store", 8, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        stream_add(s, c, wsi, KS_CONN_MJPEG, KS_FRAME_JPEG);
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0); /* a stream has no end to wait for */
        if (stream_has_news(s, c)) lws_callback_on_writable(wsi);
        return 0;
    }
    if (strcmp(path, "/ws") == 0) return respond_text(wsi, c, 400, "/ws takes a WebSocket upgrade\n");
    return respond_text(wsi, c, 404, "not found\n");
}

/* ---- WebSocket input ----------------------------------------------------- */

static const char *const ks_input_paths[] = {"key", "shift", "mouse", "x", "y", "dx", "dy", "inside", "accept",
                                             "stats.fps", "stats.codec"};
enum { P_KEY, P_SHIFT, P_MOUSE, P_X, P_Y, P_DX, P_DY, P_INSIDE, P_ACCEPT, P_STATS_FPS, P_STATS_CODEC };

typedef struct input_parse {
    char key[32], mouse[16], accept[16], codec[16];
    int shift, inside, has_fps;
    double x, y, dx, dy, fps;
} input_parse;

/* Too long for dst: left empty (no name is that long, so the message means nothing). */
static void take_name(char *dst, size_t cap, const char *src)
{
    const size_t n = strlen(src);
    if (n >= cap) {
        dst[0] = '\0';
        return;
    }
    memcpy(dst, src, n + 1);
}

static signed char input_cb(struct lejp_ctx *ctx, char reason)
{
    input_parse *ip = ctx->user;
    if (!(reason & LEJP_FLAG_CB_IS_VALUE) || ctx->path_match == 0) return 0;
    const int which = ctx->path_match - 1;
    const int truth = reason == LEJPCB_VAL_TRUE;
    const double num = (reason == LEJPCB_VAL_NUM_INT || reason == LEJPCB_VAL_NUM_FLOAT) ? atof(ctx->buf) : 0.0;
    switch (which) {
    case P_KEY: take_name(ip->key, sizeof ip->key, ctx->buf); break;
    case P_MOUSE: take_name(ip->mouse, sizeof ip->mouse, ctx->buf); break;
    case P_ACCEPT: take_name(ip->accept, sizeof ip->accept, ctx->buf); break;
    case P_SHIFT: ip->shift = truth; break;
    case P_INSIDE: ip->inside = truth; break;
    case P_X: ip->x = num; break;
    case P_Y: ip->y = num; break;
    case P_DX: ip->dx = num; break;
    case P_DY: ip->dy = num; break;
    case P_STATS_FPS:
        ip->fps = num;
        ip->has_fps = reason == LEJPCB_VAL_NUM_INT || reason == LEJPCB_VAL_NUM_FLOAT;
        break;
    case P_STATS_CODEC: take_name(ip->codec, sizeof ip->codec, ctx->buf); break;
    default: break;
    }
    return 0;
}

/* One complete message from a page. Returns -1 to close (not JSON / nonsense). */
static int ws_message(ks_server *s, ks_conn *c, const char *msg, size_t len)
{
    input_parse ip;
    memset(&ip, 0, sizeof ip);
    struct lejp_ctx jc;
    lejp_construct(&jc, input_cb, &ip, ks_input_paths, (unsigned char)(sizeof ks_input_paths / sizeof ks_input_paths[0]));
    const int rc = lejp_parse(&jc, (const unsigned char *)msg, (int)len);
    lejp_destruct(&jc);
    if (rc < 0) return -1;
    if (ip.accept[0]) {
        /* the page can decode H.264 (WebCodecs): switch when the server has an encoder */
        if (strcmp(ip.accept, "h264") == 0 && ks_encode_worker_has_video(s->worker) && c->want != KS_FRAME_H264) {
            ks_encode_worker_want(s->worker, c->want, -1);
            c->want = KS_FRAME_H264;
            c->need_key = 1;
            c->frame_seq = 0;
            ks_encode_worker_want(s->worker, c->want, +1);
            ks_encode_worker_request_keyframe(s->worker);
        }
        return 0;
    }
    if (ip.has_fps) {
        /* a page's own figure, checked like any input: a number of frames a second and a known codec */
        const ks_frame_kind kind = strcmp(ip.codec, "h264") == 0 ? KS_FRAME_H264
                                   : strcmp(ip.codec, "jpeg") == 0 ? KS_FRAME_JPEG : KS_FRAME_NONE;
        if (kind != KS_FRAME_NONE && ip.fps >= 0.0 && ip.fps <= 100000.0) {
            pthread_mutex_lock(&s->stats_lock);
            s->viewer.fps = ip.fps;
            s->viewer.kind = kind;
            s->viewer.fps_sum += ip.fps;
            ++s->viewer.reports;
            pthread_mutex_unlock(&s->stats_lock);
        }
        return 0;
    }
    if (ip.key[0]) {
        int shift = 0;
        const int key = ks_serve_key_from_name(ip.key, &shift);
        if (key) press_key(s, key, shift || ip.shift); /* unknown names are ignored, as in the window */
        return 0;
    }
    if (ip.mouse[0]) {
        ks_input_event ev = {0};
        ev.x = ip.x;
        ev.y = ip.y;
        ev.dx = ip.dx;
        ev.dy = ip.dy;
        ev.inside = ip.inside;
        if (strcmp(ip.mouse, "move") == 0) ev.type = KS_INPUT_MOUSE;
        else if (strcmp(ip.mouse, "wheel") == 0) ev.type = KS_INPUT_WHEEL;
        else if (strcmp(ip.mouse, "drag") == 0) ev.type = KS_INPUT_DRAG;
        else return 0;
        ks_input_queue_push(s->input, &ev);
    }
    return 0;
}

static int ws_receive(ks_server *s, struct lws *wsi, ks_conn *c, const void *in, size_t len)
{
    if (lws_frame_is_binary(wsi)) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, (unsigned char *)"text only", 9);
        return -1;
    }
    if (c->rx_len + len > sizeof c->rx - 1) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)"too large", 9);
        return -1;
    }
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return 0;
    c->rx[c->rx_len] = '\0';
    const int rc = ws_message(s, c, c->rx, c->rx_len);
    c->rx_len = 0;
    if (rc) lws_close_reason(wsi, LWS_CLOSE_STATUS_INVALID_PAYLOAD, (unsigned char *)"bad message", 11);
    return rc;
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
        c->body_in += len;
        if (c->body_in > KS_SERVE_BODY_MAX) return -1;
        return 0;
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if (c->post_key) return key_answer(wsi, c, (unsigned)c->post_status);
        return respond_text(wsi, c, 404, "not found\n");
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (!s) return 0;
        if (c->kind == KS_CONN_MJPEG) return stream_writable(s, wsi, c);
        if (c->kind != KS_CONN_HTTP || !c->sending) return 0;
        if (send_chunk(s, wsi, c, 1)) return -1;
        if (c->sending) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: {
        char path[64] = "";
        lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI);
        unsigned status = 0;
        if (strcmp(path, "/ws") != 0) status = 404;
        else if (!token_ok(s, wsi)) status = 403;
        if (!status) return 0;
        const char *text = status == 404 ? "not found\n" : "forbidden\n";
        unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        if (lws_add_http_common_headers(wsi, status, "text/plain", strlen(text), &p, end) ||
            lws_finalize_http_header(wsi, &p, end))
            return -1;
        memcpy(p, text, strlen(text));
        p += strlen(text);
        lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS);
        return 1;
    }
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
        if (c->kind == KS_CONN_WS || c->kind == KS_CONN_MJPEG) stream_remove(s, c);
        else release_item(c);
        return 0;
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        /* the HTTP transaction is over (keep-alive goes on): drop what it held */
        if (c && c->kind == KS_CONN_HTTP) release_item(c);
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
