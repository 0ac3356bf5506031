/* The CPU backend's OpenMP policy, in one place.
 *
 * Waiting: OpenMP's idle threads spin by default (libgomp: up to ~300000
 * spins), which on a shared machine takes the cores the live view's own GL,
 * encoder and server threads, and other processes, need: a 2-thread Jacobi
 * region of a few microseconds of work then costs milliseconds. So, unless the
 * user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, the program starts with
 * OMP_WAIT_POLICY=passive (set before the OpenMP runtime reads it).
 *
 * Threads: a region of little work runs on fewer threads, or serially, where
 * waking a passive thread would cost more than its share of the work. */
#ifndef KS_CPU_THREADS_H
#define KS_CPU_THREADS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Work items (grid cells, pixels) each thread of a region gets at least. */
#define KS_CPU_ITEMS_PER_THREAD 65536

/* Threads for a parallel region over `items` items of about a cell update's
 * cost each (1 for small regions; at most omp_get_max_threads()). */
int ks_cpu_threads(size_t items);

/* The policy in words for a bench's start-up line, e.g. "2 OpenMP threads,
 * passive waiting; regions under 131072 cells run on fewer threads". */
void ks_cpu_policy_text(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
