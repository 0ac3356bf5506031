/* The MPI job a run belongs to when it was started by an MPI launcher
 * (`mpirun -np 2 kernelscope ...`): one rank per GPU, rank 0 prints, saves
 * and shows. Built against Open MPI where CMake finds it (mpi_job.c), else
 * the same calls that say so (mpi_job_none.c). Only the few collectives the
 * multi-GPU solver and its bench need, on the world communicator. */
#ifndef KS_MPI_JOB_H
#define KS_MPI_JOB_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build has MPI. */
int ks_mpi_built(void);
/* 1 when an MPI launcher started this process (its environment says so),
 * whether or not this build has MPI. */
int ks_mpi_launched(void);
/* Joins the job when launched by MPI (MPI_Init), nothing otherwise.
 * KS_ERR_UNSUPPORTED with one line when launched by MPI but built without it. */
ks_status ks_mpi_start(int *argc, char ***argv);
/* 1 between a successful ks_mpi_start in a launched process and ks_mpi_end. */
int ks_mpi_active(void);
/* This process's rank, the job's size and the rank among the processes of
 * this machine (0, 1, 0 when not active). */
int ks_mpi_rank(void);
int ks_mpi_size(void);
int ks_mpi_local_rank(void);
/* Collectives over every rank (KS_OK and nothing to do when not active). */
ks_status ks_mpi_bcast(void *buf, size_t bytes, int root);
ks_status ks_mpi_barrier(void);
/* v[i] = the largest / the sum of v[i] over the ranks, on every rank. */
ks_status ks_mpi_allreduce_max(double *v, int n);
ks_status ks_mpi_allreduce_sum(double *v, int n);
/* Every rank learns whether any failed, so that none goes on into a
 * collective the failed one will never reach: st on a rank that failed
 * (message kept), the failing rank's status with "another rank of the MPI
 * job failed" on the others, KS_OK when none did. st itself when not active. */
ks_status ks_mpi_agree(ks_status st);
/* Each rank sends `bytes` from mine; root receives rank r's bytes at
 * all + offset[r] (offset and bytes_of: size entries, root only). Any size. */
ks_status ks_mpi_gather(const void *mine, size_t bytes, void *all, const size_t *offset,
                        const size_t *bytes_of, int root);
/* Leaves the job: MPI_Finalize after a run that succeeded, refused its
 * input (exit 0 or 2: every rank alike) or stopped on a signal (130, 143), MPI_Abort with exit_code after one
 * that failed while running (so the other ranks do not wait forever in a
 * collective). Nothing when not active. */
void ks_mpi_end(int exit_code);

#ifdef __cplusplus
}
#endif
#endif
