/* CUDA <-> OpenGL pixel-buffer interop. The only kernels/ module that sees a
 * GL object, and then only as its name (unsigned int). */
#ifndef KS_INTEROP_H
#define KS_INTEROP_H

#include <stddef.h>

#include "ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_interop ks_interop;

/* Registers the GL pixel buffer object once (write-discard). A GL context must be current. */
ks_status ks_interop_register(unsigned int gl_pbo, ks_interop **out);
void ks_interop_unregister(ks_interop *io);
/* Maps for this frame on stream (cudaStream_t, may be NULL) and returns the device pointer. */
ks_status ks_interop_map(ks_interop *io, void *stream, void **dev_ptr, size_t *bytes);
ks_status ks_interop_unmap(ks_interop *io, void *stream);

#ifdef __cplusplus
}
#endif
#endif
