/* mpi_job.h in a build without MPI: never active; a process an MPI launcher
 * started is told, in one line, what is missing. */
#include "mpi_job.h"

int ks_mpi_built(void) { return 0; }

ks_status ks_mpi_start(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!ks_mpi_launched()) return KS_OK;
    return ks_fail(KS_ERR_UNSUPPORTED, "started by an MPI launcher, but this kernelscope was built without MPI "
                                       "(install libopenmpi-dev and rebuild)");
}

int ks_mpi_active(void) { return 0; }
int ks_mpi_rank(void) { return 0; }
int ks_mpi_size(void) { return 1; }
int ks_mpi_local_rank(void) { return 0; }

ks_status ks_mpi_bcast(void *buf, size_t bytes, int root)
{
    (void)buf;
    (void)bytes;
    (void)root;
    return KS_OK;
}

ks_status ks_mpi_barrier(void) { return KS_OK; }

ks_status ks_mpi_allreduce_max(double *v, int n)
{
    (void)v;
    (void)n;
    return KS_OK;
}

ks_status ks_mpi_allreduce_sum(double *v, int n)
{
    (void)v;
    (void)n;
    return KS_OK;
}

ks_status ks_mpi_agree(ks_status st) { return st; }

ks_status ks_mpi_gather(const void *mine, size_t bytes, void *all, const size_t *offset, const size_t *bytes_of,
                        int root)
{
    (void)mine;
    (void)bytes;
    (void)all;
    (void)offset;
    (void)bytes_of;
    (void)root;
    return ks_fail(KS_ERR_UNSUPPORTED, "this kernelscope was built without MPI");
}

void ks_mpi_end(int exit_code) { (void)exit_code; }
