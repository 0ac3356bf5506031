/* The lws protocol callback. Every connection is a raw socket: lws accepts,
 * reads and writes the bytes; the framing of requests, the answers and the
 * WebSocket frames are ours (request.c decides, this file acts), so that a
 * pipelined request, an oversized head or an unmasked frame is handled the
 * way docs/serve.md says and not the way lws's HTTP code happens to.
 * Everything here runs on the service thread. This file: the requests (one
 * at a time per connection, pipelined ones wait) and the callback. Each
 * connection sends one item at a time in chunks (conn_send.c), so a slow
 * client holds one reference and the kernel's socket buffer, nothing more;
 * a stream, when it is ready for the next item, takes the newest, and what
 * it missed is dropped (conn_stream.c); a page's WebSocket messages come in
 * through conn_ws_input.c. */
#include "server_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "serve/serve_keys.h"

static ks_server *server_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi)); /* the cancel pipe has no vhost */
}

/* ---- requests ------------------------------------------------------------ */

int ks_server_press_key(ks_server *s, int key, int shift)
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
    if (!it) return ks_conn_respond_text(wsi, c, 503, "out of memory\n");
    it->size = s->editor.describe(s->editor.user, (char *)it->data, DOC_MAX);
    if (it->size == 0 || it->size >= DOC_MAX) {
        ks_hub_item_unref(it);
        return ks_conn_respond_text(wsi, c, 503, "the kernel file cannot be read now\n");
    }
    return ks_conn_respond(wsi, c, 200, "application/json", it, it->data, (long long)it->size);
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
    ks_conn_drop_source(c);
    ks_hub_item *it = ks_hub_item_new(sizeof msg + 64);
    if (!it) return ks_conn_respond_text(wsi, c, 503, "out of memory\n");
    /* a one-line answer; the build's outcome comes with GET /kernel */
    it->size = (size_t)snprintf((char *)it->data, sizeof msg + 64, "%s\n", status ? msg : "saved; building");
    return ks_conn_respond(wsi, c, status ? status : 202, "text/plain; charset=utf-8", it, it->data, (long long)it->size);
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
    ks_conn_start_item(wsi, c, NULL, NULL, 0);
    return 0;
}

/* Acts on a decided request: the request (and its body) is complete and valid. */
static int act(ks_server *s, struct lws *wsi, ks_conn *c, const ks_req_answer *a, const char *ws_key)
{
    switch (a->route) {
    case KS_ROUTE_KERNEL: return kernel_document(s, wsi, c);
    case KS_ROUTE_EDITOR_JS:
        return ks_conn_respond(wsi, c, 200, "text/javascript; charset=utf-8", NULL, s->editor_js, (long long)s->editor_js_len);
    case KS_ROUTE_EDITOR_CSS:
        return ks_conn_respond(wsi, c, 200, "text/css; charset=utf-8", NULL, s->editor_css, (long long)s->editor_css_len);
    case KS_ROUTE_KERNEL_SAVE: return kernel_save(s, wsi, c);
    case KS_ROUTE_PAGE:
        return ks_conn_respond(wsi, c, 200, "text/html; charset=utf-8", NULL, ks_serve_page, (long long)ks_serve_page_len);
    case KS_ROUTE_STATE: {
        ks_hub_item *it = ks_frame_hub_get(s->hub, KS_HUB_STATE);
        if (!it) return ks_conn_respond_text(wsi, c, 503, "no state yet\n");
        return ks_conn_respond(wsi, c, 200, "application/json", it, it->data, (long long)it->size);
    }
    case KS_ROUTE_KEY:
        if (ks_server_press_key(s, a->key, a->shift) != 0) return ks_conn_respond_text(wsi, c, 503, "input queue full, try again\n");
        return ks_conn_respond(wsi, c, 204, NULL, NULL, NULL, 0);
    case KS_ROUTE_MJPEG:
        /* HEAD: no stream follows, and the connection ends with the head */
        c->then = c->head_only ? KS_THEN_CLOSE : KS_THEN_MJPEG;
        return ks_conn_respond(wsi, c, 200, "multipart/x-mixed-replace; boundary=ksframe", NULL, NULL, -1);
    case KS_ROUTE_WS: return accept_websocket(wsi, c, ws_key);
    default: return ks_conn_respond_text(wsi, c, a->status, a->text ? a->text : "\n");
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
        return ks_conn_respond_text(wsi, c, status, why);
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
        ks_conn_drop_source(c);
        if (!(c->source = ks_hub_item_new((size_t)a.body_len))) {
            c->has_pending = 0;
            c->then = KS_THEN_CLOSE;
            return ks_conn_respond_text(wsi, c, 503, "out of memory\n");
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
            rc = ks_conn_respond_text(wsi, c, st.status,
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

/* ---- the callback -------------------------------------------------------- */

/* An answer is out: what its request asked to follow. -1: close. */
static int answered(ks_server *s, struct lws *wsi, ks_conn *c)
{
    switch (c->then) {
    case KS_THEN_CLOSE: ks_conn_close_gracefully(wsi, c); return 0;
    case KS_THEN_MJPEG:
        ks_conn_stream_add(s, c, KS_CONN_MJPEG, KS_FRAME_JPEG);
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0); /* a stream has no end to wait for */
        lws_rx_flow_control(wsi, 1);                 /* what the client sends is dropped; its close is seen */
        if (ks_conn_stream_has_news(s, c)) lws_callback_on_writable(wsi);
        return 0;
    case KS_THEN_WS:
        ks_conn_stream_add(s, c, KS_CONN_WS, KS_FRAME_JPEG);
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
        lws_rx_flow_control(wsi, 1);
        lws_callback_on_writable(wsi);
        if (c->in_len) { /* frames that came with the upgrade */
            const size_t n = c->in_len;
            c->in_len = 0;
            ks_conn_ws_input(s, wsi, c, c->in, n);
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
            if (!c->close_code) ks_conn_ws_input(s, wsi, c, in, len);
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
        if (c->kind != KS_CONN_HTTP) return ks_conn_stream_writable(s, wsi, c);
        if (!c->sending) return 0;
        if (ks_conn_send_chunk(s, wsi, c)) return -1;
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, KS_SERVE_HEAD_SECS); /* an answer goes on while it is read */
        if (c->sending) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        return answered(s, wsi, c);
    case LWS_CALLBACK_RAW_CLOSE:
        if (!c || !s) return 0;
        ks_conn_drop_source(c);
        ks_conn_stream_remove(s, c);
        ks_conn_release_item(c);
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (!s) return 0;
        for (ks_conn *k = s->streams; k; k = k->next)
            if (!k->sending && ks_conn_stream_has_news(s, k)) lws_callback_on_writable(k->wsi);
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
