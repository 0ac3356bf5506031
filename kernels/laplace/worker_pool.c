/* ks_workers (worker_pool.h): a generation counter under one mutex; each
 * thread runs the job of a generation once and counts itself done. */
#include "worker_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KS_WORKERS_MAX = 64, KS_WORKER_MSG = 512 };

typedef struct ks_worker {
    struct ks_workers *pool;
    int index;
    pthread_t thread;
    int started;
    ks_status status;
    char message[KS_WORKER_MSG];
} ks_worker;

struct ks_workers {
    pthread_mutex_t lock;
    pthread_cond_t wake, done_cond;
    long long generation; /* jobs posted */
    int done;             /* threads finished with the current generation */
    int quit;
    ks_worker_fn fn;
    void *arg;
    int count;
    ks_worker w[KS_WORKERS_MAX];
};

static void *worker_main(void *p)
{
    ks_worker *me = p;
    ks_workers *w = me->pool;
    long long seen = 0;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->quit && w->generation == seen) pthread_cond_wait(&w->wake, &w->lock);
        if (w->quit) break;
        seen = w->generation;
        ks_worker_fn fn = w->fn;
        void *arg = w->arg;
        pthread_mutex_unlock(&w->lock);
        ks_error_clear();
        const ks_status st = fn(me->index, arg);
        if (st != KS_OK) snprintf(me->message, sizeof me->message, "%s", ks_error_message());
        pthread_mutex_lock(&w->lock);
        me->status = st;
        if (++w->done == w->count) pthread_cond_signal(&w->done_cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

ks_status ks_workers_create(int count, ks_workers **out)
{
    *out = NULL;
    if (count < 1 || count > KS_WORKERS_MAX)
        return ks_fail(KS_ERR_INVALID, "%d worker threads: 1 to %d", count, KS_WORKERS_MAX);
    ks_workers *w = calloc(1, sizeof *w);
    if (!w) return ks_fail(KS_ERR_OUT_OF_MEMORY, "worker threads: host allocation failed");
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->done_cond, NULL);
    w->count = count;
    for (int i = 0; i < count; ++i) {
        w->w[i].pool = w;
        w->w[i].index = i;
        const int e = pthread_create(&w->w[i].thread, NULL, worker_main, &w->w[i]);
        if (e != 0) {
            ks_workers_destroy(w);
            return ks_fail(KS_ERR_OUT_OF_MEMORY, "cannot start worker thread %d: %s", i, strerror(e));
        }
        w->w[i].started = 1;
    }
    *out = w;
    return KS_OK;
}

int ks_workers_count(const ks_workers *w) { return w->count; }

ks_status ks_workers_run(ks_workers *w, ks_worker_fn fn, void *arg)
{
    pthread_mutex_lock(&w->lock);
    w->fn = fn;
    w->arg = arg;
    w->done = 0;
    ++w->generation;
    pthread_cond_broadcast(&w->wake);
    while (w->done < w->count) pthread_cond_wait(&w->done_cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < w->count; ++i)
        if (w->w[i].status != KS_OK) return ks_fail(w->w[i].status, "GPU thread %d: %s", i, w->w[i].message);
    return KS_OK;
}

void ks_workers_destroy(ks_workers *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < w->count; ++i)
        if (w->w[i].started) pthread_join(w->w[i].thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->done_cond);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
