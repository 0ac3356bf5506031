/* Jacobi on several GPUs (laplace_multi.h): a led MPI job, a follower's side.
 * A rank other than 0 receives each of rank 0's calls and makes it too, so
 * that every collective is reached in the same order on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/laplace/mpi_job.h"
#include "laplace_multi_internal.h"

ks_status ks_lmulti_follow(ks_lmulti *m)
{
    if (!m->following) return ks_fail(KS_ERR_INVALID, "follow: this rank does not follow a led MPI job");
    float *field = NULL;
    ks_status st = KS_OK;
    for (;;) {
        lead_cmd c;
        memset(&c, 0, sizeof c);
        KS_TRY(ks_mpi_bcast(&c, sizeof c, 0));
        double rms = 0.0;
        switch ((lead_op)c.op) {
        case LEAD_QUIT: free(field); return KS_OK;
        case LEAD_RUN: st = ks_lmulti_run(m, c.variant, c.block, c.iters, (ks_lprev)c.prev); break;
        case LEAD_RESIDUAL: st = ks_lmulti_residual(m, &rms); break;
        case LEAD_SLICE: st = ks_lmulti_slice_into(m, (ks_axis)c.axis, c.index, NULL); break;
        case LEAD_CHECK: st = ks_lmulti_check_block(m, c.variant, c.block); break;
        case LEAD_DOWNLOAD: st = ks_lmulti_download(m, NULL); break;
        case LEAD_UPLOAD:
            if (!field) field = (float *)malloc(ks_grid_bytes(&m->g));
            if (!field) {
                st = ks_fail(KS_ERR_OUT_OF_MEMORY, "follow: no host memory for the field");
                break;
            }
            st = ks_lmulti_upload(m, field);
            break;
        default: st = ks_fail(KS_ERR_INVALID, "follow: unknown call %d from rank 0", c.op); break;
        }
        /* a failure here reached rank 0 through the call's own agreement; rank 0 ends the job */
        if (st != KS_OK) fprintf(stderr, "kernelscope: rank %d: %s\n", ks_mpi_rank(), ks_error_message());
    }
}
