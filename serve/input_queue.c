#include "input_queue.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct ks_input_queue {
    pthread_mutex_t lock;
    pthread_cond_t queued;  /* signalled by each push */
    ks_input_event ring[KS_INPUT_QUEUE_CAP];
    unsigned head, count; /* under lock */
};

ks_status ks_input_queue_create(ks_input_queue **out)
{
    *out = NULL;
    ks_input_queue *q = calloc(1, sizeof *q);
    if (!q) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&q->lock, NULL);
    /* waits time out on the monotonic clock: a change of the wall clock neither ends nor stretches them */
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&q->queued, &attr);
    pthread_condattr_destroy(&attr);
    *out = q;
    return KS_OK;
}

void ks_input_queue_destroy(ks_input_queue *q)
{
    if (!q) return;
    pthread_cond_destroy(&q->queued);
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
        pthread_cond_signal(&q->queued);
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

int ks_input_queue_wait(ks_input_queue *q, double seconds)
{
    if (!(seconds > 0.0)) seconds = 0.0;
    if (seconds > 1.0) seconds = 1.0;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    const long ns = (long)(seconds * 1e9);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec += ns % 1000000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&q->lock);
    int rc = 0;
    while (q->count == 0 && rc == 0) rc = pthread_cond_timedwait(&q->queued, &q->lock, &until);
    const int got = q->count > 0;
    pthread_mutex_unlock(&q->lock);
    return got;
}
