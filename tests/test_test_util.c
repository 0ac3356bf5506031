/* The shared test helpers themselves: scratch folders go when a test program
 * passes (or skips) and stay, named on stderr, when it fails; a run's own
 * lines are waited for through pipes, and without a deadline as long as the
 * run takes (the "run" here is /bin/sh, slower than a deadline of 0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
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

/* The helpers start KS_BINARY: here a shell that runs script. */
static void start_sh(ks_test_proc *p, const char *script)
{
    setenv("KS_BINARY", "/bin/sh", 1);
    const char *argv[] = {"sh", "-c", script, NULL};
    ks_test_start(p, argv);
}

static void test_wait_for_without_deadline(void **state)
{
    (void)state;
    ks_test_proc *p = malloc(sizeof *p);
    assert_non_null(p);
    start_sh(p, "sleep 1; echo 'first line' >&2; sleep 1; echo 'late line' >&2; sleep 1; exit 3");
    assert_int_equal(ks_test_wait_for(p, 2, "first line", KS_TEST_NO_DEADLINE), 1);
    assert_int_equal(ks_test_wait_for(p, 2, "late line", KS_TEST_NO_DEADLINE), 1);
    /* a line that never comes: the stream's end, not a deadline, ends the wait */
    assert_int_equal(ks_test_wait_for(p, 2, "never said", KS_TEST_NO_DEADLINE), 0);
    assert_int_equal(ks_test_finish(p, KS_TEST_NO_DEADLINE), 3);

    start_sh(p, "exec 2>&-; sleep 2; exit 4"); /* the output ends long before the exit */
    assert_int_equal(ks_test_finish(p, KS_TEST_NO_DEADLINE), 4);
    free(p);
}

static void test_wait_exit_without_deadline(void **state)
{
    (void)state;
    setenv("KS_BINARY", "/bin/sh", 1);
    const char *argv[] = {"sh", "-c", "sleep 2; exit 5", NULL};
    const pid_t pid = ks_test_spawn(argv, NULL, "/dev/null");
    assert_true(pid > 0);
    assert_int_equal(ks_test_wait_exit(pid, KS_TEST_NO_DEADLINE), 5);
}

static void test_wait_handler_and_cpu_without_deadline(void **state)
{
    (void)state;
    ks_test_proc *p = malloc(sizeof *p);
    assert_non_null(p);
    /* the handler comes after a second; then the shell spins */
    start_sh(p, "sleep 1; trap 'exit 6' TERM; while :; do :; done");
    assert_int_equal(ks_test_wait_handler(p->pid, SIGTERM, KS_TEST_NO_DEADLINE), 1);
    const double used = ks_test_cpu_seconds(p->pid);
    assert_true(used >= 0.0);
    assert_int_equal(ks_test_wait_cpu(p->pid, used + 0.3, KS_TEST_NO_DEADLINE), 1);
    kill(p->pid, SIGTERM);
    assert_int_equal(ks_test_finish(p, KS_TEST_NO_DEADLINE), 6);

    /* a run that ends without the handler: the wait ends with it, it does not wait on */
    start_sh(p, "sleep 1; exit 0");
    assert_int_equal(ks_test_wait_handler(p->pid, SIGUSR2, KS_TEST_NO_DEADLINE), 0);
    assert_int_equal(ks_test_finish(p, KS_TEST_NO_DEADLINE), 0);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scratch_removed_on_success),
        cmocka_unit_test(test_scratch_kept_on_failure),
        cmocka_unit_test(test_wait_for_without_deadline),
        cmocka_unit_test(test_wait_exit_without_deadline),
        cmocka_unit_test(test_wait_handler_and_cpu_without_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
