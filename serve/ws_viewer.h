/* A viewer in the same process, for `kernelscope bench serve`: a
 * libwebsockets client on its own thread that opens /ws as the viewer page
 * does (asks for H.264 with {"accept":"h264"} when told to, sends keys as
 * {"key":NAME}), reassembles each message, counts the frames and bytes it
 * receives, and measures key press to changed picture (serve/latency_probe.h)
 * on JPEG frames when asked. */
#ifndef KS_WS_VIEWER_H
#define KS_WS_VIEWER_H

#include "base/ks_error.h"

typedef struct ks_ws_viewer ks_ws_viewer;

typedef struct ks_ws_viewer_desc {
    const char *host;          /* NULL: "127.0.0.1" */
    int port;                  /* required */
    const char *token;         /* NULL or "": none */
    int h264;                  /* ask for H.264 frames, as a page with WebCodecs does */
    const char *keys[2];       /* latency: keys sent in turn (keys[1] NULL: keys[0] each time) */
    int latency_samples;       /* 0: 24 */
    double timeout_s;          /* a key with no changed picture after this long is given up; 0: 5 s */
} ks_ws_viewer_desc;

typedef struct ks_ws_viewer_counts {
    int connected;             /* the WebSocket opened */
    int closed;                /* it closed or failed; error says why when it failed */
    char error[256];
    unsigned long long frames; /* complete frames of the kind asked for */
    unsigned long long bytes;  /* their bytes, headers included */
    unsigned long long other;  /* frames of the other kind (before the switch to H.264) */
    int width, height;         /* of the last frame */
    int latency_done;          /* the latency samples are all in, or measuring gave up */
    int latency_samples;
    int latency_timeouts;
    double latency_median_ms;
} ks_ws_viewer_counts;

/* Starts the thread and the connection (it goes on in the background). */
ks_status ks_ws_viewer_start(const ks_ws_viewer_desc *d, ks_ws_viewer **out);
void ks_ws_viewer_read(ks_ws_viewer *v, ks_ws_viewer_counts *out);
/* Pauses the picture (the space key, as a user would) and measures the
 * latency on the JPEG frames that follow. */
void ks_ws_viewer_start_latency(ks_ws_viewer *v);
/* Closes the connection, joins the thread, frees. */
void ks_ws_viewer_stop(ks_ws_viewer *v);

#endif
