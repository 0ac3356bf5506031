/* The shared test helpers themselves: scratch folders go when a test program
 * passes (or skips) and stay, named on stderr, when it fails; a run's own
 * lines are waited for through pipes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

/* A child makes a scratch folder with a file beside it, then exits with
 * status; its stderr is returned in err, the folder's path in dir. */
static void child_exits(int status, char *dir, size_t dir_len, char *err, size_t err_len)
{
    int fds[2], path[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(pipe(path), 0);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        char d[256], side[300];
        ks_test_tmpdir(d, sizeof d, "selftest");
        snprintf(side, sizeof side, "%s.err", d);
        FILE *f = fopen(side, "w");
        if (f) fclose(f);
        if (write(path[1], d, strlen(d) + 1) < 0) _exit(99);
        exit(status); /* exit, not _exit: the at-exit clean-up runs */
    }
    close(fds[1]);
    close(path[1]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), status);
    const ssize_t n = read(path[0], dir, dir_len - 1);
    assert_true(n > 0);
    dir[n] = '\0';
    const ssize_t e = read(fds[0], err, err_len - 1);
    err[e > 0 ? e : 0] = '\0';
    close(fds[0]);
    close(path[0]);
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void test_scratch_removed_on_success(void **state)
{
    (void)state;
    char dir[256], err[512], side[300];
    for (int k = 0; k < 2; ++k) {
        child_exits(k ? 77 : 0, dir, sizeof dir, err, sizeof err);
        snprintf(side, sizeof side, "%s.err", dir);
        if (exists(dir) || exists(side)) fail_msg("%s (or %s) left after a passing run", dir, side);
        assert_string_equal(err, "");
    }
}

static void test_scratch_kept_on_failure(void **state)
{
    (void)state;
    char dir[256], err[512], want[300], side[300];
    child_exits(1, dir, sizeof dir, err, sizeof err);
    if (!exists(dir)) fail_msg("%s removed after a failed run", dir);
    snprintf(want, sizeof want, "kept %s", dir);
    if (!strstr(err, want)) fail_msg("stderr does not say where: '%s'", err);
    snprintf(side, sizeof side, "%s.err", dir);
    remove(side);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scratch_removed_on_success),
        cmocka_unit_test(test_scratch_kept_on_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
