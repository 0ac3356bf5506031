/* The check of a user's reduce kernel, run in the checker process
 * (app/kernel/kernel_checker.h; never in the live view's own): first on four
 * odd sizes against the CPU gold (the sum in double), then at the live size
 * against sum_cub, our reference (itself held to the gold by the tests and
 * the bench). Each small input is followed by NaN floats that must not be
 * read, the sum is flanked by NaN words that must not be written, and the
 * larger ones are summed in two launches into the same *out, so a kernel
 * that sets *out instead of adding to it fails. Float sums differ by the
 * order of their adds: random input is held to the contract's tolerance
 * (ks_reduce_sum_tolerance; twice it against sum_cub, which has its own
 * rounding), integer input (every partial sum exact) to equality. The
 * request's grid carries the live size and input (ks_reduce_check_grid),
 * its block the user's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/kernel_checker.h"
#include "app/scenes/reduce/check.h"
#include "base/cuda_device.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_user.h"

/* Sizes no block divides, each with its input and the start of the second
 * launch (0: one launch; a multiple of 4, so x stays 16-byte aligned). */
static const struct {
    long long n, split;
    ks_reduce_input kind;
} ks_rcheck_cases[] = {
    {1, 0, KS_REDUCE_INPUT_RANDOM},
    {37, 0, KS_REDUCE_INPUT_RANDOM},
    {100003, 49152, KS_REDUCE_INPUT_INTEGER}, /* exact: 8 * 100003 < 2^24 */
    {(1LL << 20) + 13, 524288, KS_REDUCE_INPUT_RANDOM},
};

/* The live size's context and sum_cub's result on it, kept between requests (a save checks again). */
static struct {
    ks_reduce_gpu *g;
    long long n;
    int integer;
    double ref, tol; /* sum_cub's sum; twice the contract's tolerance (0: exact) */
} ks_rcheck_live;

static const char *input_name(ks_reduce_input kind)
{
    return kind == KS_REDUCE_INPUT_INTEGER ? "integers" : "random";
}

/* One small case against the CPU gold. */
static int check_case(const ks_reduce_user *u, int bx, int q, ks_kcheck_result *out)
{
    /* a declared kernel that assumes multiples of its block: each size and split rounded to one */
    const ks_kdecl *d = ks_user_code_declaration(u);
    const long long step = ks_reduce_decl_round(d, bx, 1) * 4; /* a multiple of 4 floats, too: x stays aligned */
    const long long n = ks_reduce_decl_round(d, bx, ks_rcheck_cases[q].n);
    const long long split = d && d->multiple ? ks_rcheck_cases[q].split / step * step : ks_rcheck_cases[q].split;
    const ks_reduce_input kind = ks_rcheck_cases[q].kind;
    if (ks_kcheck_refused(ks_reduce_user_check_block(u, n, bx), out)) return 0;
    float *x = malloc((size_t)n * sizeof *x);
    if (!x) {
        snprintf(out->message, sizeof out->message, "out of host memory");
        return 0;
    }
    ks_reduce_fill(kind, 1, x, n);
    const double gold = ks_reduce_gold_sum(x, n);
    const double tol = kind == KS_REDUCE_INPUT_INTEGER ? 0.0 : ks_reduce_sum_tolerance(n, ks_reduce_abs_sum(x, n));
    ks_reduce_probe p;
    int ok = !ks_kcheck_failed(ks_reduce_user_probe(u, bx, x, n, split, &p), out, "running it");
    free(x);
    char what[96];
    snprintf(what, sizeof what, "%s%s, NaN after the end", input_name(kind), split ? " in two launches" : "");
    if (ok && !p.flank_ok) {
        snprintf(out->message, sizeof out->message,
                 "wrote beside *out on %lld float%s (%s): it must add to *out and write nothing else", n,
                 n == 1 ? "" : "s", what);
        return 0;
    }
    if (ok && !p.partials_ok) {
        snprintf(out->message, sizeof out->message,
                 "wrote outside its partials on %lld float%s (%s): one float a block, partials[blockIdx.x]", n,
                 n == 1 ? "" : "s", what);
        return 0;
    }
    if (!ok) return 0;
    const ks_reduce_verdict v = ks_reduce_user_verdict(p.sum, gold, tol);
    if (!v.ok) ks_reduce_verdict_text(&v, n, what, "the CPU gold", out->message, sizeof out->message);
    return v.ok;
}

/* The live size's context, sum_cub's sum on it and the tolerance; *skipped: no room for another copy. */
static int live_reference(long long n, int integer, ks_kcheck_result *out, int *skipped)
{
    if (ks_rcheck_live.g && ks_rcheck_live.n == n && ks_rcheck_live.integer == integer) return 1;
    ks_reduce_gpu_destroy(ks_rcheck_live.g);
    memset(&ks_rcheck_live, 0, sizeof ks_rcheck_live);
    size_t free_b = 0, total_b = 0;
    /* the live view holds its own input and scan output: room for ours and some to spare, or skip it */
    const size_t need = (size_t)n * 9 + ((size_t)256 << 20);
    float *x = NULL;
    if (ks_cuda_free_memory(&free_b, &total_b) != KS_OK || free_b < need ||
        !(x = malloc((size_t)n * sizeof *x))) {
        ks_error_clear();
        *skipped = 1;
        return 1;
    }
    const ks_reduce_input kind = integer ? KS_REDUCE_INPUT_INTEGER : KS_REDUCE_INPUT_RANDOM;
    ks_reduce_fill(kind, 1, x, n);
    const double abs_sum = ks_reduce_abs_sum(x, n);
    free(x);
    const ks_reduce_desc d = {.n = n, .seed = 1, .block = KS_REDUCE_DEFAULT_BLOCK, .input = kind};
    ks_reduce_gpu *g = NULL;
    double ref = 0.0;
    if (ks_kcheck_failed(ks_reduce_gpu_create(&d, &g), out, "live size") ||
        ks_kcheck_failed(ks_reduce_gpu_run(g, KS_REDUCE_SUM_CUB), out, "sum_cub") ||
        ks_kcheck_failed(ks_reduce_gpu_sum_result(g, &ref), out, "sum_cub")) {
        if (!out->fatal) ks_reduce_gpu_destroy(g);
        return 0;
    }
    ks_rcheck_live.g = g;
    ks_rcheck_live.n = n;
    ks_rcheck_live.integer = integer;
    ks_rcheck_live.ref = ref;
    ks_rcheck_live.tol = integer && n <= KS_REDUCE_EXACT_MAX_N ? 0.0 : 2.0 * ks_reduce_sum_tolerance(n, abs_sum);
    return 1;
}

/* The live size against sum_cub, iters times. */
static int check_live(const ks_reduce_user *u, int bx, long long n, int integer, int iters, ks_kcheck_result *out,
                      int *skipped)
{
    if (ks_kcheck_refused(ks_reduce_user_check_block(u, n, bx), out) || !live_reference(n, integer, out, skipped)) return 0;
    if (*skipped) return 1;
    for (int it = 0; it < iters; ++it) {
        double got = 0.0;
        if (ks_kcheck_failed(ks_reduce_gpu_run_user(ks_rcheck_live.g, u, bx), out, "running it on the live size") ||
            ks_kcheck_failed(ks_reduce_gpu_sum_result(ks_rcheck_live.g, &got), out, "running it on the live size"))
            return 0;
        const ks_reduce_verdict v = ks_reduce_user_verdict(got, ks_rcheck_live.ref, ks_rcheck_live.tol);
        if (!v.ok) {
            char what[64];
            snprintf(what, sizeof what, "%s, run %d of %d", input_name(integer ? KS_REDUCE_INPUT_INTEGER
                                                                                : KS_REDUCE_INPUT_RANDOM),
                     it + 1, iters);
            ks_reduce_verdict_text(&v, n, what, "sum_cub", out->message, sizeof out->message);
            return 0;
        }
    }
    return 1;
}

ks_status ks_reduce_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    ks_reduce_user *u = ks_kcheck_load(req, ks_reduce_user_load, out);
    if (!u) return KS_OK;
    const long long live = ks_reduce_check_n(req->grid);
    const int integer = ks_reduce_check_integer(req->grid);
    const int iters = req->iters > 0 ? req->iters : 2;
    int ok = live >= 1 && live <= KS_REDUCE_MAX_N, skipped = 0;
    if (!ok) snprintf(out->message, sizeof out->message, "a live size of %lld floats (1..%lld)", live, KS_REDUCE_MAX_N);
    const int ncases = (int)(sizeof ks_rcheck_cases / sizeof ks_rcheck_cases[0]);
    for (int q = 0; ok && q < ncases; ++q) ok = check_case(u, req->block[0], q, out);
    if (ok) ok = check_live(u, req->block[0], live, integer, iters, out, &skipped);
    if (ok) {
        out->passed = 1;
        const int len = snprintf(out->message, sizeof out->message,
                                 "matches the CPU gold (%d odd sizes, 1 to %lld floats: random within tolerance, "
                                 "integers exactly)", ncases, ks_rcheck_cases[ncases - 1].n);
        if (len > 0 && (size_t)len < sizeof out->message) {
            if (skipped)
                snprintf(out->message + len, sizeof out->message - (size_t)len,
                         "; the live size's check was skipped: no memory for another %lld floats", live);
            else
                snprintf(out->message + len, sizeof out->message - (size_t)len, " and sum_cub on %lld floats (%s, %d runs)",
                         live, integer ? "integers" : "random", iters);
        }
        const ks_kdecl *d = ks_user_code_declaration(u);
        const size_t at = strlen(out->message);
        if (d && d->multiple) /* it runs only where the size is a multiple of its block: say so */
            snprintf(out->message + at, sizeof out->message - at,
                     "; it declares sizes multiples of its block, so it was checked on sizes rounded up to multiples "
                     "of %lld and runs only at such sizes", ks_reduce_decl_round(d, req->block[0], 1));
    }
    ks_kcheck_unload(u, out);
    return KS_OK;
}

/* ---- the contract as the live view and the bench load it (variant_set.h) ---- */

static ks_status check_block(const ks_user_code *code, const int grid[3], const int block[3])
{
    return ks_reduce_user_check_block(code, ks_reduce_check_n(grid), block[0]);
}

const ks_variant_contract ks_reduce_contract = {.load = ks_reduce_user_load, .check_block = check_block};
