/* What the Laplace GPU test's files share (test_laplace_gpu.c: the variants
 * against the gold, blocks, refusals; test_laplace_gpu_solver.c: graphs, the
 * field histogram, residual, render and readback). */
#ifndef KS_TEST_LAPLACE_GPU_UTIL_H
#define KS_TEST_LAPLACE_GPU_UTIL_H

#include <stddef.h>

#include "kernels/laplace/laplace.h"

extern int g_quick; /* KS_TEST_QUICK=1: a trimmed matrix (compute-sanitizer racecheck) */

float frand(unsigned *state);
void fill_random(const ks_grid *g, unsigned seed, float *u);
int is_boundary(const ks_grid *g, size_t n);
/* u with its interior replaced by NaN (boundary kept valid, per contract). */
void make_poison(const ks_grid *g, const float *u, float *p);
/* gold: out = iterate iters of u0; prev_out = iterate iters-1 */
void gold_run(const ks_grid *g, const float *u0, int iters, float *out, float *prev_out);
/* max relative difference; NaN counts as infinite */
double max_rel_diff(const ks_grid *g, const float *a, const float *b, size_t *where);
int variant_id(int dims, const char *name);

/* test_laplace_gpu_solver.c */
void test_graph_replay(void **state);
void test_graph_chunks(void **state);
void test_run_whole_blocks(void **state);
void test_field_histogram(void **state);
void test_residual_render_readback(void **state);

#endif
