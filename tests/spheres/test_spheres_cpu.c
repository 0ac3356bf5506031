/* Sphere scene, CPU side: scene-file parser (valid and every kind of
 * malformed input), generator determinism, the gold renderer against
 * hand-computed pixels, and the gold image against a checked-in reference.
 *
 * KS_WRITE_REFERENCE=1 rewrites the reference PNG (then check it by eye). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/spheres/spheres.h"

/* stb is header-only with static functions: keep its own warnings out of -Werror. */
/* Unused-function warnings for stb's static declarations come at the end of
 * the file, after any pop: that one stays off for this test file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wshadow"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#define REF_PNG KS_TEST_DATA_DIR "/spheres_ref_seed7_320x240.png"
enum { REF_W = 320, REF_H = 240, REF_COUNT = 40, REF_SEED = 7 };

/* ---- parser ---- */

static ks_status parse_str(const char *text, ks_sphere **out, int *n)
{
    return ks_spheres_parse("t.txt", text, strlen(text), out, n);
}

static void test_parse_valid(void **state)
{
    (void)state;
    const char *text = "\xEF\xBB\xBF# a comment line\n"
                       "\n"
                       "   \t  \n"
                       "1 2 3 4 0 0.5 1\n"
                       "-10.5\t20e0  -3e1 1.5e2 1 1 0   # trailing comment, caf\xC3\xA9 \xE2\x9C\x93\r\n"
                       "  0 0 0 0.25 .5 0.25 0.125";
    ks_sphere *s = NULL;
    int n = 0;
    assert_int_equal(parse_str(text, &s, &n), KS_OK);
    assert_int_equal(n, 3);
    assert_true(s[0].x == 1.0f && s[0].y == 2.0f && s[0].z == 3.0f && s[0].radius == 4.0f);
    assert_true(s[0].color[0] == 0.0f && s[0].color[1] == 0.5f && s[0].color[2] == 1.0f);
    assert_true(s[1].x == -10.5f && s[1].y == 20.0f && s[1].z == -30.0f && s[1].radius == 150.0f);
    assert_true(s[2].radius == 0.25f && s[2].color[0] == 0.5f && s[2].color[2] == 0.125f);
    free(s);
}

/* Each case must fail with KS_ERR_PARSE, the message naming t.txt, the line and the fault. */
static void expect_error(const char *text, size_t len, int line, const char *what)
{
    ks_sphere *s = (ks_sphere *)0x1;
    int n = -1;
    ks_error_clear();
    ks_status st = ks_spheres_parse("t.txt", text, len, &s, &n);
    const char *msg = ks_error_message();
    char where[32];
    if (line > 0) snprintf(where, sizeof where, "t.txt:%d:", line);
    else snprintf(where, sizeof where, "t.txt:");
    if (st != KS_ERR_PARSE || !strstr(msg, where) || !strstr(msg, what))
        fail_msg("text %.40s...: status %d, message '%s' (wanted '%s' and '%s')", text, (int)st, msg,
                 where, what);
    assert_null(s); /* nothing comes back from a bad file */
    assert_int_equal(n, 0);
}

static void expect_error_str(const char *text, int line, const char *what)
{
    expect_error(text, strlen(text), line, what);
}

static void test_parse_malformed(void **state)
{
    (void)state;
    const char *good = "0 0 0 10 1 1 1\n";
    char buf[4096];
    /* field count */
    snprintf(buf, sizeof buf, "%s1 2 3 4 0.5 0.5\n", good);
    expect_error_str(buf, 2, "found only 6 fields");
    expect_error_str("# c\n1\n", 2, "found only 1 field");
    expect_error_str("1 2 3 4 0.5 0.5 0.5 9\n", 1, "found 8 fields");
    expect_error_str("1 2 3 4 0.5 0.5 0.5 9 9 9 9 9 9 9\n", 1, "found 14 fields");
    /* not numbers */
    expect_error_str("1 2 z 4 0.5 0.5 0.5\n", 1, "field 3 (z): 'z' is not a number");
    expect_error_str("1 2 3 4px 0.5 0.5 0.5\n", 1, "'4px' is not a number");
    expect_error_str("1,0 2 3 4 0.5 0.5 0.5\n", 1, "not a number");
    expect_error_str("1 2 3 4 0.5 0.5 0.5x\n", 1, "field 7 (b)");
    /* non-finite */
    expect_error_str("nan 2 3 4 0.5 0.5 0.5\n", 1, "'nan' is not a finite number");
    expect_error_str("1 inf 3 4 0.5 0.5 0.5\n", 1, "'inf' is not a finite number");
    expect_error_str("1 2 -Infinity 4 0.5 0.5 0.5\n", 1, "not a finite number");
    expect_error_str("1 2 3 4 NAN 0.5 0.5\n", 1, "not a finite number");
    expect_error_str("1 2 3 1e39 0.5 0.5 0.5\n", 1, "not a finite number"); /* beyond float */
    expect_error_str("1e300 2 3 4 0.5 0.5 0.5\n", 1, "not a finite number");
    expect_error_str("2e6 2 3 4 0.5 0.5 0.5\n", 1, "field 1 (x): 2e+06 is outside");
    /* radius */
    expect_error_str("1 2 3 0 0.5 0.5 0.5\n", 1, "radius): 0 must be greater than 0");
    expect_error_str("1 2 3 -5 0.5 0.5 0.5\n", 1, "radius): -5 must be greater than 0");
    expect_error_str("1 2 3 -0 0.5 0.5 0.5\n", 1, "must be greater than 0");
    expect_error_str("1 2 3 1e-50 0.5 0.5 0.5\n", 1, "must be greater than 0"); /* 0 in float */
    expect_error_str("1 2 3 200000 0.5 0.5 0.5\n", 1, "radius): 200000 is too large");
    /* colour */
    expect_error_str("1 2 3 4 1.5 0.5 0.5\n", 1, "field 5 (colour r): 1.5 is outside 0..1");
    expect_error_str("1 2 3 4 0.5 -0.01 0.5\n", 1, "field 6 (colour g): -0.01 is outside 0..1");
    expect_error_str("1 2 3 4 0.5 0.5 255\n", 1, "field 7 (colour b): 255 is outside 0..1");
    /* line too long (the limit counts bytes before the end of line, comment included) */
    {
        size_t len = 0;
        len += (size_t)snprintf(buf, sizeof buf, "%s1 2 3 4 0.5 0.5 0.5 #", good);
        while (len < (size_t)KS_SPHERES_LINE_MAX + 40) buf[len++] = 'x';
        buf[len++] = '\n';
        expect_error(buf, len, 2, "line is");
        expect_error(buf, len, 2, "bytes long, the limit is 1024");
    }
    /* exactly at the limit is fine */
    {
        size_t len = (size_t)snprintf(buf, sizeof buf, "1 2 3 4 0.5 0.5 0.5 #");
        while (len < (size_t)KS_SPHERES_LINE_MAX) buf[len++] = 'y';
        ks_sphere *s = NULL;
        int n = 0;
        assert_int_equal(ks_spheres_parse("t.txt", buf, len, &s, &n), KS_OK);
        assert_int_equal(n, 1);
        free(s);
    }
    /* invalid UTF-8, anywhere on the line (a comment too) */
    expect_error_str("0 0 0 10 1 1 1 # caf\xE9\n", 1, "invalid UTF-8 (byte 0xE9 at column 21)");
    snprintf(buf, sizeof buf, "%s\xC0\xAF 0 0 10 1 1 1\n", good); /* overlong '/' */
    expect_error_str(buf, 2, "invalid UTF-8");
    expect_error_str("0 0 0 10 1 1 1 # \xED\xA0\x80\n", 1, "invalid UTF-8"); /* surrogate */
    expect_error_str("0 0 0 10 1 1 1 # \xF4\x90\x80\x80\n", 1, "invalid UTF-8"); /* > U+10FFFF */
    expect_error_str("0 0 0 10 1 1 1 # \xE2\x9C\n", 1, "invalid UTF-8");         /* truncated */
    expect_error_str("\xFF\xFE" "0 0 0 10 1 1 1\n", 1, "invalid UTF-8");        /* UTF-16 BOM */
    expect_error("0 0 0 10 1 1 1\n0 0\0 0 10 1 1 1\n", 31, 2, "invalid UTF-8");   /* NUL byte */
    /* the first bad line is the one reported */
    expect_error_str("0 0 0 10 1 1 1\n\n# ok\n0 0 0 10 1 1 1\n0 0 0 10 2 1 1\n0 0 0 -1 1 1 1\n", 5,
                     "colour r");
}

/* The format is exactly the documented one, the limit is checked
 * while reading, and quoted tokens are escaped. */
static void test_parse_strict_format(void **state)
{
    (void)state;
    expect_error_str("0x10 0 0 10 1 1 1\n", 1, "field 1 (x): '0x10' is not a number");
    expect_error_str("0 0 0 0x1p3 1 1 1\n", 1, "'0x1p3' is not a number");
    expect_error_str("0 0 0 \f10 1 1 1\n", 1, "'\\x0c10' is not a number");
    expect_error_str("0 0 0 10\v 1 1 1\n", 1, "'10\\x0b' is not a number");
    expect_error_str("0 0 0 10 1 1 .\n", 1, "'.' is not a number");
    expect_error_str("0 0 0 10 1 1 1e\n", 1, "'1e' is not a number");
    expect_error_str("0 0 0 10 1 1 +-1\n", 1, "'+-1' is not a number");
    /* CR and ESC bytes are shown escaped, never raw */
    expect_error_str("0 0 0 10 1 1 1\r\r\n", 1, "'1\\r' is not a number");
    expect_error_str("0 0 0 10 1 1 \x1b[31mRED\n", 1, "'\\x1b[31mRED' is not a number");
    /* plain decimals in every documented form still parse */
    ks_sphere *sp = NULL;
    int n = 0;
    assert_int_equal(parse_str("-1.5 +2. .5 1e1 0.25E+0 1 0\t# c\n", &sp, &n), KS_OK);
    assert_int_equal(n, 1);
    assert_true(sp[0].x == -1.5f && sp[0].y == 2.0f && sp[0].z == 0.5f && sp[0].radius == 10.0f);
    free(sp);
    /* a file name with control bytes is escaped too */
    ks_error_clear();
    assert_int_equal(ks_spheres_parse("a\x1b.txt", "x", 1, &sp, &n), KS_ERR_PARSE);
    assert_non_null(strstr(ks_error_message(), "a\\x1b.txt:1:"));
    assert_null(strchr(ks_error_message(), '\x1b'));
}

/* KS_SPHERES_MAX spheres load; one more is refused at that line. */
static void test_parse_sphere_limit(void **state)
{
    (void)state;
    assert_int_equal(KS_SPHERES_MAX, 65536);
    const char *line = "0 0 0 10 1 1 1\n";
    const size_t ll = strlen(line), total = (size_t)(KS_SPHERES_MAX + 1) * ll;
    char *text = malloc(total);
    assert_non_null(text);
    for (int k = 0; k <= KS_SPHERES_MAX; ++k) memcpy(text + (size_t)k * ll, line, ll);
    ks_sphere *sp = NULL;
    int n = 0;
    assert_int_equal(ks_spheres_parse("t.txt", text, total - ll, &sp, &n), KS_OK);
    assert_int_equal(n, KS_SPHERES_MAX);
    free(sp);
    char where[64];
    snprintf(where, sizeof where, "t.txt:%d: more than %d spheres", KS_SPHERES_MAX + 1, KS_SPHERES_MAX);
    expect_error(text, total, KS_SPHERES_MAX + 1, where);
    free(text);
}

static void test_parse_empty(void **state)
{
    (void)state;
    expect_error("", 0, 0, "empty file: no spheres");
    expect_error_str("\xEF\xBB\xBF", 0, "empty file");
    expect_error_str("# only a comment\n\n   # another\n\t\n", 0, "no spheres (4 lines");
    expect_error_str("\n", 0, "no spheres");
}

static void test_load_files(void **state)
{
    (void)state;
    const char *names[] = {"spheres_hello.txt", "spheres_helix.txt", "spheres_grid.txt"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        char path[1024];
        snprintf(path, sizeof path, "%s/assets/%s", KS_SOURCE_DIR, names[k]);
        ks_sphere *s = NULL;
        int n = 0;
        if (ks_spheres_load(path, &s, &n) != KS_OK) fail_msg("%s: %s", path, ks_error_message());
        assert_true(n >= 4);
        free(s);
    }
    ks_sphere *s = NULL;
    int n = 0;
    assert_int_equal(ks_spheres_load(KS_SOURCE_DIR "/assets/no-such-scene.txt", &s, &n), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), "no-such-scene.txt"));
    /* a parse error from a file names the file */
    char tmp[] = "/tmp/ks_spheres_bad_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("1 2 3 4 1 1 1\n1 2 3 4 1 1\n", f);
    fclose(f);
    assert_int_equal(ks_spheres_load(tmp, &s, &n), KS_ERR_PARSE);
    char where[64];
    snprintf(where, sizeof where, "%s:2:", tmp);
    assert_non_null(strstr(ks_error_message(), where));
    assert_null(s);
    remove(tmp);
}

/* ---- generator ---- */

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; ++k) h = (h ^ b[k]) * 1099511628211ull;
    return h;
}

static void test_generator(void **state)
{
    (void)state;
    ks_sphere a[100], b[100], c[40];
    ks_spheres_generate(42, 100, 640, 480, a);
    ks_spheres_generate(42, 100, 640, 480, b);
    assert_memory_equal(a, b, sizeof a);
    ks_spheres_generate(42, 40, 640, 480, c); /* a prefix of a larger count */
    assert_memory_equal(a, c, sizeof c);
    ks_spheres_generate(43, 100, 640, 480, b);
    assert_memory_not_equal(a, b, sizeof a);
    for (int k = 0; k < 100; ++k) {
        assert_true(a[k].x >= -320.0f && a[k].x < 320.0f);
        assert_true(a[k].y >= -240.0f && a[k].y < 240.0f);
        assert_true(a[k].z >= -320.0f && a[k].z < 320.0f);
        assert_true(a[k].radius >= 20.0f && a[k].radius < 120.0f);
        for (int c3 = 0; c3 < 3; ++c3) assert_true(a[k].color[c3] >= 0.0f && a[k].color[c3] < 1.0f);
    }
    /* The same seed gives the same spheres on every machine: values pinned. */
    ks_spheres_generate(1, 100, 2048, 2048, a);
    const uint64_t h = fnv1a(a, sizeof a);
    if (h != 0xd4281b0d08bf4f19ull) fail_msg("generator changed: hash 0x%016llx", (unsigned long long)h);
    /* Drift: t = 0 gives the base, later positions stay within the extent. */
    float vel[300];
    ks_spheres_velocities(1, 100, vel);
    ks_spheres_animate(a, vel, 100, 0.0, 2048, 2048, b);
    assert_memory_equal(a, b, sizeof a);
    ks_spheres_animate(a, vel, 100, 12345.0, 2048, 2048, b);
    for (int k = 0; k < 100; ++k) {
        assert_true(b[k].x >= -1024.0f && b[k].x <= 1024.0f);
        assert_true(b[k].radius == a[k].radius);
    }
}

/* ---- gold renderer against hand-computed pixels ---- */

static const unsigned char *px_at(const unsigned char *img, int w, int i, int j)
{
    return img + 4 * ((size_t)j * w + i);
}

static void expect_px(const unsigned char *img, int w, int i, int j, int r, int g, int b)
{
    const unsigned char *p = px_at(img, w, i, j);
    if (p[0] != r || p[1] != g || p[2] != b || p[3] != 255)
        fail_msg("pixel (%d,%d) = %d %d %d %d, want %d %d %d 255", i, j, p[0], p[1], p[2], p[3], r, g,
                 b);
}

static void test_gold_two_spheres(void **state)
{
    (void)state;
    /* 5 x 3 image: rays at x = -2.5 -1.5 -0.5 0.5 1.5, y = -1.5 -0.5 0.5 (odd W/H: halves). */
    const ks_sphere sc[2] = {
        {0.0f, 0.0f, 0.0f, 2.0f, {1.0f, 0.5f, 0.0f}}, /* big, orange, behind */
        {1.5f, 0.5f, 1.0f, 1.0f, {0.0f, 0.0f, 1.0f}}, /* small, blue, in front */
    };
    ks_sphere_packed p[2];
    ks_spheres_pack(sc, 2, p);
    unsigned char img[5 * 3 * 4];
    memset(img, 0xAB, sizeof img);
    ks_spheres_gold_render(p, 2, 5, 3, img);
    /* (2,1): ray (-0.5,-0.5), d2 = 0.5: depth sqrt(3.5); scale sqrt(3.5)/2 = 0.935414
     * R = floor(255*0.935414) = 238, G = floor(255*0.467707) = 119. */
    expect_px(img, 5, 2, 1, 238, 119, 0);
    /* (4,2): ray (1.5,0.5): big at depth sqrt(1.5) = 1.22, small at 1 + 1 = 2: overlap, small wins. */
    expect_px(img, 5, 4, 2, 0, 0, 255);
    /* (3,2): ray (0.5,0.5): small has d2 = 1 = r^2, not < r^2: the big one shows. */
    expect_px(img, 5, 3, 2, 238, 119, 0);
    /* (4,1): ray (1.5,-0.5): small d2 = 1 again (miss); big: scale sqrt(1.5)/2 = 0.612372 -> 156, 78. */
    expect_px(img, 5, 4, 1, 156, 78, 0);
    /* (0,0): ray (-2.5,-1.5): d2 = 8.5 > 4: black. */
    expect_px(img, 5, 0, 0, 0, 0, 0);
    /* Every pixel agrees with the single-pixel routine. */
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) {
            unsigned char q[4];
            ks_spheres_gold_pixel(p, 2, 5, 3, i, j, q);
            assert_memory_equal(q, px_at(img, 5, i, j), 4);
        }
}

static void test_gold_tie_first_listed(void **state)
{
    (void)state;
    /* The same sphere twice in two colours: equal depth everywhere; the first listed wins. */
    const ks_sphere sc[3] = {
        {0.0f, 0.0f, 5.0f, 2.0f, {1.0f, 0.0f, 0.0f}},
        {0.0f, 0.0f, 5.0f, 2.0f, {0.0f, 1.0f, 0.0f}},
        {0.0f, 0.0f, 4.0f, 3.0f, {0.0f, 0.0f, 1.0f}}, /* ties with them at the centre: z 4 + 3 = 5 + 2 */
    };
    ks_sphere_packed p[3];
    ks_spheres_pack(sc, 3, p);
    unsigned char img[4 * 4 * 4];
    ks_spheres_gold_render(p, 3, 4, 4, img);
    /* 4 x 4: rays at -2 -1 0 1. (2,2) is the ray (0,0): all three at depth 7, the red one is first. */
    expect_px(img, 4, 2, 2, 255, 0, 0);
    /* (1,2): ray (-1,0): red at 5 + sqrt(3) = 6.73, blue at 4 + sqrt(8) = 6.83: blue is nearer. */
    const unsigned char *q = px_at(img, 4, 1, 2);
    assert_int_equal(q[0], 0);
    assert_int_equal(q[1], 0);
    assert_true(q[2] > 200);
    /* Listed the other way round, green is first. */
    ks_sphere sw[3] = {sc[1], sc[0], sc[2]};
    ks_spheres_pack(sw, 3, p);
    ks_spheres_gold_render(p, 3, 4, 4, img);
    expect_px(img, 4, 2, 2, 0, 255, 0);
}

static void test_gold_row0_bottom(void **state)
{
    (void)state;
    /* 5 x 3: a small white sphere on the bottom row's ray (-0.5, -1.5) lights
     * buffer pixel (2, 0) only: row 0 is the bottom of the picture. */
    const ks_sphere sc[1] = {{-0.5f, -1.5f, 0.0f, 0.5f, {1.0f, 1.0f, 1.0f}}};
    ks_sphere_packed p[1];
    ks_spheres_pack(sc, 1, p);
    unsigned char img[5 * 3 * 4];
    ks_spheres_gold_render(p, 1, 5, 3, img);
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) {
            const int lit = (i == 2 && j == 0);
            expect_px(img, 5, i, j, lit ? 255 : 0, lit ? 255 : 0, lit ? 255 : 0);
        }
    /* No spheres: all black, alpha 255. */
    ks_spheres_gold_render(p, 0, 5, 3, img);
    expect_px(img, 5, 4, 2, 0, 0, 0);
}

static void test_compare(void **state)
{
    (void)state;
    unsigned char a[16] = {0}, b[16] = {0};
    ks_spheres_diff d;
    ks_spheres_compare(a, b, 2, 2, &d);
    assert_int_equal(d.max_abs, 0);
    assert_true(ks_spheres_diff_ok(&d));
    b[4 + 1] = 1;
    ks_spheres_compare(a, b, 2, 2, &d);
    assert_int_equal(d.max_abs, 1);
    assert_int_equal(d.first_i, 1);
    assert_false(ks_spheres_diff_ok(&d)); /* 1 of 4 pixels differ: 75% exact */
    b[4 + 1] = 2;
    ks_spheres_compare(a, b, 2, 2, &d);
    assert_int_equal(d.max_abs, 2);
}

static void test_variant_table(void **state)
{
    (void)state;
    ks_spheres_mem m;
    assert_int_equal(ks_spheres_mem_parse("binned", &m), 0);
    assert_int_equal(m, KS_SPHERES_MEM_BINNED);
    assert_int_equal(ks_spheres_mem_parse("texture", &m), -1);
    assert_string_equal(ks_spheres_mem_name(KS_SPHERES_MEM_DEFAULT), "global");
    assert_int_equal(ks_spheres_mem_next(KS_SPHERES_MEM_BINNED), KS_SPHERES_MEM_GLOBAL);
    assert_int_equal(ks_spheres_mem_check(KS_SPHERES_MEM_CONSTANT, KS_SPHERES_CONST_MAX), KS_OK);
    assert_int_equal(ks_spheres_mem_check(KS_SPHERES_MEM_CONSTANT, KS_SPHERES_CONST_MAX + 1),
                     KS_ERR_UNSUPPORTED);
    assert_non_null(strstr(ks_error_message(), "at most 2048 spheres"));
    assert_int_equal(ks_spheres_mem_check(KS_SPHERES_MEM_SHARED, KS_SPHERES_CONST_MAX + 1), KS_OK);
    char list[128];
    ks_spheres_mem_list(list, sizeof list);
    assert_string_equal(list, "global, readonly, constant, shared, binned");
    const int ok[2] = {32, 32}, bad[2] = {64, 32}, zero[2] = {0, 8};
    assert_int_equal(ks_spheres_block_check(ok), KS_OK);
    assert_int_equal(ks_spheres_block_check(bad), KS_ERR_INVALID);
    assert_int_equal(ks_spheres_block_check(zero), KS_ERR_INVALID);
}

/* ---- gold image against the checked-in reference ---- */

static void flip_rows(const unsigned char *src, unsigned char *dst, int w, int h)
{
    for (int j = 0; j < h; ++j) memcpy(dst + 4 * (size_t)w * (h - 1 - j), src + 4 * (size_t)w * j, 4 * (size_t)w);
}

static void test_gold_reference_image(void **state)
{
    (void)state;
    ks_sphere *s = malloc(REF_COUNT * sizeof *s);
    ks_sphere_packed *p = malloc(REF_COUNT * sizeof *p);
    unsigned char *img = malloc(4 * REF_W * REF_H), *top = malloc(4 * REF_W * REF_H);
    assert_non_null(s);
    assert_non_null(p);
    assert_non_null(img);
    assert_non_null(top);
    ks_spheres_generate(REF_SEED, REF_COUNT, REF_W, REF_H, s);
    ks_spheres_pack(s, REF_COUNT, p);
    ks_spheres_gold_render(p, REF_COUNT, REF_W, REF_H, img);
    flip_rows(img, top, REF_W, REF_H); /* PNG rows go top-down */
    const char *write = getenv("KS_WRITE_REFERENCE");
    if (write && strcmp(write, "1") == 0) {
        assert_true(stbi_write_png(REF_PNG, REF_W, REF_H, 4, top, REF_W * 4) != 0);
        print_message("wrote %s\n", REF_PNG);
    }
    int w = 0, h = 0, ch = 0;
    unsigned char *ref = stbi_load(REF_PNG, &w, &h, &ch, 4);
    if (!ref) fail_msg("cannot read %s", REF_PNG);
    assert_int_equal(w, REF_W);
    assert_int_equal(h, REF_H);
    ks_spheres_diff d;
    ks_spheres_compare(top, ref, w, h, &d);
    if (!ks_spheres_diff_ok(&d))
        fail_msg("gold vs reference: max diff %d, %.4f%% exact, first at (%d,%d)", d.max_abs,
                 100.0 * d.exact_share, d.first_i, d.first_j);
    stbi_image_free(ref);
    free(s);
    free(p);
    free(img);
    free(top);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_parse_empty),
        cmocka_unit_test(test_parse_strict_format),
        cmocka_unit_test(test_parse_sphere_limit),
        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_generator),
        cmocka_unit_test(test_gold_two_spheres),
        cmocka_unit_test(test_gold_tie_first_listed),
        cmocka_unit_test(test_gold_row0_bottom),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_variant_table),
        cmocka_unit_test(test_gold_reference_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
