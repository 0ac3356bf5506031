/* The Laplace scenes' live view (live.c), for their registry rows. */
#ifndef KS_LAPLACE_LIVE_H
#define KS_LAPLACE_LIVE_H

#include "app/scene.h"

extern const ks_scene_api ks_scene_laplace_api;
/* A live run's part on a rank other than 0 under mpirun (the rows' mpi_follow). */
ks_status ks_laplace_mpi_follow(const ks_options *o);

#endif
