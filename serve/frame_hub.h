/* Latest-wins store of what the server sends: encoded frames (one slot per
 * kind) and the state document. Items are immutable and reference counted:
 * the service thread holds a reference while a client is sending one, the
 * producer replaces the slot with a newer one at any time. Memory stays
 * bounded by (clients + slots) items whatever the clients do. */
#ifndef KS_FRAME_HUB_H
#define KS_FRAME_HUB_H

#include <stdatomic.h>
#include <stddef.h>

#include "serve/frame_encoder.h"

typedef enum ks_hub_slot {
    KS_HUB_JPEG = 0,
    KS_HUB_H264,
    KS_HUB_STATE, /* the state JSON (text) */
    KS_HUB_NUM
} ks_hub_slot;

typedef struct ks_hub_item {
    atomic_int refs;
    unsigned long long seq;   /* 1, 2, ... per slot */
    ks_frame_kind kind;       /* frames; KS_FRAME_NONE for the state */
    int keyframe;
    int width, height;
    size_t size;
    unsigned char data[];     /* size bytes */
} ks_hub_item;

typedef struct ks_frame_hub ks_frame_hub;

ks_status ks_frame_hub_create(ks_frame_hub **out);
void ks_frame_hub_destroy(ks_frame_hub *h);
/* A new item with room for size bytes (one reference, owned by the caller). */
ks_hub_item *ks_hub_item_new(size_t size);
void ks_hub_item_ref(ks_hub_item *it);
void ks_hub_item_unref(ks_hub_item *it);
/* Publishes it as the newest of slot (takes the caller's reference); sets it->seq. */
void ks_frame_hub_put(ks_frame_hub *h, ks_hub_slot slot, ks_hub_item *it);
/* The newest item of slot with a reference for the caller, or NULL. */
ks_hub_item *ks_frame_hub_get(ks_frame_hub *h, ks_hub_slot slot);
/* Seq of the newest item of slot (0: none yet). */
unsigned long long ks_frame_hub_seq(ks_frame_hub *h, ks_hub_slot slot);
/* Items alive now (all slots and every reference holder): for the tests' memory checks. */
long ks_frame_hub_live_items(void);

#endif
