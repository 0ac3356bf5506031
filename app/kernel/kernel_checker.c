/* The checker process (app/kernel/kernel_checker.h).
 *
 * Wire protocol, version 1, over the child's stdin / stdout:
 *   request: "ks-check 1 SCENE NX NY NZ BX BY BZ ITERS CUBIN CODE_BYTES FILE_BYTES\n",
 *            then FILE_BYTES bytes of the file name, then CODE_BYTES bytes of code;
 *   answer:  "ks-answer 1 PASSED FATAL CHILD_MS MESSAGE\n", the message with '\n',
 *            '\r' and '\\' written as \n, \r and \\ so that it stays one line. */
#define _GNU_SOURCE /* pipe2 */
#include "app/kernel/kernel_checker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/common/ks_util.h"

enum { KS_KCHECK_HEAD_MAX = 256, KS_KCHECK_LINE_MAX = 2 * KS_KCHECK_MSG_MAX + 64 };

struct ks_kchecker {
    char exe[PATH_MAX];
    const char *const *extra;
    double timeout_s;
    pid_t pid;
    int to_child, from_child; /* the parent's ends, close-on-exec */
};

/* ---- bytes on pipes ---- */

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        const ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes; -1 on end of file or error. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        const ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* One line (without its '\n') into buf; -1 at end of file, error or a line too long. */
static int read_line(int fd, char *buf, size_t cap)
{
    size_t used = 0;
    for (;;) {
        char c;
        if (read_all(fd, &c, 1) != 0) return -1;
        if (c == '\n') break;
        if (used + 1 >= cap) return -1;
        buf[used++] = c;
    }
    buf[used] = '\0';
    return 0;
}

/* ---- the child ---- */

static void escape_line(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 3 < cap; ++in) {
        const char c = *in;
        if (c == '\n' || c == '\r' || c == '\\') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
        } else {
            out[o++] = c;
        }
    }
    out[o] = '\0';
}

static void unescape_line(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 1 < cap; ++in) {
        if (*in == '\\' && in[1]) {
            ++in;
            out[o++] = *in == 'n' ? '\n' : *in == 'r' ? '\r' : *in;
        } else {
            out[o++] = *in;
        }
    }
    out[o] = '\0';
}

static int answer(int fd, const ks_kcheck_result *r)
{
    char msg[KS_KCHECK_LINE_MAX], line[KS_KCHECK_LINE_MAX + 64];
    escape_line(r->message, msg, sizeof msg);
    const int n = snprintf(line, sizeof line, "ks-answer 1 %d %d %.3f %s\n", r->passed ? 1 : 0, r->fatal ? 1 : 0,
                           r->child_ms, msg);
    return write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

int ks_kchecker_child_main(int in_fd, int out_fd, void (*warm)(void), ks_kcheck_fn check)
{
    if (warm) warm();
    for (;;) {
        char head[KS_KCHECK_HEAD_MAX];
        if (read_line(in_fd, head, sizeof head) != 0) return 0; /* the parent closed: done */
        ks_kcheck_request req;
        memset(&req, 0, sizeof req);
        unsigned long long code_size = 0, file_size = 0;
        int n_end = 0;
        if (sscanf(head, "ks-check 1 %31s %d %d %d %d %d %d %d %d %llu %llu%n", req.scene, &req.grid[0],
                   &req.grid[1], &req.grid[2], &req.block[0], &req.block[1], &req.block[2], &req.iters, &req.cubin,
                   &code_size, &file_size, &n_end) != 11 ||
            head[n_end] != '\0' || code_size == 0 || code_size > KS_KCHECK_CODE_MAX || file_size >= KS_KCHECK_FILE_MAX)
            return 2;
        void *code = malloc(code_size + 1);
        if (!code) return 2;
        if (read_all(in_fd, req.file, file_size) != 0 || memchr(req.file, '\0', file_size) ||
            read_all(in_fd, code, code_size) != 0) {
            free(code);
            return 2;
        }
        ((char *)code)[code_size] = '\0'; /* PTX is text: the loader reads to its NUL */
        req.code = code;
        req.code_size = code_size;
        ks_kcheck_result res;
        memset(&res, 0, sizeof res);
        const double t0 = ks_now_seconds();
        if (check(&req, &res) != KS_OK) {
            res.passed = 0;
            snprintf(res.message, sizeof res.message, "%s", ks_error_message());
        }
        res.child_ms = (ks_now_seconds() - t0) * 1e3;
        free(code);
        if (answer(out_fd, &res) != 0) return 2;
        if (res.fatal) return 3; /* the CUDA context is gone: the parent starts a new process */
    }
}

/* ---- the parent ---- */

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* Starts a child; KS_ERR_IO when it cannot be. */
static ks_status start_child(ks_kchecker *c)
{
    int in[2], out[2]; /* in: parent -> child's stdin; out: child's stdout -> parent */
    if (pipe2(in, O_CLOEXEC) != 0) return ks_fail(KS_ERR_IO, "checker process: pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        const int e = errno;
        close(in[0]);
        close(in[1]);
        return ks_fail(KS_ERR_IO, "checker process: pipe: %s", strerror(e));
    }
    const char *argv[16];
    int n = 0;
    argv[n++] = c->exe;
    argv[n++] = KS_KCHECK_ARG;
    for (int i = 0; c->extra && c->extra[i] && n < 15; ++i) argv[n++] = c->extra[i];
    argv[n] = NULL;
    const pid_t pid = fork();
    if (pid < 0) {
        const int e = errno;
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return ks_fail(KS_ERR_IO, "checker process: fork: %s", strerror(e));
    }
    if (pid == 0) { /* async-signal-safe calls only until exec: the parent has threads */
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0) _exit(126);
        /* every other descriptor of the parent is close-on-exec, or closed here */
        for (int fd = 3; fd < 1024; ++fd) close(fd);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->pid = pid;
    c->to_child = in[1];
    c->from_child = out[0];
    return KS_OK;
}

/* Ends the child (its stdin closed; SIGKILL when it lingers or kill is set) and reaps it.
 * Writes how it ended into why (cap bytes) when why is not NULL. */
static void stop_child(ks_kchecker *c, int kill_now, char *why, size_t cap)
{
    if (c->pid <= 0) return;
    close_fd(&c->to_child);
    if (kill_now) kill(c->pid, SIGKILL);
    int status = 0;
    pid_t got = 0;
    for (int tries = 0; tries < 200 && got == 0; ++tries) { /* up to 2 s to exit by itself */
        got = waitpid(c->pid, &status, WNOHANG);
        if (got == 0) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (got == 0) {
        kill(c->pid, SIGKILL);
        while ((got = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR) {}
    }
    if (why && got > 0) {
        if (WIFSIGNALED(status))
            snprintf(why, cap, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            snprintf(why, cap, "exited with status %d", WEXITSTATUS(status));
    }
    close_fd(&c->from_child);
    c->pid = 0;
}

ks_status ks_kchecker_create(const ks_kchecker_desc *desc, ks_kchecker **out)
{
    *out = NULL;
    ks_kchecker *c = calloc(1, sizeof *c);
    if (!c) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    c->to_child = c->from_child = -1;
    c->extra = desc->extra_args;
    c->timeout_s = desc->timeout_s > 0 ? desc->timeout_s : 10.0;
    if (desc->exe) {
        snprintf(c->exe, sizeof c->exe, "%s", desc->exe);
    } else {
        const ssize_t n = readlink("/proc/self/exe", c->exe, sizeof c->exe - 1);
        if (n <= 0) {
            free(c);
            return ks_fail(KS_ERR_IO, "checker process: cannot find this program (/proc/self/exe): %s",
                           strerror(errno));
        }
        c->exe[n] = '\0';
    }
    if (access(c->exe, X_OK) != 0) {
        const int e = errno;
        ks_status st = ks_fail(KS_ERR_IO, "checker process: cannot run '%s': %s", KS_QUOTED(c->exe), strerror(e));
        free(c);
        return st;
    }
    const ks_status st = start_child(c);
    if (st != KS_OK) {
        free(c);
        return st;
    }
    *out = c;
    return KS_OK;
}

int ks_kchecker_pid(const ks_kchecker *c) { return c ? (int)c->pid : 0; }

void ks_kchecker_destroy(ks_kchecker *c)
{
    if (!c) return;
    stop_child(c, 0, NULL, 0);
    free(c);
}

static ks_status check_request(const ks_kcheck_request *r)
{
    const size_t scene = strnlen(r->scene, KS_KCHECK_NAME_MAX);
    if (scene == 0 || scene == KS_KCHECK_NAME_MAX || strpbrk(r->scene, " \t\r\n"))
        return ks_fail(KS_ERR_INVALID, "kernel check: a scene name of 1..%d bytes without spaces",
                       KS_KCHECK_NAME_MAX - 1);
    if (strnlen(r->file, KS_KCHECK_FILE_MAX) == KS_KCHECK_FILE_MAX)
        return ks_fail(KS_ERR_INVALID, "kernel check: a file name under %d bytes", KS_KCHECK_FILE_MAX);
    if (!r->code || r->code_size == 0 || r->code_size > KS_KCHECK_CODE_MAX)
        return ks_fail(KS_ERR_INVALID, "kernel check: 1 byte to %d MiB of code", KS_KCHECK_CODE_MAX >> 20);
    for (int d = 0; d < 3; ++d)
        if (r->grid[d] < 1 || r->block[d] < 1)
            return ks_fail(KS_ERR_INVALID, "kernel check: grid and block sizes must be positive");
    if (r->iters < 0) return ks_fail(KS_ERR_INVALID, "kernel check: iterations must be >= 0");
    return KS_OK;
}

/* The answer line, waiting until the deadline: 1 read, 0 end of file, -1 time-out. */
static int wait_answer(ks_kchecker *c, double deadline, char *line, size_t cap)
{
    size_t used = 0;
    for (;;) {
        const double left = deadline - ks_now_seconds();
        if (left <= 0) return -1;
        struct pollfd p = {c->from_child, POLLIN, 0};
        const int r = poll(&p, 1, (int)(left * 1e3) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return 0;
        if (r == 0) continue; /* the deadline check above ends it */
        char buf[512];
        const ssize_t n = read(c->from_child, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        for (ssize_t i = 0; i < n; ++i) {
            if (buf[i] == '\n') {
                line[used] = '\0';
                return 1; /* one request, one answer: nothing follows it */
            }
            if (used + 1 < cap) line[used++] = buf[i];
        }
    }
}

ks_status ks_kchecker_run(ks_kchecker *c, const ks_kcheck_request *req, ks_kcheck_result *out)
{
    memset(out, 0, sizeof *out);
    KS_TRY(check_request(req));
    if (c->pid <= 0) KS_TRY(start_child(c));
    const double t0 = ks_now_seconds();
    const size_t file_len = strlen(req->file);
    char head[KS_KCHECK_HEAD_MAX];
    const int hn = snprintf(head, sizeof head, "ks-check 1 %s %d %d %d %d %d %d %d %d %zu %zu\n", req->scene,
                            req->grid[0], req->grid[1], req->grid[2], req->block[0], req->block[1], req->block[2],
                            req->iters, req->cubin ? 1 : 0, req->code_size, file_len);
    /* A child that died since the last check makes these writes fail (EPIPE) and the
     * answer below sees end of file. The SIGPIPE they raise is blocked on this thread and
     * taken back here, so it never ends the app (whose SIGPIPE stays as it was). */
    sigset_t pipe_set, old_set, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    sigpending(&pending);
    const int was_pending = sigismember(&pending, SIGPIPE) == 1;
    const int sent = write_all(c->to_child, head, (size_t)hn) == 0 && write_all(c->to_child, req->file, file_len) == 0 &&
                     write_all(c->to_child, req->code, req->code_size) == 0;
    if (!sent && errno == EPIPE && !was_pending)
        sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0}); /* ours: take it back */
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    char line[KS_KCHECK_LINE_MAX + 64];
    const int got = sent ? wait_answer(c, t0 + c->timeout_s, line, sizeof line) : 0;
    out->total_ms = (ks_now_seconds() - t0) * 1e3;
    int passed = 0, fatal = 0, at = 0;
    double child_ms = 0;
    if (got == 1 && sscanf(line, "ks-answer 1 %d %d %lf %n", &passed, &fatal, &child_ms, &at) == 3 && at > 0) {
        out->passed = passed == 1;
        out->fatal = fatal == 1;
        out->child_ms = child_ms;
        unescape_line(line + at, out->message, sizeof out->message);
        if (out->fatal) stop_child(c, 0, NULL, 0); /* it exits by itself after a fatal answer */
    } else {
        char why[128] = "";
        stop_child(c, got < 0, why, sizeof why);
        if (got < 0) snprintf(out->message, sizeof out->message, "did not finish in %g s", c->timeout_s);
        else snprintf(out->message, sizeof out->message, "the check process died: %s", why[0] ? why : "no answer");
        out->fatal = 1;
    }
    if (c->pid <= 0) return start_child(c); /* warm again for the next check */
    return KS_OK;
}
