/* What the server decides about a request, without a network: the Host and
 * Origin checks, the token, Content-Length, the route, POST bodies and the
 * WebSocket input messages. routes.c fills a ks_req from lws and acts on the
 * answer; the unit tests and the fuzz targets (tests/fuzz/) call these
 * directly. Nothing here keeps state between calls. */
#ifndef KS_SERVE_REQUEST_H
#define KS_SERVE_REQUEST_H

#include <stddef.h>

typedef enum ks_req_method { KS_REQ_OTHER = 0, KS_REQ_GET, KS_REQ_HEAD, KS_REQ_POST, KS_REQ_NUM } ks_req_method;

typedef enum ks_req_route {
    KS_ROUTE_ANSWER = 0, /* status + text and nothing else (every refusal) */
    KS_ROUTE_PAGE,       /* the viewer page */
    KS_ROUTE_STATE,      /* /state.json */
    KS_ROUTE_MJPEG,      /* /stream.mjpg */
    KS_ROUTE_KEY,        /* POST /key: press key (after the body is in) */
    KS_ROUTE_WS,         /* accept the WebSocket upgrade */
    KS_ROUTE_KERNEL,     /* GET /kernel: the kernel editor's document (with --edit) */
    KS_ROUTE_KERNEL_SAVE, /* POST /kernel: a new kernel source, the body (after it is in) */
    KS_ROUTE_EDITOR_JS,  /* GET /editor.js: CodeMirror and its C-like mode (with --edit, when installed) */
    KS_ROUTE_EDITOR_CSS, /* GET /editor.css: its style sheet and a dark theme */
    KS_ROUTE_NUM
} ks_req_route;

enum {
    KS_REQ_ARGS_MAX = 16,      /* query arguments looked at */
    KS_REQ_BODY_MAX = 1024,    /* largest POST body (bytes) */
    KS_REQ_URI_MAX = 2048,     /* longer path + query: 414 */
    KS_REQ_HEAD_MAX = 8192,    /* longer request head: 431 */
    KS_REQ_WS_MSG_MAX = 1024,  /* largest input message a page may send */
    KS_REQ_SOURCE_MAX = 64 * 1024, /* largest kernel source POST /kernel takes */
};

typedef struct ks_req {
    ks_req_method method;
    int upgrade;                          /* asks for a WebSocket */
    const char *path;                     /* without the query; NULL reads as "" */
    const char *args[KS_REQ_ARGS_MAX];    /* "name=value", url-decoded */
    int nargs;
    const char *host;                     /* NULL: no Host header */
    const char *origin;                   /* NULL: no Origin header */
    const char *content_length;           /* NULL: none; a doubled header arrives as "5,5" */
    const char *expect;                   /* NULL: no Expect header */
    size_t uri_len, head_len;             /* bytes, for 414 / 431 */
    /* the server */
    const char *addr;                     /* the address it listens on ("127.0.0.1", "::1", "0.0.0.0") */
    int port;
    const char *token;                    /* NULL or "": none needed */
    int editor;                           /* it edits a kernel file (--edit): /kernel exists */
    int editor_code;                      /* it has CodeMirror to serve: /editor.js, /editor.css */
} ks_req;

typedef struct ks_req_answer {
    ks_req_route route;
    unsigned status;       /* HTTP status of the answer (101 for an accepted upgrade) */
    const char *text;      /* body of a refusal (static) */
    long long body_len;    /* declared request body (0: none) */
    int key, shift;        /* KS_ROUTE_KEY: what to press */
    int close;             /* close after answering: the body was not read */
} ks_req_answer;

/* The whole decision for one request head. Refusals come in this order:
 * 414, 431, 405 (method), 400 (no or bad Host... see serve_auth rules),
 * 421 (a Host that is not this server), 400 (Content-Length), 413 (over
 * KS_REQ_BODY_MAX, or KS_REQ_SOURCE_MAX for POST /kernel), 417 (Expect),
 * 403 (foreign Origin on POST or upgrade), 403 (token), then the routes.
 * /kernel exists only with an editor and always needs the token, also on
 * loopback (403 when the server has none); POST /kernel needs a
 * Content-Length (411). */
void ks_req_decide(const ks_req *r, ks_req_answer *a);

/* The value of "name=" among r->args, or NULL. */
const char *ks_req_arg(const ks_req *r, const char *name);

/* 1 when host (a Host header value) names this server: the address served or
 * localhost, with its port (or none on port 80). A wildcard address (0.0.0.0,
 * ::) takes any Host: it needs a token anyway. */
int ks_req_host_ok(const char *host, const char *addr, int port);
/* 1 when origin is "http://" + a Host that ks_req_host_ok takes. */
int ks_req_origin_ok(const char *origin, const char *addr, int port);
/* Content-Length: digits only, no sign, no list. -1 when bad, else the value. */
long long ks_req_content_length(const char *text);

/* A POST body as it arrives: done once declared bytes are in. */
typedef struct ks_req_body {
    long long declared, got;
} ks_req_body;
/* -1 when more arrives than was declared (close the connection), 1 when the
 * body is complete, 0 while more is expected. */
int ks_req_body_feed(ks_req_body *b, size_t len);

/* Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF). */
int ks_req_utf8_valid(const unsigned char *p, size_t len);

/* One WebSocket text message from a page, parsed. */
typedef enum ks_ws_kind { KS_WS_NONE = 0, KS_WS_ACCEPT, KS_WS_STATS, KS_WS_KEY, KS_WS_MOUSE, KS_WS_NUM } ks_ws_kind;
typedef enum ks_ws_mouse { KS_WS_MOUSE_MOVE = 1, KS_WS_MOUSE_WHEEL, KS_WS_MOUSE_DRAG } ks_ws_mouse;
typedef struct ks_ws_input {
    ks_ws_kind kind;
    int accept_h264;       /* ACCEPT: {"accept":"h264"} */
    int codec;             /* STATS: 1 jpeg, 2 h264 (ks_frame_kind values) */
    double fps;            /* STATS: frames a second, 0..100000 */
    int key, shift;        /* KEY: a known key (unknown names: KS_WS_NONE) */
    ks_ws_mouse mouse;     /* MOUSE */
    double x, y, dx, dy;   /* MOUSE: finite */
    int inside;
} ks_ws_input;
/* 0 and *out (kind NONE for a message that asks nothing known), or the close
 * code: 1007 for text that is not UTF-8 or not JSON, 1009 when too large. */
int ks_req_ws_message(const char *msg, size_t len, ks_ws_input *out);

#endif
