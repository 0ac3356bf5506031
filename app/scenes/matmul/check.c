/* The check of a user's matmul kernel, run in the checker process
 * (app/kernel/kernel_checker.h; never in the live view's own): first on small
 * odd sizes against the CPU gold, C poisoned with NaN first, then at the live
 * size against regtile, our fastest variant (itself held bit for bit to the
 * gold by the tests and the bench). The request's grid is the live M, N, K,
 * its block the user's. With req->diff the live size runs even after the
 * gold refused the kernel, and the answer carries |yours - regtile| for every
 * element of C: the slice across z of the M x N x K box, element C[i][j] at
 * cell (i, j), i + j * M. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/kernel_checker.h"
#include "base/diff_colour.h"
#include "app/scenes/matmul/check.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_user.h"

/* Sizes that no block divides, with K not a multiple of 4 (no float4 path
 * hides a wrong edge) and one of 4 (the float4 path runs too). */
static const ks_matmul_size ks_mmcheck_sizes[] = {{37, 29, 23}, {67, 45, 33}, {130, 131, 64}};
#define KS_MMCHECK_REFERENCE KS_MATMUL_REGTILE

/* The check process keeps its context between requests (a save checks again). */
static ks_matmul_gpu *ks_mmcheck_gpu;

/* Poisons C, runs the user's kernel once, and takes C home. */
static int run_user(ks_matmul_user *u, const int block[3], float *got, ks_kcheck_result *out, const char *what)
{
    return !ks_kcheck_failed(ks_matmul_gpu_poison(ks_mmcheck_gpu), out, what) &&
           !ks_kcheck_failed(ks_matmul_gpu_run_user(ks_mmcheck_gpu, u, block), out, what) &&
           !ks_kcheck_failed(ks_matmul_gpu_download(ks_mmcheck_gpu, got), out, what);
}

/* The small odd sizes against the CPU gold. */
static int check_gold(ks_matmul_user *u, const int block[3], ks_kcheck_result *out, double *max_err)
{
    int ok = 1;
    for (size_t q = 0; ok && q < sizeof ks_mmcheck_sizes / sizeof ks_mmcheck_sizes[0]; ++q) {
        const ks_matmul_size *s = &ks_mmcheck_sizes[q];
        const size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
        float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *want = malloc(nc * sizeof *want),
              *got = malloc(nc * sizeof *got);
        ok = a && b && want && got;
        if (!ok) snprintf(out->message, sizeof out->message, "out of host memory");
        if (ok) {
            ks_matmul_fill(s, a, b);
            ks_matmul_gold(s, a, b, want);
        }
        if (ok && ks_kcheck_refused(ks_matmul_user_check_block(u, s, block), out)) ok = 0;
        ok = ok && !ks_kcheck_failed(ks_matmul_gpu_setup(ks_mmcheck_gpu, s), out, "check size");
        ok = ok && run_user(u, block, got, out, "running it");
        ks_matmul_mismatch m = {0};
        if (ok && ks_matmul_compare(got, want, s, &m) != KS_OK) {
            ks_matmul_mismatch_text(&m, s, "the CPU gold", out->message, sizeof out->message);
            ok = 0;
        }
        if (ok && m.max_err > *max_err) *max_err = m.max_err;
        free(a);
        free(b);
        free(want);
        free(got);
    }
    return ok;
}

/* The live size against our reference variant. *skipped: no room for it on the GPU.
 * diff (M * N values, may be NULL): |yours - ours| at (i, j), i + j * M, once both ran. */
static int check_live(ks_matmul_user *u, const int block[3], const ks_matmul_size *s, ks_kcheck_result *out,
                      double *max_err, int *skipped, float *diff, int *diff_made)
{
    if (ks_kcheck_refused(ks_matmul_user_check_block(u, s, block), out)) return 0;
    const size_t nc = (size_t)s->m * s->n;
    float *want = malloc(nc * sizeof *want), *got = malloc(nc * sizeof *got);
    int ok = want && got;
    if (!ok) snprintf(out->message, sizeof out->message, "out of host memory for C at M=%d N=%d", s->m, s->n);
    if (ok) {
        const ks_status st = ks_matmul_gpu_setup(ks_mmcheck_gpu, s);
        if (st == KS_ERR_OUT_OF_MEMORY) { /* the live view holds its own A, B, C: say so, check the rest */
            ks_error_clear();
            *skipped = 1;
            free(want);
            free(got);
            return 1;
        }
        ok = !ks_kcheck_failed(st, out, "live size");
    }
    const char *ref = ks_matmul_variant_get(KS_MMCHECK_REFERENCE)->name;
    ok = ok && !ks_kcheck_failed(ks_matmul_gpu_run(ks_mmcheck_gpu, KS_MMCHECK_REFERENCE, 0), out, ref) &&
         !ks_kcheck_failed(ks_matmul_gpu_download(ks_mmcheck_gpu, want), out, ref);
    ok = ok && run_user(u, block, got, out, "running it at the live size");
    if (ok && diff) {
        for (int i = 0; i < s->m; ++i)
            for (int j = 0; j < s->n; ++j)
                diff[(size_t)i + (size_t)j * (size_t)s->m] =
                    ks_diff_value(got[(size_t)i * s->n + j], want[(size_t)i * s->n + j]);
        *diff_made = 1;
    }
    ks_matmul_mismatch m = {0};
    if (ok && ks_matmul_compare(got, want, s, &m) != KS_OK) {
        ks_matmul_mismatch_text(&m, s, ref, out->message, sizeof out->message);
        ok = 0;
    }
    if (ok && m.max_err > *max_err) *max_err = m.max_err;
    free(want);
    free(got);
    return ok;
}

ks_status ks_matmul_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    if (!ks_mmcheck_gpu && ks_kcheck_failed(ks_matmul_gpu_create(&ks_mmcheck_gpu), out, "matmul")) return KS_OK;
    ks_matmul_user *u = ks_kcheck_load(req, ks_matmul_user_load, out);
    if (!u) return KS_OK;
    const ks_matmul_size live = {req->grid[0], req->grid[1], req->grid[2]};
    double gold_err = 0.0, live_err = 0.0;
    int skipped = 0, diff_made = 0;
    float *diff = NULL;
    if (!ks_kcheck_refused(ks_matmul_size_check(&live), out)) {
        if (req->diff) diff = malloc((size_t)live.m * (size_t)live.n * sizeof *diff);
        const int gold_ok = check_gold(u, req->block, out, &gold_err);
        int live_ok = 0;
        if (gold_ok) {
            live_ok = check_live(u, req->block, &live, out, &live_err, &skipped, diff, &diff_made);
        } else if (diff && !out->fatal) { /* refused already: the live run for its picture alone */
            ks_kcheck_result scratch;
            memset(&scratch, 0, sizeof scratch);
            (void)check_live(u, req->block, &live, &scratch, &live_err, &skipped, diff, &diff_made);
            out->fatal = scratch.fatal;
        }
        if (gold_ok && live_ok) {
            out->passed = 1;
            if (skipped)
                snprintf(out->message, sizeof out->message,
                         "matches the CPU gold (3 odd sizes, max error %.3g); the live size's check was skipped: no "
                         "GPU memory for another A, B and C", gold_err);
            else
                snprintf(out->message, sizeof out->message,
                         "matches the CPU gold (3 odd sizes, max error %.3g) and %s at M=%d N=%d K=%d (max error %.3g)",
                         gold_err, ks_matmul_variant_get(KS_MMCHECK_REFERENCE)->name, live.m, live.n, live.k, live_err);
        }
    }
    ks_kcheck_give_diff(out, diff, diff_made, live.m, live.n);
    ks_kcheck_unload(u, out);
    return KS_OK;
}

/* ---- the contract as the live view and the bench load it (variant_set.h) ---- */

static ks_status check_block(const ks_user_code *code, const int grid[3], const int block[3])
{
    const ks_matmul_size live = {grid[0], grid[1], grid[2]};
    return ks_matmul_user_check_block(code, &live, block);
}

const ks_variant_contract ks_matmul_contract = {.load = ks_matmul_user_load, .check_block = check_block};
