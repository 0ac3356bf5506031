/* What a page sends on its WebSocket: frames checked by ks_ws_rx_step, whole
 * messages acted on (keys and mouse to the input queue, its stats kept, H.264
 * taken when it can decode it), a ping answered, a bad frame closed with its
 * code. Service thread only. */
#include "server_internal.h"

#include <string.h>

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
    case KS_WS_KEY: ks_server_press_key(s, in.key, in.shift); break;
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
void ks_conn_ws_input(ks_server *s, struct lws *wsi, ks_conn *c, unsigned char *buf, size_t len)
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
