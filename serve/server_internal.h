/* Shared by server.c (life cycle, threads), routes.c (the lws callback and
 * the requests), conn_send.c (what a connection sends), conn_stream.c (the
 * streams out) and conn_ws_input.c (a page's WebSocket messages in). */
#ifndef KS_SERVER_INTERNAL_H
#define KS_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <libwebsockets.h>

#include "serve/encode_worker.h"
#include "serve/frame_hub.h"
#include "serve/server.h"
#include "serve/request.h"
#include "serve/serve_auth.h"

enum {
    KS_SERVE_CHUNK = 64 * 1024,   /* bytes written per writable callback */
    KS_SERVE_WS_MSG_MAX = KS_REQ_WS_MSG_MAX, /* largest input message a page may send */
    KS_SERVE_FRAME_HEADER = 12,   /* binary ws message: kind, flags, 2 spare, u32 width, u32 height (LE) */
    KS_SERVE_RX_MAX = 4096,       /* lws's read buffer (pt_serv_buf_size): the most one read hands us */
    /* a connection's unread bytes: a head not yet whole (at most KS_REQ_HEAD_MAX, else 431) and one read */
    KS_SERVE_IN_MAX = KS_REQ_HEAD_MAX + KS_SERVE_RX_MAX,
    KS_SERVE_HEAD_SECS = 10,      /* a request, head and body, must be whole this long after its first byte;
                                     an answer must go on (a chunk taken) within it */
    KS_SERVE_KEEPALIVE_SECS = 5,  /* between requests on a connection */
    KS_SERVE_LINGER_SECS = 5,     /* after our last byte: reading (and dropping) until the client closes */
};

/* What a connection is doing. */
typedef enum ks_conn_kind {
    KS_CONN_HTTP = 0,  /* reading requests and answering them, one at a time */
    KS_CONN_MJPEG,     /* /stream.mjpg: JPEG parts until it closes */
    KS_CONN_WS,        /* a WebSocket: frames both ways */
} ks_conn_kind;

/* What follows the answer being sent. */
typedef enum ks_conn_then {
    KS_THEN_NEXT = 0,  /* the next request (keep-alive) */
    KS_THEN_CLOSE,     /* close: shut our side, drop what the client still sends until it closes */
    KS_THEN_MJPEG,     /* the stream's parts */
    KS_THEN_WS,        /* WebSocket frames */
} ks_conn_then;

/* Per connection (lws allocates it zeroed: per_session_data_size). */
typedef struct ks_conn {
    ks_conn_kind kind;
    struct lws *wsi;
    struct ks_conn *next;          /* streaming connections (mjpeg, ws) */
    int streaming;                 /* on the server's list of streams */
    /* the item being sent: a one-shot answer, a frame or a state message */
    const unsigned char *body;     /* static body (the page) or item->data */
    ks_hub_item *item;             /* reference held while sending it */
    char head[1024];               /* bytes sent before the body (answer head, ws frame header, mjpeg part header) */
    size_t head_len, tail_len;     /* tail: "\r\n" after an mjpeg part */
    size_t total, off;             /* head + body + tail; bytes sent */
    int sending;                   /* 1 while an item is on its way */
    ks_conn_then then;             /* after the answer on its way */
    int shut_pending;              /* close once lws has sent all it holds (then shut our side) */
    int lingering;                 /* our side shut: what comes is dropped until the client closes */
    /* what this connection has seen */
    ks_frame_kind want;            /* ws: JPEG or H.264; mjpeg: JPEG */
    int need_key;                  /* H.264: wait for a key frame */
    unsigned long long frame_seq, state_seq;
    /* requests: the bytes not yet taken (a head being gathered, pipelined requests waiting their turn) */
    unsigned char in[KS_SERVE_IN_MAX];
    size_t in_len;
    ks_req_stream stream;
    int begun;                     /* bytes of the next request came: it has KS_SERVE_HEAD_SECS to be whole */
    /* a request with a body is answered once the body is in (so a key is pressed only then) */
    ks_req_body body_in;
    ks_req_answer pending;
    int has_pending, head_only;
    ks_hub_item *source;           /* POST /kernel: the body as it arrives (declared size) */
    /* WebSocket input */
    ks_ws_rx ws_rx;
    char rx[KS_SERVE_WS_MSG_MAX + 1];
    size_t rx_len;
    unsigned char pong[125];       /* a ping's payload, answered when no message of ours is half sent */
    size_t pong_len;
    int pong_pending;
    int close_code;                /* ws: close with this code once the message on its way out is whole (0: none) */
} ks_conn;

struct ks_server {
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    pthread_t thread;
    int thread_started;
    atomic_int stop;
    int port;
    char addr[KS_SERVE_ADDR_MAX];
    char token[KS_SERVE_TOKEN_MAX];
    char url[KS_SERVE_ADDR_MAX + KS_SERVE_TOKEN_MAX + 64];
    ks_frame_hub *hub;
    ks_encode_worker *worker;
    ks_input_queue *input;
    ks_conn *streams;              /* service thread only */
    ks_server_editor editor;       /* describe NULL: no editor */
    unsigned char *editor_js, *editor_css; /* CodeMirror, read at start (NULL: not installed) */
    size_t editor_js_len, editor_css_len;
    /* what the pages report of themselves ({"stats":{...}}), under stats_lock */
    pthread_mutex_t stats_lock;
    ks_server_viewer_stats viewer;
    unsigned char scratch[LWS_PRE + KS_SERVE_CHUNK + 256];
};

extern const struct lws_protocols ks_serve_protocols[];
/* The page (embedded at build time, serve/embed_page.cmake). */
extern const unsigned char ks_serve_page[];
extern const size_t ks_serve_page_len;

/* conn_send.c: a POST /kernel body dropped; the item that went out released;
 * the next chunk written (-1: close; c->sending drops to 0 when the item is
 * out); an item started (c->head and its lengths set); our side shut once
 * all is sent; an answer (its head, then the body, none for HEAD; len < 0:
 * no Content-Length, a stream), a plain-text one. */
void ks_conn_drop_source(ks_conn *c);
void ks_conn_release_item(ks_conn *c);
int ks_conn_send_chunk(ks_server *s, struct lws *wsi, ks_conn *c);
void ks_conn_start_item(struct lws *wsi, ks_conn *c, ks_hub_item *it, const unsigned char *body, size_t body_len);
void ks_conn_close_gracefully(struct lws *wsi, ks_conn *c);
int ks_conn_respond(struct lws *wsi, ks_conn *c, unsigned status, const char *type, ks_hub_item *it,
                    const unsigned char *body, long long len);
int ks_conn_respond_text(struct lws *wsi, ks_conn *c, unsigned status, const char *text);

/* conn_stream.c: c joins or leaves the streams; 1 when something newer than
 * c has seen is ready; a stream's writable callback (-1: close). */
void ks_conn_stream_add(ks_server *s, ks_conn *c, ks_conn_kind kind, ks_frame_kind want);
void ks_conn_stream_remove(ks_server *s, ks_conn *c);
int ks_conn_stream_has_news(ks_server *s, const ks_conn *c);
int ks_conn_stream_writable(ks_server *s, struct lws *wsi, ks_conn *c);

/* conn_ws_input.c: bytes from a page's WebSocket. */
void ks_conn_ws_input(ks_server *s, struct lws *wsi, ks_conn *c, unsigned char *buf, size_t len);

/* routes.c: a key press into the input queue (0, or -1 when it is full). */
int ks_server_press_key(ks_server *s, int key, int shift);

#endif
