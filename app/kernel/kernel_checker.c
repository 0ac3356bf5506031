/* The checker process, the parent's side (kernel_checker.h): the child
 * started with posix_spawn and kept warm, a request sent and its answer read
 * by a deadline, a child that dies, hangs or answers wrongly replaced. The
 * wire protocol is kernel_check_wire.h; the child's loop kernel_check_child.c. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np, sigdescr_np */
#include "app/kernel/kernel_checker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/kernel/kernel_check_wire.h"
#include "base/ks_util.h"

extern char **environ; /* what the child gets: ours */

static const double kcheck_start_s = 30.0; /* a fresh child's exec and warm(), before its first check */
static const double kcheck_exit_s = 3.0;   /* a child told to stop (stdin closed) gets this long */

typedef enum { IO_OK, IO_EOF, IO_TIMEOUT, IO_BAD, IO_ERR } io_result;

struct ks_kchecker {
    char **argv;             /* exe, KS_KCHECK_ARG, extra args, NULL (each malloc'd) */
    double timeout_s;        /* one check's limit */
    pid_t pid;               /* the current child, 0 when none */
    int to_child, from_child; /* our ends of its stdin and stdout (non-blocking), -1 when none */
    int ready;               /* it said "ready" (warm() done) */
    char buf[KCHECK_LINE_MAX]; /* what it sent that is not yet a whole line */
    size_t len;
    pid_t lingering[8];      /* killed children not yet reaped (a GPU context can take a while
                                to be torn down): reaped later, never waited for */
};

/* Reaps what it can of the killed children that had not ended yet. */
static void reap_lingering(ks_kchecker *c)
{
    for (size_t i = 0; i < sizeof c->lingering / sizeof c->lingering[0]; ++i)
        if (c->lingering[i] > 0 && waitpid(c->lingering[i], NULL, WNOHANG) != 0) c->lingering[i] = 0;
}

/* ---- parent ---- */

/* Ends the child: closes its stdin, waits up to grace_s for it to exit, then
 * SIGKILL. Returns its wait status, -1 when it could not be had. */
static int child_stop(ks_kchecker *c, double grace_s)
{
    int status = -1;
    if (c->to_child >= 0) close(c->to_child);
    c->to_child = -1;
    if (c->pid > 0) {
        const double end = ks_now_seconds() + grace_s;
        pid_t r;
        while ((r = waitpid(c->pid, &status, WNOHANG)) == 0 && ks_now_seconds() < end)
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        if (r == 0) {
            /* killed: a process whose GPU context is being torn down can take long to end,
               so it gets a few seconds, then is left to be reaped later; a check never
               waits on it for long */
            kill(c->pid, SIGKILL);
            const double kill_end = ks_now_seconds() + kcheck_exit_s;
            while ((r = waitpid(c->pid, &status, WNOHANG)) == 0 && ks_now_seconds() < kill_end)
                nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
            if (r == 0) {
                reap_lingering(c);
                for (size_t i = 0; i < sizeof c->lingering / sizeof c->lingering[0]; ++i)
                    if (c->lingering[i] <= 0) {
                        c->lingering[i] = c->pid;
                        break;
                    }
                status = SIGKILL; /* as if reaped: killed by SIGKILL */
                r = c->pid;
            }
        }
        reap_lingering(c);
        if (r != c->pid) status = -1; /* ECHILD: someone else reaped it (SIGCHLD ignored) */
    }
    if (c->from_child >= 0) close(c->from_child);
    c->from_child = -1;
    c->pid = 0;
    c->ready = 0;
    c->len = 0;
    return status;
}

/* An fd of ours at 3 or above (close-on-exec), so that the spawn's dup2
 * onto 0 and 1 can neither clobber it nor be a no-op. -1 on an error. */
static int above_stdio(int fd)
{
    if (fd < 0 || fd > 2) return fd;
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return moved;
}

/* Starts a child. posix_spawn, not fork: glibc spawns with vfork semantics
 * and runs no pthread_atfork handlers, and the GPU driver's handlers can
 * deadlock a fork from this thread while the frame loop is inside a CUDA or
 * EGL call (the live view forks a new checker after every fault). Exec
 * failures come back as its return value. */
static ks_status child_start(ks_kchecker *c)
{
    int p[2][2] = {{-1, -1}, {-1, -1}}; /* its stdin, its stdout */
    int e = 0;
    for (int i = 0; i < 2 && !e; ++i) {
        if (pipe2(p[i], O_CLOEXEC) != 0) e = errno;
        for (int k = 0; k < 2 && !e; ++k)
            if ((p[i][k] = above_stdio(p[i][k])) < 0) e = errno;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    sigemptyset(&none);
    pid_t pid = -1;
    if (!e) e = posix_spawn_file_actions_init(&fa);
    if (!e) {
        if (!(e = posix_spawnattr_init(&attr))) {
            /* the child's stdin and stdout; every other fd of ours but stderr stays here
               (the rest of the app opens some without O_CLOEXEC) */
            if (!e) e = posix_spawn_file_actions_adddup2(&fa, p[0][0], 0);
            if (!e) e = posix_spawn_file_actions_adddup2(&fa, p[1][1], 1);
            if (!e) e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
            if (!e) e = posix_spawnattr_setsigmask(&attr, &none); /* this thread blocks them all */
            if (!e) e = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
            if (!e) e = posix_spawn(&pid, c->argv[0], &fa, &attr, c->argv, environ);
            posix_spawnattr_destroy(&attr);
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    if (p[0][0] >= 0) close(p[0][0]);
    if (p[1][1] >= 0) close(p[1][1]);
    c->pid = !e && pid > 0 ? pid : 0;
    c->to_child = p[0][1];
    c->from_child = p[1][0];
    /* non-blocking on our side, so that a child that stops reading cannot hold us past the deadline */
    if (!e && (fcntl(c->to_child, F_SETFL, O_NONBLOCK) != 0 || fcntl(c->from_child, F_SETFL, O_NONBLOCK) != 0))
        e = errno;
    if (!e) return KS_OK;
    child_stop(c, 0);
    return ks_fail(KS_ERR_IO, "cannot start the check process '%s': %s", KS_QUOTED(c->argv[0]), strerror(e));
}

/* After a read or write that failed: IO_OK to try again (EINTR, or fd ready
 * by the deadline), else why not (EPIPE: the child is gone). */
static io_result retry(int fd, short events, double deadline)
{
    if (errno == EINTR) return IO_OK;
    if (errno != EAGAIN) return errno == EPIPE ? IO_EOF : IO_ERR;
    for (;;) {
        const double left = deadline - ks_now_seconds();
        struct pollfd p = {.fd = fd, .events = events};
        const int r = poll(&p, 1, left > 0 ? (int)(left * 1000.0) + 1 : 0);
        if (r > 0) return IO_OK;
        if (r < 0 && errno != EINTR) return IO_ERR;
        if (r == 0 && left <= 0) return IO_TIMEOUT;
    }
}

/* Writes n bytes to the child by the deadline. */
static io_result send_all(ks_kchecker *c, const void *p, size_t n, double deadline)
{
    io_result r = IO_OK;
    for (const char *b = p; n > 0 && r == IO_OK;) {
        const ssize_t w = write(c->to_child, b, n);
        if (w >= 0) {
            b += w;
            n -= (size_t)w;
        } else {
            r = retry(c->to_child, POLLOUT, deadline);
        }
    }
    return r;
}

/* Sends the request with SIGPIPE blocked on this thread and a SIGPIPE that
 * the write raised taken back, so that a dead child is an EPIPE here and not
 * the end of the app; the process's own SIGPIPE disposition is left alone. */
static io_result send_request(ks_kchecker *c, const ks_kcheck_request *req, size_t file_len, double deadline)
{
    char head[KCHECK_HEADER_MAX];
    snprintf(head, sizeof head, KCHECK_MAGIC " %s %d %d %d %d %d %d %d %d %zu %zu %d %d %d %d %d\n", req->scene,
             req->grid[0], req->grid[1], req->grid[2], req->block[0], req->block[1], req->block[2], req->iters,
             req->cubin ? 1 : 0, req->code_size, file_len, req->diff ? 1 : 0, req->diff ? req->axis : 0,
             req->diff ? req->index : 0, req->diff ? req->cells[0] : 0, req->diff ? req->cells[1] : 0);
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    const int was_pending = sigismember(&pending, SIGPIPE) == 1; /* not ours to take */
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    io_result r = send_all(c, head, strlen(head), deadline);
    if (r == IO_OK) r = send_all(c, req->file, file_len, deadline);
    if (r == IO_OK) r = send_all(c, req->code, req->code_size, deadline);
    if (r == IO_EOF && !was_pending)
        while (sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0}) < 0 && errno == EINTR) {}
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return r;
}

/* Reads one line from the child (without its '\n') by the deadline. */
static io_result read_line(ks_kchecker *c, char *line, size_t cap, double deadline)
{
    for (;;) {
        const char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            const size_t n = (size_t)(nl - c->buf);
            if (n >= cap) return IO_BAD;
            memcpy(line, c->buf, n);
            line[n] = '\0';
            c->len -= n + 1;
            memmove(c->buf, nl + 1, c->len);
            return IO_OK;
        }
        if (c->len == sizeof c->buf) return IO_BAD;
        const ssize_t got = read(c->from_child, c->buf + c->len, sizeof c->buf - c->len);
        if (got == 0) return IO_EOF;
        if (got > 0) c->len += (size_t)got;
        io_result r;
        if (got < 0 && (r = retry(c->from_child, POLLIN, deadline)) != IO_OK) return r;
    }
}

/* The next number of an answer line and the space after it; NULL when malformed. */
static const char *answer_num(const char *p, long long hi, long long *v)
{
    const size_t k = strcspn(p, " ");
    return p[k] && ks_kcheck_parse_num(p, k, 0, hi, v) == 0 ? p + k + 1 : NULL;
}

/* Strict parse of an answer line into out (the difference slice's size in
 * diff_w, diff_h; no values yet); 0, or -1 when malformed. */
static int parse_answer(const char *line, ks_kcheck_result *out)
{
    static const char magic[] = KCHECK_MAGIC " ";
    const char *p = line + sizeof magic - 1;
    long long passed, fatal, us, w = 0, h = 0;
    if (strncmp(line, magic, sizeof magic - 1) != 0 || ks_kcheck_parse_num(p, 1, 0, 1, &passed) != 0 || p[1] != ' ' ||
        ks_kcheck_parse_num(p + 2, 1, 0, 1, &fatal) != 0 || p[3] != ' ')
        return -1;
    p += 4;
    if (!(p = answer_num(p, 9999999999LL, &us)) || !(p = answer_num(p, INT_MAX, &w)) || !(p = answer_num(p, INT_MAX, &h)))
        return -1;
    size_t n = 0;
    for (; *p; ++p) {
        char ch = *p;
        if (ch == '\\') {
            ch = p[1] == 'n' ? '\n' : p[1] == '\\' ? '\\' : '\0';
            if (!ch) return -1;
            ++p;
        }
        if (n + 1 >= sizeof out->message) return -1;
        out->message[n++] = ch;
    }
    out->message[n] = '\0';
    out->passed = (int)passed;
    out->fatal = (int)fatal;
    out->child_ms = (double)us / 1000.0;
    out->diff_w = (int)w;
    out->diff_h = (int)h;
    return 0;
}

/* Reads n bytes from the child by the deadline: first what read_line took
 * past its line, then the pipe. */
static io_result read_bytes(ks_kchecker *c, void *dst, size_t n, double deadline)
{
    char *b = dst;
    const size_t held = c->len < n ? c->len : n;
    memcpy(b, c->buf, held);
    c->len -= held;
    memmove(c->buf, c->buf + held, c->len);
    for (b += held, n -= held; n > 0;) {
        const ssize_t got = read(c->from_child, b, n);
        if (got == 0) return IO_EOF;
        if (got > 0) {
            b += got;
            n -= (size_t)got;
            continue;
        }
        const io_result r = retry(c->from_child, POLLIN, deadline);
        if (r != IO_OK) return r;
    }
    return IO_OK;
}

/* The difference slice after an answer line: none, or exactly the size the
 * request asked for, every value >= 0 (+inf allowed), else IO_BAD. */
static io_result read_diff(ks_kchecker *c, const ks_kcheck_request *req, ks_kcheck_result *out, double deadline)
{
    const long long cells = (long long)out->diff_w * out->diff_h;
    int w = 0, h = 0;
    if (cells == 0) {
        out->diff_w = out->diff_h = 0;
        return IO_OK;
    }
    if (!req->diff || !ks_kcheck_diff_dims(req, &w, &h) || out->diff_w != w || out->diff_h != h ||
        cells > KS_KCHECK_DIFF_MAX)
        return IO_BAD; /* never read (nor allocated) a size the request did not ask for */
    float *d = malloc((size_t)cells * sizeof *d);
    if (!d) {
        errno = ENOMEM; /* "cannot talk to the check process: Cannot allocate memory" */
        return IO_ERR;
    }
    io_result r = read_bytes(c, d, (size_t)cells * sizeof *d, deadline);
    for (long long i = 0; r == IO_OK && i < cells; ++i)
        if (!(d[i] >= 0.0f)) r = IO_BAD; /* NaN or negative: not an absolute difference */
    if (r != IO_OK) {
        free(d);
        out->diff_w = out->diff_h = 0;
        return r;
    }
    out->diff = d;
    return IO_OK;
}

static ks_status check_request(const ks_kcheck_request *req, size_t *file_len)
{
    if (!req) return ks_fail(KS_ERR_INVALID, "no check request");
    if (!ks_kcheck_scene_ok(req->scene, strnlen(req->scene, sizeof req->scene)))
        return ks_fail(KS_ERR_INVALID, "bad scene name '%s' in a check request (1 to %d printable bytes, no spaces)",
                       ks_quote_n(req->scene, strnlen(req->scene, sizeof req->scene), (char[KS_QUOTE_MAX]){0},
                                  KS_QUOTE_MAX),
                       KS_KCHECK_NAME_MAX - 1);
    *file_len = strnlen(req->file, sizeof req->file);
    if (*file_len == sizeof req->file)
        return ks_fail(KS_ERR_INVALID, "the kernel file name of a check request is longer than %d bytes",
                       KS_KCHECK_FILE_MAX - 1);
    if (!req->code || req->code_size == 0) return ks_fail(KS_ERR_INVALID, "a check request without code");
    if (req->code_size > KS_KCHECK_CODE_MAX)
        return ks_fail(KS_ERR_INVALID, "the code to check is %zu bytes, more than the %d a check takes", req->code_size,
                       KS_KCHECK_CODE_MAX);
    for (int i = 0; i < 3; ++i)
        if (req->grid[i] <= 0 || req->block[i] <= 0)
            return ks_fail(KS_ERR_INVALID, "a check request needs positive sizes (grid %dx%dx%d, block %dx%dx%d)",
                           req->grid[0], req->grid[1], req->grid[2], req->block[0], req->block[1], req->block[2]);
    if (req->iters < 0) return ks_fail(KS_ERR_INVALID, "a check request with %d iterations", req->iters);
    int w = 0, h = 0;
    if (req->diff && (req->cells[0] || req->cells[1]) && !ks_kcheck_diff_dims(req, &w, &h))
        return ks_fail(KS_ERR_INVALID, "a difference of %dx%d cells (each at least 1)", req->cells[0], req->cells[1]);
    if (req->diff && !ks_kcheck_diff_dims(req, &w, &h))
        return ks_fail(KS_ERR_INVALID, "a difference slice outside the grid (axis %d, index %d of %dx%dx%d)", req->axis,
                       req->index, req->grid[0], req->grid[1], req->grid[2]);
    if (req->diff && (long long)w * h > KS_KCHECK_DIFF_MAX)
        return ks_fail(KS_ERR_INVALID, "a difference slice of %dx%d cells, more than the %d a check sends", w, h,
                       KS_KCHECK_DIFF_MAX);
    return KS_OK;
}

ks_status ks_kchecker_run(ks_kchecker *c, const ks_kcheck_request *req, ks_kcheck_result *out)
{
    size_t file_len = 0;
    if (!c || !out) return ks_fail(KS_ERR_INVALID, "no checker or no result for a check");
    KS_TRY(check_request(req, &file_len));
    memset(out, 0, sizeof *out);
    const double t0 = ks_now_seconds();
    if (!c->pid) KS_TRY(child_start(c)); /* the last restart failed */
    char line[KCHECK_LINE_MAX];
    io_result r = IO_OK;
    if (!c->ready) { /* a fresh child: its start does not count against the check */
        r = read_line(c, line, sizeof line, t0 + kcheck_start_s);
        if (r == IO_OK && strcmp(line, KCHECK_MAGIC " ready") != 0) r = IO_BAD;
        c->ready = r == IO_OK;
    }
    const double deadline = ks_now_seconds() + c->timeout_s;
    if (r == IO_OK) r = send_request(c, req, file_len, deadline);
    if (r == IO_OK) r = read_line(c, line, sizeof line, deadline);
    if (r == IO_OK && parse_answer(line, out) != 0) r = IO_BAD;
    if (r == IO_OK) r = read_diff(c, req, out, deadline);
    const int io_errno = errno;
    if (r == IO_OK && !out->fatal) {
        out->total_ms = (ks_now_seconds() - t0) * 1000.0;
        return KS_OK;
    }
    /* this child is done (a fatal answer is the result as it stands): say why, replace it */
    const int was_ready = c->ready, status = child_stop(c, r == IO_EOF ? kcheck_exit_s : 0.0);
    char *m = out->message;
    const size_t cap = sizeof out->message;
    if (r != IO_OK) {
        out->passed = 0;
        ks_kcheck_result_free(out); /* nothing of a broken answer is kept */
    }
    if (r == IO_TIMEOUT && was_ready) snprintf(m, cap, "did not finish in %g s", c->timeout_s);
    if (r == IO_TIMEOUT && !was_ready) snprintf(m, cap, "the check process did not start in %g s", kcheck_start_s);
    if (r == IO_BAD) snprintf(m, cap, "the check process sent a malformed answer");
    if (r == IO_ERR) snprintf(m, cap, "cannot talk to the check process: %s", strerror(io_errno));
    if (r == IO_EOF && status >= 0 && WIFSIGNALED(status))
        snprintf(m, cap, "the check process died: killed by signal %d (%s)", WTERMSIG(status),
                 sigdescr_np(WTERMSIG(status)) ? sigdescr_np(WTERMSIG(status)) : "unknown");
    else if (r == IO_EOF && status >= 0 && WIFEXITED(status))
        snprintf(m, cap, "the check process died: exited with status %d", WEXITSTATUS(status));
    else if (r == IO_EOF)
        snprintf(m, cap, "the check process died");
    out->total_ms = (ks_now_seconds() - t0) * 1000.0;
    return child_start(c);
}

ks_status ks_kchecker_create(const ks_kchecker_desc *desc, ks_kchecker **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "no place for the checker");
    *out = NULL;
    const ks_kchecker_desc d = desc ? *desc : (ks_kchecker_desc){0};
    const double timeout_s = d.timeout_s == 0 ? 10.0 : d.timeout_s;
    if (!(timeout_s > 0 && timeout_s <= 1e6)) return ks_fail(KS_ERR_INVALID, "check time limit %g s", d.timeout_s);
    if (d.device < 0)
        return ks_fail(KS_ERR_INVALID, "the checker's GPU: %d is not 1 + a device's number (0: the default)", d.device);
    char self[PATH_MAX];
    if (!d.exe) { /* this binary, as the kernel names it (the path we ran by may be relative) */
        const ssize_t n = readlink("/proc/self/exe", self, sizeof self);
        if (n <= 0 || (size_t)n >= sizeof self)
            return ks_fail(KS_ERR_IO, "cannot find this program (/proc/self/exe): %s",
                           strerror(n < 0 ? errno : ENAMETOOLONG));
        self[n] = '\0';
    }
    size_t extra = 0;
    while (d.extra_args && d.extra_args[extra]) ++extra;
    ks_kchecker *c = calloc(1, sizeof *c);
    if (c) c->argv = calloc(extra + 5, sizeof *c->argv);
    if (!c || !c->argv) {
        free(c);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "no memory for the checker");
    }
    c->to_child = c->from_child = -1;
    c->timeout_s = timeout_s;
    int ok = (c->argv[0] = strdup(d.exe ? d.exe : self)) && (c->argv[1] = strdup(KS_KCHECK_ARG));
    for (size_t i = 0; ok && i < extra; ++i) ok = (c->argv[2 + i] = strdup(d.extra_args[i])) != NULL;
    if (ok && d.device > 0) {
        char ordinal[16];
        snprintf(ordinal, sizeof ordinal, "%d", d.device - 1);
        ok = (c->argv[2 + extra] = strdup(KS_KCHECK_DEVICE_ARG)) && (c->argv[3 + extra] = strdup(ordinal));
    }
    const ks_status st = ok ? child_start(c) : ks_fail(KS_ERR_OUT_OF_MEMORY, "no memory for the checker");
    if (st != KS_OK) {
        ks_kchecker_destroy(c);
        return st;
    }
    *out = c;
    return KS_OK;
}

int ks_kchecker_pid(const ks_kchecker *c) { return c ? (int)c->pid : 0; }

void ks_kchecker_destroy(ks_kchecker *c)
{
    if (!c) return;
    child_stop(c, kcheck_exit_s); /* it sees the end of its stdin and exits 0 */
    reap_lingering(c); /* one still ending is left to init once we exit: never waited for */
    for (size_t i = 0; c->argv && c->argv[i]; ++i) free(c->argv[i]);
    free(c->argv);
    free(c);
}

