/* libkernelscope (lib/kernelscope.h), used as a program of its own would use
 * it, through the shared library: a field's picture against the gold
 * colormap (every dtype, strided and padded layouts, 3D slices along each
 * axis, downsampled by the mean of the cells), the page serving the picture
 * and the series, and every bad argument as a status with one line. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stb/stb_image.h>

#include "base/colormap.h"
#include "lib/kernelscope.h"
#include "tests/test_util.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    ks_test_tmpdir(dir, sizeof dir, "viewer");
    return 0;
}

/* The saved picture, RGB rows top-down (stbi_load). */
static unsigned char *load(const char *path, int *w, int *h)
{
    int n = 0;
    unsigned char *p = stbi_load(path, w, h, &n, 3);
    assert_non_null(p);
    return p;
}

/* The gold: values[y][x] (rows bottom-up, y up) through the colormap over [lo, hi]. */
static void expect_picture(const char *path, const double *values, int w, int h, double lo, double hi, ks_colormap cm)
{
    int pw = 0, ph = 0;
    unsigned char *rgb = load(path, &pw, &ph);
    assert_int_equal(pw, w);
    assert_int_equal(ph, h);
    unsigned char table[256][4];
    ks_colormap_table_rgba(cm, table);
    const float inv = ks_colormap_inv_span((float)lo, (float)hi);
    for (int py = 0; py < h; ++py)
        for (int x = 0; x < w; ++x) {
            const int y = h - 1 - py;
            const unsigned char *want = table[ks_colormap_index((float)values[(size_t)y * w + x], (float)lo, inv)];
            const unsigned char *got = rgb + 3 * ((size_t)py * w + x);
            if (memcmp(got, want, 3) != 0)
                fail_msg("%s: pixel (%d, %d) is %d %d %d, want %d %d %d", path, x, py, got[0], got[1], got[2], want[0],
                         want[1], want[2]);
        }
    stbi_image_free(rgb);
}

/* The viewer's newest picture saved as dir/name, then held to the gold as expect_picture does. */
static void expect_saved(ks_viewer *v, const char *name, const double *values, int w, int h, double lo, double hi,
                         ks_colormap cm)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(ks_viewer_save(v, path, NULL, NULL), 0);
    expect_picture(path, values, w, h, lo, hi, cm);
}

static void field_values(double *v, int n, unsigned seed)
{
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (double)(seed >> 20); /* whole numbers 0 .. 4095: exact in every dtype but u8 */
    }
}

static void test_picture_dtypes(void **state)
{
    (void)state;
    enum { W = 37, H = 29 };
    double vals[W * H];
    field_values(vals, W * H, 7u);
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.colormap = "inferno"}, &v), 0);
    assert_string_equal(ks_viewer_url(v), "");
    double lo = 1e9, hi = -1e9;
    for (int i = 0; i < W * H; ++i) lo = fmin(lo, vals[i]), hi = fmax(hi, vals[i]);
    float f32[W * H];
    double f64[W * H];
    int32_t i32[W * H];
    for (int i = 0; i < W * H; ++i) f32[i] = (float)vals[i], f64[i] = vals[i], i32[i] = (int32_t)vals[i];
    const void *data[] = {f32, f64, i32};
    const ks_viewer_dtype types[] = {KS_VIEWER_F32, KS_VIEWER_F64, KS_VIEWER_I32};
    char path[512];
    for (int t = 0; t < 3; ++t) {
        ks_viewer_field f = {.data = data[t], .dtype = types[t], .dims = 2, .size = {W, H}};
        assert_int_equal(ks_viewer_show(v, &f), 0);
        snprintf(path, sizeof path, "%s/dtype%d.png", dir, t);
        int w = 0, h = 0;
        assert_int_equal(ks_viewer_save(v, path, &w, &h), 0);
        assert_int_equal(w, W);
        assert_int_equal(h, H);
        expect_picture(path, vals, W, H, lo, hi, KS_CMAP_INFERNO);
    }
    /* u8, with a fixed range */
    unsigned char u8[W * H];
    double small[W * H];
    for (int i = 0; i < W * H; ++i) u8[i] = (unsigned char)((int)vals[i] & 255), small[i] = u8[i];
    ks_viewer_destroy(v);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.range = {10, 200}}, &v), 0);
    assert_int_equal(ks_viewer_show(v, &(ks_viewer_field){.data = u8, .dtype = KS_VIEWER_U8, .dims = 2, .size = {W, H}}),
                     0);
    expect_saved(v, "u8.png", small, W, H, 10, 200, KS_CMAP_VIRIDIS);
    ks_viewer_destroy(v);
}

/* A field inside a larger array (padded rows), and one stored y-fastest (a transpose by strides). */
static void test_strides_and_slices(void **state)
{
    (void)state;
    enum { NX = 19, NY = 11, NZ = 7, PAD = 5 };
    static double vals[NX * NY * NZ];
    field_values(vals, NX * NY * NZ, 11u);
    static float padded[NY][NX + PAD], transposed[NX][NY], cube[NZ][NY][NX];
    for (int y = 0; y < NY; ++y)
        for (int x = 0; x < NX; ++x) padded[y][x] = transposed[x][y] = (float)vals[y * NX + x];
    for (int z = 0; z < NZ; ++z)
        for (int y = 0; y < NY; ++y)
            for (int x = 0; x < NX; ++x) cube[z][y][x] = (float)vals[(z * NY + y) * NX + x];
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.range = {0, 4095}}, &v), 0);
    const ks_viewer_field layouts[] = {
        {.data = padded, .dims = 2, .size = {NX, NY}, .stride = {4, sizeof padded[0]}},
        {.data = transposed, .dims = 2, .size = {NX, NY}, .stride = {sizeof transposed[0], 4}},
        {.data = cube, .dims = 3, .size = {NX, NY, NZ}, .slice = 1}, /* the first z plane */
    };
    for (int l = 0; l < 3; ++l) {
        assert_int_equal(ks_viewer_show(v, &layouts[l]), 0);
        char name[32];
        snprintf(name, sizeof name, "layout%d.png", l);
        expect_saved(v, name, vals, NX, NY, 0, 4095, KS_CMAP_VIRIDIS);
    }
    /* slices across x and y, and the middle z plane by default */
    static double sx[NY * NZ], sy[NX * NZ], sz[NX * NY];
    for (int z = 0; z < NZ; ++z)
        for (int y = 0; y < NY; ++y) sx[z * NY + y] = vals[(z * NY + y) * NX + 4];
    for (int z = 0; z < NZ; ++z)
        for (int x = 0; x < NX; ++x) sy[z * NX + x] = vals[(z * NY + 2) * NX + x];
    for (int i = 0; i < NX * NY; ++i) sz[i] = vals[(NZ / 2) * NX * NY + i];
    ks_viewer_field f = {.data = cube, .dims = 3, .size = {NX, NY, NZ}, .slice_axis = 1, .slice = 5};
    assert_int_equal(ks_viewer_show(v, &f), 0);
    expect_saved(v, "across_x.png", sx, NY, NZ, 0, 4095, KS_CMAP_VIRIDIS);
    f.slice_axis = 2;
    f.slice = 3;
    assert_int_equal(ks_viewer_show(v, &f), 0);
    expect_saved(v, "across_y.png", sy, NX, NZ, 0, 4095, KS_CMAP_VIRIDIS);
    f.slice_axis = 0;
    f.slice = 0;
    assert_int_equal(ks_viewer_show(v, &f), 0);
    expect_saved(v, "middle.png", sz, NX, NY, 0, 4095, KS_CMAP_VIRIDIS);
    ks_viewer_destroy(v);
}

/* A field's picture saved and held to want[y][x] (w x h, rows bottom-up) over [0, 4095]. */
static void expect_shown(ks_viewer *v, const ks_viewer_field *f, const char *name, const double *want, int w, int h)
{
    assert_int_equal(ks_viewer_show(v, f), 0);
    expect_saved(v, name, want, w, h, 0, 4095, KS_CMAP_VIRIDIS);
}

/* Strides of 0 bytes (KS_VIEWER_BROADCAST, a broadcast array) read the one point there is along that
 * axis, even for a field of 2^62 points; negative strides walk back from data; a host field at an odd
 * address is read as it is. Each buffer is malloc'd to its exact size: ASan sees any read past it. */
static void test_broadcast_negative_unaligned(void **state)
{
    (void)state;
    enum { W = 23, H = 17, N = 1000 };
    static double vals[W * H], want[W * H];
    field_values(vals, W * H, 13u);
    static float grid[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) grid[y][x] = (float)vals[y * W + x];
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.range = {0, 4095}}, &v), 0);
    const long long B = KS_VIEWER_BROADCAST;
    float *one = malloc(sizeof *one), *row = malloc(W * sizeof *row), *col = malloc(H * sizeof *col);
    assert_true(one && row && col);
    *one = 1234.0f;
    static double flat[1024 * 1024];
    for (int i = 0; i < 1024 * 1024; ++i) flat[i] = 1234.0;
    /* np.broadcast_to(np.float32(1234), (1000, 1000)) */
    expect_shown(v, &(ks_viewer_field){.data = one, .dims = 2, .size = {N, N}, .stride = {B, B}}, "bcast.png", flat, N,
                 N);
    /* 2^31 x 2^31 points of one value: the picture's 1024 x 1024 pixels each read it once */
    expect_shown(v, &(ks_viewer_field){.data = one, .dims = 2, .size = {1LL << 31, 1LL << 31}, .stride = {B, B}},
                 "bcast_huge.png", flat, 1024, 1024);
    /* a row repeated (numpy strides (0, 4)) and a column repeated ((4, 0)) */
    for (int x = 0; x < W; ++x) row[x] = grid[5][x];
    for (int y = 0; y < H; ++y) col[y] = grid[y][7];
    for (int i = 0; i < W * H; ++i) want[i] = grid[5][i % W];
    expect_shown(v, &(ks_viewer_field){.data = row, .dims = 2, .size = {W, H}, .stride = {4, B}}, "bcast_row.png", want,
                 W, H);
    for (int i = 0; i < W * H; ++i) want[i] = grid[i / W][7];
    expect_shown(v, &(ks_viewer_field){.data = col, .dims = 2, .size = {W, H}, .stride = {B, 4}}, "bcast_col.png", want,
                 W, H);
    /* 3D: one plane repeated along z (strides (0, W*4, 4)); its middle slice is that plane, and a slice
     * across x is the plane's column 7 repeated along z */
    expect_shown(v, &(ks_viewer_field){.data = grid, .dims = 3, .size = {W, H, 9}, .stride = {4, W * 4, B}},
                 "bcast_z.png", vals, W, H);
    for (int z = 0; z < 9; ++z)
        for (int y = 0; y < H; ++y) want[z * H + y] = grid[y][7];
    expect_shown(v, &(ks_viewer_field){.data = grid, .dims = 3, .size = {W, H, 9}, .stride = {4, W * 4, B},
                                       .slice_axis = 1, .slice = 8},
                 "bcast_z_x.png", want, H, 9);
    /* negative strides: upside down (data at the last row, rows going back), and mirrored */
    for (int i = 0; i < W * H; ++i) want[i] = grid[H - 1 - i / W][i % W];
    expect_shown(v, &(ks_viewer_field){.data = &grid[H - 1][0], .dims = 2, .size = {W, H}, .stride = {4, -W * 4}},
                 "flip_y.png", want, W, H);
    for (int i = 0; i < W * H; ++i) want[i] = grid[i / W][W - 1 - i % W];
    expect_shown(v, &(ks_viewer_field){.data = &grid[0][W - 1], .dims = 2, .size = {W, H}, .stride = {-4, W * 4}},
                 "flip_x.png", want, W, H);
    /* a float field one byte into a buffer */
    unsigned char *bytes = malloc(sizeof grid + 1);
    assert_non_null(bytes);
    memcpy(bytes + 1, grid, sizeof grid);
    expect_shown(v, &(ks_viewer_field){.data = bytes + 1, .dims = 2, .size = {W, H}}, "odd.png", vals, W, H);
    ks_viewer_destroy(v);
    free(bytes);
    free(one);
    free(row);
    free(col);
}

/* A field larger than the picture: each pixel is the mean of the cells it covers. */
static void test_downsampled(void **state)
{
    (void)state;
    enum { NX = 300, NY = 12 };
    static float f[NY][NX];
    static double mean[(NX / 3) * (NY / 3)];
    double vals[NX * NY];
    field_values(vals, NX * NY, 3u);
    for (int y = 0; y < NY; ++y)
        for (int x = 0; x < NX; ++x) f[y][x] = (float)vals[y * NX + x];
    for (int y = 0; y < NY / 3; ++y)
        for (int x = 0; x < NX / 3; ++x) {
            double s = 0;
            for (int b = 0; b < 3; ++b)
                for (int a = 0; a < 3; ++a) s += f[3 * y + b][3 * x + a];
            mean[y * (NX / 3) + x] = (float)(s / 9.0);
        }
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.max_width = NX / 3, .range = {0, 4095}}, &v), 0);
    assert_int_equal(ks_viewer_show(v, &(ks_viewer_field){.data = f, .dims = 2, .size = {NX, NY}}), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/down.png", dir);
    int w = 0, h = 0;
    assert_int_equal(ks_viewer_save(v, path, &w, &h), 0);
    assert_int_equal(w, NX / 3);
    assert_int_equal(h, NY / 3);
    expect_picture(path, mean, NX / 3, NY / 3, 0, 4095, KS_CMAP_VIRIDIS);
    ks_viewer_destroy(v);
}

static int http_get(int port, const char *target, char *out, size_t cap)
{
    return ks_test_http(port, "GET", target, NULL, 0, 0, out, cap);
}

/* The page: its state has the title and the series; 503 only until the first picture. */
static void test_serve(void **state)
{
    (void)state;
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.serve = "127.0.0.1:0", .title = "heat"}, &v), 0);
    const char *url = ks_viewer_url(v);
    assert_non_null(strstr(url, "http://127.0.0.1:"));
    const int port = atoi(strrchr(url, ':') + 1);
    float f[16 * 8];
    for (int i = 0; i < 16 * 8; ++i) f[i] = (float)i;
    for (int it = 0; it < 5; ++it) assert_int_equal(ks_viewer_value(v, "residual", 1.0 / (it + 1)), 0);
    assert_int_equal(ks_viewer_value(v, "energy", 42.5), 0);
    for (int i = 1; i <= 9; ++i) assert_int_equal(ks_viewer_stage_ms(v, "jacobi", i), 0); /* median 5, min 1 */
    assert_int_equal(ks_viewer_show(v, &(ks_viewer_field){.data = f, .dims = 2, .size = {16, 8}}), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/served.png", dir);
    assert_int_equal(ks_viewer_save(v, path, NULL, NULL), 0); /* the picture is made, so the state follows */
    static char answer[1 << 20];
    int status = 0;
    while ((status = http_get(port, "/state.json", answer, sizeof answer)) == 503 || status < 0)
        ks_test_sleep_ms(20); /* the viewer's thread publishes right after the picture */
    assert_int_equal(status, 200);
    assert_non_null(strstr(answer, "\"scene\":\"heat\""));
    assert_non_null(strstr(answer, "energy"));
    assert_non_null(strstr(answer, "residual"));
    assert_non_null(strstr(answer, "\"stages_ms\":{\"jacobi\":5"));
    assert_int_equal(http_get(port, "/", answer, sizeof answer), 200); /* the viewer page */
    /* keys from the page: R and Left for the program, Space a pause; in the order sent */
    const char *sent[] = {"/key?k=r", "/key?k=left", "/key?k=space"};
    for (int i = 0; i < 3; ++i) assert_int_equal(ks_test_http(port, "POST", sent[i], NULL, 0, 0, answer, sizeof answer), 204);
    int keys[8], nkeys = 0, paused = 0;
    ks_viewer_input in;
    while (!(nkeys == 2 && paused) && nkeys <= 2) { /* the viewer's thread takes them now and then */
        assert_int_equal(ks_viewer_poll(v, &in), 0);
        for (int k = 0; k < in.nkeys && nkeys < 8; ++k) keys[nkeys++] = in.keys[k];
        paused = in.paused;
        assert_int_equal(in.quit, 0);
        assert_int_equal(in.keys_dropped, 0);
        if (!(nkeys == 2 && paused)) ks_test_sleep_ms(20);
    }
    assert_int_equal(nkeys, 2);
    assert_int_equal(keys[0], 'R');
    assert_int_equal(keys[1], KS_VIEWER_KEY_LEFT);
    assert_true(paused);
    assert_string_equal(ks_viewer_key_name('R'), "r");
    assert_string_equal(ks_viewer_key_name('5'), "5");
    assert_string_equal(ks_viewer_key_name(KS_VIEWER_KEY_LEFT), "left");
    assert_string_equal(ks_viewer_key_name(KS_VIEWER_KEY_PLUS), "plus");
    assert_string_equal(ks_viewer_key_name(KS_VIEWER_KEY_HOME), "home");
    assert_null(ks_viewer_key_name(KS_VIEWER_KEY_HOME + 1));
    assert_null(ks_viewer_key_name(' '));
    ks_viewer_destroy(v);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(NULL, NULL), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.colormap = "rainbow"}, &v), KS_VIEWER_EINVALID);
    assert_non_null(strstr(ks_viewer_last_error(), "unknown colormap 'rainbow'"));
    assert_null(v);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.range = {2, 1}}, &v), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.range = {NAN, 1}}, &v), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.max_width = -1}, &v), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.title = "a title far longer than thirty-one bytes"}, &v),
                     KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.serve = "127.0.0.1:99999"}, &v), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.serve = "127.0.0.1:0", .token = "short"}, &v),
                     KS_VIEWER_EINVALID);
    assert_null(v);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){0}, &v), 0);
    assert_string_equal(ks_viewer_last_error(), "");
    float f[4] = {1, 2, 3, 4};
    char path[512];
    snprintf(path, sizeof path, "%s/early.png", dir);
    assert_int_equal(ks_viewer_save(v, path, NULL, NULL), KS_VIEWER_EINVALID); /* nothing shown yet */
    assert_non_null(strstr(ks_viewer_last_error(), "no field shown yet"));
    const ks_viewer_field bad[] = {
        {.data = NULL, .dims = 2, .size = {2, 2}},
        {.data = f, .dims = 4, .size = {2, 2}},
        {.data = f, .dims = 2, .size = {0, 2}},
        {.data = f, .dims = 2, .size = {2, -3}},
        {.data = f, .dims = 2, .size = {2, 2}, .dtype = (ks_viewer_dtype)9},
        {.data = f, .dims = 2, .size = {2, 2}, .memory = (ks_viewer_memory)7},
        {.data = f, .dims = 3, .size = {2, 2, 1}, .slice = 2},
        {.data = f, .dims = 3, .size = {2, 2, 1}, .slice = -1},
        {.data = f, .dims = 3, .size = {2, 2, 1}, .slice_axis = 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(ks_viewer_show(v, &bad[i]), KS_VIEWER_EINVALID);
        assert_true(strlen(ks_viewer_last_error()) > 10);
        assert_null(strchr(ks_viewer_last_error(), '\n')); /* one line */
    }
    /* strides and sizes whose reach overflows, or runs off either end of the address space (never read:
     * refused before the first point), and device fields the GPU could not read aligned (a misaligned
     * load would end the caller's CUDA context): refused in every build, with or without CUDA */
    const long long B = KS_VIEWER_BROADCAST;
    const struct {
        ks_viewer_field f;
        const char *words;
    } reach[] = {
        {{.data = f, .dims = 2, .size = {1LL << 31, 1LL << 31}, .stride = {1LL << 40, 4}}, "overflow"},
        {{.data = f, .dims = 3, .size = {1LL << 31, 1LL << 31, 1LL << 31}, .dtype = KS_VIEWER_F64}, "overflow"},
        {{.data = f, .dims = 2, .size = {2, 2}, .stride = {LLONG_MAX, 4}}, "overflow"},
        {{.data = f, .dims = 2, .size = {2, 2}, .stride = {-LLONG_MAX, 4}}, "overflow"},
        {{.data = f, .dims = 2, .size = {2, 2}, .stride = {B, 0}}, "after a broadcast"},
        {{.data = (const void *)16, .dims = 2, .size = {100, 1}, .stride = {-4, 0}}, "address space"},
        {{.data = (const void *)(UINTPTR_MAX - 8), .dims = 2, .size = {100, 1}}, "address space"},
        {{.data = (const char *)f + 2, .dims = 2, .size = {2, 2}, .memory = KS_VIEWER_DEVICE}, "aligned"},
        {{.data = f, .dims = 2, .size = {2, 2}, .stride = {6, 12}, .memory = KS_VIEWER_DEVICE}, "aligned"},
        {{.data = f, .dims = 3, .size = {2, 2, 2}, .stride = {8, 16, 2}, .dtype = KS_VIEWER_F64,
          .memory = KS_VIEWER_DEVICE},
         "aligned"},
    };
    for (size_t i = 0; i < sizeof reach / sizeof reach[0]; ++i) {
        assert_int_equal(ks_viewer_show(v, &reach[i].f), KS_VIEWER_EINVALID);
        if (!strstr(ks_viewer_last_error(), reach[i].words))
            fail_msg("case %zu: '%s' does not say '%s'", i, ks_viewer_last_error(), reach[i].words);
        assert_null(strchr(ks_viewer_last_error(), '\n'));
    }
    /* device memory: refused by a build without CUDA, and where there is no GPU (a GPU test shows it working) */
    const ks_viewer_field on_device = {.data = f, .dims = 2, .size = {2, 2}, .memory = KS_VIEWER_DEVICE};
    if (!KS_HAVE_CUDA) {
        assert_int_equal(ks_viewer_show(v, &on_device), KS_VIEWER_EUNSUPPORTED);
        assert_non_null(strstr(ks_viewer_last_error(), "without CUDA"));
    } else if (!ks_test_have_cuda()) {
        assert_int_equal(ks_viewer_show(v, &on_device), KS_VIEWER_ECUDA);
        assert_non_null(strstr(ks_viewer_last_error(), "cudaGetDevice"));
    }
    assert_int_equal(ks_viewer_show(v, NULL), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_show(NULL, &(ks_viewer_field){.data = f, .dims = 2, .size = {2, 2}}), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_value(v, "", 1.0), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_value(v, NULL, 1.0), KS_VIEWER_EINVALID);
    char name[16];
    for (int i = 0; i < 8; ++i) {
        snprintf(name, sizeof name, "s%d", i);
        assert_int_equal(ks_viewer_value(v, name, i), 0);
    }
    assert_int_equal(ks_viewer_value(v, "one more", 1.0), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_value(v, "s3", 1.0), 0); /* a known one goes on */
    assert_int_equal(ks_viewer_stage_ms(v, "", 1.0), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_stage_ms(v, "a", -1.0), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_stage(v, "a", NULL, NULL), KS_VIEWER_EINVALID); /* events: test_viewer_gpu */
    assert_int_equal(ks_viewer_stage(NULL, "a", NULL, NULL), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_stage_ms(v, "a", NAN), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_stage_ms(NULL, "a", 1.0), KS_VIEWER_EINVALID);
    for (int i = 0; i < 16; ++i) {
        snprintf(name, sizeof name, "stage%d", i);
        assert_int_equal(ks_viewer_stage_ms(v, name, 1.0), 0);
    }
    assert_int_equal(ks_viewer_stage_ms(v, "one more", 1.0), KS_VIEWER_EINVALID);
    assert_non_null(strstr(ks_viewer_last_error(), "at most 16 stages"));
    assert_int_equal(ks_viewer_show(v, &(ks_viewer_field){.data = f, .dims = 2, .size = {2, 2}}), 0);
    assert_int_equal(ks_viewer_save(v, "/nonexistent-folder/x.png", NULL, NULL), KS_VIEWER_EIO);
    assert_int_equal(ks_viewer_save(v, "", NULL, NULL), KS_VIEWER_EINVALID);
    assert_int_equal(ks_viewer_poll(v, NULL), KS_VIEWER_EINVALID);
    assert_string_equal(ks_viewer_url(NULL), "");
    ks_viewer_destroy(v);
    ks_viewer_destroy(NULL);
}

/* record: the pictures as an H.264 video, renamed into place by ks_viewer_close;
 * a bad name or folder refused at create. ffprobe reads the file back. */
static void test_record(void **state)
{
    (void)state;
    char path[512], cmd[1200];
    ks_viewer *v = NULL;
    snprintf(path, sizeof path, "%s/run.mp4", dir);
    if (ks_viewer_create(&(ks_viewer_desc){.record = path}, &v) == KS_VIEWER_EINVALID &&
        strstr(ks_viewer_last_error(), "without video")) {
        skip(); /* a build without FFmpeg's libraries (-DKS_VIDEO=OFF): record is refused in one line */
    }
    ks_viewer_destroy(v);
    v = NULL;
    snprintf(path, sizeof path, "%s/nope/run.mp4", dir); /* a folder that is not there: not writable */
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.record = path}, &v), KS_VIEWER_EIO);
    snprintf(path, sizeof path, "%s/run.avi", dir);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.record = path}, &v), KS_VIEWER_EINVALID);
    assert_non_null(strstr(ks_viewer_last_error(), "record"));
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.record_fps = 500}, &v), KS_VIEWER_EINVALID);
    snprintf(path, sizeof path, "%s/run.mp4", dir);
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.record = path, .record_fps = 25, .range = {0, 100}}, &v), 0);
    static float f[48 * 32];
    for (int it = 0; it < 30; ++it) {
        for (int i = 0; i < 48 * 32; ++i) f[i] = (float)((i + it) % 100);
        assert_int_equal(ks_viewer_show(v, &(ks_viewer_field){.data = f, .dims = 2, .size = {48, 32}}), 0);
        ks_test_sleep_ms(10); /* a solver's step: the video is real time, 25 frames a second */
    }
    const int st = ks_viewer_close(v);
    if (st != 0) fail_msg("%s", ks_viewer_last_error());
    FILE *probe = NULL;
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=codec_name,width,height,"
             "nb_read_frames -of csv=p=0 '%s' 2>&1", path);
    if (system("command -v ffprobe >/dev/null 2>&1") != 0) return; /* no ffprobe: the file's presence alone */
    probe = popen(cmd, "r");
    assert_non_null(probe);
    char line[256] = "";
    assert_non_null(fgets(line, sizeof line, probe));
    pclose(probe);
    char codec[32] = "";
    int w = 0, h = 0, frames = 0;
    assert_int_equal(sscanf(line, "%31[^,],%d,%d,%d", codec, &w, &h, &frames), 4);
    assert_string_equal(codec, "h264");
    assert_int_equal(w, 48);
    assert_int_equal(h, 32);
    assert_true(frames >= 1); /* on a machine loaded enough, every field shown may have merged into one picture */
    fprintf(stderr, "record: %s", line);
}

/* Viewers are independent: two of them shown from two threads at once. */
static void *show_many(void *arg)
{
    ks_viewer *v = arg;
    static _Thread_local float f[64 * 64];
    for (int it = 0; it < 200; ++it) {
        for (int i = 0; i < 64 * 64; ++i) f[i] = (float)(i + it);
        if (ks_viewer_show(v, &(ks_viewer_field){.data = f, .dims = 2, .size = {64, 64}}) != 0) return (void *)1;
        if (ks_viewer_value(v, "it", it) != 0) return (void *)1;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    ks_viewer *a = NULL, *b = NULL;
    assert_int_equal(ks_viewer_create(NULL, &a), 0);
    assert_int_equal(ks_viewer_create(NULL, &b), 0);
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, show_many, a), 0);
    assert_int_equal(pthread_create(&tb, NULL, show_many, b), 0);
    void *ra, *rb;
    pthread_join(ta, &ra);
    pthread_join(tb, &rb);
    assert_null(ra);
    assert_null(rb);
    char path[512];
    snprintf(path, sizeof path, "%s/thread.png", dir);
    assert_int_equal(ks_viewer_save(a, path, NULL, NULL), 0);
    ks_viewer_destroy(a);
    ks_viewer_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_picture_dtypes), cmocka_unit_test(test_strides_and_slices),
        cmocka_unit_test(test_downsampled),    cmocka_unit_test(test_broadcast_negative_unaligned),
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_bad_arguments),  cmocka_unit_test(test_threads), cmocka_unit_test(test_record),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
