/* What a connection sends: one item at a time (a head, a body, a tail) in
 * chunks of KS_SERVE_CHUNK bytes, one chunk per writable callback; the heads
 * of our HTTP answers; the graceful close. Service thread only. */
#include "server_internal.h"

#include <stdio.h>
#include <string.h>

/* A POST /kernel body that will not be acted on (the connection or the request ended). */
void ks_conn_drop_source(ks_conn *c)
{
    ks_hub_item_unref(c->source);
    c->source = NULL;
}

void ks_conn_release_item(ks_conn *c)
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
int ks_conn_send_chunk(ks_server *s, struct lws *wsi, ks_conn *c)
{
    size_t n = c->total - c->off;
    if (n > KS_SERVE_CHUNK) n = KS_SERVE_CHUNK;
    unsigned char *p = s->scratch + LWS_PRE;
    gather(c, c->off, p, n);
    if (n && lws_write(wsi, p, n, LWS_WRITE_RAW) < (int)n) return -1;
    c->off += n;
    if (c->off == c->total) ks_conn_release_item(c);
    return 0;
}

void ks_conn_start_item(struct lws *wsi, ks_conn *c, ks_hub_item *it, const unsigned char *body, size_t body_len)
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
void ks_conn_close_gracefully(struct lws *wsi, ks_conn *c)
{
    c->shut_pending = 1;
    lws_callback_on_writable(wsi);
}

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
int ks_conn_respond(struct lws *wsi, ks_conn *c, unsigned status, const char *type, ks_hub_item *it,
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
        ks_conn_start_item(wsi, c, NULL, NULL, 0);
    } else {
        ks_conn_start_item(wsi, c, it, body, (size_t)len);
    }
    return 0;
}

int ks_conn_respond_text(struct lws *wsi, ks_conn *c, unsigned status, const char *text)
{
    return ks_conn_respond(wsi, c, status, "text/plain; charset=utf-8", NULL, (const unsigned char *)text, (long long)strlen(text));
}
