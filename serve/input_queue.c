#include "input_queue.h"

#include <pthread.h>
#include <stdlib.h>

struct ks_input_queue {
    pthread_mutex_t lock;
    ks_input_event ring[KS_INPUT_QUEUE_CAP];
    unsigned head, count; /* under lock */
};

ks_status ks_input_queue_create(ks_input_queue **out)
{
    *out = NULL;
    ks_input_queue *q = calloc(1, sizeof *q);
    if (!q) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&q->lock, NULL);
    *out = q;
    return KS_OK;
}

void ks_input_queue_destroy(ks_input_queue *q)
{
    if (!q) return;
    pthread_mutex_destroy(&q->lock);
    free(q);
}

int ks_input_queue_push(ks_input_queue *q, const ks_input_event *ev)
{
    int rc = -1;
    pthread_mutex_lock(&q->lock);
    if (q->count < KS_INPUT_QUEUE_CAP) {
        q->ring[(q->head + q->count) % KS_INPUT_QUEUE_CAP] = *ev;
        ++q->count;
        rc = 0;
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

int ks_input_queue_pop(ks_input_queue *q, ks_input_event *ev)
{
    int got = 0;
    pthread_mutex_lock(&q->lock);
    if (q->count) {
        *ev = q->ring[q->head];
        q->head = (q->head + 1) % KS_INPUT_QUEUE_CAP;
        --q->count;
        got = 1;
    }
    pthread_mutex_unlock(&q->lock);
    return got;
}
