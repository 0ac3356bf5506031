/* The check of a user's Laplace kernel, run in the checker process
 * (app/kernel/kernel_checker.h; never in the live view's own): first on a
 * small odd grid against the CPU gold, outputs poisoned, then on the live grid
 * against our default variant for a few iterations. The fields are made on
 * the GPU from a seed, so a large live grid costs the check milliseconds.
 * With a difference slice asked for (the live view's D), the live run also
 * follows a failure on the small grid, and |yours - ours| of the slice goes
 * back with the answer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/kernel_checker.h"
#include "app/scenes/laplace/check.h"
#include "kernels/user/kernel_decl.h"
#include "base/ks_util.h"
#include "kernels/laplace/laplace.h"

enum { KS_CHECK_GOLD_ITERS = 3, KS_CHECK_LIVE_ITERS = 4 };
#define KS_CHECK_TOL 1e-5f /* values in [0.1, 1.1): a few float roundings per iteration, FMA allowed */

/* The check process keeps its solvers between requests (a save checks the same grid again). */
typedef struct check_solvers {
    ks_lsolver *small;        /* the odd check grid, small_grid */
    ks_grid small_grid;
    ks_lsolver *yours, *ours; /* the live grid */
    ks_grid live;
} check_solvers;
static check_solvers ks_checks; /* this process serves one parent, one request at a time */

static void cell_of(const ks_grid *g, long long p, int ijk[3])
{
    ijk[0] = (int)(p % g->nx);
    ijk[1] = (int)((p / g->nx) % g->ny);
    ijk[2] = (int)(p / ((long long)g->nx * g->ny));
}

static void say_cell(char *buf, size_t cap, const ks_grid *g, long long p)
{
    int c[3];
    cell_of(g, p, c);
    if (g->dims == 3) snprintf(buf, cap, "(i,j,k) = (%d,%d,%d)", c[0], c[1], c[2]);
    else snprintf(buf, cap, "(i,j) = (%d,%d)", c[0], c[1]);
}

/* The check grid: small and odd, so blocks do not divide it and every boundary is in reach;
 * for a kernel that declares it assumes multiples of its block, each size rounded up to one. */
static ks_grid check_grid(int id, const int block[3], int dims)
{
    ks_grid g = dims == 3 ? (ks_grid){3, 37, 29, 23} : (ks_grid){2, 131, 77, 1};
    int n[3] = {g.nx, g.ny, g.nz};
    ks_kdecl_round_sizes(ks_luser_declaration(id), block, dims, n);
    g.nx = n[0];
    g.ny = n[1];
    g.nz = n[2];
    return g;
}

static int check_gold(int id, const int block[3], int dims, ks_kcheck_result *out, double *max_err)
{
    const ks_grid g = check_grid(id, block, dims);
    if (ks_checks.small && memcmp(&ks_checks.small_grid, &g, sizeof g) != 0) { /* another rank or size */
        ks_lsolver_destroy(ks_checks.small);
        ks_checks.small = NULL;
    }
    if (!ks_checks.small && ks_kcheck_failed(ks_lsolver_create(&g, &ks_checks.small), out, "check grid")) return 0;
    ks_checks.small_grid = g;
    ks_lsolver *s = ks_checks.small;
    const size_t n = ks_grid_points(&g);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got);
    int ok = a && b && got;
    if (!ok) snprintf(out->message, sizeof out->message, "out of host memory");
    ok = ok && !ks_kcheck_failed(ks_lsolver_fill_random(s, 1), out, "check grid");
    ok = ok && !ks_kcheck_failed(ks_lsolver_download(s, a), out, "check grid");
    for (int done = 0, step = 1; ok && done < KS_CHECK_GOLD_ITERS; done += step, step = 2) {
        /* 1 iteration into the poisoned field, then 2 more (the fields swap) */
        ok = !ks_kcheck_failed(ks_lsolver_iterate(s, id, block, step), out, "running it") &&
             !ks_kcheck_failed(ks_lsolver_download(s, got), out, "running it");
        for (int it = 0; ok && it < step; ++it) {
            ks_laplace_gold_step(&g, a, b);
            float *t = a;
            a = b;
            b = t;
        }
        long long first = -1, bad = 0, unwritten = 0;
        for (size_t p = 0; ok && p < n; ++p) {
            const double d = isnan(got[p]) ? INFINITY : fabs((double)got[p] - a[p]);
            if (d > *max_err) *max_err = d;
            if (d > KS_CHECK_TOL) {
                if (first < 0) first = (long long)p;
                ++bad;
                unwritten += isnan(got[p]);
            }
        }
        if (ok && first >= 0) {
            char cell[64];
            say_cell(cell, sizeof cell, &g, first);
            const long long interior = (long long)(g.nx - 2) * (g.ny - 2) * (dims == 3 ? g.nz - 2 : 1);
            snprintf(out->message, sizeof out->message,
                     "differs from the CPU gold on the %dx%dx%d check grid after %d iteration%s at %s: %.7g where "
                     "%.7g is expected%s; %lld points differ, max error %.3g%s",
                     g.nx, g.ny, g.nz, done + step, done + step > 1 ? "s" : "", cell, (double)got[first],
                     (double)a[first], isnan(got[first]) ? " (never written)" : "", bad, *max_err,
                     /* a kernel that ended without writing at all: often a loop the compiler removed */
                     done == 0 && unwritten == interior && bad == interior
                         ? "; it ended without writing any interior point (a loop with no side effect, such as one "
                           "on a local volatile, may be removed as if it ended)"
                         : "");
            ok = 0;
        }
    }
    free(a);
    free(b);
    free(got);
    return ok;
}

/* The difference slice the request asks for, from the live run's two fields. */
static int diff_slice(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    int w, h;
    if (!ks_kcheck_diff_dims(req, &w, &h)) return 1; /* the loop refused it already; nothing to send */
    float *d = malloc((size_t)w * (size_t)h * sizeof *d);
    if (!d) {
        snprintf(out->message, sizeof out->message, "out of host memory for the difference slice");
        return 0;
    }
    const ks_axis axis = req->grid[2] == 1 ? KS_AXIS_Z : (ks_axis)req->axis;
    if (ks_kcheck_failed(ks_lsolver_diff_slice(ks_checks.yours, ks_checks.ours, axis, req->index, d), out,
                    "the difference slice")) {
        free(d);
        return 0;
    }
    out->diff = d;
    out->diff_w = w;
    out->diff_h = h;
    return 1;
}

/* The live grid against our default variant, from the same random field;
 * with req->diff, the slice of the difference too. */
static int check_live(const ks_kcheck_request *req, int id, const int block[3], const ks_grid *g, int iters,
                      ks_kcheck_result *out, double *max_err, int *skipped)
{
    check_solvers *c = &ks_checks;
    if (c->yours && memcmp(&c->live, g, sizeof *g) != 0) {
        ks_lsolver_destroy(c->yours);
        ks_lsolver_destroy(c->ours);
        c->yours = c->ours = NULL;
    }
    if (!c->yours) {
        ks_status st = ks_lsolver_create(g, &c->yours);
        if (st == KS_OK) st = ks_lsolver_create(g, &c->ours);
        if (st != KS_OK) { /* neither kept: the next request starts afresh */
            ks_lsolver_destroy(c->yours);
            ks_lsolver_destroy(c->ours);
            c->yours = c->ours = NULL;
        }
        if (st == KS_ERR_OUT_OF_MEMORY) { /* the live view holds its own fields: say so, check the rest */
            *skipped = 1;
            return 1;
        }
        if (ks_kcheck_failed(st, out, "live grid")) return 0;
        c->live = *g;
    }
    const int ref = ks_lvariant_default(g->dims);
    const ks_lvariant_info *rinfo = ks_lvariant_get(ref);
    if (ks_kcheck_failed(ks_lsolver_fill_random(c->yours, 2), out, "live grid") ||
        ks_kcheck_failed(ks_lsolver_fill_random(c->ours, 2), out, "live grid") ||
        ks_kcheck_failed(ks_lsolver_iterate(c->ours, ref, rinfo->default_block, iters), out, rinfo->name) ||
        ks_kcheck_failed(ks_lsolver_iterate(c->yours, id, block, iters), out, "running it on the live grid"))
        return 0;
    ks_ldiff d;
    if (ks_kcheck_failed(ks_lsolver_diff(c->yours, c->ours, KS_CHECK_TOL, &d), out, "running it on the live grid"))
        return 0;
    if (req->diff && !diff_slice(req, out)) return 0;
    if (d.max_err > *max_err) *max_err = d.max_err;
    if (d.bad == 0) return 1;
    char cell[64];
    say_cell(cell, sizeof cell, g, d.first);
    snprintf(out->message, sizeof out->message,
             "differs from %s on the live grid %dx%dx%d after %d iterations at %s: %.7g where %.7g is expected%s; "
             "%lld points differ, max error %.3g",
             rinfo->name, g->nx, g->ny, g->nz, iters, cell, (double)d.got, (double)d.want,
             isnan(d.got) ? " (never written)" : "", d.bad, d.max_err);
    return 0;
}

/* Refused on the small grid, a difference picture was asked for: the live
 * run all the same, the refusal's words kept (a fault there is said after them). */
static void live_anyway(const ks_kcheck_request *req, int id, const int block[3], const ks_grid *live, int iters,
                        ks_kcheck_result *out)
{
    char refused[KS_KCHECK_MSG_MAX], live_said[KS_KCHECK_MSG_MAX];
    snprintf(refused, sizeof refused, "%s", out->message);
    double err = 0.0;
    int skipped = 0;
    const int ran = check_live(req, id, block, live, iters, out, &err, &skipped);
    snprintf(live_said, sizeof live_said, "%s", out->message);
    if (skipped)
        snprintf(out->message, sizeof out->message, "%.380s; the live grid's run for the difference view was skipped: "
                 "no GPU memory for two more copies", refused);
    else if (!ran && !out->diff) /* a fault, or no slice: what it was, after the refusal */
        snprintf(out->message, sizeof out->message, "%.260s; then on the live grid, for the difference view: %.180s",
                 refused, live_said);
    else
        snprintf(out->message, sizeof out->message, "%s", refused);
    out->passed = 0;
}

ks_status ks_laplace_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    const int dims = strcmp(req->scene, "laplace2d") == 0 ? 2 : 3;
    int id = ks_lvariant_find(dims, req->file);
    if (id < 0) id = ks_luser_add(dims, req->file);
    if (id < 0 || !ks_lvariant_is_user(id)) {
        snprintf(out->message, sizeof out->message, "%s", id < 0 ? ks_error_message() : "names a built-in kernel");
        return KS_OK;
    }
    if (ks_kcheck_refused(ks_luser_load(id, req->code, req->code_size), out)) return KS_OK;
    const ks_grid live = {dims, req->grid[0], req->grid[1], dims == 3 ? req->grid[2] : 1};
    int block[3] = {req->block[0], req->block[1], dims == 3 ? req->block[2] : 1};
    double gold_err = 0.0, live_err = 0.0;
    int skipped = 0;
    const int iters = req->iters > 0 ? req->iters : KS_CHECK_LIVE_ITERS;
    const ks_grid small = check_grid(id, block, dims);
    if (ks_checks.small && memcmp(&ks_checks.small_grid, &small, sizeof small) == 0 &&
        ks_kcheck_refused(ks_lsolver_check_block(ks_checks.small, id, block), out))
        return KS_OK;
    if (!check_gold(id, block, dims, out, &gold_err)) {
        if (req->diff && !out->fatal) live_anyway(req, id, block, &live, iters, out);
        return KS_OK;
    }
    if (!check_live(req, id, block, &live, iters, out, &live_err, &skipped)) return KS_OK;
    out->passed = 1;
    if (skipped)
        snprintf(out->message, sizeof out->message,
                 "matches the CPU gold (%d iterations, max error %.3g); the live grid's check was skipped: no GPU "
                 "memory for two more copies",
                 KS_CHECK_GOLD_ITERS, gold_err);
    else
        snprintf(out->message, sizeof out->message,
                 "matches the CPU gold (%d iterations, max error %.3g) and %s on the live grid (%d iterations, "
                 "max error %.3g)",
                 KS_CHECK_GOLD_ITERS, gold_err, ks_lvariant_get(ks_lvariant_default(dims))->name, iters, live_err);
    const ks_kdecl *d = ks_luser_declaration(id);
    if (d && d->multiple) { /* it runs only where its sizes are multiples of its block: say so */
        const size_t at = strlen(out->message);
        snprintf(out->message + at, sizeof out->message - at,
                 "; it declares sizes multiples of its block, so it was checked on %dx%dx%d and runs only at such "
                 "sizes",
                 small.nx, small.ny, small.nz);
    }
    return KS_OK;
}

/* ---- the contract as the live view and the bench load it (variant_set.h) ---- */

/* A file's code becomes its variant's (registered with the options, laplace.h):
 * the variant table keeps it, so the solver runs it as it runs ours. */
static ks_status load(const char *name, const void *code, size_t size, ks_user_code **out)
{
    *out = NULL;
    int id = -1;
    for (int dims = 3; dims >= 2 && id < 0; --dims) { /* one scene a run: its files' rows are of its rank */
        id = ks_lvariant_find(dims, name);
        if (id >= 0 && !ks_lvariant_is_user(id)) id = -1;
    }
    if (id < 0) return ks_fail(KS_ERR_INVALID, "%s: no kernel file of that name", name);
    return ks_luser_load(id, code, size);
}

const ks_variant_contract ks_laplace_contract = {.load = load, .swap = 1};
