/* Streaming connections (MJPEG and WebSocket): the list of them, which take
 * the newest state and frame when ready for the next item (what they missed
 * is dropped; H.264 waits for a key frame after a gap), and our WebSocket
 * frames out: messages, pong and close. Service thread only. */
#include "server_internal.h"

#include <stdio.h>
#include <string.h>

void ks_conn_stream_add(ks_server *s, ks_conn *c, ks_conn_kind kind, ks_frame_kind want)
{
    c->kind = kind;
    c->want = want;
    c->next = s->streams;
    s->streams = c;
    c->streaming = 1;
    ks_encode_worker_want(s->worker, want, +1);
}

void ks_conn_stream_remove(ks_server *s, ks_conn *c)
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
int ks_conn_stream_has_news(ks_server *s, const ks_conn *c)
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
            ks_conn_start_item(wsi, c, it, it->data, it->size);
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
    ks_conn_start_item(wsi, c, it, it->data, it->size);
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
    ks_conn_start_item(wsi, c, NULL, NULL, 0);
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

int ks_conn_stream_writable(ks_server *s, struct lws *wsi, ks_conn *c)
{
    if (c->sending) {
        if (ks_conn_send_chunk(s, wsi, c)) return -1;
        if (c->sending) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        if (c->then == KS_THEN_CLOSE) { /* that was our close frame */
            ks_conn_close_gracefully(wsi, c);
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
    if (ks_conn_stream_has_news(s, c)) stream_next(s, wsi, c);
    return 0;
}
