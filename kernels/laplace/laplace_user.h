/* Internal to kernels/laplace/: the launcher of a user variant (laplace_user.cu). CUDA-only. */
#ifndef KS_LAPLACE_USER_H
#define KS_LAPLACE_USER_H

#include "laplace_launch.h"

/* The launcher of user variant id (its row's slot), NULL for a built-in one. */
ks_llaunch_fn ks_luser_launcher(int id);

#endif
