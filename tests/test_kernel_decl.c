/* The kernel declaration (kernel_decl.h): the lines the course's kernels
 * carry parse to the launch they describe; a malformed line, a second one,
 * a role a scene does not have or a grid it does not launch is one line of
 * error naming the file and line; the text kernelscope appends keeps the
 * file's lines and hands the compiler the launch values. No GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/user/kernel_decl.h"
#include "tests/test_util.h"

static ks_kdecl d;

static void parse_ok(const char *line)
{
    const ks_status st = ks_kdecl_parse_line(line, "mine.cu", 3, &d);
    if (st != KS_OK) fail_msg("%s: %s", line, ks_error_message());
}

/* The line is refused with one line of error holding want. */
static void parse_bad(const char *line, const char *want)
{
    assert_int_equal(ks_kdecl_parse_line(line, "mine.cu", 7, &d), KS_ERR_PARSE);
    const char *msg = ks_error_message();
    if (!strstr(msg, want)) fail_msg("'%s' gave '%s', not '%s'", line, msg, want);
    assert_non_null(strstr(msg, "mine.cu:7: kernelscope: "));
    assert_null(strchr(msg, '\n'));
}

static void test_practical3(void **state)
{
    (void)state;
    /* the 2D-block style: sizes first, long long, a grid over the (i, j) columns marching in k */
    parse_ok(" GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=columns block=BLOCK_X,BLOCK_Y");
    assert_true(d.present);
    assert_int_equal(d.line, 3);
    assert_string_equal(d.entry, "GPU_laplace3d");
    assert_int_equal(d.nargs, 5);
    assert_string_equal(d.args[0].role, "nx");
    assert_int_equal(d.args[0].bytes, 8);
    assert_string_equal(d.args[3].role, "u");
    assert_int_equal(d.args[3].bytes, 0);
    assert_int_equal(d.grid, KS_KDECL_GRID_COLUMNS);
    assert_int_equal(d.block_dims, 2);
    assert_string_equal(d.expr[KS_KDECL_V_BX], "BLOCK_X");
    assert_string_equal(d.expr[KS_KDECL_V_BY], "BLOCK_Y");
    assert_int_equal(d.value[KS_KDECL_V_BX], 0); /* a macro: known once the code is loaded */
    assert_false(d.multiple);
    assert_int_equal(ks_kdecl_roles_check(&d, "mine.cu", "nx ny nz u v", "nx ny nz u v",
                                          1u << KS_KDECL_GRID_INTERIOR | 1u << KS_KDECL_GRID_DOMAIN |
                                              1u << KS_KDECL_GRID_COLUMNS),
                     KS_OK);
    assert_int_equal(ks_kdecl_arg_index(&d, "v"), 4);
    assert_int_equal(ks_kdecl_arg_index(&d, "x"), -1);
    /* the 3D-block style: a point a thread over the whole domain, numbers known at once */
    parse_ok("GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=domain block=16,4,4");
    assert_int_equal(d.grid, KS_KDECL_GRID_DOMAIN);
    const int user[3] = {32, 8, 1};
    int b[3];
    ks_kdecl_block(&d, user, b);
    assert_int_equal(b[0], 16);
    assert_int_equal(b[1], 4);
    assert_int_equal(b[2], 4);
    char text[256];
    ks_kdecl_describe(&d, text, sizeof text);
    assert_string_equal(text, "GPU_laplace3d(nx, ny, nz, u, v), grid domain, block 16x4x4");
}

static void test_lecture_kernels(void **state)
{
    (void)state;
    /* lecture 3's first lap: sizes multiples of its block */
    parse_ok("lap(nx, ny, u, v) grid=domain multiple");
    assert_true(d.multiple);
    assert_int_equal(d.block_dims, 0);
    const int user[3] = {32, 8, 1};
    int b[3];
    ks_kdecl_block(&d, user, b); /* no block=: the user's */
    assert_int_equal(b[0], 32);
    assert_int_equal(b[1], 8);
    char text[256];
    ks_kdecl_describe(&d, text, sizeof text);
    assert_string_equal(text, "lap(nx, ny, u, v), grid domain, sizes multiples of its block");
    /* lecture 4's sum: per-block partials, a float of shared memory a thread */
    parse_ok("sum(partials, x) grid=cover shared=4*threads multiple");
    assert_int_equal(d.grid, KS_KDECL_GRID_COVER);
    assert_true(d.shared_per_thread);
    assert_int_equal(ks_kdecl_shared(&d, 256), 1024);
    assert_int_equal(ks_kdecl_roles_check(&d, "mine.cu", "x n out partials", "x", 1u << KS_KDECL_GRID_COVER), KS_OK);
    /* the slides' grid-stride histograms: blocks a multiprocessor */
    parse_ok("histo_kernel(data, long n, bins) grid=sm:2 block=256");
    assert_int_equal(d.grid, KS_KDECL_GRID_SM);
    assert_int_equal(d.value[KS_KDECL_V_SM], 2);
    assert_int_equal(d.value[KS_KDECL_V_BX], 256);
    assert_int_equal(d.args[1].bytes, 8);
    ks_kdecl_describe(&d, text, sizeof text);
    assert_string_equal(text, "histo_kernel(data, n, bins), 2 blocks a multiprocessor, block 256");
    parse_ok("histoNoSharedMem(data, long n, bins) grid=cover");
    assert_int_equal(ks_kdecl_shared(&d, 256), 0);
    /* bytes of shared memory for the block, from a macro expression */
    parse_ok("k() shared=BLOCK*sizeof(float)");
    assert_int_equal(d.nargs, 0);
    assert_false(d.shared_per_thread);
    assert_string_equal(d.expr[KS_KDECL_V_SHARED], "BLOCK*sizeof(float)");
}

static void test_bad_lines(void **state)
{
    (void)state;
    parse_bad("", "the line starts with the kernel's name");
    parse_bad("3lap(nx)", "the line starts with the kernel's name");
    parse_bad("lap nx, ny", "lap: its arguments follow in parentheses");
    parse_bad("lap(nx, ny", "the argument list has no ')'");
    parse_bad("lap(nx, , u)", "an empty argument");
    parse_bad("lap(float *u)", "'float *u' is not an argument");
    parse_bad("lap(short nx)", "a size's type is int, long or long long");
    parse_bad("lap(a, b, c, d, e, f, g, h, i)", "more than 8 arguments");
    parse_bad("lap(nx) grid=rows", "grid=rows: the grid is interior, domain, columns, cover or sm:N");
    parse_bad("lap(nx) grid=sm", "grid=sm: the grid is");
    parse_bad("lap(nx) grid=sm: block=256", "grid=sm:: sm:N wants N");
    parse_bad("lap(nx) grid=sm:4", "grid=sm:4 needs the block it is written for");
    parse_bad("lap(nx) grid=domain grid=cover", "grid is given twice");
    parse_bad("lap(nx) block=", "block=: the block is X, X,Y or X,Y,Z");
    parse_bad("lap(nx) block=1,2,3,4", "block=1,2,3,4: the block is");
    parse_bad("lap(nx) block=16;exit(1)", "block=16;exit(1)");
    parse_bad("lap(nx) block=(16", "block=(16");
    parse_bad("lap(nx) shared=\"x\"", "shared=\"x\": the dynamic shared memory");
    parse_bad("lap(nx) shared=*threads", "shared=*threads: the dynamic shared memory");
    parse_bad("lap(nx) multiples", "'multiples' is not an option");
    parse_bad("lap(nx) threads=4", "'threads=4' is not an option (grid=, block=, shared=, multiple)");
}

static void test_in_a_file(void **state)
{
    (void)state;
    /* none: not present, no error */
    assert_int_equal(ks_kdecl_parse("// kernelscope spheres --kernel-file s.cu\n__global__ void k() {}\n", "s.cu", &d),
                     KS_OK);
    assert_false(d.present);
    /* on line 3, indented, the file's last line without a newline after it */
    const char *src = "#define BX 32\n#define BY 8\n  // kernelscope: lap(int nx, int ny, u, v) grid=domain block=BX,BY\n"
                      "__global__ void lap(int I, int J, const float *u1, float *u2) {}";
    assert_int_equal(ks_kdecl_parse(src, "lap.cu", &d), KS_OK);
    assert_true(d.present);
    assert_int_equal(d.line, 3);
    assert_string_equal(d.entry, "lap");
    /* a second declaration */
    const char *two = "// kernelscope: a(nx)\nint x;\n// kernelscope: b(nx)\n";
    assert_int_equal(ks_kdecl_parse(two, "two.cu", &d), KS_ERR_PARSE);
    assert_string_equal(ks_error_message(), "two.cu:3: kernelscope: a second declaration (the first is on line 1)");
    /* an error in the line names its line */
    assert_int_equal(ks_kdecl_parse("\n\n\n// kernelscope: a(nx) grid=rows\n", "e.cu", &d), KS_ERR_PARSE);
    assert_non_null(strstr(ks_error_message(), "e.cu:4: kernelscope: grid=rows"));
}

static void test_suffix(void **state)
{
    (void)state;
    parse_ok("histo_kernel(data, long n, bins) grid=sm:SMS block=BX shared=4*threads");
    char *s = ks_kdecl_suffix(&d);
    assert_non_null(s);
    assert_int_equal(s[0], '\n'); /* after a last line without one; it adds no line before the file's end */
    assert_non_null(strstr(s, "__constant__ char kernelscope_declaration[] = \"histo_kernel(data, long long n, bins) "
                              "grid=sm:SMS block=BX shared=4*threads\";"));
    assert_non_null(strstr(s, "__constant__ long long kernelscope_launch_values[5] = {(long long)(BX), (long long)(0), "
                              "(long long)(0), (long long)(4), (long long)(SMS)};"));
    free(s);
}

static void test_roles(void **state)
{
    (void)state;
    const unsigned grids3 = 1u << KS_KDECL_GRID_INTERIOR | 1u << KS_KDECL_GRID_DOMAIN | 1u << KS_KDECL_GRID_COLUMNS;
    parse_ok("j(u, v, nx, ny, w)");
    assert_int_equal(ks_kdecl_roles_check(&d, "m.cu", "nx ny nz u v", "u v nx ny nz", grids3), KS_ERR_INVALID);
    assert_string_equal(ks_error_message(), "m.cu: j: 'w' is not one of this scene's arguments (nx ny nz u v)");
    parse_ok("j(u, v, nx, ny, nx)");
    assert_int_equal(ks_kdecl_roles_check(&d, "m.cu", "nx ny nz u v", "u v nx ny nz", grids3), KS_ERR_INVALID);
    assert_string_equal(ks_error_message(), "m.cu: j: 'nx' is given twice");
    parse_ok("j(u, v, nx, ny)");
    assert_int_equal(ks_kdecl_roles_check(&d, "m.cu", "nx ny nz u v", "u v nx ny nz", grids3), KS_ERR_INVALID);
    assert_string_equal(ks_error_message(), "m.cu: j: this scene needs the argument 'nz' (it has: nx ny nz u v)");
    parse_ok("j(u, v, n) grid=sm:2 block=256");
    assert_int_equal(ks_kdecl_roles_check(&d, "m.cu", "n u v", "u v", grids3), KS_ERR_INVALID);
    assert_string_equal(ks_error_message(), "m.cu: j: grid=sm is not a launch of this scene");
    /* a role that is a prefix of another is not that one */
    parse_ok("j(n)");
    assert_int_equal(ks_kdecl_roles_check(&d, "m.cu", "nx ny", "", grids3), KS_ERR_INVALID);
}

/* The declaration as another process reads it back from the code (the
 * suffix's line and the values the compiler evaluated) is the file's own:
 * its grid, block, shared memory and multiple too, so the live view, the
 * bench and the checker launch it as the file says. */
static void expect_same(const ks_kdecl *want, const ks_kdecl *got)
{
    assert_string_equal(got->entry, want->entry);
    assert_int_equal(got->nargs, want->nargs);
    for (int a = 0; a < want->nargs; ++a) {
        assert_string_equal(got->args[a].role, want->args[a].role);
        assert_int_equal(ks_kdecl_arg_bytes(&got->args[a]), ks_kdecl_arg_bytes(&want->args[a]));
    }
    assert_int_equal(got->grid, want->grid);
    assert_int_equal(got->block_dims, want->block_dims);
    assert_int_equal(got->shared_per_thread, want->shared_per_thread);
    assert_int_equal(got->multiple, want->multiple);
    for (int v = 0; v < KS_KDECL_V_COUNT; ++v) assert_string_equal(got->expr[v], want->expr[v]);
}

static void read_back(const ks_kdecl *want, ks_kdecl *got)
{
    char *s = ks_kdecl_suffix(want);
    assert_non_null(s);
    const char *open = strstr(s, "kernelscope_declaration[] = \"");
    assert_non_null(open);
    open += strlen("kernelscope_declaration[] = \"");
    const char *close = strstr(open, "\";");
    assert_non_null(close);
    char text[600];
    assert_true((size_t)(close - open) < sizeof text);
    memcpy(text, open, (size_t)(close - open));
    text[close - open] = '\0';
    const long long values[KS_KDECL_V_COUNT] = {16, 4, 4, 1024, 2}; /* as a compiler might evaluate them */
    assert_int_equal(ks_kdecl_read_back(text, values, "mine.cu", got), KS_OK);
    assert_true(got->present);
    for (int v = 0; v < KS_KDECL_V_COUNT; ++v) assert_int_equal(got->value[v], values[v]);
    free(s);
}

static void test_read_back(void **state)
{
    (void)state;
    static const char *const files[] = {"laplace3d_kmarch.cu", "laplace3d_block3d.cu", "lap2d_multiple.cu",
                                        "lap2d.cu"};
    ks_kdecl got;
    for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/course/%s", KS_SOURCE_DIR, files[f]);
        char *text = ks_test_read_file(path);
        assert_non_null(text);
        assert_int_equal(ks_kdecl_parse(text, files[f], &d), KS_OK);
        assert_true(d.present);
        assert_int_not_equal(d.grid, KS_KDECL_GRID_CONTRACT); /* every course file says its grid */
        read_back(&d, &got);
        expect_same(&d, &got);
        free(text);
    }
    /* the examples' options read back: Practical 3's 3D blocks, lecture 3's multiple */
    parse_ok("GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=domain block=BLOCK_X,BLOCK_Y,BLOCK_Z");
    read_back(&d, &got);
    assert_int_equal(got.grid, KS_KDECL_GRID_DOMAIN);
    const int user[3] = {32, 4, 4};
    int b[3];
    ks_kdecl_block(&got, user, b);
    assert_int_equal(b[0], 16);
    assert_int_equal(b[1], 4);
    assert_int_equal(b[2], 4);
    parse_ok("lap(int nx, int ny, u, v) grid=domain multiple");
    read_back(&d, &got);
    assert_true(got.multiple);
    /* every other option */
    const char *const lines[] = {"histo_kernel(data, long n, bins) grid=sm:SMS*2 block=BX shared=4*threads",
                                 "sum(partials, x) grid=cover shared=BLOCK*sizeof(float) multiple",
                                 "jacobi(u, v, nx, ny, nz) grid=interior block=32,(B+1),2", "k(u, v)"};
    for (size_t l = 0; l < sizeof lines / sizeof *lines; ++l) {
        parse_ok(lines[l]);
        read_back(&d, &got);
        expect_same(&d, &got);
        char once[600], twice[600];
        ks_kdecl_format(&d, once, sizeof once);
        ks_kdecl_format(&got, twice, sizeof twice);
        assert_string_equal(once, twice);
    }
}

/* The blocks of each grid= kind of a stencil scene, on the large grids the
 * live view and the bench run and on an odd one: enough to cover every point
 * the kind launches over, no more than one block too many along an axis. */
static void expect_grid(const char *line, int dims, long long nx, long long ny, long long nz, const int block[3],
                        long long gx, long long gy, long long gz)
{
    const ks_kdecl *decl = NULL;
    if (line) {
        parse_ok(line);
        decl = &d;
    }
    const long long n[3] = {nx, ny, nz};
    long long g[3];
    ks_kdecl_stencil_grid(decl, dims, n, block, NULL, g);
    if (g[0] != gx || g[1] != gy || g[2] != gz)
        fail_msg("%s on %lldx%lldx%lld, block %dx%dx%d: %lldx%lldx%lld blocks, not %lldx%lldx%lld",
                 line ? line : "the contract", nx, ny, nz, block[0], block[1], block[2], g[0], g[1], g[2], gx, gy, gz);
}

static void test_stencil_grid(void **state)
{
    (void)state;
    const char *block3d = "GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=domain block=16,4,4";
    const char *kmarch = "GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=columns block=32,4";
    const int b3[3] = {16, 4, 4}, b2[3] = {32, 4, 1}, b8[3] = {32, 8, 1}, user[3] = {32, 4, 4};
    /* a point a thread over the whole domain: every point, the boundary too */
    expect_grid(block3d, 3, 256, 256, 256, b3, 16, 64, 64);
    expect_grid(block3d, 3, 512, 512, 512, b3, 32, 128, 128);
    expect_grid(block3d, 3, 37, 29, 23, b3, 3, 8, 6);
    /* the (i, j) columns: one block along z, each thread marching over k */
    expect_grid(kmarch, 3, 256, 256, 256, b2, 8, 64, 1);
    expect_grid(kmarch, 3, 37, 29, 23, b2, 2, 8, 1);
    /* lecture 3's 2D lap over the domain */
    expect_grid("lap(int nx, int ny, u, v) grid=domain multiple", 2, 8192, 8192, 1, b8, 256, 1024, 1);
    expect_grid("lap(int nx, int ny, u, v) grid=domain", 2, 131, 77, 1, b8, 5, 10, 1);
    /* the interior, declared or the contract's */
    expect_grid("jacobi(u, v, nx, ny, nz) grid=interior", 3, 256, 256, 256, user, 8, 64, 64);
    expect_grid(NULL, 3, 256, 256, 256, user, 8, 64, 64);
    expect_grid(NULL, 2, 131, 77, 1, b8, 5, 10, 1);
    /* the contract's points a thread */
    const int per[3] = {1, 2, 64};
    const long long n[3] = {512, 512, 512};
    long long g[3];
    ks_kdecl_stencil_grid(NULL, 3, n, user, per, g);
    assert_int_equal(g[0], 16);
    assert_int_equal(g[1], 64);
    assert_int_equal(g[2], 2);
    /* domain and columns cover every point and interior every interior one, at every size to 300 */
    parse_ok(block3d);
    const ks_kdecl dom = d;
    parse_ok(kmarch);
    const ks_kdecl col = d;
    for (long long s = 3; s <= 300; ++s) {
        const long long sz[3] = {s, s + 1, s + 2};
        long long gd[3], gc[3], gi[3];
        ks_kdecl_stencil_grid(&dom, 3, sz, b3, NULL, gd);
        ks_kdecl_stencil_grid(&col, 3, sz, b2, NULL, gc);
        ks_kdecl_stencil_grid(NULL, 3, sz, user, NULL, gi);
        for (int a = 0; a < 3; ++a) {
            assert_true(gd[a] * b3[a] >= sz[a] && (gd[a] - 1) * b3[a] < sz[a]);
            assert_true(gi[a] * user[a] >= sz[a] - 2 && (gi[a] - 1) * user[a] < sz[a] - 2);
            if (a < 2) assert_true(gc[a] * b2[a] >= sz[a] && (gc[a] - 1) * b2[a] < sz[a]);
        }
        assert_int_equal(gc[2], 1);
    }
}

/* The check grid of a kernel that says multiple: each size rounded up to its block's. */
static void test_round_sizes(void **state)
{
    (void)state;
    const int user[3] = {32, 8, 1};
    int n[3] = {131, 77, 1};
    parse_ok("lap(int nx, int ny, u, v) grid=domain multiple");
    ks_kdecl_round_sizes(&d, user, 2, n);
    assert_int_equal(n[0], 160);
    assert_int_equal(n[1], 80);
    assert_int_equal(n[2], 1);
    /* the declared block, not the user's */
    int m[3] = {37, 29, 23};
    parse_ok("k(long long nx, long long ny, long long nz, u, v) grid=domain block=16,4,4 multiple");
    d.value[KS_KDECL_V_BX] = 16;
    d.value[KS_KDECL_V_BY] = 4;
    d.value[KS_KDECL_V_BZ] = 4;
    ks_kdecl_round_sizes(&d, user, 3, m);
    assert_int_equal(m[0], 48);
    assert_int_equal(m[1], 32);
    assert_int_equal(m[2], 24);
    /* without multiple, or without a declaration: as they were */
    int o[3] = {131, 77, 1};
    parse_ok("lap(int nx, int ny, u, v) grid=domain");
    ks_kdecl_round_sizes(&d, user, 2, o);
    ks_kdecl_round_sizes(NULL, user, 2, o);
    assert_int_equal(o[0], 131);
    assert_int_equal(o[1], 77);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_practical3), cmocka_unit_test(test_lecture_kernels), cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_in_a_file),  cmocka_unit_test(test_suffix),          cmocka_unit_test(test_roles),
        cmocka_unit_test(test_read_back),  cmocka_unit_test(test_stencil_grid),    cmocka_unit_test(test_round_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
