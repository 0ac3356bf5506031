/* What the Laplace GPU test's files share (laplace_gpu_util.h): random
 * fields, the NaN poison, the gold's iterates, the comparison. */
#include "laplace_gpu_util.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

float frand(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return 0.5f + (float)(*state >> 8) / 16777216.0f; /* [0.5, 1.5): never zero */
}

void fill_random(const ks_grid *g, unsigned seed, float *u)
{
    unsigned st = seed;
    for (size_t n = 0; n < ks_grid_points(g); ++n) u[n] = frand(&st);
}

int is_boundary(const ks_grid *g, size_t n)
{
    const size_t i = n % (size_t)g->nx, j = (n / (size_t)g->nx) % (size_t)g->ny;
    const size_t k = n / ((size_t)g->nx * (size_t)g->ny);
    return i == 0 || i == (size_t)g->nx - 1 || j == 0 || j == (size_t)g->ny - 1 ||
           (g->dims == 3 && (k == 0 || k == (size_t)g->nz - 1));
}

/* u with its interior replaced by NaN (boundary kept valid, per contract). */
void make_poison(const ks_grid *g, const float *u, float *p)
{
    for (size_t n = 0; n < ks_grid_points(g); ++n) p[n] = is_boundary(g, n) ? u[n] : NAN;
}

/* gold: out = iterate iters of u0; prev_out = iterate iters-1 */
void gold_run(const ks_grid *g, const float *u0, int iters, float *out, float *prev_out)
{
    const size_t bytes = ks_grid_bytes(g);
    float *a = malloc(bytes), *b = malloc(bytes);
    memcpy(a, u0, bytes);
    memcpy(b, u0, bytes);
    for (int it = 0; it < iters; ++it) {
        ks_laplace_gold_step(g, a, b);
        float *t = a;
        a = b;
        b = t;
    }
    memcpy(out, a, bytes);
    if (prev_out) memcpy(prev_out, b, bytes);
    free(a);
    free(b);
}

/* max relative difference; NaN counts as infinite */
double max_rel_diff(const ks_grid *g, const float *a, const float *b, size_t *where)
{
    double worst = 0.0;
    *where = 0;
    for (size_t n = 0; n < ks_grid_points(g); ++n) {
        double d = fabs((double)a[n] - (double)b[n]) / fmax(fabs((double)b[n]), 1e-30);
        if (a[n] != a[n]) d = INFINITY;
        if (d > worst) {
            worst = d;
            *where = n;
        }
    }
    return worst;
}

int variant_id(int dims, const char *name)
{
    const int id = ks_lvariant_find(dims, name);
    assert_true(id >= 0);
    return id;
}
