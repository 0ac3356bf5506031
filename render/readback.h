/* Reads a texture back to host memory without stalling the GL pipeline: a
 * small ring of GL_PIXEL_PACK_BUFFERs, each filled by glGetTexImage and
 * guarded by a fence. push() queues a copy and returns at once; poll() hands
 * out the oldest copy whose fence has signalled (mapped for reading), so the
 * caller sees each picture a frame or two late and never waits. When every
 * buffer is still in flight a push is dropped. Needs the GL context current. */
#ifndef KS_READBACK_H
#define KS_READBACK_H

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_readback ks_readback;

typedef struct ks_readback_image {
    const unsigned char *rgba; /* RGBA8, rows bottom-up (texture order), valid until release */
    int width, height;
    long long tag;             /* what push was given (e.g. the frame number) */
} ks_readback_image;

typedef struct ks_readback_desc {
    int slots; /* pixel buffers in the ring, 2..8; 0 -> 3 */
} ks_readback_desc;

/* desc NULL: every default. slots out of range: KS_ERR_INVALID. */
ks_status ks_readback_create(const ks_readback_desc *desc, ks_readback **out);
void ks_readback_destroy(ks_readback *r);
/* Queues a copy of the RGBA8 texture tex (w x h). *queued 0 when dropped (ring full). */
ks_status ks_readback_push(ks_readback *r, unsigned int tex, int w, int h, long long tag, int *queued);
/* The oldest finished copy, mapped: 1 and *img; 0 when none is ready. */
ks_status ks_readback_poll(ks_readback *r, ks_readback_image *img, int *ready);
/* Unmaps what poll handed out. */
ks_status ks_readback_release(ks_readback *r);

#ifdef __cplusplus
}
#endif
#endif
