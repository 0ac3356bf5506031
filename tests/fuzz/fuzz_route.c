/* libFuzzer target: the route dispatch and the query (ks_req_decide). The
 * input is a request head in lines: "METHOD PATH?QUERY", then "Name: value"
 * headers (Host, Origin, Content-Length, Expect, Upgrade, Transfer-Encoding,
 * Connection, Sec-WebSocket-Key and -Version), the fields ks_req_parse fills
 * (query split on '&'; fuzz_pipeline drives the parser itself). Whatever it holds: a key is pressed only by
 * POST /key with a known key, a WebSocket only accepted on GET /ws, never
 * with a foreign Origin or Host, a token, when one is set, always needed;
 * /kernel (an editor) only with an editor and a token, a source only by POST
 * with its length, within 64 KiB.
 * Built and run by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/request.h"

enum { LINE_MAX_ = 512 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ks_req r;
    memset(&r, 0, sizeof r);
    r.addr = "127.0.0.1";
    r.port = 8000;
    r.token = (size & 1) ? "secret-token" : NULL; /* both kinds of server */
    r.editor = (size & 2) != 0;                   /* with and without --edit */
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    char path[LINE_MAX_] = "";
    if (line) {
        char *sp = strchr(line, ' ');
        if (sp) *sp++ = '\0';
        r.method = strcmp(line, "GET") == 0 ? KS_REQ_GET : strcmp(line, "HEAD") == 0 ? KS_REQ_HEAD
                   : strcmp(line, "POST") == 0 ? KS_REQ_POST : KS_REQ_OTHER;
        const char *target = sp ? sp : "";
        r.uri_len = strlen(target);
        const char *q = strchr(target, '?');
        const size_t n = q ? (size_t)(q - target) : strlen(target);
        if (n < sizeof path) {
            memcpy(path, target, n);
            path[n] = '\0';
        }
        r.path = path;
        if (q) {
            char *qsave = NULL;
            for (char *a = strtok_r((char *)q + 1, "&", &qsave); a && r.nargs < KS_REQ_ARGS_MAX; a = strtok_r(NULL, "&", &qsave))
                r.args[r.nargs++] = a;
        }
        line = strtok_r(NULL, "\n", &save);
    }
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ') ++v;
        r.head_len += strlen(line) + strlen(v);
        if (strcasecmp(line, "host") == 0) r.host = v;
        else if (strcasecmp(line, "origin") == 0) r.origin = v;
        else if (strcasecmp(line, "content-length") == 0) r.content_length = v;
        else if (strcasecmp(line, "expect") == 0) r.expect = v;
        else if (strcasecmp(line, "upgrade") == 0) r.upgrade = 1;
        else if (strcasecmp(line, "transfer-encoding") == 0) r.transfer_encoding = v;
        else if (strcasecmp(line, "sec-websocket-key") == 0) r.ws_key = v;
        else if (strcasecmp(line, "sec-websocket-version") == 0) r.ws_version = v;
        else if (strcasecmp(line, "connection") == 0) r.close = strcasecmp(v, "close") == 0;
    }
    ks_req_answer a;
    ks_req_decide(&r, &a);
    if (a.status < 100 || a.status > 599) abort();
    if (a.route == KS_ROUTE_ANSWER && !a.text) abort();
    if (a.route != KS_ROUTE_ANSWER) {
        if (!ks_req_host_ok(r.host, r.addr, r.port)) abort();                 /* rebinding never gets through */
        if (r.token && !ks_req_arg(&r, "token")) abort();                      /* nor a missing token */
        if (a.body_len < 0 || a.body_len > (a.route == KS_ROUTE_KERNEL_SAVE ? KS_REQ_SOURCE_MAX : KS_REQ_BODY_MAX))
            abort();
    }
    if (a.route == KS_ROUTE_KERNEL || a.route == KS_ROUTE_KERNEL_SAVE) { /* editing: an editor, a token, its path */
        if (!r.editor || !r.token || !ks_req_arg(&r, "token") || strcmp(path, "/kernel") != 0) abort();
        if ((a.route == KS_ROUTE_KERNEL_SAVE) != (r.method == KS_REQ_POST) || (a.route == KS_ROUTE_KERNEL_SAVE && !r.content_length))
            abort();
    }
    if (a.route == KS_ROUTE_KEY && (r.method != KS_REQ_POST || strcmp(path, "/key") != 0 || !a.key)) abort();
    if ((a.route == KS_ROUTE_KEY || a.route == KS_ROUTE_WS) && r.origin && !ks_req_origin_ok(r.origin, r.addr, r.port))
        abort();
    if (a.route == KS_ROUTE_WS && (!r.upgrade || r.method != KS_REQ_GET || strcmp(path, "/ws") != 0 || !r.ws_key)) abort();
    /* whatever the answer, where the next request starts is known, or the connection closes */
    if (r.transfer_encoding && (a.route != KS_ROUTE_ANSWER || !a.body_unread)) abort(); /* a chunked body is never read */
    if (a.body_unread && !a.close) abort();
    if (!a.body_unread && a.body_len != (r.content_length ? ks_req_content_length(r.content_length) : 0)) abort();
    free(text);
    return 0;
}
