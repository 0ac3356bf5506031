/* The Laplace scenes' hardware counters (counters.h). */
#include "app/scenes/laplace/counters.h"

#include <stdio.h>
#include <string.h>

int ks_laplace_access_bytes(int variant, int nx)
{
    if (ks_lvariant_is_user(variant) || !ks_lvariant_get(variant)) return 0;
    const char *name = ks_lvariant_get(variant)->name;
    const int vec = strcmp(name, "regq") == 0 || strcmp(name, "tblock") == 0 || strcmp(name, "vec2d") == 0;
    return vec && nx % 4 == 0 ? 16 : 4;
}

typedef struct row_launch {
    ks_lsolver *s;
    int variant;
    const int *block;
} row_launch;

static ks_status launch_row(void *self, void *stream)
{
    (void)stream; /* the solver's own */
    const row_launch *l = self;
    return ks_lsolver_launch_once(l->s, l->variant, l->block);
}

ks_status ks_laplace_counters_row(ks_bench_counters *bc, int row, ks_lsolver *s, int variant, const ks_bench_row *r)
{
    const row_launch l = {s, variant, r->block};
    const int width = ks_laplace_access_bytes(variant, r->grid[0]);
    const ks_counter_launch cl = {r->occupancy, width, width};
    char label[96], grid[48];
    ks_bench_grid_text(r->grid, grid, sizeof grid);
    snprintf(label, sizeof label, "%s %s %dx%dx%d", r->variant, grid, r->block[0], r->block[1], r->block[2]);
    const double bytes = 4.0 * (double)r->grid[0] * r->grid[1] * (r->grid[2] > 1 ? r->grid[2] : 1);
    return ks_bench_counters_row(bc, row, label, launch_row, (void *)&l, ks_lsolver_stream(s), 2.0 * bytes, &cl);
}
