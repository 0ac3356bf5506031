/* What the pages ask for (keys, mouse), from the service thread to the live
 * loop: a bounded ring under a mutex. When it is full the newest event is
 * dropped (a stalled live loop never makes the server grow). */
#ifndef KS_INPUT_QUEUE_H
#define KS_INPUT_QUEUE_H

#include "base/ks_error.h"

typedef enum ks_input_type {
    KS_INPUT_NONE = 0,
    KS_INPUT_KEY,   /* key, shift */
    KS_INPUT_MOUSE, /* x, y: picture pixel (origin bottom-left); inside 0: the pointer left it */
    KS_INPUT_WHEEL, /* x, y where; dy steps (+: away from the user, zoom in) */
    KS_INPUT_DRAG,  /* x, y where; dx, dy picture pixels moved (+x right, +y up) */
    KS_INPUT_NUM
} ks_input_type;

typedef struct ks_input_event {
    ks_input_type type;
    int key, shift;   /* ks_key (render/window.h) */
    double x, y;
    double dx, dy;
    int inside;
} ks_input_event;

enum { KS_INPUT_QUEUE_CAP = 256 };

typedef struct ks_input_queue ks_input_queue;

ks_status ks_input_queue_create(ks_input_queue **out);
void ks_input_queue_destroy(ks_input_queue *q);
/* 0 when queued, -1 when full (dropped). */
int ks_input_queue_push(ks_input_queue *q, const ks_input_event *ev);
/* 1 and *ev while events remain. */
int ks_input_queue_pop(ks_input_queue *q, ks_input_event *ev);
/* Waits up to seconds (at most 1) for an event to be queued; 1 when one is
 * there (it stays queued for ks_input_queue_pop), 0 after the time. A paused
 * live loop that has nothing to draw sleeps here rather than spinning. */
int ks_input_queue_wait(ks_input_queue *q, double seconds);

#endif
