/* The Laplace scenes' hardware counters: what one launch of a variant is
 * (the live Hardware panel, live_counters.c; bench --counters, bench.c). */
#ifndef KS_LAPLACE_COUNTERS_H
#define KS_LAPLACE_COUNTERS_H

#include "app/bench/bench_counters.h"
#include "app/scenes/laplace/bench.h"
#include "kernels/laplace/laplace.h"

/* Bytes a thread moves in one global access: 16 on the float4 paths (regq,
 * tblock, vec2d) where rows are 16-byte aligned (nx a multiple of 4), else 4
 * (a float); 0 for a user's kernel (its own). */
int ks_laplace_access_bytes(int variant, int nx);
/* bench --counters: one launch of row r's variant at its block on solver s
 * (the grid just timed), against the model of one launch: the field read and
 * written once. */
ks_status ks_laplace_counters_row(ks_bench_counters *bc, int row, ks_lsolver *s, int variant, const ks_bench_row *r);

#endif
