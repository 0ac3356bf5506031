/* The kernel declaration (kernel_decl.h): the lines the course's kernels
 * carry parse to the launch they describe; a malformed line, a second one,
 * a role a scene does not have or a grid it does not launch is one line of
 * error naming the file and line; the text kernelscope appends keeps the
 * file's lines and hands the compiler the launch values. No GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/common/kernel_decl.h"

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
    assert_non_null(strstr(s, "__constant__ char kernelscope_declaration[] = \"histo_kernel(data, long long n, bins)\";"));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_practical3), cmocka_unit_test(test_lecture_kernels), cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_in_a_file),  cmocka_unit_test(test_suffix),          cmocka_unit_test(test_roles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
