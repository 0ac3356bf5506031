/* laplace_check.cu in a build without CUDA: what the check of a user's kernel
 * needs on the GPU; nothing runs. */
#include <string.h>

#include "base/ks_nocuda.h"
#include "laplace.h"

#define KS_LNO (void)s; return KS_NO_CUDA("laplace solver")

ks_status ks_lsolver_fill_random(ks_lsolver *s, unsigned long long seed)
{
    (void)seed;
    KS_LNO;
}
ks_status ks_lsolver_diff(ks_lsolver *a, ks_lsolver *b, float tol, ks_ldiff *out)
{
    (void)a, (void)b, (void)tol;
    memset(out, 0, sizeof *out);
    return KS_NO_CUDA("laplace solver");
}
ks_status ks_lsolver_diff_slice(ks_lsolver *a, ks_lsolver *b, ks_axis axis, int index, float *host)
{
    (void)a, (void)b, (void)axis, (void)index, (void)host;
    return KS_NO_CUDA("laplace solver");
}
