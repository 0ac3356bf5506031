/* The difference view's picture (kernels/laplace/laplace.h), on the CPU: the
 * colour of each value (exactly 0 a grey of its own, the range 0..max over
 * the map, +inf at its top), a pixel over several cells showing their largest
 * value, the summary of a slice, and a view that does not cover the slice
 * refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "base/cellmap.h"
#include "base/colormap.h"
#include "kernels/laplace/laplace.h"

static const unsigned char zero_rgba[4] = KS_DIFF_ZERO_RGBA;

static void colour(float v, float max, unsigned char out[4]) { ks_diff_color(v, max, out); }

/* The map's entry e, as the picture uses it. */
static const unsigned char *entry(int e)
{
    static unsigned char table[256][4];
    ks_colormap_table_rgba(KS_DIFF_CMAP, table);
    return table[e];
}

static void test_colours(void **state)
{
    (void)state;
    unsigned char c[4];
    colour(0.0f, 0.25f, c);
    assert_memory_equal(c, zero_rgba, 4);
    colour(-0.0f, 0.25f, c); /* -0 == 0 */
    assert_memory_equal(c, zero_rgba, 4);
    colour(0.25f, 0.25f, c); /* the max: the top of the map */
    assert_memory_equal(c, entry(255), 4);
    colour(INFINITY, 0.25f, c); /* never written */
    assert_memory_equal(c, entry(255), 4);
    colour(1.0f, 0.25f, c); /* above the range: the top */
    assert_memory_equal(c, entry(255), 4);
    colour(0.125f, 0.25f, c); /* the middle: ks_colormap_index's rounding */
    assert_memory_equal(c, entry(128), 4);
    colour(1e-30f, 0.25f, c); /* however small, not zero: never the zero colour */
    assert_memory_equal(c, entry(0), 4);
    colour(3e-8f, 0.0f, c); /* no range (every finite value 0): anything not 0 at the top */
    assert_memory_equal(c, entry(255), 4);
    /* the zero grey is no colour of the map, so a picture never mixes them up */
    for (int e = 0; e < 256; ++e)
        if (memcmp(entry(e), zero_rgba, 3) == 0) fail_msg("entry %d is the zero colour", e);
}

static ks_cellmap map(int cells_x, int cells_y, int px, int py)
{
    /* the whole grid over px x py pixels (whole cells per pixel here) */
    ks_cellmap m;
    m.x = (ks_cellmap_axis){KS_CELLMAP_ONE * cells_x / px, 0, cells_x, px};
    m.y = (ks_cellmap_axis){KS_CELLMAP_ONE * cells_y / py, 0, cells_y, py};
    return m;
}

/* One wrong cell in an 8 x 4 slice: one pixel a cell shows it alone; 2 x 2
 * cells a pixel show it at full strength (the largest, not the mean). */
static void test_picture(void **state)
{
    (void)state;
    enum { W = 8, H = 4 };
    float d[W * H] = {0};
    d[7 + 2 * W] = 0.5f;  /* the last column, row 2 */
    d[1 + 0 * W] = 0.125f;
    unsigned char pic[W * H * 4];
    ks_cellmap m = map(W, H, W, H);
    assert_int_equal(ks_laplace_diff_render_view(d, W, H, &m, 0.5f, pic), KS_OK);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const unsigned char *p = pic + (y * W + x) * 4;
            const unsigned char *want = x == 7 && y == 2 ? entry(255) : x == 1 && y == 0 ? entry(64) : zero_rgba;
            if (memcmp(p, want, 4) != 0) fail_msg("pixel (%d, %d): %d %d %d", x, y, p[0], p[1], p[2]);
        }
    unsigned char small[4 * 2 * 4];
    m = map(W, H, 4, 2); /* zoomed out: 2 x 2 cells a pixel */
    assert_int_equal(ks_laplace_diff_render_view(d, W, H, &m, 0.5f, small), KS_OK);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x) {
            const unsigned char *p = small + (y * 4 + x) * 4;
            /* a mean would give 0.125 (entry 64) for the pixel over (6..7, 2..3) */
            const unsigned char *want = x == 3 && y == 1 ? entry(255) : x == 0 && y == 0 ? entry(64) : zero_rgba;
            if (memcmp(p, want, 4) != 0) fail_msg("zoomed-out pixel (%d, %d): %d %d %d", x, y, p[0], p[1], p[2]);
        }
    /* a view of another slice's cells, or no values: refused, nothing drawn */
    m = map(W + 1, H, W + 1, H);
    assert_int_equal(ks_laplace_diff_render_view(d, W, H, &m, 0.5f, pic), KS_ERR_INVALID);
    m = map(W, H, W, H);
    assert_int_equal(ks_laplace_diff_render_view(NULL, W, H, &m, 0.5f, pic), KS_ERR_INVALID);
}

static void test_stats(void **state)
{
    (void)state;
    const float d[6] = {0.0f, 0.25f, INFINITY, 1e-7f, 0.0f, INFINITY};
    ks_diff_stats st;
    ks_diff_summarize(d, 6, &st);
    assert_true(st.max == 0.25f); /* the largest finite value */
    assert_int_equal(st.nonzero, 4);
    assert_int_equal(st.unwritten, 2);
    ks_diff_summarize(d, 1, &st);
    assert_true(st.max == 0.0f);
    assert_int_equal(st.nonzero, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colours),
        cmocka_unit_test(test_picture),
        cmocka_unit_test(test_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
