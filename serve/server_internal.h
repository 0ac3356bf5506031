/* Shared by server.c (life cycle, threads) and routes.c (the lws callback). */
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
};

typedef enum ks_conn_kind { KS_CONN_NONE = 0, KS_CONN_HTTP, KS_CONN_MJPEG, KS_CONN_WS } ks_conn_kind;

/* Per connection (lws allocates it zeroed: per_session_data_size). */
typedef struct ks_conn {
    ks_conn_kind kind;
    struct lws *wsi;
    struct ks_conn *next;          /* streaming connections (mjpeg, ws) */
    /* the item being sent: a one-shot body, a frame or a state message */
    const unsigned char *body;     /* static body (the page) or item->data */
    ks_hub_item *item;             /* reference held while sending it */
    char head[160];                /* bytes sent before the body (ws frame header, mjpeg part header) */
    size_t head_len, tail_len;     /* tail: "\r\n" after an mjpeg part */
    size_t total, off;             /* head + body + tail; bytes sent */
    int text;                      /* ws: text message */
    int sending;                   /* 1 while an item is on its way */
    int complete_pending;          /* an answer without a body: end the transaction when writable */
    int close_after;               /* close once the answer is out (body unread, HEAD) */
    /* what this connection has seen */
    ks_frame_kind want;            /* ws: JPEG or H.264; mjpeg: JPEG */
    int need_key;                  /* H.264: wait for a key frame */
    unsigned long long frame_seq, state_seq;
    /* input */
    char rx[KS_SERVE_WS_MSG_MAX + 1];
    size_t rx_len;
    int close_code;                /* ws: a bad message came; close with this code once the
                                      message on its way out is whole (0: none) */
    /* a request with a body is answered once the body is in (so a key is pressed only then) */
    ks_req_body body_in;
    ks_req_answer pending;
    int has_pending, head_only;
    ks_hub_item *source;           /* POST /kernel: the body as it arrives (declared size) */
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

#endif
