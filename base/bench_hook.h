/* A bench's call after each row's timing, with the row's kernel to launch
 * once more: how the app measures that launch's hardware counters (bench
 * --counters) without the kernels' benches knowing of counters. Plain C. */
#ifndef KS_BENCH_HOOK_H
#define KS_BENCH_HOOK_H

#include "base/cuda_device.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launches the row's kernel(s) once on stream (self: what it needs). */
typedef ks_status (*ks_bench_launch_fn)(void *self, void *stream);

typedef struct ks_bench_hook {
    /* Called once after row `row` (its index in the result's rows) was timed,
     * never inside the timed loop; attrs: the launch's registers and
     * occupancy where the bench knows them (NULL: unknown). A failure ends the
     * bench. NULL: no call. */
    ks_status (*row)(void *user, int row, ks_bench_launch_fn launch, void *self, void *stream,
                     const ks_kernel_attrs *attrs);
    void *user;
} ks_bench_hook;

#ifdef __cplusplus
}
#endif
#endif
