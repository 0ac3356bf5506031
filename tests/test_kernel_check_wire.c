/* The checker's wire protocol seen from the child's side (part of
 * test_kernel_checker, test_kernel_check_wire.h): the child refuses every
 * malformed request with exit status 2, and the raw child that answers with
 * the bytes a test gives (the parent's side of malformed answers). */
#include "test_kernel_check_wire.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"

/* The child alone, fed input on its stdin: its exit status. The input goes
 * into the pipe before the child starts, so that no write meets a closed pipe. */
static int child_exit(const char *input, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], input, len), (ssize_t)len);
    close(p[1]);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int null_fd = open("/dev/null", O_WRONLY);
        if (dup2(p[0], 0) != 0 || null_fd < 0 || dup2(null_fd, 1) != 1) _exit(99);
        execl("/proc/self/exe", "test_kernel_checker", KS_KCHECK_ARG, (char *)NULL);
        _exit(98);
    }
    close(p[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}
#define CHILD_EXIT(text) child_exit(text, sizeof text - 1)

void test_child_strict(void **state)
{
    (void)state;
    assert_int_equal(CHILD_EXIT(""), 0);
    assert_int_equal(CHILD_EXIT("kscheck/3 pass 1 1 1 1 1 1 0 0 3 2 0 0 0 0 0\nabxyz"), 0);
    assert_int_equal(CHILD_EXIT("kscheck/3 pass 1 1 1 1 1 1 0 0 3 2 0 0 0 0 0\nabxyzkscheck/3 mismatch 1 1 1 1 1 1 0 0 1 0 0 0 0 0 0\nq"), 0);
    assert_int_equal(CHILD_EXIT("kscheck/3 fatal 1 1 1 1 1 1 0 0 1 0 0 0 0 0 0\nq"), 3);
    assert_int_equal(CHILD_EXIT("kscheck/3 diff 4 3 2 1 1 1 0 0 1 0 1 2 1 0 0\nq"), 0); /* a slice asked for */
    assert_int_equal(CHILD_EXIT("kscheck/3 diff 4 3 2 1 1 1 0 0 1 0 1 2 1 256 1\nq"), 0); /* cells of its own */
    const char *const bad[] = {
        "kscheck/3 pass 1 1 1 1 1 1 0 0 10 0 0 0 0 0 0\nabc",     /* code cut short */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 3 2 0 0 0 0 0\na",        /* file name cut short */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 1 0 0 0 0 0 0",            /* no end of line */
        "kscheck/2 pass 1 1 1 1 1 1 0 0 1 0 0 0 0\nx",          /* another version */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 1 0 0 0 0 0\nx",      /* a field missing */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 1 0 0 0 0 0 0 7\nx",  /* one too many */
        "kscheck/3 pass  1 1 1 1 1 0 0 1 0 0 0 0 0 0\nx",     /* two spaces */
        "kscheck/3 pass 0 1 1 1 1 1 0 0 1 0 0 0 0 0 0\nx",    /* an empty grid */
        "kscheck/3 pass 1 1 1 1 1 1 0 2 1 0 0 0 0 0 0\nx",    /* cubin neither 0 nor 1 */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 -1 0 0 0 0 0 0\nx",   /* a sign */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0\n",     /* no code */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 16777217 0 0 0 0 0 0\nx", /* too much code */
        "kscheck/3 pass 1 1 1 1 1 1 0 0 1 256 0 0 0 0 0\nx",  /* too long a file name */
        "kscheck/3 pass 1 1 1 99999999999 1 1 0 0 1 0 0 0 0 0 0\nx",
        "kscheck/3 pass 4 3 2 1 1 1 0 0 1 0 2 2 1 0 0\nx",    /* diff neither 0 nor 1 */
        "kscheck/3 pass 4 3 2 1 1 1 0 0 1 0 1 3 1 0 0\nx",    /* no axis 3 */
        "kscheck/3 pass 4 3 2 1 1 1 0 0 1 0 1 2 2 0 0\nx",    /* a slice past the grid */
        "kscheck/3 pass 4 3 1 1 1 1 0 0 1 0 1 0 1 0 0\nx",    /* a 2D grid: its z slice only */
        "kscheck/3 pass 5000 5000 3 1 1 1 0 0 1 0 1 2 1 0 0\nx",  /* a slice over KS_KCHECK_DIFF_MAX */
        "kscheck/3 pass 4 3 2 1 1 1 0 0 1 0 1 2 1 0 5\nx",    /* cells of its own, one of them 0 */
        "kscheck/3 pass 4 3 2 1 1 1 0 0 1 0 1 2 1 5000 5000\nx", /* cells over KS_KCHECK_DIFF_MAX */
        "\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        if (child_exit(bad[i], strlen(bad[i])) != 2) fail_msg("request %zu was not refused", i);
    }
    assert_int_equal(CHILD_EXIT("kscheck/3 pass 1 1 1 1 1 1 0 0 1 2 0 0 0 0 0\na\0x"), 2); /* a NUL in the file name */
}

/* The raw child (see the top): "ready", then for each request line the
 * answer line and values (argv[3] comma-separated), cut to argv[4] bytes
 * when that is >= 0 (and then gone); the rest of the request is skipped. */
int raw_child(const char *line, const char *values, int cut)
{
    float v[64];
    int n = 0;
    for (const char *p = values; *p && n < 64;) {
        char *end;
        v[n++] = strtof(p, &end);
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) return 2;
    }
    char ready[] = "kscheck/3 ready\n";
    if (write(1, ready, sizeof ready - 1) != (ssize_t)(sizeof ready - 1)) return 2;
    char ch;
    ssize_t got;
    while ((got = read(0, &ch, 1)) == 1) {
        if (ch != '\n') continue; /* the header line's end; file and code bytes hold no '\n' here */
        char text[256];
        const int len = snprintf(text, sizeof text, "%s\n", line);
        const size_t bytes = (size_t)n * sizeof *v;
        const size_t send = cut >= 0 && (size_t)cut < bytes ? (size_t)cut : bytes;
        if (write(1, text, (size_t)len) != len || write(1, v, send) != (ssize_t)send) return 2;
        if (cut >= 0) _exit(0);
    }
    return got == 0 ? 0 : 2;
}
