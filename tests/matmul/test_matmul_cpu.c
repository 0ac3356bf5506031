/* Matmul CPU side: the gold against a reference derived from the formula (each
 * element computed on its own, in double, from i, j, k), the inputs' fill, size
 * parsing, the DRAM model, the CPU pictures (the default by finish time, a hovered
 * tile's bands), the bench CSV writer, and bad
 * --size / --tile values reaching the binary (one line, exit 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "base/diff_colour.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_draw.h"
#include "kernels/matmul/matmul_bench.h"
#include "kernels/matmul/matmul_tiles.h"
#include "base/colormap.h"
#include "tests/test_util.h"

/* stb_image declares static functions it never defines (unused here): -Wunused-function is
 * reported at the end of the file, after any pop, so it stays off for this file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wshadow"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#pragma GCC diagnostic pop

/* The formula, written out again here on purpose (not the library's). */
static double ref_a(int i, int k, int K) { return (double)((((long long)i * K + k) % 17) - 8) / 8.0; }
static double ref_b(int k, int j, int N) { return (double)((((long long)k * N + j) % 13) - 6) / 4.0; }

static void check_gold(int M, int N, int K)
{
    const ks_matmul_size s = {M, N, K};
    float *a = malloc((size_t)M * K * 4), *b = malloc((size_t)K * N * 4), *c = malloc((size_t)M * N * 4);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    ks_matmul_fill(&s, a, b);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            assert_true(a[(size_t)i * K + k] == (float)ref_a(i, k, K));
            assert_true(ks_matmul_a(&s, i, k) == (float)ref_a(i, k, K));
        }
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) {
            assert_true(b[(size_t)k * N + j] == (float)ref_b(k, j, N));
            assert_true(ks_matmul_b(&s, k, j) == (float)ref_b(k, j, N));
        }
    for (size_t e = 0; e < (size_t)M * N; ++e) c[e] = NAN;
    ks_matmul_gold(&s, a, b, c);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double sum = 0.0;
            for (int k = 0; k < K; ++k) sum += ref_a(i, k, K) * ref_b(k, j, N);
            /* exact: a multiple of 1/32 far below 2^19, so float holds it */
            assert_true((double)(float)sum == sum);
            if (c[(size_t)i * N + j] != (float)sum)
                fail_msg("%dx%dx%d: C[%d][%d] = %.9g, want %.9g", M, N, K, i, j, (double)c[(size_t)i * N + j], sum);
        }
    assert_int_equal(ks_matmul_first_diff(c, c, (size_t)M * N), -1);
    /* tile by tile, any tile side: the same C bit for bit, and every tile recorded */
    const int sides[] = {1, 7, 16, 64};
    float *ct = malloc((size_t)M * N * 4);
    assert_non_null(ct);
    for (size_t q = 0; q < sizeof sides / sizeof *sides; ++q) {
        int tx, ty;
        ks_matmul_tile_grid(&s, (ks_matmul_tile){sides[q], sides[q]}, &tx, &ty);
        assert_int_equal(tx, (N + sides[q] - 1) / sides[q]);
        assert_int_equal(ty, (M + sides[q] - 1) / sides[q]);
        ks_matmul_tile_rec *rec = calloc((size_t)tx * ty, sizeof *rec);
        assert_non_null(rec);
        for (size_t e = 0; e < (size_t)M * N; ++e) ct[e] = NAN;
        const double t0 = ks_now_seconds() * 1e9;
        ks_matmul_gold_tiles(&s, a, b, ct, sides[q], rec);
        const double t1 = ks_now_seconds() * 1e9;
        assert_int_equal(ks_matmul_first_diff(c, ct, (size_t)M * N), -1);
        for (int r = 0; r < tx * ty; ++r) {
            assert_int_equal(rec[r].done, 1);
            assert_true(rec[r].unit < 1024);
            /* the same monotonic clock, to a microsecond of double rounding */
            assert_true((double)rec[r].t_ns >= t0 - 1e3 && (double)rec[r].t_ns <= t1 + 1e3);
        }
        ks_matmul_gold_tiles(&s, a, b, ct, sides[q], NULL); /* no records: allowed */
        assert_int_equal(ks_matmul_first_diff(c, ct, (size_t)M * N), -1);
        free(rec);
    }
    free(ct);
    free(a);
    free(b);
    free(c);
}

static void test_gold_exact(void **state)
{
    (void)state;
    check_gold(1, 1, 1);
    check_gold(17, 33, 9);
    check_gold(64, 48, 80);
    check_gold(3, 1, 200);
}

static void test_first_diff(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 0.0f}, y[4] = {1, 2, 3, -0.0f};
    assert_int_equal(ks_matmul_first_diff(x, y, 4), 3); /* bit for bit: -0 is not +0 */
    y[3] = 0.0f;
    y[1] = NAN;
    assert_int_equal(ks_matmul_first_diff(x, y, 4), 1);
}

static void test_size_parse(void **state)
{
    (void)state;
    ks_matmul_size s;
    assert_int_equal(ks_matmul_size_parse("2048", &s), 0);
    assert_true(s.m == 2048 && s.n == 2048 && s.k == 2048);
    assert_int_equal(ks_matmul_size_parse("17x33x9", &s), 0);
    assert_true(s.m == 17 && s.n == 33 && s.k == 9);
    assert_int_equal(ks_matmul_size_parse("1", &s), 0);
    const char *bad[] = {"0", "", "x", "17x33", "1x2x3x4", "17x33x", "x17", "65537", "-4", "4 ", "1e3", "17xx3"};
    for (size_t q = 0; q < sizeof bad / sizeof *bad; ++q)
        if (ks_matmul_size_parse(bad[q], &s) == 0) fail_msg("'%s' parsed", bad[q]);
    s = (ks_matmul_size){65536, 65536, 65536};
    assert_int_equal(ks_matmul_size_check(&s), KS_ERR_INVALID);
    s = (ks_matmul_size){8192, 8192, 8192};
    assert_int_equal(ks_matmul_size_check(&s), KS_OK);
}

static void test_model(void **state)
{
    (void)state;
    const ks_matmul_size s = {1024, 1024, 1024};
    const double mnk = 1024.0 * 1024 * 1024, c = 4.0 * 1024 * 1024;
    assert_true(ks_matmul_model_bytes(KS_MATMUL_NAIVE, (ks_matmul_tile){16, 16}, &s) == 8.0 * mnk + c);
    assert_true(ks_matmul_model_bytes(KS_MATMUL_TILED, (ks_matmul_tile){32, 32}, &s) == 8.0 * mnk / 32 + c);
    /* a 128x256 tile: A once per 256-wide column band, B once per 128-tall row band */
    assert_true(ks_matmul_model_bytes(KS_MATMUL_REGTILE, (ks_matmul_tile){128, 256}, &s) == 4.0 * mnk * (3.0 / 256) + c);
    assert_true(ks_matmul_model_bytes(KS_MATMUL_CUBLAS, (ks_matmul_tile){0, 0}, &s) == 8.0 * mnk / 128 + c);
    ks_matmul_tile t = ks_matmul_block_tile(KS_MATMUL_TILED, 8, 0);
    assert_true(t.m == 8 && t.n == 8);
    t = ks_matmul_block_tile(KS_MATMUL_REGTILE, 8, ks_matmul_rt_find("128x256x16/64x64/8x16"));
    assert_true(t.m == 128 && t.n == 256);
    t = ks_matmul_block_tile(KS_MATMUL_CUBLAS, 0, 0);
    assert_true(t.m == 0 && t.n == 0);
    ks_matmul_variant v;
    assert_int_equal(ks_matmul_variant_parse("regtile", &v), 0);
    assert_int_equal(v, KS_MATMUL_REGTILE);
    assert_int_equal(ks_matmul_variant_parse("gold", &v), -1);
}

static void test_picture(void **state)
{
    (void)state;
    int w, h;
    ks_matmul_size s = {17, 33, 9};
    ks_matmul_picture_size(&s, 1024, &w, &h);
    assert_int_equal(w, 33 * 31);
    assert_int_equal(h, 17 * 31);
    s = (ks_matmul_size){8192, 4096, 8};
    ks_matmul_picture_size(&s, 1024, &w, &h);
    assert_int_equal(w, 512);
    assert_int_equal(h, 1024);
    /* 4x4 C of rows 0,1,2,3 drawn 2x2: means 0.5 and 2.5; grid 2: a line through the middle */
    s = (ks_matmul_size){4, 4, 1};
    float c[16];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) c[i * 4 + j] = (float)i;
    unsigned char lut[256][4], px[2 * 2 * 4];
    for (int e = 0; e < 256; ++e) lut[e][0] = lut[e][1] = lut[e][2] = (unsigned char)e, lut[e][3] = 255;
    ks_matmul_draw_cpu(&s, c, 2, 2, lut, 0.0f, 3.0f, (ks_matmul_tile){0, 0}, px);
    /* rows bottom-up: pixel row 1 shows C rows 0-1 (mean 0.5), row 0 rows 2-3 (mean 2.5) */
    assert_int_equal(px[4 * 2], ks_colormap_index(0.5f, 0.0f, 1.0f / 3.0f));
    assert_int_equal(px[0], ks_colormap_index(2.5f, 0.0f, 1.0f / 3.0f));
    /* enlarged 8x8 with grid 2: lines at cells 2 (pixels 4) only, once each */
    unsigned char big[8 * 8 * 4];
    ks_matmul_draw_cpu(&s, c, 8, 8, lut, 0.0f, 3.0f, (ks_matmul_tile){2, 2}, big);
    int white_cols = 0;
    for (int x = 0; x < 8; ++x) {
        int all = 1;
        for (int y = 0; y < 8; ++y) all &= big[4 * (y * 8 + x)] == 255 && big[4 * (y * 8 + x) + 1] == 255;
        white_cols += all;
    }
    assert_int_equal(white_cols, 1);
}

/* The difference view's picture: a 6x4 C (diff at i + j * M) drawn 2x2, each pixel
 * a 3x2 block of elements; the largest of a block shows, however small the rest. */
static void test_diff_picture(void **state)
{
    (void)state;
    const ks_matmul_size s = {6, 4, 1};
    float d[24] = {0};
    d[4 + 3 * 6] = 2.0f;      /* C[4][3]: bottom-right pixel (rows bottom-up: row 0 is C rows 3..5) */
    d[1 + 0 * 6] = INFINITY; /* C[1][0]: top-left, left unwritten */
    d[0 + 2 * 6] = 0.5f;      /* C[0][2]: top-right, a quarter of the range */
    unsigned char px[2 * 2 * 4], want[4];
    ks_matmul_draw_diff_cpu(&s, d, 2, 2, 2.0f, px);
    ks_diff_color(INFINITY, 2.0f, want);
    assert_memory_equal(px + 4 * 2, want, 4); /* top-left: pixel (0, 1) */
    ks_diff_color(0.5f, 2.0f, want);
    assert_memory_equal(px + 4 * 3, want, 4); /* top-right */
    ks_diff_color(2.0f, 2.0f, want);
    assert_memory_equal(px + 4 * 1, want, 4); /* bottom-right */
    const unsigned char grey[4] = KS_DIFF_ZERO_RGBA;
    assert_memory_equal(px, grey, 4); /* bottom-left: all exactly 0 */
    /* the NaN rule of the values: one side unwritten is +inf, both or equal infinities 0 */
    assert_true(isinf(ks_diff_value(NAN, 1.0f)) && isinf(ks_diff_value(1.0f, NAN)));
    assert_true(ks_diff_value(NAN, NAN) == 0.0f && ks_diff_value(INFINITY, INFINITY) == 0.0f);
    assert_true(ks_diff_value(1.0f, 3.5f) == 2.5f);
}

/* The tile picture on made-up records: 5x7 C in tiles of 2 (3 across, 3 down), drawn 1:1
 * (no edges) and 6:1 (edges). */
static void test_tile_picture(void **state)
{
    (void)state;
    const ks_matmul_size s = {5, 7, 3};
    const ks_matmul_tile two = {2, 2};
    int tx, ty;
    ks_matmul_tile_grid(&s, two, &tx, &ty);
    assert_int_equal(tx, 4);
    assert_int_equal(ty, 3);
    ks_matmul_tile_rec rec[12];
    memset(rec, 0, sizeof rec);
    for (int r = 0; r < 12; ++r) {
        rec[r].unit = (unsigned)(r * 37 + 300); /* past 255: the palette wraps */
        rec[r].done = r != 5;                   /* tile (1, 1) has no record */
        rec[r].t_ns = 1000000ull + 1000ull * (unsigned long long)r;
    }
    unsigned long long first, last;
    ks_matmul_tile_span(rec, 12, &first, &last);
    assert_true(first == 1000000ull && last == 1011000ull);
    unsigned char pal[256][4], lut[256][4];
    ks_matmul_unit_palette(pal);
    ks_colormap_table_rgba(KS_CMAP_VIRIDIS, lut);
    /* neighbouring units get clearly different colours */
    for (int u = 0; u < 255; ++u) {
        const int d = abs(pal[u][0] - pal[u + 1][0]) + abs(pal[u][1] - pal[u + 1][1]) + abs(pal[u][2] - pal[u + 1][2]);
        if (d < 60) fail_msg("palette %d and %d are too alike (%d)", u, u + 1, d);
        assert_int_equal(pal[u][3], 255);
    }
    unsigned char px[7 * 5 * 4];
    const unsigned char gray[4] = {96, 96, 96, 255};
    for (int pic = KS_MATMUL_PIC_UNIT; pic <= KS_MATMUL_PIC_TIME; ++pic) {
        ks_matmul_draw_tiles_cpu(&s, two, rec, (ks_matmul_picture)pic, pal, lut, first, last, 7, 5, px);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 7; ++j) {
                const int r = i / 2 * 4 + j / 2;
                const unsigned char *got = px + 4 * ((size_t)(4 - i) * 7 + j); /* rows bottom-up */
                const unsigned char *want = !rec[r].done ? gray
                                            : pic == KS_MATMUL_PIC_UNIT ? pal[rec[r].unit % 256]
                                                                        : lut[ks_colormap_index((float)(r * 1000), 0.0f, 1.0f / 11000.0f)];
                if (memcmp(got, want, 4) != 0) fail_msg("picture %d: C[%d][%d] (tile %d) has the wrong colour", pic, i, j, r);
            }
    }
    /* time: the first tile is the colormap's first entry, the last tile its last */
    ks_matmul_draw_tiles_cpu(&s, two, rec, KS_MATMUL_PIC_TIME, pal, lut, first, last, 7, 5, px);
    assert_memory_equal(px + 4 * (4 * 7 + 0), lut[0], 4);
    assert_memory_equal(px + 4 * (0 * 7 + 6), lut[255], 4);
    /* 6 pixels a cell: 12 a tile, so edges are drawn, dark, on tile boundaries only */
    enum { W = 42, H = 30 };
    unsigned char *big = malloc((size_t)W * H * 4);
    assert_non_null(big);
    ks_matmul_draw_tiles_cpu(&s, two, rec, KS_MATMUL_PIC_UNIT, pal, lut, first, last, W, H, big);
    const unsigned char dark[4] = {20, 20, 20, 255};
    assert_memory_equal(big + 4 * ((size_t)(H - 1) * W + 12), dark, 4);  /* top row, x = 12: column 2 starts */
    assert_memory_equal(big + 4 * ((size_t)(H - 1) * W + 11), pal[rec[0].unit % 256], 4);
    assert_memory_equal(big + 4 * ((size_t)(H - 1 - 12) * W + 1), dark, 4); /* row 2 of C starts at y 12 */
    assert_memory_equal(big + 4 * ((size_t)(H - 1 - 13) * W + 1), pal[rec[4].unit % 256], 4);
    /* a tile narrower than KS_MATMUL_TILE_EDGE_PX pixels: no edges */
    ks_matmul_draw_tiles_cpu(&s, two, rec, KS_MATMUL_PIC_UNIT, pal, lut, first, last, 14, 10, big);
    for (size_t e = 0; e < (size_t)14 * 10; ++e) assert_memory_not_equal(big + 4 * e, dark, 4);
    free(big);
    /* one record only: the span is empty, every tile the colormap's first entry */
    ks_matmul_tile_span(rec, 1, &first, &last);
    assert_true(first == last);
    ks_matmul_draw_tiles_cpu(&s, two, rec, KS_MATMUL_PIC_TIME, pal, lut, first, last, 7, 5, px);
    assert_memory_equal(px + 4 * (4 * 7 + 0), lut[0], 4);
    assert_int_equal(strcmp(ks_matmul_picture_name(KS_MATMUL_PIC_TIME), "finish time"), 0);
}

/* The hovered tile's bands: 5x7 C in tiles of 2, drawn 6 pixels a cell (42x30) in one colour;
 * C[3][4] is in tile (1, 2): rows 2..3, columns 4..5. */
static void test_bands(void **state)
{
    (void)state;
    const ks_matmul_size s = {5, 7, 3};
    ks_matmul_band b;
    const ks_matmul_tile two = {2, 2};
    ks_matmul_band_of(&s, two, 3, 4, &b);
    assert_true(b.i0 == 2 && b.i1 == 4 && b.j0 == 4 && b.j1 == 6);
    ks_matmul_band_of(&s, two, 4, 6, &b); /* the last tile is cut short by C's edge */
    assert_true(b.i0 == 4 && b.i1 == 5 && b.j0 == 6 && b.j1 == 7);
    /* a tile of 2 rows by 3 columns (regtile's are wider than tall): C[3][4] is in rows 2..3, columns 3..5 */
    ks_matmul_band_of(&s, (ks_matmul_tile){2, 3}, 3, 4, &b);
    assert_true(b.i0 == 2 && b.i1 == 4 && b.j0 == 3 && b.j1 == 6);
    enum { W = 42, H = 30 };
    unsigned char px[W * H * 4];
    for (int e = 0; e < W * H; ++e) px[4 * e] = 200, px[4 * e + 1] = 100, px[4 * e + 2] = 50, px[4 * e + 3] = 255;
    ks_matmul_band_of(&s, two, 3, 4, &b);
    ks_matmul_shade_bands_cpu(&s, &b, W, H, px);
    /* the pixel at C's cell (i, j), 6 pixels a cell, rows bottom-up; (dy, dx) inside the cell */
#define AT(i, j, dy, dx) (px + 4 * ((size_t)(H - 1 - ((i) * 6 + (dy))) * W + (size_t)((j) * 6 + (dx))))
    const unsigned char kept[4] = {200, 100, 50, 255}, white[4] = {255, 255, 255, 255};
    const unsigned char dim[4] = {200 * KS_MATMUL_BAND_DIM >> 8, 100 * KS_MATMUL_BAND_DIM >> 8,
                                  50 * KS_MATMUL_BAND_DIM >> 8, 255};
    assert_memory_equal(AT(0, 0, 3, 3), dim, 4);   /* in neither band */
    assert_memory_equal(AT(4, 6, 3, 3), dim, 4);
    assert_memory_equal(AT(2, 0, 3, 3), kept, 4);  /* the row band: where A's rows 2..3 enter */
    assert_memory_equal(AT(3, 6, 5, 5), kept, 4);
    assert_memory_equal(AT(0, 4, 0, 0), kept, 4);  /* the column band: B's columns 4..5 */
    assert_memory_equal(AT(4, 5, 5, 5), kept, 4);
    assert_memory_equal(AT(2, 4, 0, 0), white, 4); /* the tile's outline: its first and last pixels */
    assert_memory_equal(AT(3, 5, 5, 5), white, 4);
    assert_memory_equal(AT(2, 5, 0, 3), white, 4);
    assert_memory_equal(AT(3, 4, 3, 0), white, 4);
    assert_memory_equal(AT(2, 4, 3, 3), kept, 4);  /* inside the tile: as drawn */
    assert_memory_equal(AT(3, 5, 1, 1), kept, 4);
#undef AT
    /* shrunk to 3x2 pixels: each pixel covers several cells; none is left as drawn outside the bands */
    unsigned char small[3 * 2 * 4];
    memset(small, 128, sizeof small);
    ks_matmul_shade_bands_cpu(&s, &b, 3, 2, small);
    int lit = 0;
    for (int e = 0; e < 6; ++e) lit += small[4 * e] == 255;
    assert_true(lit >= 1);
}

/* What a saved picture holds: its distinct RGB colours (up to 4096 counted), whether the
 * colormap's first and last entries are among them (the time picture's first and last tile;
 * the values picture's least and greatest element), and whether every colour is a unit's
 * palette entry or a tile edge (the SM / thread picture). */
typedef struct pic_facts {
    int w, h, colours, ends, units_only;
} pic_facts;

static int same_rgb(const unsigned char *a, const unsigned char *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static pic_facts picture_facts(const char *path)
{
    pic_facts f = {0};
    int n = 0;
    unsigned char *px = stbi_load(path, &f.w, &f.h, &n, 4);
    if (!px) fail_msg("cannot read %s", path);
    unsigned char lut[256][4], pal[256][4];
    ks_colormap_table_rgba(KS_CMAP_VIRIDIS, lut);
    ks_matmul_unit_palette(pal);
    static const unsigned char edge[4] = {20, 20, 20, 255};
    static unsigned seen[4096];
    int first = 0, last = 0;
    f.units_only = 1;
    for (size_t e = 0; e < (size_t)f.w * f.h; ++e) {
        const unsigned char *c = px + 4 * e;
        const unsigned rgb = (unsigned)c[0] << 16 | (unsigned)c[1] << 8 | c[2];
        int known = 0;
        for (int k = 0; k < f.colours && !known; ++k) known = seen[k] == rgb;
        if (known) continue;
        if (f.colours < 4096) seen[f.colours++] = rgb;
        first |= same_rgb(c, lut[0]);
        last |= same_rgb(c, lut[255]);
        int unit = same_rgb(c, edge);
        for (int u = 0; u < 256 && !unit; ++u) unit = same_rgb(c, pal[u]);
        f.units_only &= unit;
    }
    f.ends = first && last;
    stbi_image_free(px);
    return f;
}

/* The live scene on the CPU backend draws each picture; C stays the gold's. Without --picture
 * it shows the tiles by finish time: a few flat tiles (130x70 in 64-wide tiles: 3 x 2), the
 * first in the colormap's first colour, the last in its last, where C's values have many
 * colours and the SM / thread picture only the threads' colours: as many as threads computed
 * tiles, which depends on the machine's cores (at most the 6 tiles), and the edges. */
static void test_picture_modes(void **state)
{
    (void)state;
    const char *pics[] = {"values", "sm", "time", NULL};
    pic_facts f[4];
    for (size_t q = 0; q < 4; ++q) {
        char dir[512], png[600];
        ks_test_tmpdir(dir, sizeof dir, "matmul_pic");
        const char *argv[] = {NULL, "matmul", "--backend", "cpu", "--headless", "--frames", "2", "--save-every", "2",
                              "--no-overlay", "--size", "130x70x9", "--out", dir, "--picture", pics[q], NULL};
        if (!pics[q]) argv[14] = NULL; /* no --picture: the default */
        ks_run_result r;
        assert_int_equal(ks_test_run(argv, NULL, &r), 0);
        if (r.exit_code != 0)
            fail_msg("--picture %s: exit %d: %s", pics[q] ? pics[q] : "(default)", r.exit_code, r.err);
        snprintf(png, sizeof png, "%s/matmul_000002.png", dir);
        f[q] = picture_facts(png);
        assert_true(f[q].w == 70 * 7 && f[q].h == 130 * 7);
    }
    assert_true(f[0].colours > 16 && f[0].ends && !f[0].units_only); /* values */
    if (!(f[1].colours >= 2 && f[1].colours <= 7 && f[1].units_only)) /* sm: 1 to 6 threads' colours, edges */
        fail_msg("sm: %d colours, units only %d: not the thread picture", f[1].colours, f[1].units_only);
    for (int q = 2; q < 4; ++q) /* time, and the default: one colour a tile (at most 6) and the edges */
        if (!(f[q].colours >= 3 && f[q].colours <= 7 && f[q].ends && !f[q].units_only))
            fail_msg("%s: %d colours, ends %d, units only %d: not the time picture", pics[q] ? pics[q] : "default",
                     f[q].colours, f[q].ends, f[q].units_only);
}

static void test_csv(void **state)
{
    (void)state;
    ks_matmul_bench_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    snprintf(r->device, sizeof r->device, "GPU \"X\"");
    snprintf(r->cc, sizeof r->cc, "7.5");
    r->peak_gflops = 1000.0;
    const ks_timing cold = {.median_ms = 2.0, .min_ms = 1.9, .se_pct = 0.25, .reps = 12, .cache = KS_CACHE_COLD,
                            .working_set_bytes = 192.0, .l2_bytes = 50e6};
    const ks_timing warm = {.median_ms = 4.0, .min_ms = 3.5, .se_pct = -1.0, .reps = 3, .cache = KS_CACHE_WARM};
    r->rows[0] = (ks_matmul_bench_row){.variant = "cublas", .size = {4, 4, 4}, .timing = cold, .ms = 2.0, .gflops = 64.0,
                                       .pct_cublas = 100.0, .pct_peak = 6.4};
    r->rows[1] = (ks_matmul_bench_row){.variant = "tiled", .size = {4, 4, 4}, .tile = 16, .block_tile = {16, 16},
                                       .timing = warm, .ms = 4.0, .gflops = 32.0, .pct_cublas = 50.0, .pct_peak = -1.0};
    r->rows[2] = (ks_matmul_bench_row){.variant = "regtile", .size = {4096, 4096, 4096}, .block_tile = {128, 256},
                                       .config = "128x256x16/64x64/8x16", .timing = warm, .ms = 4.0, .gflops = 32.0,
                                       .pct_cublas = 50.0, .pct_peak = -1.0,
                                       .config_how = "tile 128x256x16 (measured table, H200 at 4096^3)"};
    r->row_n = 3;
    char buf[1024];
    const size_t n = ks_matmul_bench_csv(r, buf, sizeof buf);
    assert_int_equal(n, strlen(buf));
    assert_string_equal(buf, "device,variant,m,n,k,tile,block_tile,config,ms,gflops,pct_cublas,pct_peak,cc,min_ms,cache,reps,"
                             "se_pct,in_l2\n"
                             "\"GPU \"\"X\"\"\",cublas,4,4,4,0,-,,2.000000,64.000,100.00,6.40,7.5,1.900000,cold,12,0.250,1\n"
                             "\"GPU \"\"X\"\"\",tiled,4,4,4,16,16x16,,4.000000,32.000,50.00,n/a,7.5,3.500000,warm,3,,0\n"
                             "\"GPU \"\"X\"\"\",regtile,4096,4096,4096,0,128x256,128x256x16/64x64/8x16,4.000000,32.000,50.00,"
                             "n/a,7.5,3.500000,warm,3,,0\n");
    /* the table names the shape regtile ran and why */
    char table[4096];
    ks_matmul_bench_table(r, table, sizeof table);
    assert_non_null(strstr(table, "regtile at 4096x4096x4096: tile 128x256x16 (measured table, H200 at 4096^3), "
                                  "128x256x16/64x64/8x16"));
    assert_non_null(strstr(table, " cold    12   0.25"));
    char small[8];
    assert_int_equal(ks_matmul_bench_csv(r, small, sizeof small), n); /* length needed past len */
    assert_true(ks_matmul_bench_table(r, NULL, 0) > 0);
    free(r);
}

/* Tiles wider than tall (regtile's 128x256): 5x7 C in tiles of 2 rows by 3 columns (3 across, 3 down). */
static void test_tile_picture_rect(void **state)
{
    (void)state;
    const ks_matmul_size s = {5, 7, 3};
    const ks_matmul_tile bt = {2, 3};
    int tx, ty;
    ks_matmul_tile_grid(&s, bt, &tx, &ty);
    assert_int_equal(tx, 3);
    assert_int_equal(ty, 3);
    ks_matmul_tile_rec rec[9];
    memset(rec, 0, sizeof rec);
    for (int r = 0; r < 9; ++r) {
        rec[r].unit = (unsigned)r;
        rec[r].done = 1;
        rec[r].t_ns = 1000ull * (unsigned long long)r;
    }
    unsigned char pal[256][4], lut[256][4], px[7 * 5 * 4];
    ks_matmul_unit_palette(pal);
    ks_colormap_table_rgba(KS_CMAP_VIRIDIS, lut);
    ks_matmul_draw_tiles_cpu(&s, bt, rec, KS_MATMUL_PIC_UNIT, pal, lut, 0, 8000, 7, 5, px);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) {
            const int r = i / 2 * 3 + j / 3;
            if (memcmp(px + 4 * ((size_t)(4 - i) * 7 + j), pal[r], 4) != 0)
                fail_msg("C[%d][%d] is not drawn as tile %d", i, j, r);
        }
    /* edges at 6 pixels a cell: rows every 12 pixels, columns every 18 */
    enum { W = 42, H = 30 };
    unsigned char *big = malloc((size_t)W * H * 4);
    assert_non_null(big);
    ks_matmul_draw_tiles_cpu(&s, bt, rec, KS_MATMUL_PIC_UNIT, pal, lut, 0, 8000, W, H, big);
    const unsigned char dark[4] = {20, 20, 20, 255};
    assert_memory_equal(big + 4 * ((size_t)(H - 1) * W + 18), dark, 4);      /* column 3 starts at x 18 */
    assert_memory_equal(big + 4 * ((size_t)(H - 1) * W + 12), pal[0], 4);   /* x 12: still tile 0 */
    assert_memory_equal(big + 4 * ((size_t)(H - 1 - 12) * W + 1), dark, 4); /* row 2 at y 12 */
    free(big);
}

static void usage(const char *a, const char *b, const char *c, const char *needle)
{
    /* the live runs are headless; bench takes neither flag */
    const int bench = strcmp(a, "bench") == 0;
    const char *argv[] = {NULL, a, b, c, bench ? NULL : "--headless", "--frames", "1", NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 2) fail_msg("exit %d for %s %s %s; stderr: %s", r.exit_code, a, b, c, r.err);
    if (ks_test_count_lines(r.err) != 1) fail_msg("stderr is not one line: %s", r.err);
    if (!strstr(r.err, needle)) fail_msg("stderr '%s' lacks '%s'", r.err, needle);
}

static void test_bad_input(void **state)
{
    (void)state;
    usage("matmul", "--size", "0", "not a matmul size");
    usage("matmul", "--size", "1x2x3x4", "not a matmul size");
    usage("matmul", "--size", "17x33", "not a matmul size");
    usage("matmul", "--size", "99999", "not a matmul size");
    usage("matmul", "--size", "65536", "too large");
    usage("matmul", "--size", "1024,2048", "one value each for the live view");
    usage("matmul", "--tile", "12", "not a tile size");
    usage("matmul", "--kernel", "fast", "unknown matmul kernel");
    usage("matmul", "--picture", "smid", "not a picture (values, sm, time)");
    usage("spheres", "--tile", "8", "only to the matmul scene");
    usage("bench", "matmul", "--size=4096x0x4", "not a matmul size");
}

/* The live scene on the CPU backend: --dump-field after one frame holds C = the gold. */
static void test_dump_field(void **state)
{
    (void)state;
    char dir[512], path[600];
    ks_test_tmpdir(dir, sizeof dir, "matmul_dump");
    snprintf(path, sizeof path, "%s/c.npy", dir);
    const char *argv[] = {NULL, "matmul", "--backend", "cpu", "--headless", "--frames", "1", "--size", "17x33x9",
                          "--dump-field", path, NULL};
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("exit %d: %s", r.exit_code, r.err);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char head[10];
    assert_int_equal(fread(head, 1, 10, f), 10);
    assert_memory_equal(head, "\x93NUMPY", 6);
    const size_t hlen = (size_t)head[8] | (size_t)head[9] << 8;
    char *header = calloc(1, hlen + 1);
    assert_non_null(header);
    assert_int_equal(fread(header, 1, hlen, f), hlen);
    assert_non_null(strstr(header, "'<f4'"));
    assert_non_null(strstr(header, "(17, 33)"));
    free(header);
    float got[17 * 33], gold[17 * 33], a[17 * 9], b[9 * 33];
    assert_int_equal(fread(got, 4, 17 * 33, f), 17 * 33);
    fclose(f);
    const ks_matmul_size s = {17, 33, 9};
    ks_matmul_fill(&s, a, b);
    ks_matmul_gold(&s, a, b, gold);
    assert_int_equal(ks_matmul_first_diff(gold, got, 17 * 33), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gold_exact), cmocka_unit_test(test_first_diff), cmocka_unit_test(test_size_parse),
        cmocka_unit_test(test_model),      cmocka_unit_test(test_picture), cmocka_unit_test(test_diff_picture),    cmocka_unit_test(test_csv),
        cmocka_unit_test(test_bad_input),  cmocka_unit_test(test_dump_field), cmocka_unit_test(test_tile_picture),
        cmocka_unit_test(test_picture_modes), cmocka_unit_test(test_bands),
        cmocka_unit_test(test_tile_picture_rect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
