/* A page's WebSocket, as pure functions: the frames in (ks_ws_rx_step: masked,
 * sizes, control frames, close codes), the handshake's accept key, UTF-8
 * checks, and one whole message into a ks_ws_input (keys, mouse, the page's
 * stats, what it can decode). */
#include "request.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libwebsockets.h>

#include "base/ks_util.h"
#include "serve/serve_keys.h"

/* ---- WebSocket frames ------------------------------------------------------- */

enum { WS_CONT = 0, WS_TEXT = 1, WS_BINARY = 2, WS_CLOSE = 8, WS_PING = 9, WS_PONG = 10 };

static void ws_error(ks_ws_rx_out *out, unsigned code)
{
    out->kind = KS_WSRX_ERROR;
    out->code = code;
}

static int close_code_ok(unsigned c)
{
    return (c >= 1000 && c <= 1003) || (c >= 1007 && c <= 1011) || (c >= 3000 && c <= 4999);
}

/* A control frame whose payload is all in st->ctl. */
static void ws_control(ks_ws_rx *st, ks_ws_rx_out *out)
{
    if (st->opcode == WS_PING) {
        out->kind = KS_WSRX_PING;
        out->data = st->ctl;
        out->n = st->ctl_len;
    } else if (st->opcode == WS_PONG) {
        out->kind = KS_WSRX_PONG;
    } else if (st->ctl_len == 0) {
        out->kind = KS_WSRX_CLOSE;
        out->code = 1000; /* no code given: a normal close */
    } else {
        const unsigned code = (unsigned)st->ctl[0] << 8 | st->ctl[1];
        if (st->ctl_len == 1 || !close_code_ok(code)) return ws_error(out, 1002);
        if (!ks_req_utf8_valid(st->ctl + 2, st->ctl_len - 2)) return ws_error(out, 1007);
        out->kind = KS_WSRX_CLOSE;
        out->code = code;
    }
}

/* The header in st->hdr is whole: check it and start the payload. */
static void ws_header(ks_ws_rx *st, ks_ws_rx_out *out)
{
    const unsigned char *h = st->hdr;
    const unsigned len7 = h[1] & 0x7f;
    unsigned long long n = len7;
    size_t at = 2;
    if (len7 == 126) {
        n = (unsigned long long)h[2] << 8 | h[3];
        at = 4;
    } else if (len7 == 127) {
        n = 0;
        for (int i = 0; i < 8; ++i) n = n << 8 | h[2 + i];
        at = 10;
        if (n >> 63) return ws_error(out, 1002);
    }
    memcpy(st->mask, h + at, 4);
    st->mask_pos = 0;
    st->left = n;
    st->ctl_len = 0;
    st->in_payload = 1;
    if (st->opcode == WS_TEXT || st->opcode == WS_CONT) {
        if (st->opcode == WS_TEXT) st->msg_len = 0;
        if (n > (unsigned long long)KS_REQ_WS_MSG_MAX - st->msg_len) return ws_error(out, 1009);
        st->msg_len += n;
        st->in_message = !st->fin;
    }
}

/* The frame's payload is all in: what it ends. */
static void ws_frame_end(ks_ws_rx *st, ks_ws_rx_out *out)
{
    st->in_payload = 0;
    st->hdr_len = 0;
    if (st->opcode & 8) return ws_control(st, out);
    out->kind = KS_WSRX_DATA;
    out->end = st->fin;
}

void ks_ws_rx_step(ks_ws_rx *st, unsigned char *buf, size_t len, ks_ws_rx_out *out)
{
    memset(out, 0, sizeof *out);
    if (!len) return;
    if (!st->in_payload) {
        /* the first two bytes say how long the header is: 2 + 0/2/8 length bytes + 4 mask bytes */
        while (out->used < len) {
            st->hdr[st->hdr_len++] = buf[out->used++];
            if (st->hdr_len == 2) {
                const unsigned char b0 = st->hdr[0], b1 = st->hdr[1];
                st->fin = b0 >> 7;
                st->opcode = b0 & 0x0f;
                if (b0 & 0x70) return ws_error(out, 1002);            /* reserved bits: no extension agreed */
                if (!(b1 & 0x80)) return ws_error(out, 1002);         /* RFC 6455 5.1: a client masks every frame */
                if (st->opcode == WS_BINARY) return ws_error(out, 1003);
                if (st->opcode & 8) {
                    if (st->opcode > WS_PONG) return ws_error(out, 1002);
                    if (!st->fin || (b1 & 0x7f) > 125) return ws_error(out, 1002);
                } else if (st->opcode > WS_BINARY || (st->opcode == WS_CONT) != (st->in_message != 0)) {
                    return ws_error(out, 1002); /* reserved, or a continuation out of place */
                }
            }
            if (st->hdr_len >= 2) {
                const unsigned len7 = st->hdr[1] & 0x7f;
                const size_t want = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4;
                if (st->hdr_len == want) {
                    ws_header(st, out);
                    if (out->kind == KS_WSRX_ERROR) return;
                    if (st->left == 0) ws_frame_end(st, out);
                    return;
                }
            }
        }
        return;
    }
    const size_t n = (unsigned long long)len < st->left ? len : (size_t)st->left;
    for (size_t i = 0; i < n; ++i) buf[i] ^= st->mask[st->mask_pos++ & 3];
    st->left -= n;
    out->used = n;
    if (st->opcode & 8) {
        memcpy(st->ctl + st->ctl_len, buf, n);
        st->ctl_len += n;
    } else {
        out->kind = KS_WSRX_DATA;
        out->data = buf;
        out->n = n;
    }
    if (st->left == 0) ws_frame_end(st, out);
}

void ks_ws_accept_key(const char *key, char out[29])
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char joined[128];
    unsigned char sha[20];
    const int n = snprintf(joined, sizeof joined, "%s%s", key ? key : "", guid);
    lws_SHA1((const unsigned char *)joined, (size_t)(n < (int)sizeof joined ? n : (int)sizeof joined - 1), sha);
    char b64[32] = ""; /* lws wants room for more than the 28 characters and the NUL */
    if (lws_b64_encode_string((const char *)sha, 20, b64, (int)sizeof b64) != 28) b64[0] = '\0';
    memcpy(out, b64, 28);
    out[28] = '\0';
}

int ks_req_utf8_valid(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len;) {
        if (p[i] < 0x80) {
            ++i;
            continue;
        }
        const size_t n = ks_utf8_seq_len(p + i, len - i);
        if (!n) return 0;
        i += n;
    }
    return 1;
}

/* ---- WebSocket messages --------------------------------------------------- */

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

static double finite_or_zero(double v)
{
    return isfinite(v) ? v : 0.0;
}

static signed char input_cb(struct lejp_ctx *ctx, char reason)
{
    input_parse *ip = ctx->user;
    if (!(reason & LEJP_FLAG_CB_IS_VALUE) || ctx->path_match == 0) return 0;
    const int which = ctx->path_match - 1;
    const int truth = reason == LEJPCB_VAL_TRUE;
    const int is_num = reason == LEJPCB_VAL_NUM_INT || reason == LEJPCB_VAL_NUM_FLOAT;
    const double num = is_num ? finite_or_zero(atof(ctx->buf)) : 0.0;
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
        ip->has_fps = is_num;
        break;
    case P_STATS_CODEC: take_name(ip->codec, sizeof ip->codec, ctx->buf); break;
    default: break;
    }
    return 0;
}

int ks_req_ws_message(const char *msg, size_t len, ks_ws_input *out)
{
    memset(out, 0, sizeof *out);
    if (len > KS_REQ_WS_MSG_MAX) return 1009;
    if (!ks_req_utf8_valid((const unsigned char *)msg, len)) return 1007;
    input_parse ip;
    memset(&ip, 0, sizeof ip);
    struct lejp_ctx jc;
    lejp_construct(&jc, input_cb, &ip, ks_input_paths, (unsigned char)(sizeof ks_input_paths / sizeof ks_input_paths[0]));
    const int rc = lejp_parse(&jc, (const unsigned char *)msg, (int)len);
    lejp_destruct(&jc);
    if (rc < 0) return 1007; /* not JSON, or cut short (LEJP_CONTINUE) */
    if (ip.accept[0]) {
        out->kind = KS_WS_ACCEPT;
        out->accept_h264 = strcmp(ip.accept, "h264") == 0;
        return 0;
    }
    if (ip.has_fps) {
        /* a page's own figure, checked like any input: a number of frames a second and a known codec */
        const int codec = strcmp(ip.codec, "h264") == 0 ? 2 : strcmp(ip.codec, "jpeg") == 0 ? 1 : 0;
        if (codec && ip.fps >= 0.0 && ip.fps <= 100000.0) {
            out->kind = KS_WS_STATS;
            out->codec = codec;
            out->fps = ip.fps;
        }
        return 0;
    }
    if (ip.key[0]) {
        out->key = ks_serve_key_from_name(ip.key, &out->shift);
        out->shift = out->shift || ip.shift;
        if (out->key) out->kind = KS_WS_KEY; /* unknown names are ignored, as in the window */
        return 0;
    }
    if (ip.mouse[0]) {
        out->mouse = strcmp(ip.mouse, "move") == 0    ? KS_WS_MOUSE_MOVE
                     : strcmp(ip.mouse, "wheel") == 0 ? KS_WS_MOUSE_WHEEL
                     : strcmp(ip.mouse, "drag") == 0  ? KS_WS_MOUSE_DRAG
                                                      : 0;
        if (!out->mouse) return 0;
        out->kind = KS_WS_MOUSE;
        out->x = ip.x;
        out->y = ip.y;
        out->dx = ip.dx;
        out->dy = ip.dy;
        out->inside = ip.inside;
    }
    return 0;
}
