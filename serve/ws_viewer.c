/* The in-process viewer: one lws client context with one connection,
 * serviced on its own thread. Other threads only set flags under the lock
 * and wake the loop with lws_cancel_service. */
#include "ws_viewer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "base/ks_util.h"
#include "serve/frame_encoder.h"
#include "serve/latency_probe.h"

enum {
    KS_VIEWER_MSG_MAX = 64 << 20, /* a larger message is an error (a 4K JPEG is a few MiB) */
    KS_VIEWER_HEADER = 12,        /* kind, flags, 2 spare, u32 width, u32 height (LE): routes.c */
    KS_VIEWER_OUTBOX = 8,
};

struct ks_ws_viewer {
    ks_ws_viewer_desc d;
    char host[128], path[256], token[128], keys[2][32];
    char host_header[160]; /* what a page on this server sends as Host, and (lws adds "http://") Origin */
    struct lws_context *ctx;
    struct lws *wsi;
    pthread_t thread;
    int thread_started;
    atomic_int stop;
    pthread_mutex_t lock;
    ks_ws_viewer_counts counts;   /* under lock */
    int latency_asked;            /* under lock: start_latency called, not yet taken */
    /* service thread only */
    unsigned char *rx;
    size_t rx_len, rx_cap;
    int rx_binary;
    char outbox[KS_VIEWER_OUTBOX][64];
    int out_n;
    int key_turn;
    int send_key_pending;         /* the probe wants a key: sent at the next writable */
    ks_latency_probe probe;
    int measuring;
};

static void fail_locked(ks_ws_viewer *v, const char *what)
{
    if (!v->counts.error[0]) snprintf(v->counts.error, sizeof v->counts.error, "%s", what);
    v->counts.closed = 1;
}

static void queue_text(ks_ws_viewer *v, const char *json)
{
    if (v->out_n == KS_VIEWER_OUTBOX) return; /* only a few are ever queued */
    snprintf(v->outbox[v->out_n++], sizeof v->outbox[0], "%s", json);
    if (v->wsi) lws_callback_on_writable(v->wsi);
}

static void publish_latency(ks_ws_viewer *v)
{
    v->counts.latency_samples = v->probe.n;
    v->counts.latency_timeouts = v->probe.timeouts;
    v->counts.latency_median_ms = ks_latency_probe_median(&v->probe);
    /* more time-outs than samples wanted: the key does not change the picture */
    if (v->probe.state == KS_LATENCY_DONE || v->probe.timeouts > v->probe.want || v->probe.failed)
        v->counts.latency_done = 1;
}

/* A complete binary message: a frame. */
static void on_frame(ks_ws_viewer *v, const unsigned char *m, size_t len)
{
    if (len < KS_VIEWER_HEADER) return;
    const double t = ks_now_seconds();
    const int kind = m[0];
    const unsigned w = m[4] | (unsigned)m[5] << 8 | (unsigned)m[6] << 16 | (unsigned)m[7] << 24;
    const unsigned h = m[8] | (unsigned)m[9] << 8 | (unsigned)m[10] << 16 | (unsigned)m[11] << 24;
    const int wanted = v->d.h264 ? KS_FRAME_H264 : KS_FRAME_JPEG;
    int send = 0;
    if (v->measuring && kind == KS_FRAME_JPEG)
        send = ks_latency_probe_frame(&v->probe, m + KS_VIEWER_HEADER, len - KS_VIEWER_HEADER, t);
    pthread_mutex_lock(&v->lock);
    if (kind == wanted) {
        ++v->counts.frames;
        v->counts.bytes += len;
        v->counts.width = (int)w;
        v->counts.height = (int)h;
    } else {
        ++v->counts.other;
    }
    if (v->measuring) publish_latency(v);
    pthread_mutex_unlock(&v->lock);
    if (send && !v->send_key_pending && !v->counts.latency_done) {
        v->send_key_pending = 1;
        lws_callback_on_writable(v->wsi);
    }
}

static int receive(ks_ws_viewer *v, struct lws *wsi, const void *in, size_t len)
{
    if (lws_is_first_fragment(wsi)) {
        v->rx_len = 0;
        v->rx_binary = lws_frame_is_binary(wsi);
    }
    if (v->rx_len + len > KS_VIEWER_MSG_MAX) return -1;
    if (v->rx_len + len > v->rx_cap) {
        size_t cap = v->rx_cap ? v->rx_cap : 1 << 20;
        while (cap < v->rx_len + len) cap *= 2;
        unsigned char *b = realloc(v->rx, cap);
        if (!b) return -1;
        v->rx = b;
        v->rx_cap = cap;
    }
    memcpy(v->rx + v->rx_len, in, len);
    v->rx_len += len;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return 0;
    if (v->rx_binary) on_frame(v, v->rx, v->rx_len);
    v->rx_len = 0; /* text: the state document, not needed here */
    return 0;
}

static int writable(ks_ws_viewer *v, struct lws *wsi)
{
    char msg[64];
    int is_key = 0;
    if (v->out_n) {
        snprintf(msg, sizeof msg, "%s", v->outbox[0]);
        memmove(v->outbox[0], v->outbox[1], (size_t)(v->out_n - 1) * sizeof v->outbox[0]);
        --v->out_n;
    } else if (v->send_key_pending) {
        const char *key = v->keys[v->key_turn];
        if (v->keys[1][0]) v->key_turn ^= 1;
        snprintf(msg, sizeof msg, "{\"key\":\"%s\"}", key);
        v->send_key_pending = 0;
        is_key = 1;
    } else {
        return 0;
    }
    unsigned char buf[LWS_PRE + 64];
    const size_t n = strlen(msg);
    memcpy(buf + LWS_PRE, msg, n);
    if (lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n) return -1;
    if (is_key) ks_latency_probe_sent(&v->probe, ks_now_seconds()); /* the clock starts as the key leaves */
    if (v->out_n || v->send_key_pending) lws_callback_on_writable(wsi);
    return 0;
}

static int viewer_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    (void)user;
    ks_ws_viewer *v = lws_context_user(lws_get_context(wsi));
    if (!v) return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        char why[200];
        const int n = in && len ? (int)(len < 120 ? len : 120) : 17;
        snprintf(why, sizeof why, "viewer: cannot open ws://%s:%d/ws (%.*s)", v->host, v->d.port, n,
                 in && len ? (const char *)in : "connection failed");
        pthread_mutex_lock(&v->lock);
        fail_locked(v, why);
        pthread_mutex_unlock(&v->lock);
        v->wsi = NULL;
        return 0;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        pthread_mutex_lock(&v->lock);
        v->counts.connected = 1;
        pthread_mutex_unlock(&v->lock);
        if (v->d.h264) queue_text(v, "{\"accept\":\"h264\"}"); /* what the page sends when it has WebCodecs */
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (receive(v, wsi, in, len)) {
            pthread_mutex_lock(&v->lock);
            fail_locked(v, "viewer: a message too large or out of memory");
            pthread_mutex_unlock(&v->lock);
            return -1;
        }
        return 0;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return writable(v, wsi);
    case LWS_CALLBACK_CLIENT_CLOSED:
        pthread_mutex_lock(&v->lock);
        if (!atomic_load(&v->stop)) fail_locked(v, "viewer: the server closed the WebSocket");
        v->counts.closed = 1;
        pthread_mutex_unlock(&v->lock);
        v->wsi = NULL;
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        pthread_mutex_lock(&v->lock);
        const int start = v->latency_asked;
        v->latency_asked = 0;
        pthread_mutex_unlock(&v->lock);
        if (start && v->wsi && !v->measuring) {
            v->measuring = 1;
            ks_latency_probe_start(&v->probe);
            queue_text(v, "{\"key\":\"space\"}"); /* pause, as a user would */
        }
        if (v->measuring) { /* a key that changed nothing is given up after the time-out */
            ks_latency_probe_tick(&v->probe, ks_now_seconds());
            pthread_mutex_lock(&v->lock);
            publish_latency(v);
            pthread_mutex_unlock(&v->lock);
        }
        return 0;
    }
    default: break;
    }
    return 0;
}

static const struct lws_protocols ks_viewer_protocols[] = {
    {"kernelscope-viewer", viewer_callback, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void *service_main(void *arg)
{
    ks_ws_viewer *v = arg;
    while (!atomic_load(&v->stop))
        if (lws_service(v->ctx, 0) < 0) break;
    return NULL;
}


ks_status ks_ws_viewer_start(const ks_ws_viewer_desc *d, ks_ws_viewer **out)
{
    *out = NULL;
    if (d->port <= 0 || d->port > 65535) return ks_fail(KS_ERR_INVALID, "viewer: port %d is not a port", d->port);
    ks_ws_viewer *v = calloc(1, sizeof *v);
    if (!v) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    v->d = *d;
    snprintf(v->host, sizeof v->host, "%s", d->host && *d->host ? d->host : "127.0.0.1");
    if (d->token && *d->token) snprintf(v->token, sizeof v->token, "%s", d->token);
    snprintf(v->path, sizeof v->path, "/ws%s%s", v->token[0] ? "?token=" : "", v->token);
    snprintf(v->keys[0], sizeof v->keys[0], "%s", d->keys[0] ? d->keys[0] : "c");
    if (d->keys[1]) snprintf(v->keys[1], sizeof v->keys[1], "%s", d->keys[1]);
    ks_latency_probe_init(&v->probe, d->latency_samples > 0 ? d->latency_samples : 24, d->timeout_s);
    pthread_mutex_init(&v->lock, NULL);

    lws_set_log_level(0, NULL);
    struct lws_context_creation_info ci;
    memset(&ci, 0, sizeof ci);
    ci.port = CONTEXT_PORT_NO_LISTEN;
    ci.protocols = ks_viewer_protocols;
    ci.user = v;
    ci.timeout_secs = 5;
    ci.connect_timeout_secs = 5;
    v->ctx = lws_create_context(&ci);
    if (!v->ctx) {
        ks_ws_viewer_stop(v);
        return ks_fail(KS_ERR_IO, "viewer: cannot start a libwebsockets client");
    }
    struct lws_client_connect_info cc;
    memset(&cc, 0, sizeof cc);
    cc.context = v->ctx;
    cc.address = v->host;
    cc.port = d->port;
    cc.path = v->path;
    const int v6 = strchr(v->host, ':') != NULL;
    snprintf(v->host_header, sizeof v->host_header, "%s%s%s:%d", v6 ? "[" : "", v->host, v6 ? "]" : "", d->port);
    cc.host = v->host_header;
    cc.origin = v->host_header;
    cc.protocol = NULL; /* the page names no subprotocol */
    cc.local_protocol_name = ks_viewer_protocols[0].name;
    cc.pwsi = &v->wsi;
    if (!lws_client_connect_via_info(&cc)) {
        pthread_mutex_lock(&v->lock);
        fail_locked(v, "viewer: cannot start connecting");
        pthread_mutex_unlock(&v->lock);
    }
    if (pthread_create(&v->thread, NULL, service_main, v) != 0) {
        ks_ws_viewer_stop(v);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "viewer: cannot start its thread");
    }
    v->thread_started = 1;
    *out = v;
    return KS_OK;
}

void ks_ws_viewer_read(ks_ws_viewer *v, ks_ws_viewer_counts *out)
{
    if (v->ctx) lws_cancel_service(v->ctx); /* lets the loop check its time-outs */
    pthread_mutex_lock(&v->lock);
    *out = v->counts;
    pthread_mutex_unlock(&v->lock);
}

void ks_ws_viewer_start_latency(ks_ws_viewer *v)
{
    pthread_mutex_lock(&v->lock);
    v->latency_asked = 1;
    pthread_mutex_unlock(&v->lock);
    lws_cancel_service(v->ctx);
}

void ks_ws_viewer_stop(ks_ws_viewer *v)
{
    if (!v) return;
    if (v->thread_started) {
        atomic_store(&v->stop, 1);
        lws_cancel_service(v->ctx);
        pthread_join(v->thread, NULL);
    }
    if (v->ctx) lws_context_destroy(v->ctx);
    pthread_mutex_destroy(&v->lock);
    ks_latency_probe_free(&v->probe);
    free(v->rx);
    free(v);
}
