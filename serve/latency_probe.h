/* Key press to a changed picture, as a viewer sees it: the picture is made
 * static (paused), a key that changes it is sent, and the clock stops at the
 * first received frame whose bytes differ from the static picture before the
 * key. Pure logic on the frames' bytes and times (the caller sends the keys),
 * so it is tested on its own; `kernelscope bench serve` drives it from its
 * WebSocket viewer (serve/ws_viewer.h). */
#ifndef KS_LATENCY_PROBE_H
#define KS_LATENCY_PROBE_H

#include <stddef.h>

enum {
    KS_LATENCY_MAX_SAMPLES = 256,
    KS_LATENCY_STATIC_FRAMES = 3, /* identical frames in a row that make a picture static */
};

typedef enum ks_latency_state {
    KS_LATENCY_IDLE = 0, /* not started */
    KS_LATENCY_SETTLE,   /* waiting for a static picture */
    KS_LATENCY_READY,    /* static: the caller sends the key now */
    KS_LATENCY_WAIT,     /* key sent: waiting for a changed picture */
    KS_LATENCY_DONE,     /* all samples taken */
} ks_latency_state;

typedef struct ks_latency_probe {
    ks_latency_state state;
    int want;                   /* samples to take, 1..KS_LATENCY_MAX_SAMPLES */
    double timeout_s;           /* a key with no changed picture after this long is a time-out */
    unsigned char *last;        /* the previous frame's bytes (in WAIT: the static picture) */
    size_t last_len, last_cap;
    int same;                   /* identical frames in a row so far, counting the first */
    double sent_at;             /* seconds, the caller's clock */
    double samples_ms[KS_LATENCY_MAX_SAMPLES];
    int n;                      /* samples taken */
    int timeouts;               /* keys that changed nothing in time */
    int failed;                 /* out of memory */
} ks_latency_probe;

/* Zeroes p and sets it up for want samples (clamped) with timeout_s (<= 0: 5 s). */
void ks_latency_probe_init(ks_latency_probe *p, int want, double timeout_s);
void ks_latency_probe_free(ks_latency_probe *p);
/* Starts (or restarts) measuring: waits for a static picture. */
void ks_latency_probe_start(ks_latency_probe *p);
/* A frame's bytes arrived at time t (seconds). Returns 1 when a key should be sent now. */
int ks_latency_probe_frame(ks_latency_probe *p, const void *data, size_t len, double t);
/* The key went out at time t (only counts in READY). */
void ks_latency_probe_sent(ks_latency_probe *p, double t);
/* Time passes with no frame: a key that waited longer than the time-out is
 * given up (counted in timeouts) and the probe settles again. */
void ks_latency_probe_tick(ks_latency_probe *p, double t);
/* Median of the samples in ms; 0 with none. */
double ks_latency_probe_median(const ks_latency_probe *p);

#endif
