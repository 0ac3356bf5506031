/* Internal to counters/: the marker kernel that ties CUPTI's host clock to
 * the GPU's global timer. It reads %globaltimer, spins spin_ns, reads it
 * again; its activity record gives the same moments on CUPTI's clock. Run
 * with a block or more for every SM, it keeps them all busy: a step in the
 * PM sampler's SM activity that shows which clock the samples are on. */
#ifndef KS_TIMELINE_MARKER_H
#define KS_TIMELINE_MARKER_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The substring every marker launch's kernel name carries. */
#define KS_TL_MARKER_NAME "ks_timeline_marker"

/* Runs the marker (blocks of one warp, each spinning spin_ns) on the current
 * device's default stream and waits: gpu_ns[0], gpu_ns[1] = the global timer
 * at block 0's start and end. */
ks_status ks_tl_marker_run(unsigned long long gpu_ns[2], unsigned long long spin_ns, int blocks);

#ifdef __cplusplus
}
#endif
#endif
