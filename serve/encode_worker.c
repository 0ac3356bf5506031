#include "encode_worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ks_encode_worker {
    ks_encode_worker_desc d;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;                  /* under lock */
    /* inbox: the newest picture, rows packed (stride = width * 4) */
    unsigned char *inbox;
    size_t inbox_cap;
    int in_w, in_h, in_bottom_up, in_ready;
    /* the worker's own copy while it encodes */
    unsigned char *work;
    size_t work_cap;
    atomic_int wanted[KS_FRAME_KIND_NUM];
    atomic_int keyframe_asked;
    ks_byte_buf out;
};

static void encode_one(ks_encode_worker *w, ks_frame_encoder *e, ks_hub_slot slot, const ks_frame_image *img)
{
    if (!e || atomic_load(&w->wanted[e->kind]) <= 0) return;
    if (e->request_keyframe && atomic_exchange(&w->keyframe_asked, 0)) e->request_keyframe(e);
    int key = 0;
    if (e->encode(e, img, &w->out, &key) != KS_OK) {
        fprintf(stderr, "kernelscope: serve: %s\n", ks_error_message()); /* the run goes on */
        return;
    }
    if (w->out.size == 0) return; /* an encoder with delay may hold the first frames */
    ks_hub_item *it = ks_hub_item_new(w->out.size);
    if (!it) return;
    memcpy(it->data, w->out.data, w->out.size);
    it->kind = e->kind;
    it->keyframe = key;
    it->width = img->width;
    it->height = img->height;
    ks_frame_hub_put(w->d.hub, slot, it);
    if (w->d.published) w->d.published(w->d.user);
}

static void *worker_main(void *arg)
{
    ks_encode_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->stop && !w->in_ready) pthread_cond_wait(&w->wake, &w->lock);
        if (w->stop) break;
        /* take the inbox by swapping buffers: the live loop can fill the other one meanwhile */
        unsigned char *t = w->work;
        size_t tc = w->work_cap;
        w->work = w->inbox;
        w->work_cap = w->inbox_cap;
        w->inbox = t;
        w->inbox_cap = tc;
        ks_frame_image img = {w->work, w->in_w, w->in_h, (size_t)w->in_w * 4, w->in_bottom_up};
        w->in_ready = 0;
        pthread_mutex_unlock(&w->lock);
        encode_one(w, w->d.jpeg, KS_HUB_JPEG, &img);
        encode_one(w, w->d.video, KS_HUB_H264, &img);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

ks_status ks_encode_worker_create(const ks_encode_worker_desc *d, ks_encode_worker **out)
{
    *out = NULL;
    ks_encode_worker *w = calloc(1, sizeof *w);
    if (!w) {
        ks_frame_encoder_destroy(d->jpeg);
        ks_frame_encoder_destroy(d->video);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    w->d = *d;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        ks_encode_worker_destroy(w);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "serve: cannot start the encode thread");
    }
    w->started = 1;
    *out = w;
    return KS_OK;
}

void ks_encode_worker_stop(ks_encode_worker *w)
{
    if (!w || !w->started) return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->started = 0;
}

void ks_encode_worker_destroy(ks_encode_worker *w)
{
    if (!w) return;
    ks_encode_worker_stop(w);
    ks_frame_encoder_destroy(w->d.jpeg);
    ks_frame_encoder_destroy(w->d.video);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w->inbox);
    free(w->work);
    ks_byte_buf_free(&w->out);
    free(w);
}

ks_status ks_encode_worker_submit(ks_encode_worker *w, const ks_frame_image *img)
{
    const size_t row = (size_t)img->width * 4, bytes = row * (size_t)img->height;
    pthread_mutex_lock(&w->lock);
    if (bytes > w->inbox_cap) {
        unsigned char *p = realloc(w->inbox, bytes);
        if (!p) {
            pthread_mutex_unlock(&w->lock);
            return ks_fail(KS_ERR_OUT_OF_MEMORY, "serve: out of host memory for a %dx%d frame", img->width,
                           img->height);
        }
        w->inbox = p;
        w->inbox_cap = bytes;
    }
    if (img->stride == row) {
        memcpy(w->inbox, img->rgba, bytes);
    } else {
        for (int y = 0; y < img->height; ++y) memcpy(w->inbox + row * (size_t)y, img->rgba + img->stride * (size_t)y, row);
    }
    w->in_w = img->width;
    w->in_h = img->height;
    w->in_bottom_up = img->bottom_up;
    w->in_ready = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return KS_OK;
}

int ks_encode_worker_inbox_full(ks_encode_worker *w)
{
    pthread_mutex_lock(&w->lock);
    const int full = w->in_ready;
    pthread_mutex_unlock(&w->lock);
    return full;
}

void ks_encode_worker_want(ks_encode_worker *w, ks_frame_kind kind, int delta)
{
    if (kind > KS_FRAME_NONE && kind < KS_FRAME_KIND_NUM) atomic_fetch_add(&w->wanted[kind], delta);
}

int ks_encode_worker_wanted(ks_encode_worker *w)
{
    int n = 0;
    for (int k = 1; k < KS_FRAME_KIND_NUM; ++k) n += atomic_load(&w->wanted[k]) > 0;
    return n;
}

void ks_encode_worker_request_keyframe(ks_encode_worker *w)
{
    atomic_store(&w->keyframe_asked, 1);
}

int ks_encode_worker_has_video(const ks_encode_worker *w)
{
    return w->d.video != NULL;
}

const char *ks_encode_worker_encoder_name(const ks_encode_worker *w, ks_frame_kind kind)
{
    const ks_frame_encoder *e = kind == KS_FRAME_H264 ? w->d.video : kind == KS_FRAME_JPEG ? w->d.jpeg : NULL;
    return e && e->name ? e->name : "";
}
