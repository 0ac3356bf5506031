/* End-to-end runs of the kernelscope binary.
 *   cpu:    headless EGL (Mesa) with the CPU backend: bare frames against the
 *           reference images in tests/data, --dump-field against the gold
 *           routine after exactly frames x iters iterations, the timing CSV.
 *           (tblock on the GPU runs whole time blocks: iters rounded to a multiple of 4.)
 *   gpu:    the same through CUDA interop (exit 77 without a device): the
 *           field against the gold, the picture against the CPU backend's;
 *           every frame against the gold through --interop pbo, copy and auto,
 *           and auto's fallback / pbo's refusal when registration is forced to fail.
 *   window: a GLFW window under Xvfb for a few frames, with its screenshot.
 * Exits 77 (skipped) when the EGL display, the device or the X server is missing.
 * The display path's tests (every frame, interop fallback and refusals) are in
 * test_app_every_frame.c, compiled into the same programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>
#include <stb_image.h>

#include "kernels/laplace/laplace.h"
#include "render/viewport.h"
#include "test_app_render.h"
#include "test_util.h"
static const char *g_mode = "cpu";

int load_png(const char *path, ks_image *img)
{
    int comp = 0;
    img->rgb = stbi_load(path, &img->w, &img->h, &comp, 3);
    return img->rgb != NULL;
}

/* Fraction of pixels that differ, and the largest channel difference. */
static double compare_images(const ks_image *a, const ks_image *b, int *max_diff)
{
    *max_diff = 255;
    if (a->w != b->w || a->h != b->h) return 1.0;
    size_t differ = 0, n = (size_t)a->w * (size_t)a->h;
    *max_diff = 0;
    for (size_t i = 0; i < n; ++i) {
        int d = 0;
        for (int c = 0; c < 3; ++c) {
            int diff = abs((int)a->rgb[3 * i + c] - (int)b->rgb[3 * i + c]);
            if (diff > d) d = diff;
        }
        if (d) ++differ;
        if (d > *max_diff) *max_diff = d;
    }
    return (double)differ / (double)n;
}

static int is_uniform(const ks_image *img)
{
    size_t n = (size_t)img->w * (size_t)img->h;
    for (size_t i = 1; i < n; ++i)
        if (memcmp(img->rgb, img->rgb + 3 * i, 3)) return 0;
    return 1;
}

/* Reads a float32 .npy written by --dump-field; returns data (malloc) and shape. */
static float *load_npy(const char *path, int *ndim, size_t shape[3])
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char head[10];
    if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0 || head[6] != 1) {
        fclose(f);
        return NULL;
    }
    size_t hlen = (size_t)head[8] | ((size_t)head[9] << 8);
    char *dict = calloc(1, hlen + 1);
    if (fread(dict, 1, hlen, f) != hlen || (10 + hlen) % 64 != 0 || !strstr(dict, "'<f4'") ||
        !strstr(dict, "'fortran_order': False")) {
        free(dict);
        fclose(f);
        return NULL;
    }
    const char *p = strstr(dict, "'shape': (") + 10;
    *ndim = 0;
    size_t total = 1;
    while (*ndim < 3) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p) break;
        shape[(*ndim)++] = v;
        total *= v;
        p = end;
        while (*p == ',' || *p == ' ') ++p;
    }
    free(dict);
    float *data = malloc(total * sizeof *data);
    if (fread(data, sizeof *data, total, f) != total) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

void assert_no_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp-")) fail_msg("temporary file left behind: %s/%s", dir, e->d_name);
    closedir(d);
}

static int count_lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

/* Runs one headless scene for 3 frames of `iters` iterations (--iters) and
 * checks field, frames and CSV: the field equals the gold after 3 x `ran`
 * iterations (what runs per frame: tblock rounds to whole time blocks), and
 * the summary says so. flag: one more flag without a value, or NULL. Returns
 * the run's directory in dir. */
static void run_scene(const char *backend, const char *scene, const char *grid, const char *bc,
                      const char *extra_kernel, int iters, int ran, const char *flag, char *dir, size_t dir_len)
{
    ks_test_tmpdir(dir, dir_len, backend);
    char npy[512], iters_text[16];
    snprintf(npy, sizeof npy, "%s/field.npy", dir);
    snprintf(iters_text, sizeof iters_text, "%d", iters);
    const char *argv[32] = {NULL, scene, "--backend", backend, "--headless", "--grid", grid,
                            "--bc", bc, "--frames", "3", "--iters", iters_text, "--no-overlay",
                            "--save-every", "3", "--out", dir, "--range", "0:1",
                            "--dump-field", npy};
    int argc = 22;
    if (extra_kernel) {
        argv[argc++] = "--kernel";
        argv[argc++] = extra_kernel;
    }
    if (flag) argv[argc++] = flag;
    argv[argc] = NULL;
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0 && (strstr(r.err, "EGL") || strstr(r.err, "no display"))) {
        print_message("no headless GL here: %s", r.err);
        exit(77);
    }
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    char total[64];
    snprintf(total, sizeof total, ": 3 frames, %d iterations", 3 * ran);
    if (!strstr(r.out, total)) fail_msg("no '%s' in %s", total, r.out);

    /* The field after exactly 3 x ran iterations equals the gold routine's. */
    ks_grid g = {strcmp(scene, "laplace3d") == 0 ? 3 : 2, 0, 0, 1};
    int parts = sscanf(grid, "%dx%dx%d", &g.nx, &g.ny, &g.nz);
    assert_true(parts == g.dims);
    const size_t n = ks_grid_points(&g);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    ks_bc preset;
    assert_int_equal(ks_bc_parse(bc, &preset), 0);
    ks_laplace_fill_initial(&g, preset, a);
    memcpy(b, a, n * sizeof *a);
    for (int it = 0; it < 3 * ran; ++it) {
        ks_laplace_gold_step(&g, a, b);
        float *t = a;
        a = b;
        b = t;
    }
    int ndim;
    size_t shape[3];
    float *field = load_npy(npy, &ndim, shape);
    assert_non_null(field);
    assert_int_equal(ndim, g.dims);
    if (g.dims == 3) {
        assert_int_equal(shape[0], (size_t)g.nz);
        assert_int_equal(shape[1], (size_t)g.ny);
        assert_int_equal(shape[2], (size_t)g.nx);
    } else {
        assert_int_equal(shape[0], (size_t)g.ny);
        assert_int_equal(shape[1], (size_t)g.nx);
    }
    double max_rel = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double rel = fabs((double)field[i] - a[i]) / fmax(1e-30, fabs((double)a[i]));
        if (a[i] == field[i]) rel = 0.0;
        if (rel > max_rel) max_rel = rel;
    }
    if (max_rel > 1e-6) fail_msg("%s field differs from gold: max rel %.3g", backend, max_rel);
    free(field);
    free(a);
    free(b);

    char csv[512];
    snprintf(csv, sizeof csv, "%s/%s_timings.csv", dir, scene);
    assert_int_equal(count_lines_in(csv), 1 + 3);
    assert_no_temporaries(dir);
}

static void load_frame(const char *dir, const char *scene, ks_image *img)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s_000003.png", dir, scene);
    if (!load_png(path, img)) fail_msg("cannot read %s", path);
}

/* The reference (one pixel per grid point) as the live view shows it: the
 * fit of the w x h slice into the headless frame's picture area (1280x800,
 * panels hidden), each picture pixel the cell the view maps it to (zoomed in,
 * so one cell per pixel, render/viewport.h). */
static ks_image view_of(const ks_image *ref, int area_w, int area_h)
{
    ks_viewport v;
    ks_viewport_init(&v);
    ks_viewport_set_area(&v, area_w, area_h);
    ks_viewport_set_grid(&v, ref->w, ref->h);
    ks_cellmap m;
    ks_viewport_map(&v, &m);
    ks_image out = {m.x.pixels, m.y.pixels, malloc((size_t)m.x.pixels * (size_t)m.y.pixels * 3)};
    for (int r = 0; r < out.h; ++r) {
        for (int p = 0; p < out.w; ++p) {
            int x0, x1, y0, y1;
            ks_cellmap_range(&m.x, p, &x0, &x1);
            ks_cellmap_range(&m.y, out.h - 1 - r, &y0, &y1); /* files are top-down, pictures bottom-up */
            assert_true(x1 == x0 + 1 && y1 == y0 + 1);
            memcpy(out.rgb + 3 * ((size_t)r * (size_t)out.w + (size_t)p),
                   ref->rgb + 3 * ((size_t)(ref->h - 1 - y0) * (size_t)ref->w + (size_t)x0), 3);
        }
    }
    return out;
}

static void check_against_reference(const char *dir, const char *scene, int w, int h)
{
    ks_image got, ref;
    load_frame(dir, scene, &got);
    char path[512];
    const char *data = getenv("KS_TEST_DATA");
    snprintf(path, sizeof path, "%s/ref_%s_cpu.png", data && *data ? data : KS_TEST_DATA_DIR, scene);
    if (!load_png(path, &ref)) fail_msg("missing reference image %s", path);
    assert_int_equal(ref.w, w); /* the reference: one pixel per grid point */
    assert_int_equal(ref.h, h);
    ks_image want = view_of(&ref, 1280, 800);
    /* the bare picture is the view: the whole slice fitted, not the grid's size */
    assert_int_equal(got.w, want.w);
    assert_int_equal(got.h, want.h);
    assert_true(got.w == 1280 || got.h == 800);
    int max_diff;
    double frac = compare_images(&got, &want, &max_diff);
    free(want.rgb);
    if (frac > 0.001 || max_diff > 2)
        fail_msg("%s differs from %s: %.4f%% of pixels, max %d", scene, path, 100 * frac, max_diff);
    stbi_image_free(got.rgb);
    stbi_image_free(ref.rgb);
}

static void test_cpu_headless(void **state)
{
    (void)state;
    char dir[256];
    run_scene("cpu", "laplace2d", "65x49", "sine", NULL, 7, 7, NULL, dir, sizeof dir);
    check_against_reference(dir, "laplace2d", 65, 49);
    run_scene("cpu", "laplace3d", "37x29x23", "seed", NULL, 7, 7, NULL, dir, sizeof dir);
    check_against_reference(dir, "laplace3d", 37, 23); /* the y slice: x by z */
}

/* A frame the app saved: a PNG of the window's size with a picture in it. */
static void check_saved_frame(const char *dir, const char *name, int w, int h)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ks_image img;
    assert_true(load_png(path, &img));
    assert_int_equal(img.w, w);
    assert_int_equal(img.h, h);
    assert_false(is_uniform(&img));
    stbi_image_free(img.rgb);
}

static void test_cpu_overlay_frame(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "overlay");
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--headless", "--grid", "64",
                          "--frames", "2", "--save-every", "2", "--format", "png", "--size",
                          "640x400", "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    check_saved_frame(dir, "laplace2d_000002.png", 640, 400);
}

/* Each CUDA kernel variant's interop picture against the CPU backend's picture. */
static void compare_backends(const char *scene, const char *grid, const char *bc,
                             const char *const *kernels, size_t n)
{
    char cpu_dir[256], gpu_dir[256];
    ks_image ref;
    /* 8 iterations a frame: whole time blocks for tblock, so every variant runs 3 x 8 */
    run_scene("cpu", scene, grid, bc, NULL, 8, 8, NULL, cpu_dir, sizeof cpu_dir);
    load_frame(cpu_dir, scene, &ref);
    for (size_t k = 0; k < 2 * n; ++k) {
        /* each variant with the frame's CUDA graph, then launched directly */
        const char *flag = k < n ? NULL : "--no-graph";
        run_scene("cuda", scene, grid, bc, kernels[k % n], 8, 8, flag, gpu_dir, sizeof gpu_dir);
        ks_image got;
        load_frame(gpu_dir, scene, &got);
        int max_diff;
        double frac = compare_images(&got, &ref, &max_diff);
        if (frac > 0.001)
            fail_msg("interop picture (%s%s) differs from the CPU one: %.4f%%", kernels[k % n],
                     flag ? ", --no-graph" : "", 100 * frac);
        stbi_image_free(got.rgb);
    }
    stbi_image_free(ref.rgb);
}

/* tblock rounds --iters to whole time blocks of 4: 7 a frame runs 8, 10 runs 12 (the field
 * after 3 x that equals the gold, and the summary counts what ran); 1 runs one block. */
static void test_gpu_tblock_whole_blocks(void **state)
{
    (void)state;
    char dir[256];
    const int asked[3] = {7, 10, 1}, ran[3] = {8, 12, 4};
    for (int i = 0; i < 3; ++i)
        run_scene("cuda", "laplace3d", "37x29x23", "seed", "tblock", asked[i], ran[i], NULL, dir, sizeof dir);
}

static void test_gpu_matches_cpu(void **state)
{
    (void)state;
    const char *k3[] = {"kmarch", "block3d", "regq", "tblock"};
    compare_backends("laplace3d", "37x53x29", "seed", k3, sizeof k3 / sizeof k3[0]);
    const char *k2[] = {"block2d", "smem2d", "vec2d"};
    compare_backends("laplace2d", "97x61", "hot-top", k2, sizeof k2 / sizeof k2[0]);
}

/* The spheres scene through the app: one bare frame at 320x240 (40 spheres, seed 7). */
static void run_spheres_via(const char *backend, const char *mem, const char *interop, char *dir, size_t dir_len,
                            ks_image *img)
{
    ks_test_tmpdir(dir, dir_len, "spheres");
    const char *argv[] = {NULL, "spheres", "--backend", backend, "--headless", "--spheres", "40",
                          "--seed", "7", "--size", "320x240", "--no-overlay", "--frames", "1",
                          "--save-every", "1", "--out", dir, "--interop", interop ? interop : "auto",
                          mem ? "--mem" : NULL, mem, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("spheres %s %s: exit %d: %s", backend, mem ? mem : "", r.exit_code, r.err);
    char path[512];
    snprintf(path, sizeof path, "%s/spheres_000001.png", dir);
    if (!load_png(path, img)) fail_msg("cannot read %s", path);
    assert_int_equal(img->w, 320);
    assert_int_equal(img->h, 240);
    assert_no_temporaries(dir);
}

static void run_spheres(const char *backend, const char *mem, char *dir, size_t dir_len, ks_image *img)
{
    run_spheres_via(backend, mem, NULL, dir, dir_len, img);
}

static void test_cpu_spheres(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_image got, ref;
    run_spheres("cpu", NULL, dir, sizeof dir, &got);
    const char *data = getenv("KS_TEST_DATA");
    snprintf(path, sizeof path, "%s/spheres_ref_seed7_320x240.png", data && *data ? data : KS_TEST_DATA_DIR);
    if (!load_png(path, &ref)) fail_msg("missing reference image %s", path);
    int max_diff;
    double frac = compare_images(&got, &ref, &max_diff);
    if (frac > 0.001 || max_diff > 1) fail_msg("spheres differs from %s: %.4f%%, max %d", path, 100 * frac, max_diff);
    stbi_image_free(got.rgb);
    stbi_image_free(ref.rgb);
}

static void test_gpu_spheres_match_cpu(void **state)
{
    (void)state;
    char dir[256];
    ks_image ref;
    run_spheres("cpu", NULL, dir, sizeof dir, &ref);
    const char *mems[] = {"global", "readonly", "constant", "shared", "binned"};
    for (size_t m = 0; m < sizeof mems / sizeof mems[0]; ++m)
        for (int via = 0; via < 2; ++via) {
            ks_image got;
            run_spheres_via("cuda", mems[m], via ? "copy" : "pbo", dir, sizeof dir, &got);
            int max_diff;
            double frac = compare_images(&got, &ref, &max_diff);
            if (frac > 0.001 || max_diff > 1)
                fail_msg("spheres %s through %s differs from the CPU: %.4f%%, max %d", mems[m], via ? "copy" : "pbo",
                         100 * frac, max_diff);
            stbi_image_free(got.rgb);
        }
    stbi_image_free(ref.rgb);
}

static void test_window(void **state)
{
    (void)state;
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "window");
    const char *argv[] = {NULL, "laplace2d", "--backend", "cpu", "--window", "--frames", "4",
                          "--save-every", "4", "--size", "800x600", "--out", dir, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    check_saved_frame(dir, "laplace2d_000004.png", 800, 600);
}

int main(int argc, char **argv)
{
    if (argc > 1) g_mode = argv[1];
    if (strcmp(g_mode, "gpu") == 0) {
        if (!ks_test_have_cuda()) return 77;
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_gpu_matches_cpu),
                                           cmocka_unit_test(test_gpu_spheres_match_cpu),
                                           cmocka_unit_test(test_gpu_every_frame),
                                           cmocka_unit_test(test_gpu_forced_fallback),
                                           cmocka_unit_test(test_gpu_tblock_whole_blocks),
                                           cmocka_unit_test(test_gpu_refusals)};
        return cmocka_run_group_tests(tests, NULL, NULL);
    }
    if (strcmp(g_mode, "window") == 0) {
        const char *d = getenv("DISPLAY");
        if (!d || !*d) return 77;
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_window)};
        return cmocka_run_group_tests(tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu_headless),
                                       cmocka_unit_test(test_cpu_overlay_frame),
                                       cmocka_unit_test(test_cpu_spheres),
                                       cmocka_unit_test(test_cpu_every_frame)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
