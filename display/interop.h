/* CUDA <-> OpenGL picture hand-over, two ways (docs/architecture.md, "Display path"):
 *   pbo:  a GL pixel buffer object registered with CUDA, mapped for the frame's
 *         writes and unmapped before GL reads it (the driver orders the two);
 *   copy: for a GL context CUDA cannot register (not on the CUDA device): the
 *         picture goes to a device buffer, then asynchronously to pinned host
 *         memory, and GL uploads it from there once the copy's event completed.
 * Both are used as rings (one slot per frame in flight, see the live loop).
 * The only kernels/ module that sees a GL object, and then only as its name. */
#ifndef KS_INTEROP_H
#define KS_INTEROP_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --interop: how a CUDA picture reaches GL. */
typedef enum ks_interop_mode {
    KS_INTEROP_AUTO = 0, /* default: pbo, or copy when CUDA cannot register the GL buffer */
    KS_INTEROP_PBO,
    KS_INTEROP_COPY,
    KS_INTEROP_NUM
} ks_interop_mode;

/* "auto", "pbo", "copy" -> mode; 0 on success, -1 for an unknown name. */
int ks_interop_mode_parse(const char *name, ks_interop_mode *out);
const char *ks_interop_mode_name(ks_interop_mode m);

/* ---- pbo: one registered GL buffer ---------------------------------------- */
typedef struct ks_interop ks_interop;

/* Registers the GL pixel buffer object once (write-discard). A GL context must
 * be current. Test/diagnostic switch: with KERNELSCOPE_FORCE_INTEROP_FAIL=1 in
 * the environment registration fails as it does on a context CUDA cannot share. */
ks_status ks_interop_register(unsigned int gl_pbo, ks_interop **out);
void ks_interop_unregister(ks_interop *io);
/* Maps for this frame on stream (cudaStream_t, may be NULL) and returns the device pointer. */
ks_status ks_interop_map(ks_interop *io, void *stream, void **dev_ptr, size_t *bytes);
ks_status ks_interop_unmap(ks_interop *io, void *stream);

/* ---- copy: device buffer -> pinned host memory, a ring of slots ------------ */
typedef struct ks_copy_ring ks_copy_ring;

typedef struct ks_copy_ring_desc {
    int slots;    /* picture buffers in the ring, 1..8; 0 -> 2 */
    size_t bytes; /* bytes per buffer; required: 0 is invalid */
} ks_copy_ring_desc;

/* slots buffers of bytes each on the device and in pinned host memory
 * (cudaHostAlloc). desc NULL, bytes 0 or slots out of range: KS_ERR_INVALID. */
ks_status ks_copy_ring_create(const ks_copy_ring_desc *desc, ks_copy_ring **out);
void ks_copy_ring_destroy(ks_copy_ring *cr);
/* The slot's device buffer for this frame's picture. stream waits (on the GPU,
 * not the host) for the slot's previous copy, should it run on another stream. */
ks_status ks_copy_ring_acquire(ks_copy_ring *cr, int slot, void *stream, void **dev_ptr);
/* Queues the copy of the slot's first bytes to its host buffer on stream and
 * records the slot's event after it. */
ks_status ks_copy_ring_submit(ks_copy_ring *cr, int slot, size_t bytes, void *stream);
/* Waits (host) for the slot's event: then *host holds the whole picture. */
ks_status ks_copy_ring_host(ks_copy_ring *cr, int slot, const void **host);

#ifdef __cplusplus
}
#endif
#endif
