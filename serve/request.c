#include "request.h"

#include <math.h>
#include <stdio.h>
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

/* ---- a head's text ------------------------------------------------------------ */

static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The next line of [*p, end): NUL-terminated in place at its CR, *p past its LF. NULL when it is not a
 * line of a head: no CRLF, a bare CR or LF, or a control byte other than a tab. */
static char *next_line(char **p, char *end)
{
    char *line = *p;
    for (char *q = line; q < end; ++q) {
        const unsigned char c = (unsigned char)*q;
        if (c == '\r') {
            if (q + 1 >= end || q[1] != '\n') return NULL;
            *q = '\0';
            *p = q + 2;
            return line;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f) return NULL; /* a bare LF too */
    }
    return NULL;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* %XX escapes of s decoded in place; 0 on a bad or NUL one. */
static int url_decode(char *s)
{
    char *w = s;
    for (const char *q = s; *q; ++q) {
        if (*q != '%') {
            *w++ = *q;
            continue;
        }
        const int hi = hex_value(q[1]), lo = hi < 0 ? -1 : hex_value(q[2]);
        if (lo < 0 || (hi == 0 && lo == 0)) return 0;
        *w++ = (char)(hi * 16 + lo);
        q += 2;
    }
    *w = '\0';
    return 1;
}

/* 1 when the comma-separated list holds token (case-insensitively). */
static int list_has(const char *list, const char *token)
{
    const size_t n = strlen(token);
    for (const char *q = list; *q;) {
        while (*q == ' ' || *q == '\t' || *q == ',') ++q;
        const char *e = q;
        while (*e && *e != ',') ++e;
        const char *t = e;
        while (t > q && (t[-1] == ' ' || t[-1] == '\t')) --t;
        if ((size_t)(t - q) == n && strncasecmp(q, token, n) == 0) return 1;
        q = e;
    }
    return 0;
}

static unsigned refuse(const char **why, unsigned status, const char *text)
{
    *why = text;
    return status;
}

unsigned ks_req_parse(const unsigned char *head, size_t len, char *store, ks_req *r, const char **why)
{
    memset(r, 0, sizeof *r);
    *why = NULL;
    memcpy(store, head, len);
    store[len] = '\0';
    r->head_len = len;
    char *p = store, *end = store + len;
    static const char bad_line[] = "bad request: malformed request line\n",
                      bad_head[] = "bad request: malformed header (bare CR or LF, a control byte, folded, no colon)\n";
    /* the request line: METHOD SP TARGET SP HTTP/x.y */
    char *line = next_line(&p, end);
    if (!line) return refuse(why, 400, bad_line);
    char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2 || sp1 == line || sp2 == sp1 + 1 || strchr(sp2 + 1, ' ') || strchr(line, '\t'))
        return refuse(why, 400, bad_line);
    *sp1 = *sp2 = '\0';
    const char *method = line, *version = sp2 + 1;
    char *target = sp1 + 1;
    for (const char *q = method; *q; ++q)
        if (!is_tchar((unsigned char)*q)) return refuse(why, 400, bad_line);
    if (strncmp(version, "HTTP/", 5) != 0 || version[5] < '0' || version[5] > '9' || version[6] != '.' ||
        version[7] < '0' || version[7] > '9' || version[8])
        return refuse(why, 400, bad_line);
    if (version[5] != '1') return refuse(why, 505, "HTTP version not supported: HTTP/1.1 only\n");
    r->close = version[7] == '0'; /* HTTP/1.0: one request a connection */
    r->method = strcmp(method, "GET") == 0    ? KS_REQ_GET
                : strcmp(method, "HEAD") == 0 ? KS_REQ_HEAD
                : strcmp(method, "POST") == 0 ? KS_REQ_POST
                                              : KS_REQ_OTHER;
    for (const unsigned char *q = (const unsigned char *)target; *q; ++q)
        if (*q < 0x21 || *q > 0x7e) return refuse(why, 400, bad_line);
    r->uri_len = strlen(target);
    if (r->method != KS_REQ_OTHER && target[0] != '/') return refuse(why, 400, "bad request: the target is not a path\n");
    char *query = strchr(target, '?');
    if (query) *query++ = '\0';
    r->path = target;
    while (query && *query) {
        char *amp = strchr(query, '&');
        if (amp) *amp = '\0';
        if (*query) {
            if (!url_decode(query)) return refuse(why, 400, "bad request: a bad %-escape in the query\n");
            if (r->nargs < KS_REQ_ARGS_MAX) r->args[r->nargs++] = query;
        }
        query = amp ? amp + 1 : NULL;
    }
    /* header lines, then the empty one */
    int conn_upgrade = 0, ws_upgrade = 0;
    for (;;) {
        line = next_line(&p, end);
        if (!line) return refuse(why, 400, bad_head);
        if (!*line) break;
        if (*line == ' ' || *line == '\t') return refuse(why, 400, bad_head); /* obs-fold */
        char *colon = line;
        while (is_tchar((unsigned char)*colon)) ++colon;
        if (*colon != ':' || colon == line) return refuse(why, 400, bad_head);
        *colon = '\0';
        char *value = colon + 1, *vend = value + strlen(value);
        while (*value == ' ' || *value == '\t') ++value;
        while (vend > value && (vend[-1] == ' ' || vend[-1] == '\t')) *--vend = '\0';
        const char *name = line;
        if (strcasecmp(name, "host") == 0) {
            if (r->host) return refuse(why, 400, "bad request: two Host headers\n");
            r->host = value;
        } else if (strcasecmp(name, "origin") == 0) {
            if (r->origin) return refuse(why, 400, "bad request: two Origin headers\n");
            r->origin = value;
        } else if (strcasecmp(name, "content-length") == 0) {
            r->content_length = r->content_length ? "," : value; /* given twice: refused as a list */
        } else if (strcasecmp(name, "expect") == 0) {
            r->expect = value;
        } else if (strcasecmp(name, "transfer-encoding") == 0) {
            r->transfer_encoding = value;
        } else if (strcasecmp(name, "connection") == 0) {
            if (list_has(value, "close")) r->close = 1;
            if (list_has(value, "upgrade")) conn_upgrade = 1;
        } else if (strcasecmp(name, "upgrade") == 0) {
            if (list_has(value, "websocket")) ws_upgrade = 1;
        } else if (strcasecmp(name, "sec-websocket-key") == 0) {
            r->ws_key = value;
        } else if (strcasecmp(name, "sec-websocket-version") == 0) {
            r->ws_version = value;
        }
    }
    if (p != end) return refuse(why, 400, bad_head); /* bytes after the empty line: not one head */
    r->upgrade = ws_upgrade && conn_upgrade;
    return 0;
}

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
