/* The check of a user's reduce kernel, its host side (reduce_user.h): the
 * live size in a checker request, and a sum against the expected one. */
#include <math.h>
#include <stdio.h>

#include "reduce_user.h"

void ks_reduce_check_grid(long long n, int integer, int grid[3])
{
    grid[0] = 1 + (int)(n & ((1LL << 30) - 1));
    grid[1] = 1 + (int)(n >> 30);
    grid[2] = 1 + (integer != 0);
}

long long ks_reduce_check_n(const int grid[3])
{
    return ((long long)(grid[1] - 1) << 30) + (long long)(grid[0] - 1);
}

int ks_reduce_check_integer(const int grid[3])
{
    return grid[2] == 2;
}

ks_reduce_verdict ks_reduce_user_verdict(double got, double want, double tol)
{
    ks_reduce_verdict v = {.got = got, .want = want, .tol = tol};
    v.err = isfinite(got) ? fabs(got - want) : INFINITY;
    v.ok = tol > 0 ? v.err <= tol : v.err == 0.0;
    return v;
}

void ks_reduce_verdict_text(const ks_reduce_verdict *v, long long n, const char *what, const char *against, char *buf,
                            size_t cap)
{
    char tol[48];
    if (v->tol > 0) snprintf(tol, sizeof tol, "tolerance %.3g", v->tol);
    else snprintf(tol, sizeof tol, "exact");
    snprintf(buf, cap, "differs from %s on %lld float%s (%s): %.9g where %.9g is expected (error %.3g, %s)", against, n,
             n == 1 ? "" : "s", what, v->got, v->want, v->err, tol);
}

ks_status ks_reduce_decl_check(const ks_kdecl *d, const char *name)
{
    KS_TRY(ks_kdecl_roles_check(d, name, KS_REDUCE_DECL_ROLES, KS_REDUCE_DECL_NEED, KS_REDUCE_DECL_GRIDS));
    const int out = ks_kdecl_arg_index(d, "out") >= 0, partials = ks_kdecl_arg_index(d, "partials") >= 0;
    if (out == partials)
        return ks_fail(KS_ERR_INVALID, "%s: %s: a reduce kernel names one of out (it adds into *out) or partials (one "
                       "float a block, added up by kernelscope), %s", name, d->entry, out ? "not both" : "and has neither");
    if (d->block_dims > 1)
        return ks_fail(KS_ERR_INVALID, "%s: %s: a reduce kernel's block is one number (block=X)", name, d->entry);
    return KS_OK;
}

long long ks_reduce_decl_round(const ks_kdecl *d, int bx, long long n)
{
    if (!d || !d->multiple) return n;
    const int user[3] = {bx, 1, 1};
    int b[3];
    ks_kdecl_block(d, user, b);
    return b[0] > 0 ? (n + b[0] - 1) / b[0] * b[0] : n;
}
