/* A request head's text into a ks_req (ks_req_parse): the request line, the
 * header lines, the target's path and query (URL-decoded), the fields the
 * decision reads; a head that is not HTTP/1.1 as the RFC writes it gets its
 * refusal status. Pure: no I/O. */
#include "request.h"

#include <string.h>
#include <strings.h>

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
