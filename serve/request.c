#include "request.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libwebsockets.h>

#include "kernels/common/ks_util.h"
#include "serve/serve_auth.h"
#include "serve/serve_keys.h"

/* ---- Host and Origin ------------------------------------------------------ */

static int addr_is_wildcard(const char *addr)
{
    return !addr || !*addr || strcmp(addr, "0.0.0.0") == 0 || strcmp(addr, "::") == 0;
}

/* host[0..n) is name, case-insensitively. */
static int name_is(const char *host, size_t n, const char *name)
{
    return strlen(name) == n && strncasecmp(host, name, n) == 0;
}

int ks_req_host_ok(const char *host, const char *addr, int port)
{
    if (!host || !*host) return 0;
    if (addr_is_wildcard(addr)) return 1; /* any name may reach it: the token guards it */
    /* split "name[:port]" ("[v6]:port" for IPv6) */
    size_t n;
    const char *port_text = NULL;
    if (host[0] == '[') {
        const char *close = strchr(host, ']');
        if (!close) return 0;
        n = (size_t)(close - host - 1);
        if (close[1] == ':') port_text = close + 2;
        else if (close[1]) return 0;
        ++host;
    } else {
        const char *colon = strchr(host, ':');
        n = colon ? (size_t)(colon - host) : strlen(host);
        if (colon) port_text = colon + 1;
    }
    if (port_text) {
        long v = 0;
        if (!*port_text || strlen(port_text) > 5) return 0;
        for (const char *p = port_text; *p; ++p) {
            if (*p < '0' || *p > '9') return 0;
            v = v * 10 + (*p - '0');
        }
        if (v != port) return 0;
    } else if (port != 80) {
        return 0;
    }
    return name_is(host, n, addr) || name_is(host, n, "localhost");
}

int ks_req_origin_ok(const char *origin, const char *addr, int port)
{
    static const char scheme[] = "http://";
    if (!origin || strncasecmp(origin, scheme, sizeof scheme - 1) != 0) return 0; /* "null", https, ... */
    const char *host = origin + sizeof scheme - 1;
    if (strchr(host, '/')) return 0;                                              /* an origin has no path */
    return ks_req_host_ok(host, addr, port);
}

long long ks_req_content_length(const char *text)
{
    if (!text || !*text) return -1;
    long long v = 0;
    for (const char *p = text; *p; ++p) {
        if (*p < '0' || *p > '9' || p - text >= 18) return -1; /* sign, list, space, or absurdly long */
        v = v * 10 + (*p - '0');
    }
    return v;
}

const char *ks_req_arg(const ks_req *r, const char *name)
{
    const size_t n = strlen(name);
    for (int i = 0; i < r->nargs && i < KS_REQ_ARGS_MAX; ++i)
        if (r->args[i] && strncmp(r->args[i], name, n) == 0 && r->args[i][n] == '=') return r->args[i] + n + 1;
    return NULL;
}

/* ---- the decision --------------------------------------------------------- */

static void answer(ks_req_answer *a, unsigned status, const char *text)
{
    a->route = KS_ROUTE_ANSWER;
    a->status = status;
    a->text = text;
}

void ks_req_decide(const ks_req *r, ks_req_answer *a)
{
    memset(a, 0, sizeof *a);
    const char *path = r->path ? r->path : "";
    if (r->uri_len > KS_REQ_URI_MAX) return answer(a, 414, "URI too long\n");
    if (r->head_len > KS_REQ_HEAD_MAX) return answer(a, 431, "request header fields too large\n");
    if (r->method == KS_REQ_OTHER) return answer(a, 405, "method not allowed\n");
    if (!r->host) return answer(a, 400, "bad request: no Host header\n");
    /* DNS rebinding: a page from elsewhere that resolves its own name to us */
    if (!ks_req_host_ok(r->host, r->addr, r->port))
        return answer(a, 421, "misdirected request: Host must be this server's address or localhost\n");
    const int kernel = r->editor && strcmp(path, "/kernel") == 0;
    if (r->content_length) {
        a->body_len = ks_req_content_length(r->content_length);
        if (a->body_len < 0) {
            a->body_len = 0;
            a->close = 1; /* where the next request starts is unknown */
            return answer(a, 400, "bad request: Content-Length\n");
        }
        if (a->body_len > (kernel && r->method == KS_REQ_POST ? KS_REQ_SOURCE_MAX : KS_REQ_BODY_MAX)) {
            a->close = 1;
            return answer(a, 413, kernel ? "kernel source over 64 KiB\n" : "request body too large\n");
        }
    }
    if (r->expect) { /* lws has no way to send an interim 100 Continue: refuse, the client may send again without */
        a->close = 1;
        return answer(a, 417, "expectation failed: send the body without Expect\n");
    }
    /* lws reads what follows a POST without Content-Length as its body: answer, then close */
    if (r->method == KS_REQ_POST && !r->content_length) a->close = 1;
    const int changes_state = r->method == KS_REQ_POST || r->upgrade;
    /* a browser names the page that sent it: only our own page may act (absent: not a browser) */
    if (changes_state && r->origin && !ks_req_origin_ok(r->origin, r->addr, r->port))
        return answer(a, 403, "forbidden: cross-origin request\n");
    if (r->token && *r->token && !ks_serve_token_matches(r->token, ks_req_arg(r, "token")))
        return answer(a, 403, "forbidden: open the URL with ?token= as printed\n");
    if (kernel && !r->upgrade) { /* editing writes a file: never without the token, loopback or not */
        if (!r->token || !*r->token) return answer(a, 403, "forbidden: editing needs a token (--token)\n");
        if (r->method == KS_REQ_POST) {
            if (!r->content_length) return answer(a, 411, "POST /kernel needs a Content-Length\n");
            a->route = KS_ROUTE_KERNEL_SAVE;
            a->status = 202;
            return;
        }
        a->route = KS_ROUTE_KERNEL;
        a->status = 200;
        return;
    }
    if (r->upgrade) {
        if (strcmp(path, "/ws") != 0) return answer(a, 404, "not found\n");
        if (r->method != KS_REQ_GET) return answer(a, 400, "a WebSocket upgrade is a GET\n");
        a->route = KS_ROUTE_WS;
        a->status = 101;
        return;
    }
    if (r->method == KS_REQ_POST) {
        if (strcmp(path, "/key") != 0) {
            if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0 || strcmp(path, "/state.json") == 0 ||
                strcmp(path, "/stream.mjpg") == 0 || strcmp(path, "/ws") == 0)
                return answer(a, 405, "method not allowed\n");
            return answer(a, 404, "not found\n");
        }
        a->key = ks_serve_key_from_name(ks_req_arg(r, "k"), &a->shift);
        if (!a->key) return answer(a, 400, "unknown key name (GLFW names in lower case: space, tab, m, right, ...)\n");
        a->route = KS_ROUTE_KEY;
        a->status = 204;
        return;
    }
    a->status = 200;
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) a->route = KS_ROUTE_PAGE;
    else if (r->editor_code && strcmp(path, "/editor.js") == 0) a->route = KS_ROUTE_EDITOR_JS;
    else if (r->editor_code && strcmp(path, "/editor.css") == 0) a->route = KS_ROUTE_EDITOR_CSS;
    else if (strcmp(path, "/state.json") == 0) a->route = KS_ROUTE_STATE;
    else if (strcmp(path, "/stream.mjpg") == 0) a->route = KS_ROUTE_MJPEG;
    else if (strcmp(path, "/ws") == 0) answer(a, 400, "/ws takes a WebSocket upgrade\n");
    else if (strcmp(path, "/key") == 0) answer(a, 405, "method not allowed\n");
    else answer(a, 404, "not found\n");
}

int ks_req_body_feed(ks_req_body *b, size_t len)
{
    if ((long long)len > b->declared - b->got) return -1;
    b->got += (long long)len;
    return b->got == b->declared;
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
