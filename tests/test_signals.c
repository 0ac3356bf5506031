/* app/signals.c: the first SIGTERM ends a blocking wait (issue 21, defect 6:
 * with SA_RESTART a read from a silent pipe went on after it, and only a
 * second signal, or SIGKILL, ended the run). A child blocks in read(); the
 * parent sees it there (/proc), signals it once and wants it back. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/signals.h"

/* 1 when the process sleeps in read(): /proc/PID/syscall starts with the call's number (a
 * process that runs says "running"); where that file cannot be read, its state in
 * /proc/PID/stat is S (asleep), which after "ready" only the read can be. */
static int blocked_in_read(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/syscall", (long)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        long nr = -1;
        const int got = fscanf(f, "%ld", &nr);
        fclose(f);
        if (got == 1) return nr == SYS_read;
    }
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    f = fopen(path, "r");
    if (!f) return 0;
    char line[512] = "";
    const int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *end = got ? strrchr(line, ')') : NULL; /* "pid (comm) S ...": comm may hold spaces */
    return end && end[1] == ' ' && end[2] == 'S';
}

static void test_first_signal_ends_a_read(void **state)
{
    (void)state;
    int fds[2], ready[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(pipe(ready), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[1]);
        close(ready[0]);
        ks_signals_install();
        if (write(ready[1], "r", 1) != 1) _exit(4);
        char c;
        const ssize_t n = read(fds[0], &c, 1); /* nothing will ever come: the writer stays open in the parent */
        _exit(n < 0 && errno == EINTR && ks_signals_stop_requested() == SIGTERM ? 0 : 3);
    }
    close(fds[0]);
    close(ready[1]);
    /* the handler is in place once "r" comes; then wait (up to 60 s) until the child sleeps in
     * read(): a signal sent before it got there would be no test of the read */
    char r = 0;
    assert_int_equal(read(ready[0], &r, 1), 1);
    close(ready[0]);
    int in_read = 0;
    for (int i = 0; i < 6000 && !(in_read = blocked_in_read(pid)); ++i) poll(NULL, 0, 10);
    if (!in_read) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("the child did not reach read() within 60 s");
    }
    kill(pid, SIGTERM);
    /* back within 20 s: at once when the read ends, never when it goes on (a busy machine
     * may take its time to run the child at all) */
    int status = 0, done = 0;
    for (int i = 0; i < 2000 && !done; ++i) {
        done = waitpid(pid, &status, WNOHANG) == pid;
        if (!done) poll(NULL, 0, 10);
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

/* The "stopping" line after sig, on a stderr that is no terminal (a pipe
 * here): it starts the line, no blank line before it (issue 23 item 10). The
 * child says "ready" once its handler is in place; the parent waits for that,
 * not a fixed time. */
static void stopping_line(int sig, char *text, size_t cap)
{
    int out[2], err[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(err), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(out[0]);
        close(err[0]);
        dup2(err[1], STDERR_FILENO);
        ks_signals_install();
        if (write(out[1], "ready\n", 6) != 6) _exit(4);
        /* the signal may come before a blocking call starts: wait on the flag, in short polls */
        for (int i = 0; i < 6000 && !ks_signals_stop_requested(); ++i) poll(NULL, 0, 10);
        _exit(ks_signals_stop_requested() == sig ? 0 : 3);
    }
    close(out[1]);
    close(err[1]);
    char ready[8] = "";
    assert_int_equal(read(out[0], ready, 6), 6); /* blocks until the handler is installed */
    kill(pid, sig);
    size_t used = 0;
    ssize_t n;
    while (used < cap - 1 && (n = read(err[0], text + used, cap - 1 - used)) > 0) used += (size_t)n;
    text[used] = '\0';
    int status = 0;
    waitpid(pid, &status, 0);
    close(out[0]);
    close(err[0]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_stopping_line_has_no_blank_line(void **state)
{
    (void)state;
    char text[512];
    stopping_line(SIGINT, text, sizeof text);
    assert_string_equal(text,
                        "kernelscope: stopping once this frame (or bench row) is done; Ctrl-C again quits now\n");
}

/* SIGTERM (a script, a service manager) is said as itself, not as a Ctrl-C (issue 34 item 12). */
static void test_stopping_line_names_sigterm(void **state)
{
    (void)state;
    char text[512];
    stopping_line(SIGTERM, text, sizeof text);
    assert_string_equal(text, "kernelscope: SIGTERM: stopping once this frame (or bench row) is done; a second "
                              "SIGTERM quits now\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_first_signal_ends_a_read),
                                       cmocka_unit_test(test_stopping_line_has_no_blank_line),
                                       cmocka_unit_test(test_stopping_line_names_sigterm)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
