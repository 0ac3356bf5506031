/* The best-config store: round trip, lookups, and corrupt or stale files
 * (ignored with a notice, never a crash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/best_config.h"
#include "app/scenes.h"
#include "test_util.h"

static ks_best_entry entry(const char *dev, const char *scene, const char *variant, int n,
                           int bx, double ms)
{
    ks_best_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.device, sizeof e.device, "%s", dev);
    snprintf(e.scene, sizeof e.scene, "%s", scene);
    snprintf(e.variant, sizeof e.variant, "%s", variant);
    e.grid[0] = e.grid[1] = n;
    e.grid[2] = strcmp(scene, "laplace3d") == 0 ? n : 1;
    e.block[0] = bx;
    e.block[1] = 4; /* 256x4 at most: 1024 threads */
    e.block[2] = 1;
    e.ms_per_iter = ms;
    e.t_eff_gbs = 1000.0;
    return e;
}

static void test_round_trip_and_find(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/sub/dir/best.tsv", dir);
    ks_best_store *s = calloc(1, sizeof *s);
    ks_best_entry a = entry("GPU A", "laplace3d", "regq", 512, 64, 0.10);
    ks_best_entry b = entry("GPU A", "laplace3d", "kmarch", 512, 32, 0.30);
    ks_best_entry c = entry("GPU A", "laplace3d", "regq", 256, 128, 0.02);
    ks_best_entry d = entry("GPU B", "laplace3d", "regq", 512, 256, 0.05);
    ks_best_put(s, &a);
    ks_best_put(s, &b);
    ks_best_put(s, &c);
    ks_best_put(s, &d);
    ks_best_entry a2 = entry("GPU A", "laplace3d", "regq", 512, 32, 0.09);
    ks_best_put(s, &a2); /* replaces a */
    assert_int_equal(s->count, 4);
    assert_int_equal(ks_best_save(path, s), KS_OK);

    ks_best_store *l = calloc(1, sizeof *l);
    char notice[512];
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_string_equal(notice, "");
    assert_int_equal(l->count, 4);
    const int g512[3] = {512, 512, 512}, g300[3] = {300, 300, 300}, g1024[3] = {1024, 1024, 1024};
    const ks_best_entry *e = ks_best_find(l, "GPU A", "laplace3d", "regq", g512);
    assert_non_null(e);
    assert_int_equal(e->block[0], 32);
    assert_true(e->ms_per_iter > 0.0899 && e->ms_per_iter < 0.0901);
    e = ks_best_find(l, "GPU A", "laplace3d", "regq", g300); /* nearest grid: 256 */
    assert_int_equal(e->grid[0], 256);
    e = ks_best_find(l, "GPU A", "laplace3d", NULL, g1024); /* fastest variant at 512 */
    assert_string_equal(e->variant, "regq");
    assert_null(ks_best_find(l, "GPU C", "laplace3d", NULL, g512));
    assert_null(ks_best_find(l, "GPU A", "laplace2d", NULL, g512));
    free(s);
    free(l);
}

static void expect_ignored(const char *content, const char *needle)
{
    char dir[256], path[512], notice[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/best.tsv", dir);
    ks_test_write_file(path, content);
    ks_best_store *l = calloc(1, sizeof *l);
    l->count = 99;
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_int_equal(l->count, 0);
    if (!strstr(notice, needle)) fail_msg("notice '%s' lacks '%s'", notice, needle);
    free(l);
    unlink(path);
}

static void test_corrupt_files(void **state)
{
    (void)state;
    expect_ignored("garbage\n", "not in the expected format");
    expect_ignored("# kernelscope best-config v0\n", "not in the expected format");
    expect_ignored("# kernelscope best-config v1\nGPU\tlaplace3d\tregq\t512x512x512\n", "line 2");
    expect_ignored("# kernelscope best-config v1\nGPU\tlaplace3d\tregq\t512x512\t32x8x1\t0.1\t9\n",
                   "line 2");
    expect_ignored("# kernelscope best-config v1\nGPU\tlaplace3d\tregq\t512x512x512\t32x8x1\tfast\t9\n",
                   "line 2");
    expect_ignored("# kernelscope best-config v1\nGPU\tlaplace3d\tregq\t512x512x512\t32x8x1\t-1\t9\n",
                   "line 2");
    expect_ignored("# kernelscope best-config v1\nGPU\tlaplace3d\tregq\t0x512x512\t32x8x1\t0.1\t9\n",
                   "line 2");
    /* binary junk and an over-long line */
    char junk[3000];
    memset(junk, 'x', sizeof junk - 1);
    junk[sizeof junk - 1] = '\0';
    memcpy(junk, "# kernelscope best-config v1\n", 29);
    expect_ignored(junk, "line 2");
    expect_ignored("\x01\x02\xff\xfe", "not in the expected format");
}

#define KS_HEAD "# kernelscope best-config v1\n"

/* Numbers that sscanf("%d") used to wrap or take: overflow, out of range, signs, spaces. */
static void test_numbers_checked(void **state)
{
    (void)state;
    const char *bad[] = {
        "GPU\tlaplace3d\tregq\t64x64x64\t4294967328x8x1\t0.1\t9\n",  /* wraps to 32x8x1 */
        "GPU\tlaplace3d\tregq\t4294967360x64x64\t32x8x1\t0.1\t9\n", /* wraps to 64^3 */
        "GPU\tlaplace3d\tregq\t64x64x64\t99999x99999x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t64x64x64\t32x32x2\t0.1\t9\n",         /* 2048 threads */
        "GPU\tlaplace3d\tregq\t64x64x64\t1025x1x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t65537x64x64\t32x8x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t64x64x64\t+32x8x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t64x64x64\t 32x8x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t64x-64x64\t32x8x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t64x64x64x\t32x8x1\t0.1\t9\n",
        "GPU\tlaplace3d\tregq\t64x64x64\t32x8x1\t1e999\t9\n",
        /* found by fuzz_best_config: loaded, then saved as 0.000000 and refused on reload */
        "GPU\tlaplace3d\tregq\t64x64x64\t32x8x1\t0.0000000000000000000001\t9\n",
        "GPU\tlaplace3d\tregq\t64x64x64\t32x8x1\t0.1\t1e300\n",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        char text[512];
        snprintf(text, sizeof text, KS_HEAD "%s", bad[k]);
        expect_ignored(text, "line 2");
    }
    /* The largest legal values still load. */
    char dir[256], path[512], notice[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/best.tsv", dir);
    ks_test_write_file(path, KS_HEAD "GPU\tlaplace3d\tregq\t4096x4096x4096\t1024x1x1\t0.1\t9\n");
    ks_best_store *l = calloc(1, sizeof *l);
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_int_equal(l->count, 1);
    assert_int_equal(l->entries[0].grid[0], 4096);
    assert_int_equal(l->entries[0].block[0], 1024);
    assert_string_equal(notice, "");
    free(l);
    unlink(path);
}

static void expect_notice(const char *path, const char *needle)
{
    char notice[512];
    ks_best_store *l = calloc(1, sizeof *l);
    l->count = 99;
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_int_equal(l->count, 0);
    if (!strstr(notice, needle)) fail_msg("notice '%s' lacks '%s'", notice, needle);
    free(l);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_best_config: loading a FIFO hung\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

/* Not a regular file, empty, a symlink loop: each ignored with a notice; a
 * FIFO with no writer must not block (the alarm fails the test if it does). */
static void test_special_files(void **state)
{
    (void)state;
    char dir[256], path[512], other[512];
    ks_test_tmpdir(dir, sizeof dir, "best");

    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    signal(SIGALRM, on_alarm);
    alarm(10);
    expect_notice(path, "not a regular file");
    alarm(0);
    unlink(path);

    expect_notice(dir, "not a regular file"); /* a directory */

    snprintf(path, sizeof path, "%s/empty.tsv", dir);
    ks_test_write_file(path, "");
    expect_notice(path, "empty file");
    unlink(path);

    snprintf(path, sizeof path, "%s/a", dir);
    snprintf(other, sizeof other, "%s/b", dir);
    assert_int_equal(symlink(other, path), 0);
    assert_int_equal(symlink(path, other), 0);
    expect_notice(path, "loop of symbolic links");
    unlink(path);
    unlink(other);

    /* over the size cap */
    snprintf(path, sizeof path, "%s/big.tsv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(KS_HEAD, f);
    for (int k = 0; k < 40000; ++k) fputs("# padding padding padding padding\n", f);
    fclose(f);
    expect_notice(path, "larger than 1 MiB");
    unlink(path);
}

/* A NUL byte in the last line (no newline after it) ends nothing silently: the file is refused. */
static void test_nul_byte(void **state)
{
    (void)state;
    char dir[256], path[512], notice[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/nul.tsv", dir);
    static const char bytes[] = KS_HEAD "GPU\tlaplace3d\tregq\t64x64x64\t32x8x1\t0.1\t9\0junk";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, sizeof bytes - 1, f), sizeof bytes - 1);
    fclose(f);
    ks_best_store *l = calloc(1, sizeof *l);
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_int_equal(l->count, 0);
    if (!strstr(notice, "line 2")) fail_msg("notice '%s' lacks 'line 2'", notice);
    free(l);
    unlink(path);
}

/* More entries than the store keeps: the first KS_BEST_MAX, and a notice that says so. */
static void test_too_many_lines(void **state)
{
    (void)state;
    char dir[256], path[512], notice[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/many.tsv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(KS_HEAD, f);
    const int n = KS_BEST_MAX + 100;
    for (int k = 0; k < n; ++k) fprintf(f, "GPU\tlaplace3d\tregq\t%dx64x64\t32x8x1\t0.1\t9\n", 3 + k);
    fclose(f);
    ks_best_store *l = calloc(1, sizeof *l);
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_int_equal(l->count, KS_BEST_MAX);
    char want[64];
    snprintf(want, sizeof want, "%d entries, kept the first %d", n, KS_BEST_MAX);
    if (!strstr(notice, want)) fail_msg("notice '%s' lacks '%s'", notice, want);
    free(l);
    unlink(path);
}

/* A path with control bytes is shown escaped in the notice. */
static void test_notice_escapes_path(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/\x1b[31mred\r.tsv", dir);
    ks_test_write_file(path, "");
    char notice[512];
    ks_best_store *l = calloc(1, sizeof *l);
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_null(strchr(notice, '\x1b'));
    assert_null(strchr(notice, '\r'));
    if (!strstr(notice, "\\x1b[31mred\\r.tsv")) fail_msg("notice '%s' is not escaped", notice);
    free(l);
    unlink(path);
}

static void test_stale_entries_dropped(void **state)
{
    (void)state;
    char dir[256], path[512], notice[512];
    ks_test_tmpdir(dir, sizeof dir, "best");
    snprintf(path, sizeof path, "%s/best.tsv", dir);
    ks_test_write_file(path, "# kernelscope best-config v1\n"
                     "GPU\tlaplace3d\told_kernel\t512x512x512\t32x8x1\t0.1\t900\n"
                     "GPU\tlaplace3d\tregq\t512x512x512\t64x4x1\t0.2\t800\n"
                     "GPU\tspheres\tregq\t512x512x512\t64x4x1\t0.2\t800\n");
    ks_best_store *l = calloc(1, sizeof *l);
    l->known = ks_scene_knows_kernel;
    ks_best_load(path, l, notice, sizeof notice);
    assert_int_equal(l->count, 1);
    assert_string_equal(l->entries[0].variant, "regq");
    assert_non_null(strstr(notice, "2 stale"));
    free(l);
}

static void test_missing_file_is_empty(void **state)
{
    (void)state;
    ks_best_store *l = calloc(1, sizeof *l);
    char notice[256];
    l->known = ks_scene_knows_kernel;
    ks_best_load("/nonexistent/kernelscope/best.tsv", l, notice, sizeof notice);
    assert_int_equal(l->count, 0);
    assert_string_equal(notice, "");
    free(l);
}

static void test_path_from_environment(void **state)
{
    (void)state;
    char buf[512];
    setenv("KS_BEST_CONFIG", "/tmp/x/best.tsv", 1);
    assert_int_equal(ks_best_path(buf, sizeof buf), KS_OK);
    assert_string_equal(buf, "/tmp/x/best.tsv");
    unsetenv("KS_BEST_CONFIG");
    setenv("XDG_CACHE_HOME", "/tmp/cache", 1);
    assert_int_equal(ks_best_path(buf, sizeof buf), KS_OK);
    assert_string_equal(buf, "/tmp/cache/kernelscope/best-config.tsv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_and_find),
        cmocka_unit_test(test_corrupt_files),
        cmocka_unit_test(test_numbers_checked),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_too_many_lines),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_notice_escapes_path),
        cmocka_unit_test(test_stale_entries_dropped),
        cmocka_unit_test(test_missing_file_is_empty),
        cmocka_unit_test(test_path_from_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
