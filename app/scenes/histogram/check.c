/* The check of a user's histogram kernel, run in the checker process
 * (app/kernel/kernel_checker.h; never in the live view's own): first on small
 * odd sizes against the CPU gold, then on generated text of the live input's
 * size against cub, our reference (itself held to the gold by the tests and
 * the bench), each exactly. The small inputs are followed by poison bytes
 * (0xA5) that the kernel must not count, and the larger ones are counted in
 * two launches into the same bins, as the live view's chunks are, so a
 * kernel that sets bins instead of adding to them fails. The request's grid
 * carries the live size (ks_hist_check_grid), its block the user's. With
 * req->diff (its cells 256 x 1) the live size runs even after a refusal, and
 * the answer carries |yours - cub| for each bin of its first run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/kernel_checker.h"
#include "app/scenes/histogram/check.h"
#include "base/cuda_device.h"
#include "kernels/histogram/histogram.h"
#include "kernels/histogram/histogram_user.h"

enum { KS_HCHECK_GUARD = 61, KS_HCHECK_POISON = 0xA5, KS_HCHECK_BINS = 256 };

/* Sizes no block divides, each with its input and the offset of the second
 * launch (0: one launch; a multiple of 16, as the live view's chunks start). */
static const struct {
    size_t n, split;
    ks_hist_input_kind kind;
} ks_hcheck_cases[] = {
    {1, 0, KS_HIST_IN_TEXT},
    {37, 0, KS_HIST_IN_UNIFORM},
    {100003, 49152, KS_HIST_IN_TEXT},
    {(1u << 20) + 13, 524288, KS_HIST_IN_EQUAL}, /* every byte 'a': the most contended bin */
};

/* The live size's input and cub's counts, kept between requests (a save checks again). */
static ks_hist_gpu *ks_hcheck_live;
static size_t ks_hcheck_live_n;
static uint64_t ks_hcheck_live_want[KS_HCHECK_BINS];


/* The live size against cub, iters times. *skipped: no room for another copy of the input.
 * diff (256 values, may be NULL): |yours - cub| of each bin after the first run. */
static int check_live(const ks_hist_user *u, const int block[3], size_t n, int iters, ks_kcheck_result *out,
                      int *skipped, float *diff, int *diff_made)
{
    if (ks_kcheck_refused(ks_hist_user_check_block(u, n, block), out)) return 0;
    if (!ks_hcheck_live || ks_hcheck_live_n != n) {
        ks_hist_gpu_destroy(ks_hcheck_live);
        ks_hcheck_live = NULL;
        size_t free_b = 0, total_b = 0;
        /* the live view holds its own input: room for this one and some to spare, or skip it */
        if (ks_cuda_free_memory(&free_b, &total_b) != KS_OK || free_b < n + ((size_t)256 << 20)) {
            ks_error_clear();
            *skipped = 1;
            return 1;
        }
        unsigned char *data = malloc(n);
        if (!data) {
            snprintf(out->message, sizeof out->message, "out of host memory for %zu bytes", n);
            return 0;
        }
        ks_hist_generate(KS_HIST_IN_TEXT, 1, data, n);
        const ks_hist_gpu_desc gd = {.data = data, .n = n, .mode = KS_HIST_BYTES};
        int ok = !ks_kcheck_failed(ks_hist_gpu_create(&gd, &ks_hcheck_live), out, "live size");
        free(data);
        ok = ok && !ks_kcheck_failed(ks_hist_gpu_whole(ks_hcheck_live, ks_hist_variant_find("cub")), out, "cub") &&
             !ks_kcheck_failed(ks_hist_gpu_counts(ks_hcheck_live, ks_hcheck_live_want), out, "cub");
        if (!ok) return 0;
        ks_hcheck_live_n = n;
    }
    uint64_t got[KS_HCHECK_BINS];
    for (int it = 0; it < iters; ++it) {
        if (ks_kcheck_failed(ks_hist_gpu_whole_user(ks_hcheck_live, u, block), out, "running it on the live size") ||
            ks_kcheck_failed(ks_hist_gpu_counts(ks_hcheck_live, got), out, "running it on the live size"))
            return 0;
        if (it == 0 && diff) {
            for (int b = 0; b < KS_HCHECK_BINS; ++b)
                diff[b] = got[b] > ks_hcheck_live_want[b] ? (float)(got[b] - ks_hcheck_live_want[b])
                                                          : (float)(ks_hcheck_live_want[b] - got[b]);
            *diff_made = 1;
        }
        ks_hist_mismatch m;
        if (ks_hist_compare(got, ks_hcheck_live_want, KS_HCHECK_BINS, &m) != KS_OK) {
            char what[64];
            snprintf(what, sizeof what, "generated text, run %d of %d", it + 1, iters);
            ks_hist_mismatch_text(&m, n, what, "cub", out->message, sizeof out->message);
            return 0;
        }
    }
    return 1;
}

/* One small case against the CPU gold. */
static int check_case(const ks_hist_user *u, const int block[3], int q, ks_kcheck_result *out)
{
    const size_t n = ks_hcheck_cases[q].n, split = ks_hcheck_cases[q].split;
    unsigned char *data = malloc(n + KS_HCHECK_GUARD);
    if (!data) {
        snprintf(out->message, sizeof out->message, "out of host memory");
        return 0;
    }
    ks_hist_generate(ks_hcheck_cases[q].kind, 1, data, n);
    memset(data + n, KS_HCHECK_POISON, KS_HCHECK_GUARD);
    uint64_t want[KS_HCHECK_BINS] = {0}, got[KS_HCHECK_BINS];
    ks_hist_gold(data, n, 0, n, KS_HIST_BYTES, KS_HCHECK_BINS, want);
    ks_hist_gpu *g = NULL;
    const ks_hist_gpu_desc gd = {.data = data, .n = n + KS_HCHECK_GUARD, .mode = KS_HIST_BYTES};
    int ok = !ks_kcheck_refused(ks_hist_user_check_block(u, n, block), out) && !ks_kcheck_failed(ks_hist_gpu_create(&gd, &g), out, "check input");
    if (ok && split) ok = !ks_kcheck_failed(ks_hist_gpu_chunk_user(g, u, block, 0, split, NULL), out, "running it");
    if (ok) ok = !ks_kcheck_failed(ks_hist_gpu_chunk_user(g, u, block, split, n, NULL), out, "running it");
    if (ok) ok = !ks_kcheck_failed(ks_hist_gpu_counts(g, got), out, "running it");
    ks_hist_mismatch m;
    if (ok && ks_hist_compare(got, want, KS_HCHECK_BINS, &m) != KS_OK) {
        char what[96];
        snprintf(what, sizeof what, "%s%s, %s", ks_hist_input_name(ks_hcheck_cases[q].kind),
                 split ? " in two launches" : "", "0xA5 bytes after the end");
        ks_hist_mismatch_text(&m, n, what, "the CPU gold", out->message, sizeof out->message);
        ok = 0;
    }
    if (!out->fatal) ks_hist_gpu_destroy(g);
    free(data);
    return ok;
}

ks_status ks_hist_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    ks_hist_user *u = ks_kcheck_load(req, ks_hist_user_load, out);
    if (!u) return KS_OK;
    const size_t live = ks_hist_check_bytes(req->grid);
    const int iters = req->iters > 0 ? req->iters : 2;
    int ok = live >= 1 && live <= KS_HIST_MAX_BYTES, skipped = 0;
    if (!ok) snprintf(out->message, sizeof out->message, "a live size of %zu bytes (1..%llu)", live, KS_HIST_MAX_BYTES);
    const int ncases = (int)(sizeof ks_hcheck_cases / sizeof ks_hcheck_cases[0]);
    float *diff = NULL;
    int diff_made = 0, w = 0, h = 0;
    if (req->diff && ks_kcheck_diff_dims(req, &w, &h) && w * h == KS_HCHECK_BINS) diff = malloc(KS_HCHECK_BINS * sizeof *diff);
    const int sized = ok;
    for (int q = 0; ok && q < ncases; ++q) ok = check_case(u, req->block, q, out);
    if (ok) {
        ok = check_live(u, req->block, live, iters, out, &skipped, diff, &diff_made);
    } else if (sized && diff && !out->fatal) { /* refused already: the live size runs for the difference alone */
        ks_kcheck_result scratch;
        memset(&scratch, 0, sizeof scratch);
        (void)check_live(u, req->block, live, 1, &scratch, &skipped, diff, &diff_made);
        out->fatal = scratch.fatal;
    }
    ks_kcheck_give_diff(out, diff, diff_made, w, h);
    if (ok) {
        out->passed = 1;
        if (skipped)
            snprintf(out->message, sizeof out->message,
                     "matches the CPU gold exactly (%d odd sizes, 1 to %zu bytes); the live size's check was skipped: "
                     "no GPU memory for another %zu bytes", ncases, ks_hcheck_cases[ncases - 1].n, live);
        else
            snprintf(out->message, sizeof out->message,
                     "matches the CPU gold exactly (%d odd sizes, 1 to %zu bytes) and cub on %zu bytes of text (%d runs)",
                     ncases, ks_hcheck_cases[ncases - 1].n, live, iters);
    }
    ks_kcheck_unload(u, out);
    return KS_OK;
}

/* ---- the contract as the live view and the bench load it (variant_set.h) ---- */

static ks_status check_block(const ks_user_code *code, const int grid[3], const int block[3])
{
    return ks_hist_user_check_block(code, ks_hist_check_bytes(grid), block);
}

const ks_variant_contract ks_hist_contract = {.load = ks_hist_user_load, .check_block = check_block};
