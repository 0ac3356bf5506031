/* CUDA-GL interop and the copy path of a build without CUDA (the twin of interop.cu). */
#include <stddef.h>

#include "base/ks_nocuda.h"
#include "display/interop.h"

ks_status ks_interop_register(unsigned int gl_pbo, ks_interop **out)
{
    (void)gl_pbo;
    *out = NULL;
    return KS_NO_CUDA("CUDA-GL interop");
}

void ks_interop_unregister(ks_interop *io) { (void)io; }

ks_status ks_interop_map(ks_interop *io, void *stream, void **dev_ptr, size_t *bytes)
{
    (void)io, (void)stream, (void)dev_ptr, (void)bytes;
    return KS_NO_CUDA("CUDA-GL interop");
}

ks_status ks_interop_unmap(ks_interop *io, void *stream)
{
    (void)io, (void)stream;
    return KS_NO_CUDA("CUDA-GL interop");
}

ks_status ks_copy_ring_create(const ks_copy_ring_desc *desc, ks_copy_ring **out)
{
    (void)desc;
    *out = NULL;
    return KS_NO_CUDA("copy path");
}

void ks_copy_ring_destroy(ks_copy_ring *cr) { (void)cr; }

ks_status ks_copy_ring_acquire(ks_copy_ring *cr, int slot, void *stream, void **dev_ptr)
{
    (void)cr, (void)slot, (void)stream, (void)dev_ptr;
    return KS_NO_CUDA("copy path");
}

ks_status ks_copy_ring_submit(ks_copy_ring *cr, int slot, size_t bytes, void *stream)
{
    (void)cr, (void)slot, (void)bytes, (void)stream;
    return KS_NO_CUDA("copy path");
}

ks_status ks_copy_ring_host(ks_copy_ring *cr, int slot, const void **host)
{
    (void)cr, (void)slot, (void)host;
    return KS_NO_CUDA("copy path");
}
