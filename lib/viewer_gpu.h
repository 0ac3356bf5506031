/* The library's path for fields in CUDA device memory (lib/viewer_field.c): on
 * the caller's stream, a kernel samples the slice into the picture's floats
 * (the mean of the cells each pixel covers, by the host path's own rule:
 * lib/viewer_sample.h) and copies them to pinned host memory; an event says
 * when they are there. Two slots: a field that comes while both are taken is
 * dropped, never waited for. Plain C interface; lib/viewer_gpu_none.c stands
 * in without CUDA. */
#ifndef KS_VIEWER_GPU_H
#define KS_VIEWER_GPU_H

#include "base/ks_error.h"
#include "lib/viewer_sample.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_VGPU_SLOTS = 2 };

typedef struct ks_vgpu ks_vgpu;

/* What to sample: the slice (its cells in device memory) into a pw x ph
 * picture, rows top-down (the slice's last row first). */
typedef struct ks_vgpu_job {
    ks_vslice slice;
    int pw, ph;
    void *stream; /* the caller's cudaStream_t; NULL: the default stream */
} ks_vgpu_job;

ks_status ks_vgpu_create(ks_vgpu **out);
/* Enqueues job on its stream into a free slot, *slot; *slot is -1 when both
 * slots are taken (the field is dropped). Returns at once: nothing waits for
 * the GPU here. */
ks_status ks_vgpu_enqueue(ks_vgpu *g, const ks_vgpu_job *job, int *slot);
/* Waits for slot's copy (on the viewer's thread), then its floats (pw * ph of them). */
ks_status ks_vgpu_wait(ks_vgpu *g, int slot, const float **host);
/* The slot is free again. */
void ks_vgpu_release(ks_vgpu *g, int slot);
void ks_vgpu_destroy(ks_vgpu *g);
/* The milliseconds between two of the caller's CUDA events (cudaEvent_t),
 * without waiting: *ready 0 while the end (or the start) has not happened. */
ks_status ks_vgpu_event_ms(void *start, void *end, int *ready, double *ms);

#ifdef __cplusplus
}
#endif

#endif
