/* A fixed set of host threads, one per GPU of a multi-GPU solver: each job
 * runs fn(i, arg) on thread i for every i at once and returns when all are
 * done. A thread keeps its CUDA device between jobs (the job sets it once),
 * and a failure's message, thread-local where it was made, travels back to
 * the caller's thread. Plain C, no device. */
#ifndef KS_WORKER_POOL_H
#define KS_WORKER_POOL_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_workers ks_workers;
typedef ks_status (*ks_worker_fn)(int index, void *arg);

/* count threads (1 .. 64). */
ks_status ks_workers_create(int count, ks_workers **out);
int ks_workers_count(const ks_workers *w);
/* Runs fn(i, arg) on thread i for i in 0 .. count-1 concurrently and waits
 * for all of them. KS_OK when every one succeeded, else the status of the
 * lowest index that failed, with its message prefixed "GPU thread i: ". */
ks_status ks_workers_run(ks_workers *w, ks_worker_fn fn, void *arg);
/* Ends and joins the threads (NULL is fine). */
void ks_workers_destroy(ks_workers *w);

#ifdef __cplusplus
}
#endif
#endif
