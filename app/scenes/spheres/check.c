/* The check of a user's sphere kernel, run in the checker process
 * (app/kernel/kernel_checker.h; never in the live view's own): the kernel
 * renders, into a picture poisoned first, a small odd picture of a few
 * spheres, a larger odd one of 1001 (a count no tile divides), then the live
 * size and count (the request's grid: width, height, spheres), each against
 * the CPU gold within the contract's tolerance (spheres_user.h). A file with
 * a __constant__ kernelscope_spheres gets the first spheres its array holds.
 * With req->diff the live size runs even after a refusal, and the answer
 * carries, for each pixel, the largest channel difference from the gold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/kernel_checker.h"
#include "app/scenes/spheres/check.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_user.h"

/* Odd sizes no block divides, and counts no tile of spheres divides. */
static const struct {
    int w, h, n;
} ks_scheck_cases[] = {{37, 29, 7}, {333, 199, 1001}};

/* The renderer, kept between requests (a save checks again). */
static ks_spheres_gpu *ks_scheck_gpu;

/* One picture: count spheres from the seed at w x h against the gold. *made:
 * diff filled (w*h values, may be NULL). 0 when refused (out->message says
 * why) or when a step failed. */
static int check_picture(const ks_spheres_user *u, const int block[2], int w, int h, int count, int clip,
                         ks_kcheck_result *out, float *diff, int *made)
{
    const int cap = ks_spheres_user_capacity(u);
    const int n = clip && count > cap ? cap : count; /* clip: the first spheres a small array holds */
    const size_t px = (size_t)w * h;
    ks_sphere *s = malloc((size_t)n * sizeof *s);
    ks_sphere_packed *p = malloc((size_t)n * sizeof *p);
    unsigned char *gold = malloc(4 * px), *got = malloc(4 * px);
    int ok = s && p && gold && got;
    if (!ok) snprintf(out->message, sizeof out->message, "out of host memory for a %dx%d check picture", w, h);
    if (ok) {
        ks_spheres_generate(KS_SPHERES_CHECK_SEED, n, w, h, s);
        ks_spheres_pack(s, n, p);
        ks_spheres_gold_render(p, n, w, h, gold);
    }
    ok = ok && !ks_kcheck_refused(ks_spheres_user_check(u, n, block), out);
    ok = ok && !ks_kcheck_failed(ks_spheres_gpu_upload(ks_scheck_gpu, KS_SPHERES_MEM_GLOBAL, p, n), out, "check scene");
    ok = ok && !ks_kcheck_failed(ks_spheres_gpu_poison(ks_scheck_gpu, w, h, 0xAB), out, "check picture");
    ok = ok && !ks_kcheck_failed(ks_spheres_gpu_render_user(ks_scheck_gpu, u, block, w, h, NULL, -1), out, "running it");
    ok = ok && !ks_kcheck_failed(ks_spheres_gpu_download(ks_scheck_gpu, w, h, got), out, "running it");
    if (ok && diff) {
        ks_spheres_user_diff(got, gold, w, h, diff);
        *made = 1;
    }
    ks_spheres_mismatch m;
    if (ok && !ks_spheres_user_compare(got, gold, w, h, &m)) {
        ks_spheres_mismatch_text(&m, w, h, n, out->message, sizeof out->message);
        ok = 0;
    }
    free(s);
    free(p);
    free(gold);
    free(got);
    return ok;
}

ks_status ks_spheres_kernel_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    if (!ks_scheck_gpu && ks_kcheck_failed(ks_spheres_gpu_create(&ks_scheck_gpu), out, "the check's renderer"))
        return KS_OK;
    ks_spheres_user *u = ks_kcheck_load(req, ks_spheres_user_load, out);
    if (!u) return KS_OK;
    const int w = req->grid[0], h = req->grid[1], count = req->grid[2];
    const int block[2] = {req->block[0], req->block[1]};
    int ok = w <= 16384 && h <= 16384 && count <= KS_SPHERES_MAX;
    if (!ok) snprintf(out->message, sizeof out->message, "a live picture of %dx%d and %d spheres", w, h, count);
    if (ok && req->block[2] != 1) {
        snprintf(out->message, sizeof out->message, "%s takes a 2D block (BXxBY), got %dx%dx%d", req->file,
                 req->block[0], req->block[1], req->block[2]);
        ok = 0;
    }
    const int ncases = (int)(sizeof ks_scheck_cases / sizeof ks_scheck_cases[0]);
    for (int q = 0; ok && q < ncases; ++q)
        ok = check_picture(u, block, ks_scheck_cases[q].w, ks_scheck_cases[q].h, ks_scheck_cases[q].n, 1, out, NULL,
                           NULL);
    int dw = 0, dh = 0, made = 0;
    float *diff = NULL;
    if (req->diff && ks_kcheck_diff_dims(req, &dw, &dh) && dw == w && dh == h) diff = malloc((size_t)w * h * sizeof *diff);
    if (ok) {
        ok = check_picture(u, block, w, h, count, 0, out, diff, &made);
    } else if (diff && !out->fatal && strstr(out->message, "differs from the CPU gold")) {
        /* refused already: the live size runs for the difference view alone */
        ks_kcheck_result scratch;
        memset(&scratch, 0, sizeof scratch);
        (void)check_picture(u, block, w, h, count, 0, &scratch, diff, &made);
        out->fatal = scratch.fatal;
    }
    ks_kcheck_give_diff(out, diff, made, w, h);
    if (ok) {
        out->passed = 1;
        snprintf(out->message, sizeof out->message,
                 "matches the CPU gold (%dx%d with %d spheres, %dx%d with %d, and the live %dx%d with %d%s; every "
                 "channel within %d on all but 0.1 %% of the pixels)",
                 ks_scheck_cases[0].w, ks_scheck_cases[0].h, ks_scheck_cases[0].n, ks_scheck_cases[1].w,
                 ks_scheck_cases[1].h, ks_scheck_cases[1].n, w, h, count,
                 ks_spheres_user_constant(u) ? ", in its __constant__ array" : "", KS_SPHERES_USER_TOL);
    }
    ks_kcheck_unload(u, out);
    return KS_OK;
}

/* ---- the contract as the live view and the bench load it (variant_set.h) ---- */

static ks_status check_block(const ks_user_code *code, const int grid[3], const int block[3])
{
    if (block[2] != 1) return ks_fail(KS_ERR_INVALID, "%s takes a 2D block (BXxBY)", ks_user_code_name(code));
    return ks_spheres_user_check(code, grid[2], block);
}

const ks_variant_contract ks_spheres_contract = {.load = ks_spheres_user_load, .check_block = check_block};
