/* The L2 flush of a build without CUDA (l2_flush.h): there is no device to flush. */
#include "l2_flush.h"

#include <stddef.h>

#include "ks_nocuda.h"

ks_status ks_cuda_l2_bytes(double *bytes)
{
    *bytes = 0.0;
    return KS_NO_CUDA("L2 size");
}

ks_status ks_l2_flush_run(ks_l2_flush **f, void *stream)
{
    (void)f, (void)stream;
    return KS_NO_CUDA("L2 flush");
}

void ks_l2_flush_destroy(ks_l2_flush *f)
{
    (void)f;
}
