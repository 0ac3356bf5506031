/* mpi_job.h over MPI (Open MPI's libmpi). Messages larger than MPI's int
 * counts are cut into chunks of 1 GiB. */
#include "mpi_job.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int ks_mpi_on, ks_rank, ks_size = 1, ks_local;

static ks_status mpi_fail(int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, text, &len);
    return ks_fail(KS_ERR_IO, "MPI: %s failed: %s", what, text);
}

#define KS_MPI_TRY(call, what)                                                                     \
    do {                                                                                           \
        const int ks_mpi_e_ = (call);                                                              \
        if (ks_mpi_e_ != MPI_SUCCESS) return mpi_fail(ks_mpi_e_, what);                            \
    } while (0)

int ks_mpi_built(void) { return 1; }

ks_status ks_mpi_start(int *argc, char ***argv)
{
    if (!ks_mpi_launched() || ks_mpi_on) return KS_OK;
    KS_MPI_TRY(MPI_Init(argc, argv), "MPI_Init");
    /* errors come back as codes, so a rank reports them in one line */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    KS_MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &ks_rank), "MPI_Comm_rank");
    KS_MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &ks_size), "MPI_Comm_size");
    MPI_Comm node;
    KS_MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ks_rank, MPI_INFO_NULL, &node),
               "MPI_Comm_split_type");
    KS_MPI_TRY(MPI_Comm_rank(node, &ks_local), "MPI_Comm_rank (node)");
    MPI_Comm_free(&node);
    ks_mpi_on = 1;
    return KS_OK;
}

int ks_mpi_active(void) { return ks_mpi_on; }
int ks_mpi_rank(void) { return ks_mpi_on ? ks_rank : 0; }
int ks_mpi_size(void) { return ks_mpi_on ? ks_size : 1; }
int ks_mpi_local_rank(void) { return ks_mpi_on ? ks_local : 0; }

enum { KS_MPI_CHUNK = 1 << 30 };

ks_status ks_mpi_bcast(void *buf, size_t bytes, int root)
{
    if (!ks_mpi_on) return KS_OK;
    for (size_t at = 0; at < bytes; at += KS_MPI_CHUNK) {
        const size_t n = bytes - at < KS_MPI_CHUNK ? bytes - at : KS_MPI_CHUNK;
        KS_MPI_TRY(MPI_Bcast((char *)buf + at, (int)n, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    }
    return KS_OK;
}

ks_status ks_mpi_barrier(void)
{
    if (ks_mpi_on) KS_MPI_TRY(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    return KS_OK;
}

ks_status ks_mpi_allreduce_max(double *v, int n)
{
    if (ks_mpi_on) KS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return KS_OK;
}

ks_status ks_mpi_allreduce_sum(double *v, int n)
{
    if (ks_mpi_on) KS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return KS_OK;
}

ks_status ks_mpi_agree(ks_status st)
{
    if (!ks_mpi_on) return st;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ks_error_message());
    double worst = (double)st; /* the largest status code among the ranks */
    KS_TRY(ks_mpi_allreduce_max(&worst, 1));
    if (st != KS_OK) return ks_fail(st, "%s", msg);
    if (worst > 0.0) return ks_fail((ks_status)(int)worst, "another rank of the MPI job failed (its message is above)");
    return KS_OK;
}

ks_status ks_mpi_gather(const void *mine, size_t bytes, void *all, const size_t *offset, const size_t *bytes_of,
                        int root)
{
    if (!ks_mpi_on) {
        if (all && bytes) memcpy((char *)all + offset[0], mine, bytes);
        return KS_OK;
    }
    if (ks_rank != root) {
        for (size_t at = 0; at < bytes; at += KS_MPI_CHUNK) {
            const size_t n = bytes - at < KS_MPI_CHUNK ? bytes - at : KS_MPI_CHUNK;
            KS_MPI_TRY(MPI_Send((const char *)mine + at, (int)n, MPI_BYTE, root, 7, MPI_COMM_WORLD), "MPI_Send");
        }
        return KS_OK;
    }
    for (int r = 0; r < ks_size; ++r) {
        char *dst = (char *)all + offset[r];
        if (r == root) {
            memcpy(dst, mine, bytes);
            continue;
        }
        for (size_t at = 0; at < bytes_of[r]; at += KS_MPI_CHUNK) {
            const size_t n = bytes_of[r] - at < KS_MPI_CHUNK ? bytes_of[r] - at : KS_MPI_CHUNK;
            KS_MPI_TRY(MPI_Recv(dst + at, (int)n, MPI_BYTE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        }
    }
    return KS_OK;
}

void ks_mpi_end(int exit_code)
{
    if (!ks_mpi_on) return;
    ks_mpi_on = 0;
    /* 0, 2 (bad input, refused alike on every rank before any collective) and a
     * stop by signal after a clean end (130, 143) end together; any other
     * failure may be one rank's alone */
    if (exit_code != 0 && exit_code != 2 && exit_code != 130 && exit_code != 143) MPI_Abort(MPI_COMM_WORLD, exit_code);
    else MPI_Finalize();
}
