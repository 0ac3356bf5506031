/* app/signals.c: the first SIGTERM ends a blocking wait (issue 21, defect 6:
 * with SA_RESTART a read from a silent pipe went on after it, and only a
 * second signal, or SIGKILL, ended the run). A child blocks in read(); the
 * parent signals it once and wants it back within 3 s. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/signals.h"

static void test_first_signal_ends_a_read(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[1]);
        ks_signals_install();
        char c;
        const ssize_t n = read(fds[0], &c, 1); /* nothing will ever come: the writer stays open in the parent */
        _exit(n < 0 && errno == EINTR && ks_signals_stop_requested() == SIGTERM ? 0 : 3);
    }
    close(fds[0]);
    const struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the child is in read() by now */
    kill(pid, SIGTERM);
    int status = 0, done = 0;
    for (int i = 0; i < 30 && !done; ++i) {
        done = waitpid(pid, &status, WNOHANG) == pid;
        if (!done) {
            const struct timespec step = {0, 100 * 1000 * 1000};
            nanosleep(&step, NULL);
        }
    }
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    close(fds[1]);
    assert_true(done);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_first_signal_ends_a_read)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
