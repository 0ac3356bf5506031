/* The encode worker: a thread that takes the newest picture handed over by
 * the live loop, encodes it with each encoder someone is waiting for, and
 * publishes the result in the frame hub. The live loop only copies the
 * picture into the worker's inbox (newest wins, never waits for encoding). */
#ifndef KS_ENCODE_WORKER_H
#define KS_ENCODE_WORKER_H

#include "serve/frame_encoder.h"
#include "serve/frame_hub.h"

typedef struct ks_encode_worker ks_encode_worker;

typedef struct ks_encode_worker_desc {
    ks_frame_hub *hub;
    ks_frame_encoder *jpeg;  /* owned by the worker from now on; required */
    ks_frame_encoder *video; /* owned; NULL: no H.264 */
    void (*published)(void *user); /* called on the worker thread after each publish */
    void *user;
} ks_encode_worker_desc;

ks_status ks_encode_worker_create(const ks_encode_worker_desc *d, ks_encode_worker **out);
/* Stops the thread (no more encoding, no more published callbacks); idempotent. */
void ks_encode_worker_stop(ks_encode_worker *w);
/* Stops the thread and destroys the encoders. */
void ks_encode_worker_destroy(ks_encode_worker *w);
/* Copies img into the inbox (replacing a picture not yet taken). */
ks_status ks_encode_worker_submit(ks_encode_worker *w, const ks_frame_image *img);
/* 1 while the inbox holds a picture the worker has not taken yet. */
int ks_encode_worker_inbox_full(ks_encode_worker *w);
/* Who waits for which kind: the service thread counts its clients here. */
void ks_encode_worker_want(ks_encode_worker *w, ks_frame_kind kind, int delta);
int ks_encode_worker_wanted(ks_encode_worker *w);
/* The next H.264 frame must be a key frame (a viewer joined or dropped frames). */
void ks_encode_worker_request_keyframe(ks_encode_worker *w);
int ks_encode_worker_has_video(const ks_encode_worker *w);
/* The encoder's name for kind; "" when there is none. */
const char *ks_encode_worker_encoder_name(const ks_encode_worker *w, ks_frame_kind kind);

#endif
