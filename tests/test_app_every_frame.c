/* End-to-end runs of the kernelscope binary, the display path: every frame
 * saved is that frame's picture (laplace2d against the gold routine, through
 * each --interop on the GPU), auto's fallback and pbo's refusal when
 * registration is forced to fail, and the refusals of bad input. Part of
 * test_app_cpu and test_app_gpu (main in test_app_render.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stb_image.h>

#include "kernels/laplace/laplace.h"
#include "test_app_render.h"
#include "test_util.h"

enum { RING_FRAMES = 5, RING_ITERS = 3, RING_NX = 97, RING_NY = 61 };

/* The gold pictures of laplace2d RING_NXxRING_NY hot-top, range 0:0.05,
 * after 1..RING_FRAMES frames of RING_ITERS iterations (RGBA, rows bottom-up). */
static unsigned char **gold_pictures(void)
{
    ks_grid g = {2, RING_NX, RING_NY, 1};
    const size_t n = ks_grid_points(&g);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    ks_laplace_fill_initial(&g, KS_BC_HOT_TOP, a);
    memcpy(b, a, n * sizeof *a);
    unsigned char **pics = calloc(RING_FRAMES + 1, sizeof *pics);
    for (int f = 1; f <= RING_FRAMES; ++f) {
        for (int it = 0; it < RING_ITERS; ++it) {
            ks_laplace_gold_step(&g, a, b);
            float *t = a;
            a = b;
            b = t;
        }
        pics[f] = malloc(n * 4);
        ks_laplace_cpu_render_slice(&g, a, KS_AXIS_Z, 0, KS_CMAP_VIRIDIS, 0.0f, 0.05f, pics[f]);
    }
    free(a);
    free(b);
    return pics;
}

/* Pixels of png (RGB, top-down) that differ from gold (RGBA, bottom-up), and the largest difference. */
static size_t count_differing(const ks_image *png, const unsigned char *gold, int *max_diff)
{
    size_t differ = 0;
    *max_diff = 0;
    for (int y = 0; y < RING_NY; ++y)
        for (int x = 0; x < RING_NX; ++x) {
            const unsigned char *p = png->rgb + ((size_t)(RING_NY - 1 - y) * RING_NX + (size_t)x) * 3;
            const unsigned char *q = gold + ((size_t)y * RING_NX + (size_t)x) * 4;
            int d = 0;
            for (int c = 0; c < 3; ++c) d = abs((int)p[c] - (int)q[c]) > d ? abs((int)p[c] - (int)q[c]) : d;
            differ += d != 0;
            if (d > *max_diff) *max_diff = d;
        }
    return differ;
}

/* Runs laplace2d headless saving the bare picture of every frame, and checks
 * frame N's against the gold picture after N frames: exactly on the CPU, within
 * 0.1 % of the pixels on a GPU (float rounding can move a value across a colour
 * step). A stale frame (the one before) or a torn one would differ in far more:
 * the test first checks that consecutive gold frames do. */
static void check_every_frame(const char *backend, const char *interop, const char *const *env,
                              ks_run_result *r)
{
    /* --size = the grid: the picture area fits the grid at one pixel per cell */
    char dir[256], frames[16], iters[16], grid[32];
    ks_test_tmpdir(dir, sizeof dir, "ring");
    snprintf(frames, sizeof frames, "%d", RING_FRAMES);
    snprintf(iters, sizeof iters, "%d", RING_ITERS);
    snprintf(grid, sizeof grid, "%dx%d", RING_NX, RING_NY);
    const char *argv[] = {NULL, "laplace2d", "--backend", backend, "--headless", "--grid", grid,
                          "--bc", "hot-top", "--frames", frames, "--iters", iters, "--no-overlay", "--size", grid,
                          "--save-every", "1", "--range", "0:0.05", "--out", dir,
                          interop ? "--interop" : NULL, interop, NULL};
    assert_int_equal(ks_test_run(argv, env, r), 0);
    if (r->exit_code != 0 && (strstr(r->err, "EGL") || strstr(r->err, "no display"))) {
        print_message("no headless GL here: %s", r->err);
        exit(77);
    }
    if (r->exit_code != 0) fail_msg("%s %s: exit %d: %s", backend, interop ? interop : "", r->exit_code, r->err);
    unsigned char **gold = gold_pictures();
    const size_t n = (size_t)RING_NX * RING_NY, allowed = strcmp(backend, "cpu") == 0 ? 0 : n / 1000;
    for (int f = 1; f <= RING_FRAMES; ++f) {
        if (f > 1) { /* the test can tell frames apart */
            size_t moved = 0;
            for (size_t i = 0; i < n; ++i) moved += memcmp(gold[f] + 4 * i, gold[f - 1] + 4 * i, 3) != 0;
            if (moved < 10 * (n / 1000 + 1)) fail_msg("gold frames %d and %d differ in only %zu pixels", f - 1, f, moved);
        }
        char path[512];
        snprintf(path, sizeof path, "%s/laplace2d_%06d.png", dir, f);
        ks_image got;
        if (!load_png(path, &got)) fail_msg("cannot read %s", path);
        assert_int_equal(got.w, RING_NX);
        assert_int_equal(got.h, RING_NY);
        int max_diff = 0;
        const size_t differ = count_differing(&got, gold[f], &max_diff);
        if (differ > allowed)
            fail_msg("%s %s: frame %d is not the picture after %d iterations: %zu pixels differ (max %d)", backend,
                     interop ? interop : "", f, f * RING_ITERS, differ, max_diff);
        stbi_image_free(got.rgb);
    }
    for (int f = 1; f <= RING_FRAMES; ++f) free(gold[f]);
    free(gold);
    assert_no_temporaries(dir);
}

/* The CPU backend shows its pictures through the host upload ring (the copy path's GL side). */
void test_cpu_every_frame(void **state)
{
    (void)state;
    ks_run_result r;
    check_every_frame("cpu", NULL, NULL, &r);
    assert_null(strstr(r.err, "--interop"));
    /* --interop chooses GPU work: one notice line, the same pictures */
    check_every_frame("cpu", "copy", NULL, &r);
    const char *notice = "kernelscope: --interop has no effect on the cpu backend (its pictures are uploaded from host memory)\n";
    const char *at = strstr(r.err, notice);
    if (!at || strstr(at + strlen(notice), "--interop")) fail_msg("want the --interop notice once: %s", r.err);
}

/* Both CUDA display paths, frame by frame against the gold. */
void test_gpu_every_frame(void **state)
{
    (void)state;
    const char *paths[] = {"pbo", "copy", "auto"};
    for (int p = 0; p < 3; ++p) {
        ks_run_result r;
        check_every_frame("cuda", paths[p], NULL, &r);
        if (strstr(r.err, "cannot register")) fail_msg("--interop %s: %s", paths[p], r.err);
    }
}

/* A GL context CUDA cannot register (forced with the test switch): auto falls
 * back to copy with one notice line and the same pictures; pbo is refused in one
 * line, exit 2; copy never registers, so it says nothing. */
void test_gpu_forced_fallback(void **state)
{
    (void)state;
    const char *env[] = {"KERNELSCOPE_FORCE_INTEROP_FAIL=1", NULL};
    ks_run_result r;
    check_every_frame("cuda", NULL, env, &r);
    const char *notice = strstr(r.err, "kernelscope: CUDA cannot register the GL buffer (");
    if (!notice) fail_msg("auto did not say it fell back: %s", r.err);
    const char *eol = strchr(notice, '\n');
    assert_non_null(eol);
    if (!strstr(notice, ": using the copy path\n") || strstr(notice, ": using the copy path\n") > eol)
        fail_msg("fallback notice is not one line ending in 'using the copy path': %s", r.err);
    assert_null(strstr(eol, "cannot register")); /* said once */

    check_every_frame("cuda", "copy", env, &r);
    assert_null(strstr(r.err, "cannot register"));

    /* the refusal stands alone even when the UI falls back to the built-in font (its notice waits for the run) */
    const char *nofont[] = {"KERNELSCOPE_FORCE_INTEROP_FAIL=1", "KERNELSCOPE_FONT=/nonexistent/ks-font.ttf", NULL};
    const char *pbo[] = {NULL, "laplace2d", "--headless", "--frames", "1", "--grid", "64", "--interop", "pbo", NULL};
    assert_int_equal(ks_test_run(pbo, nofont, &r), 0);
    if (r.exit_code != 2 || ks_test_count_lines(r.err) != 1 || !strstr(r.err, "--interop pbo: CUDA cannot register"))
        fail_msg("--interop pbo without registration: exit %d, '%s'", r.exit_code, r.err);
    const char *sph[] = {NULL, "spheres", "--headless", "--frames", "1", "--size", "64x48", "--interop", "pbo", NULL};
    assert_int_equal(ks_test_run(sph, env, &r), 0);
    assert_int_equal(r.exit_code, 2);
}

void test_gpu_refusals(void **state)
{
    (void)state;
    ks_run_result r;
    const char *huge[] = {NULL, "--headless", "--frames", "1", "--grid", "4000x4000x4000", NULL};
    assert_int_equal(ks_test_run(huge, NULL, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "GiB"));
    assert_int_equal(ks_test_count_lines(r.err), 1);
    const char *block[] = {NULL, "--headless", "--frames", "1", "--grid", "64", "--kernel",
                           "block3d", "--block", "32x32x32", NULL};
    assert_int_equal(ks_test_run(block, NULL, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--block 32x32x32"));
    assert_int_equal(ks_test_count_lines(r.err), 1);
}
