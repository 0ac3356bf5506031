/* A request's decision and framing, as pure functions (the server, the unit
 * tests and the fuzz targets drive them alike): Host and Origin checks, the
 * route and status a parsed head gets, where a request's head and body end in
 * a connection's bytes. The head's text is parsed in request_head.c, the
 * WebSocket's frames and messages in request_ws.c. */
#include "request.h"

#include <string.h>
#include <strings.h>

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

static int is_b64(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/* 16 bytes in base64 (RFC 6455 4.1): 22 characters and "==". */
static int ws_key_ok(const char *key)
{
    if (!key || strlen(key) != 24 || strcmp(key + 22, "==") != 0) return 0;
    for (int i = 0; i < 22; ++i)
        if (!is_b64((unsigned char)key[i])) return 0;
    return 1;
}

static void answer(ks_req_answer *a, unsigned status, const char *text)
{
    a->route = KS_ROUTE_ANSWER;
    a->status = status;
    a->text = text;
}

/* The answer's status and route; the body's framing is settled by ks_req_decide after it. */
static void decide_route(const ks_req *r, long long body, ks_req_answer *a)
{
    const char *path = r->path ? r->path : "";
    if (r->uri_len > KS_REQ_URI_MAX) return answer(a, 414, "URI too long\n");
    if (r->head_len > KS_REQ_HEAD_MAX) return answer(a, 431, "request header fields too large\n");
    if (r->method == KS_REQ_OTHER) return answer(a, 405, "method not allowed\n");
    /* a chunked body: where the next request starts is unknown to us */
    if (r->transfer_encoding) return answer(a, 501, "Transfer-Encoding is not supported: send a Content-Length\n");
    if (!r->host) return answer(a, 400, "bad request: no Host header\n");
    /* DNS rebinding: a page from elsewhere that resolves its own name to us */
    if (!ks_req_host_ok(r->host, r->addr, r->port))
        return answer(a, 421, "misdirected request: Host must be this server's address or localhost\n");
    const int kernel = r->editor && strcmp(path, "/kernel") == 0;
    if (body < 0) return answer(a, 400, "bad request: Content-Length\n");
    if (body > (kernel && r->method == KS_REQ_POST ? KS_REQ_SOURCE_MAX : KS_REQ_BODY_MAX))
        return answer(a, 413, kernel ? "kernel source over 64 KiB\n" : "request body too large\n");
    /* no interim 100 Continue is sent: refused, the client may send again without (curl does) */
    if (r->expect) return answer(a, 417, "expectation failed: send the body without Expect\n");
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
        if (!ws_key_ok(r->ws_key)) return answer(a, 400, "bad WebSocket handshake: Sec-WebSocket-Key\n");
        if (!r->ws_version || strcmp(r->ws_version, "13") != 0)
            return answer(a, 400, "bad WebSocket handshake: Sec-WebSocket-Version must be 13\n");
        if (body) return answer(a, 400, "a WebSocket upgrade has no body\n"); /* frames follow the head */
        if (r->close) /* HTTP/1.0 or Connection: close: a connection that ends after its answer carries no frames */
            return answer(a, 400, "a WebSocket upgrade needs HTTP/1.1 and a connection kept open\n");
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

void ks_req_decide(const ks_req *r, ks_req_answer *a)
{
    memset(a, 0, sizeof *a);
    const long long body = r->content_length ? ks_req_content_length(r->content_length) : 0;
    decide_route(r, body, a);
    /* Whatever the answer, the next request on the connection starts after this one's body: the body is
     * read (and dropped, for a refusal) when its length is known and small, else the connection closes
     * after the answer without reading it (a bad or chunked length, a body over the route's limit, one
     * the client waits to send until an interim answer that never comes). */
    const long long limit = a->route == KS_ROUTE_KERNEL_SAVE ? KS_REQ_SOURCE_MAX : KS_REQ_BODY_MAX;
    if (r->transfer_encoding || body < 0 || body > limit || r->expect) {
        a->body_unread = a->close = 1;
        a->body_len = 0;
    } else {
        a->body_len = body;
    }
    /* the client asked for one request on the connection; a refused upgrade would go on with frames */
    if (r->close || (r->upgrade && a->route != KS_ROUTE_WS)) a->close = 1;
}

int ks_req_body_feed(ks_req_body *b, size_t len)
{
    if ((long long)len > b->declared - b->got) return -1;
    b->got += (long long)len;
    return b->got == b->declared;
}

/* ---- framing ----------------------------------------------------------------- */

void ks_req_stream_body(ks_req_stream *st, long long body_len)
{
    st->in_body = 1;
    st->body_left = body_len > 0 ? body_len : 0;
}

void ks_req_stream_step(ks_req_stream *st, const unsigned char *buf, size_t len, ks_req_step *out)
{
    memset(out, 0, sizeof *out);
    if (st->in_body) {
        if (st->body_left == 0) {
            st->in_body = 0;
            out->kind = KS_STEP_BODY_DONE;
            return;
        }
        const size_t n = (long long)len < st->body_left ? len : (size_t)st->body_left;
        st->body_left -= (long long)n;
        out->kind = n ? KS_STEP_BODY : KS_STEP_MORE;
        out->used = n;
        return;
    }
    size_t skip = 0;
    if (st->scanned == 0) { /* between requests: empty lines go (a lone CR waits for its LF) */
        while (skip < len) {
            if (buf[skip] == '\n') ++skip;
            else if (buf[skip] == '\r' && skip + 1 < len && buf[skip + 1] == '\n') skip += 2;
            else break;
        }
        if (skip + 1 == len && buf[skip] == '\r') {
            out->used = skip;
            return;
        }
    }
    const unsigned char *h = buf + skip;
    const size_t limit = len - skip < KS_REQ_HEAD_MAX ? len - skip : KS_REQ_HEAD_MAX;
    for (size_t i = st->scanned; i < limit; ++i) {
        if (h[i] != '\n') continue;
        const size_t ls = st->line_start;
        if (ls > 0 && (i == ls || (i == ls + 1 && h[ls] == '\r'))) { /* the empty line: the head is whole */
            out->kind = KS_STEP_HEAD;
            out->head_off = skip;
            out->head_len = i + 1;
            out->used = skip + i + 1;
            st->scanned = st->line_start = 0;
            return;
        }
        st->line_start = i + 1;
    }
    st->scanned = limit;
    out->used = skip;
    if (limit == KS_REQ_HEAD_MAX) { /* no end within the limit: a request line (414) or a head (431) too long */
        out->kind = KS_STEP_REFUSE;
        out->status = st->line_start == 0 ? 414 : 431;
    }
}

