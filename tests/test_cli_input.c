/* The kernelscope binary on malformed and hostile inputs (no display, no GPU):
 * flags that do not apply, a bench that would not fit in host memory, a FIFO
 * as the best-config store, raw bytes in arguments. Each is exit 2 with one
 * line, at once. The ctest time limit catches a hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

static void expect_exit2(const char *needle, const char *const *argv, const char *const *env,
                         int lines)
{
    ks_run_result r;
    assert_int_equal(ks_test_run(argv, env, &r), 0);
    if (r.exit_code != 2)
        fail_msg("exit %d for %s %s; stderr: %s", r.exit_code, argv[1], argv[2] ? argv[2] : "", r.err);
    if (ks_test_count_lines(r.err) != lines) fail_msg("stderr is not %d line(s): %s", lines, r.err);
    if (!strstr(r.err, needle)) fail_msg("stderr '%s' lacks '%s'", r.err, needle);
    for (const char *p = r.err; *p; ++p)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f) fail_msg("raw control byte 0x%02x on stderr", *p);
}

#define USAGE(needle, ...)                                                                         \
    do {                                                                                           \
        const char *argv_[] = {NULL, __VA_ARGS__, NULL};                                          \
        expect_exit2(needle, argv_, NULL, 1);                                                      \
    } while (0)

static void test_flags_that_do_not_apply(void **state)
{
    (void)state;
    USAGE("--kernel does not apply to bench spheres", "bench", "spheres", "--backend", "cpu",
          "--scene", "/nonexistent.txt", "--kernel", "nope");
    USAGE("cannot open scene file /nonexistent.txt", "bench", "spheres", "--backend", "cpu",
          "--scene", "/nonexistent.txt");
    USAGE("--window does not apply to bench laplace3d", "bench", "laplace3d", "--window");
    USAGE("--window does not apply to bench spheres", "bench", "spheres", "--window");
    USAGE("--dump-field does not apply to the spheres view", "spheres", "--backend", "cpu",
          "--dump-field", "f.npy");
    USAGE("spheres blocks are 2D", "spheres", "--block", "32x32x32");
    USAGE("--help takes no value", "--help=1");
    USAGE("--version takes no value", "--version=1");
    USAGE("--headless takes no value", "--headless=1");
    USAGE("not a non-negative integer", "spheres", "--seed", " 5");
}

static void test_arguments_escaped(void **state)
{
    (void)state;
    USAGE("'\\x1b[31mRED\\r'", "--frames", "\x1b[31mRED\r");
    USAGE("'\\xff'", "--colormap", "\xff");
    USAGE("'/etc/hostname/\\x1b[31mx'", "bench", "laplace2d", "--backend", "cpu", "--out",
          "/etc/hostname/\x1b[31mx");
    USAGE("unknown --mem '\\x1b'", "bench", "spheres", "--backend", "cpu", "--mem", "\x1b");
}

/* bench --cache: anything but cold or warm, or where no bench runs, is one line and exit 2. */
static void test_cache_bad_values(void **state)
{
    (void)state;
    USAGE("kernelscope: error: --cache: 'hot' is not cold or warm\n", "bench", "laplace2d", "--backend", "cpu", "--cache",
          "hot");
    USAGE("--cache: 'auto' is not cold or warm", "bench", "matmul", "--backend", "cpu", "--cache", "auto");
    USAGE("--cache: '' is not cold or warm", "bench", "histogram", "--backend", "cpu", "--cache", "");
    USAGE("--cache: '\\x1b' is not cold or warm", "bench", "reduce", "--backend", "cpu", "--cache", "\x1b");
    USAGE("option --cache needs a value", "bench", "spheres", "--backend", "cpu", "--cache");
    USAGE("--cache does not apply to the laplace3d view", "laplace3d", "--backend", "cpu", "--cache", "cold");
    USAGE("--cache does not apply to bench live", "bench", "live", "--cache", "cold"); /* frames: back to back */
    USAGE("--cache given twice", "bench", "laplace3d", "--backend", "cpu", "--cache", "cold", "--cache", "warm");
}

/* A scene file with a bad token: the token comes back escaped. */
static void test_scene_file_escaped(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "cli-input");
    snprintf(path, sizeof path, "%s/bad.txt", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("0 0 0 10 1 1 1\r\r\n", f);
    fclose(f);
    USAGE("'1\\r' is not a number", "bench", "spheres", "--backend", "cpu", "--scene", path);
    f = fopen(path, "wb");
    fputs("0x10 0 0 10 1 1 1\n", f);
    fclose(f);
    USAGE("'0x10' is not a number", "bench", "spheres", "--backend", "cpu", "--scene", path);
    unlink(path);
}

static double mem_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0.0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    fclose(f);
    return (double)kib * 1024.0;
}

/* The smallest cubic grid whose two float fields exceed this machine's free memory. */
static int grid_beyond_memory(void)
{
    const double avail = mem_available_bytes();
    if (avail <= 0.0) return 0;
    int n = (int)ceil(cbrt(avail / 8.0 * 1.1)) + 1;
    if ((double)n * n * n > 68719476736.0) return 0; /* more memory than a grid may ask for */
    return n;
}

static void test_cpu_bench_refuses_beyond_memory(void **state)
{
    (void)state;
    const int n = grid_beyond_memory();
    if (!n) skip();
    char grid[32];
    snprintf(grid, sizeof grid, "%d", n);
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, "cli-input");
    const char *argv[] = {NULL, "bench", "laplace3d", "--backend", "cpu", "--grid", grid, "--out", dir, NULL};
    expect_exit2("GiB of host memory", argv, NULL, 1);
    expect_exit2("available", argv, NULL, 1);
    /* A GPU-only flag on the cpu backend: its notice line first, then the refusal. */
    const char *argv_block[] = {NULL, "bench", "laplace3d", "--backend", "cpu", "--block", "32x8x2",
                                "--grid", grid, "--out", dir, NULL};
    expect_exit2("kernelscope: --block has no effect on the cpu backend (the CPU gold routine runs)\n",
                 argv_block, NULL, 2);
}

/* A FIFO as the best-config store: a notice, and the run goes on (here to a
 * memory refusal, so it ends at once without a display). */
static void test_best_config_fifo_does_not_hang(void **state)
{
    (void)state;
    const int n = grid_beyond_memory();
    if (!n) skip();
    char dir[256], fifo[512], env[600], grid[32];
    ks_test_tmpdir(dir, sizeof dir, "cli-input");
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(env, sizeof env, "KS_BEST_CONFIG=%s", fifo);
    snprintf(grid, sizeof grid, "%d", n);
    const char *argv[] = {NULL, "bench", "laplace3d", "--backend", "cpu", "--grid", grid, "--out", dir, NULL};
    const char *envs[] = {env, NULL};
    expect_exit2("not a regular file", argv, envs, 2);
    unlink(fifo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags_that_do_not_apply),
        cmocka_unit_test(test_arguments_escaped),
        cmocka_unit_test(test_cache_bad_values),
        cmocka_unit_test(test_scene_file_escaped),
        cmocka_unit_test(test_cpu_bench_refuses_beyond_memory),
        cmocka_unit_test(test_best_config_fifo_does_not_hang),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
