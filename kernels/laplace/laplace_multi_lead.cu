/* Jacobi on several GPUs (laplace_multi.h): a led MPI job, the leader's side.
 * In the live view under mpirun rank 0 leads: each of its calls is broadcast
 * as a small command (lead_cmd, laplace_multi_internal.h) before it is made,
 * and the other ranks make the same call (laplace_multi_follow.cu). */
#include <string.h>

#include "kernels/laplace/mpi_job.h"
#include "laplace_multi_internal.h"

/* On rank 0 of a led job: tells the other ranks which call follows. */
ks_status ks_lmulti_lead(ks_lmulti *m, lead_op op, int variant, const int block[3], int iters, int prev, int axis,
                         int index)
{
    if (!m->leading) return KS_OK;
    lead_cmd c = {(int)op, variant, {0, 0, 0}, iters, prev, axis, index};
    if (block) memcpy(c.block, block, sizeof c.block);
    return ks_mpi_bcast(&c, sizeof c, 0);
}
