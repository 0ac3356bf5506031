/* ks_mpi_launched (mpi_job.h): the launchers' environment, read the same in
 * every build. */
#include <stdlib.h>

#include "mpi_job.h"

int ks_mpi_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                                       "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}
