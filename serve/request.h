/* What the server decides about the bytes a client sends, without a network:
 * where each request's head and body end on a connection (the framing), the
 * head's request line and headers, the Host and Origin checks, the token,
 * Content-Length, the route, POST bodies, the WebSocket frames and input
 * messages (request.c, request_head.c, request_ws.c). routes.c feeds them what lws reads from each socket and acts on
 * the answers; the unit tests and the fuzz targets (tests/fuzz/) call these
 * directly. State between calls lives only in the structs the caller keeps. */
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
    int upgrade;                          /* asks for a WebSocket (Upgrade: websocket, Connection: upgrade) */
    const char *path;                     /* without the query; NULL reads as "" */
    const char *args[KS_REQ_ARGS_MAX];    /* "name=value", url-decoded */
    int nargs;
    const char *host;                     /* NULL: no Host header */
    const char *origin;                   /* NULL: no Origin header */
    const char *content_length;           /* NULL: none; a doubled header arrives as "5,5" */
    const char *expect;                   /* NULL: no Expect header */
    const char *transfer_encoding;        /* NULL: none (any is 501: bodies come with a Content-Length) */
    const char *ws_key, *ws_version;      /* Sec-WebSocket-Key, -Version (NULL: absent) */
    int close;                            /* Connection: close, or HTTP/1.0: one request on the connection */
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
    int close;             /* close after answering (the body is not read, the client asked, a refused upgrade) */
    int body_unread;       /* answer at once: the declared body is not read (so the connection closes) */
} ks_req_answer;

/* The whole decision for one request head. Refusals come in this order:
 * 414, 431, 405 (method), 501 (Transfer-Encoding), 400 (no or bad Host...
 * see serve_auth rules), 421 (a Host that is not this server), 400
 * (Content-Length), 413 (over KS_REQ_BODY_MAX, or KS_REQ_SOURCE_MAX for POST
 * /kernel), 417 (Expect), 403 (foreign Origin on POST or upgrade), 403
 * (token), then the routes; an upgrade to /ws also needs a well-formed
 * Sec-WebSocket-Key and version 13 (400). /kernel exists only with an editor
 * and always needs the token, also on loopback (403 when the server has
 * none); POST /kernel needs a Content-Length (411). */
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

/* ---- framing: one connection's bytes into request heads and bodies -------
 * The server keeps the bytes of a head until it is whole (at most
 * KS_REQ_HEAD_MAX of them, its blank line included) and passes a body on as
 * it comes. Requests on a connection are taken one at a time, in order:
 * pipelined ones wait in the caller's buffer until the one before is
 * answered. Empty lines before a request line are skipped (RFC 9112 2.2). */
typedef struct ks_req_stream {
    int in_body;            /* the current request's body is being passed on */
    long long body_left;    /* bytes of it still to come */
    size_t scanned;         /* bytes of the pending head already looked at (each byte is looked at once) */
    size_t line_start;      /* where its current line starts */
} ks_req_stream;

typedef enum ks_req_step_kind {
    KS_STEP_MORE = 0,   /* nothing whole: keep the bytes (but the first `used`), read more */
    KS_STEP_HEAD,       /* a whole head: buf[head_off, head_off + head_len); then ks_req_stream_body */
    KS_STEP_BODY,       /* `used` bytes of the current body */
    KS_STEP_BODY_DONE,  /* the current body is all in (nothing used): act on the request now */
    KS_STEP_REFUSE,     /* `status` (414: no end of the request line, 431: of the head, within the limit) */
} ks_req_step_kind;

typedef struct ks_req_step {
    ks_req_step_kind kind;
    size_t used;        /* bytes at the front of buf that this step took (drop them) */
    size_t head_off, head_len;
    unsigned status;
} ks_req_step;

/* What the bytes at the front of buf[0, len) are, the stream being where st
 * says; st moves on. A caller drops the `used` bytes and steps again until
 * KS_STEP_MORE (or a refusal, or while it is answering). */
void ks_req_stream_step(ks_req_stream *st, const unsigned char *buf, size_t len, ks_req_step *out);
/* After a KS_STEP_HEAD: the body the request brings (0: none); the next steps
 * pass it on, then KS_STEP_BODY_DONE. */
void ks_req_stream_body(ks_req_stream *st, long long body_len);

/* ---- a request head's text ----------------------------------------------- */

/* Parses a whole head (as KS_STEP_HEAD found it) into r, its strings copied
 * into store (len + 1 bytes) and pointing there; the server's own fields of
 * r (addr, port, token, editor...) are left for the caller. 0, or the status
 * that refuses it (its reason in *why): 400 for a malformed request line or
 * header (bare CR or LF, a control byte, a header folded or without a colon
 * or with a space before it, two Host headers, a bad %-escape in the query,
 * a target that is not a path), 505 for a version other than HTTP/1.0 and
 * HTTP/1.1 (the HTTP/2 preface too). An unknown method parses (405 comes from
 * ks_req_decide). */
unsigned ks_req_parse(const unsigned char *head, size_t len, char *store, ks_req *r, const char **why);

/* ---- WebSocket frames from a client (RFC 6455 5) --------------------------- */
typedef struct ks_ws_rx {
    int in_payload;            /* 0: gathering a frame header; 1: its payload */
    unsigned char hdr[14];     /* the header as it came */
    size_t hdr_len;
    int fin, opcode;           /* of the frame */
    unsigned char mask[4];
    size_t mask_pos;
    unsigned long long left;   /* payload bytes still to come */
    int in_message;            /* a text message was begun and not yet ended (continuations expected) */
    unsigned long long msg_len; /* bytes of it so far, this frame's included */
    unsigned char ctl[125];    /* a control frame's payload */
    size_t ctl_len;
} ks_ws_rx;

typedef enum ks_ws_rx_kind {
    KS_WSRX_MORE = 0,   /* nothing to act on (a header, part of a control frame) */
    KS_WSRX_DATA,       /* data[0, n) of a text message, unmasked; `end`: the message is complete */
    KS_WSRX_PING,       /* answer with a pong carrying data[0, n) */
    KS_WSRX_PONG,       /* nothing to do */
    KS_WSRX_CLOSE,      /* the client closes: answer with `code` and close */
    KS_WSRX_ERROR,      /* close with `code`: 1002 (an unmasked frame, reserved bits or opcodes, a control
                           frame fragmented or over 125 bytes, a continuation out of place, a length
                           with its top bit set, a bad close frame), 1003 (binary data), 1007 (a close
                           reason that is not UTF-8), 1009 (a message over KS_REQ_WS_MSG_MAX) */
} ks_ws_rx_kind;

typedef struct ks_ws_rx_out {
    ks_ws_rx_kind kind;
    size_t used;               /* bytes of buf this step took (at least one when len > 0) */
    const unsigned char *data; /* DATA: within buf (unmasked in place); PING: the frame's payload */
    size_t n;
    int end;                   /* DATA: the last piece of the message */
    unsigned code;             /* CLOSE, ERROR */
} ks_ws_rx_out;

/* The next piece of what the client sent in buf[0, len) (unmasked in place).
 * The caller drops `used` bytes and steps again while bytes are left; after
 * KS_WSRX_CLOSE or KS_WSRX_ERROR nothing more is read. */
void ks_ws_rx_step(ks_ws_rx *st, unsigned char *buf, size_t len, ks_ws_rx_out *out);

/* The Sec-WebSocket-Accept for a key (RFC 6455 4.2.2) into out (>= 29 bytes). */
void ks_ws_accept_key(const char *key, char out[29]);

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
