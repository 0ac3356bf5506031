/* base/out_file.h: the temporary every output goes through. Its
 * random names are steered here (getrandom is wrapped at link time), so that
 * symlinks and files can be planted at exactly the names it will draw: none is
 * ever written through or replaced, a flood of them is an error, not a
 * write; no_clobber never replaces; a failed file leaves nothing; the signal
 * handler's list holds the temporary while it exists; the probe leaves nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/out_file.h"
#include "base/tmpfiles.h"

/* ---- getrandom, steered ---------------------------------------------------- */

ssize_t __real_getrandom(void *buf, size_t len, unsigned flags);
ssize_t __wrap_getrandom(void *buf, size_t len, unsigned flags);

static int g_fixed_calls;       /* calls still answered with g_fixed_byte + call number */
static unsigned char g_fixed_byte;
static int g_fail_calls;        /* calls answered with ENOSYS (a kernel without getrandom) */

ssize_t __wrap_getrandom(void *buf, size_t len, unsigned flags)
{
    if (g_fail_calls > 0) {
        --g_fail_calls;
        errno = ENOSYS;
        return -1;
    }
    if (g_fixed_calls > 0) {
        --g_fixed_calls;
        memset(buf, g_fixed_byte++, len);
        return (ssize_t)len;
    }
    return __real_getrandom(buf, len, flags);
}

/* The name drawn from bytes all equal to b: each is one of 62 characters. */
static char name_char(unsigned char b)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    return chars[b % 62];
}

/* ---- scratch folder -------------------------------------------------------- */

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    g_fixed_calls = g_fail_calls = 0;
    snprintf(g_dir, sizeof g_dir, "/tmp/ks_test_out_file_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(g_dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[600];
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(g_dir);
    return 0;
}

static int count_entries(const char *needle)
{
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, needle)) ++n;
    closedir(d);
    return n;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_text(const char *path, const char *want)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

/* path.tmp-CCCCCC for the name drawn from bytes all b */
static void drawn_name(char *out, size_t cap, const char *path, unsigned char b)
{
    const char c = name_char(b);
    snprintf(out, cap, "%s.tmp-%c%c%c%c%c%c", path, c, c, c, c, c, c);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_planted_at_drawn_names(void **state)
{
    (void)state;
    char path[400], victim[400], link1[450], file2[450];
    snprintf(path, sizeof path, "%s/out.png", g_dir);
    snprintf(victim, sizeof victim, "%s/victim", g_dir);
    write_file(victim, "victim");
    /* the first name drawn is a symlink to the victim, the second someone's file */
    drawn_name(link1, sizeof link1, path, 7);
    drawn_name(file2, sizeof file2, path, 8);
    assert_int_equal(symlink(victim, link1), 0);
    write_file(file2, "theirs");
    g_fixed_byte = 7;
    g_fixed_calls = 2;
    ks_out_file *f = NULL;
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_OK);
    assert_int_equal(g_fixed_calls, 0); /* both names were tried */
    assert_string_not_equal(ks_out_file_tmp_name(f), link1);
    assert_string_not_equal(ks_out_file_tmp_name(f), file2);
    assert_non_null(strstr(ks_out_file_tmp_name(f), "/out.png.tmp-")); /* beside the target, marked */
    assert_string_equal(ks_out_file_path(f), path);
    assert_int_equal(ks_out_file_write(f, "ours", 4), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_OK);
    expect_text(path, "ours");
    expect_text(victim, "victim");
    expect_text(file2, "theirs");
    struct stat sb;
    assert_int_equal(lstat(link1, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_int_equal(count_entries(".tmp-"), 2); /* the two planted, none of ours */
}

/* Every name taken: an error after a bounded number of draws, nothing written. */
static void test_every_name_taken(void **state)
{
    (void)state;
    char path[400], victim[400], planted[450];
    snprintf(path, sizeof path, "%s/f.npy", g_dir);
    snprintf(victim, sizeof victim, "%s/victim", g_dir);
    write_file(victim, "victim");
    drawn_name(planted, sizeof planted, path, 0);
    assert_int_equal(symlink(victim, planted), 0);
    g_fixed_byte = 0;
    for (int round = 0; round < 2; ++round) {
        g_fixed_calls = 1000; /* bytes 0, 1, 2, ...: 62 apart draw the same name */
        g_fixed_byte = 0;
        /* plant at every name the draws can give */
        for (unsigned b = 1; b < 62; ++b) {
            char more[450];
            drawn_name(more, sizeof more, path, (unsigned char)b);
            if (access(more, F_OK) != 0) assert_int_equal(symlink(victim, more), 0);
        }
        ks_out_file *f = (ks_out_file *)&f;
        assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_ERR_IO);
        assert_null(f);
        assert_non_null(strstr(ks_error_message(), "File exists"));
        assert_int_not_equal(ks_out_file_probe(path), 0);
    }
    g_fixed_calls = 0;
    expect_text(victim, "victim");
    assert_int_equal(count_entries(".tmp-"), 62);
    assert_int_not_equal(access(path, F_OK), 0);
}

/* Without the kernel's random bytes the names are still distinct. */
static void test_without_getrandom(void **state)
{
    (void)state;
    char a[400], b[400];
    snprintf(a, sizeof a, "%s/a.csv", g_dir);
    snprintf(b, sizeof b, "%s/a.csv", g_dir);
    g_fail_calls = 1000;
    ks_out_file *fa = NULL, *fb = NULL;
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = a}, &fa), KS_OK);
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = b}, &fb), KS_OK);
    assert_string_not_equal(ks_out_file_tmp_name(fa), ks_out_file_tmp_name(fb));
    g_fail_calls = 0;
    assert_int_equal(count_entries("a.csv.tmp-"), 2);
    ks_out_file_abort(fa);
    ks_out_file_abort(fb);
    assert_int_equal(count_entries(""), 0);
}

/* The signal handler's list holds the temporary from before it exists until
 * it is renamed: a second Ctrl-C (ks_tmpfiles_unlink_all) removes it. */
static void test_registered_for_the_handler(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/v.mp4", g_dir);
    ks_out_file *f = NULL;
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_OK);
    assert_int_equal(ks_out_file_write(f, "x", 1), KS_OK);
    assert_int_equal(count_entries(".tmp-"), 1);
    ks_tmpfiles_unlink_all();
    assert_int_equal(count_entries(""), 0);
    ks_out_file_abort(f);

    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_OK);
    ks_tmpfiles_unlink_all(); /* a committed file is no longer on the list */
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(count_entries(""), 1);
}

static void test_no_clobber(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/k.cu", g_dir);
    ks_out_file *f = NULL;
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path, .no_clobber = 1, .sync = 1}, &f), KS_OK);
    assert_int_equal(ks_out_file_write(f, "first", 5), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_OK);
    expect_text(path, "first");
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path, .no_clobber = 1}, &f), KS_OK);
    assert_int_equal(ks_out_file_write(f, "second", 6), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_ERR_INVALID);
    assert_non_null(strstr(ks_error_message(), "exists"));
    expect_text(path, "first");
    /* a dangling symlink at the target is something there too */
    char dangling[400];
    snprintf(dangling, sizeof dangling, "%s/d.cu", g_dir);
    assert_int_equal(symlink("/nonexistent-ks-target", dangling), 0);
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = dangling, .no_clobber = 1}, &f), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_ERR_INVALID);
    assert_int_not_equal(access("/nonexistent-ks-target", F_OK), 0);
    assert_int_equal(count_entries(".tmp-"), 0);
}

/* A writer's own failure, a failed rename: the old file stays, nothing else. */
static void test_failures_leave_nothing(void **state)
{
    (void)state;
    char path[400], folder[400];
    snprintf(path, sizeof path, "%s/r.csv", g_dir);
    write_file(path, "old");
    ks_out_file *f = NULL;
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_OK);
    assert_int_equal(ks_out_file_write(f, "new", 3), KS_OK);
    ks_out_file_set_error(f, ENOSPC);
    assert_int_equal(ks_out_file_error(f), ENOSPC);
    assert_int_equal(ks_out_file_write(f, "more", 4), KS_ERR_IO); /* after a failure every write fails */
    assert_int_equal(ks_out_file_commit(f), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), strerror(ENOSPC)));
    assert_non_null(strstr(ks_error_message(), path));
    expect_text(path, "old");
    assert_int_equal(count_entries(""), 1);

    snprintf(folder, sizeof folder, "%s/sub", g_dir);
    assert_int_equal(mkdir(folder, 0700), 0);
    char inner[450];
    snprintf(inner, sizeof inner, "%s/keep", folder);
    write_file(inner, "k");
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = folder}, &f), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_ERR_IO); /* a folder that is not empty is not replaced */
    assert_int_equal(count_entries(".tmp-"), 0);
    unlink(inner);
    rmdir(folder);

    ks_out_file_abort(NULL);
    assert_int_equal(ks_out_file_commit(NULL), KS_OK);
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = ""}, &f), KS_ERR_INVALID);
    snprintf(path, sizeof path, "%s/missing/x", g_dir);
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), "No such file or directory"));
}

/* The mode: a replaced file's bits (set before any byte is written), 0666 less
 * the umask for a new one. */
static void test_mode(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/mine.cu", g_dir);
    const mode_t old_mask = umask(027);
    ks_out_file *f = NULL;
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_OK);
    assert_int_equal(ks_out_file_commit(f), KS_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    assert_int_equal(chmod(path, 0604), 0);
    assert_int_equal(ks_out_file_open(&(ks_out_file_desc){.path = path}, &f), KS_OK);
    assert_int_equal(stat(ks_out_file_tmp_name(f), &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0604);
    assert_int_equal(ks_out_file_commit(f), KS_OK);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0604);
    umask(old_mask);
}

static void test_probe(void **state)
{
    (void)state;
    char path[400], missing[400];
    snprintf(path, sizeof path, "%s/f.npy", g_dir);
    snprintf(missing, sizeof missing, "%s/no/f.npy", g_dir);
    assert_int_equal(ks_out_file_probe(path), 0);
    assert_int_equal(count_entries(""), 0);
    assert_int_equal(ks_out_file_probe(missing), ENOENT);
    assert_int_equal(ks_out_file_probe(""), ENOENT);
    struct stat sb;
    if (stat("/sys/kernel", &sb) == 0 && S_ISDIR(sb.st_mode)) /* root passes access() there; no file is made */
        assert_int_not_equal(ks_out_file_probe("/sys/kernel/f.npy"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_planted_at_drawn_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_name_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_without_getrandom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_registered_for_the_handler, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_clobber, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_leave_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
