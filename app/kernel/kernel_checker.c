/* The checker process, the parent's side (kernel_checker.h): the child
 * started with posix_spawn and kept warm, a request sent and its answer read
 * by a deadline, a child that dies, hangs or answers wrongly replaced. The
 * wire protocol is kernel_check_wire.h; the child's loop kernel_check_child.c.
 * A second child runs checks under compute-sanitizer memcheck (its command
 * line and report: kernel_check_sanitizer.h): a check that faults again, to
 * name the line; with KS_KCHECK_MEMCHECK_FIRST every first check before the
 * plain one. */
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

#include "app/kernel/kernel_check_sanitizer.h"
#include "app/kernel/kernel_check_wire.h"
#include "app/kernel/sanitizer_report.h"
#include "base/ks_util.h"

extern char **environ; /* what the child gets: ours */

static const double kcheck_start_s = 30.0; /* a fresh child's exec and warm(), before its first check */
static const double kcheck_exit_s = 3.0;   /* a child told to stop (stdin closed) gets this long */
static const double memcheck_exit_s = 15.0; /* compute-sanitizer, after its target faulted: its report written */
static const char under_memcheck[] = " under compute-sanitizer";

typedef enum { IO_OK, IO_EOF, IO_TIMEOUT, IO_BAD, IO_ERR } io_result;

/* One child: the plain one, or the one under compute-sanitizer. */
typedef struct kc_proc {
    char **argv;             /* what it runs, NULL-terminated (each malloc'd); NULL: none to run */
    int own_group;           /* in a process group of its own, killed whole (the tool and its target) */
    pid_t pid;               /* the current child, 0 when none */
    int to_child, from_child; /* our ends of its stdin and stdout (non-blocking), -1 when none */
    int ready;               /* it said "ready" (warm() done) */
    char buf[KCHECK_LINE_MAX]; /* what it sent that is not yet a whole line */
    size_t len;
} kc_proc;

struct ks_kchecker {
    kc_proc plain;           /* exe, KS_KCHECK_ARG, extra args */
    kc_proc memcheck;        /* compute-sanitizer's options, then plain's command line */
    double timeout_s;        /* one check's limit */
    double memcheck_timeout_s;
    int mode;                /* KS_KCHECK_MEMCHECK_* */
    char *sanitizer;         /* the tool's path; NULL: none */
    char report_dir[PATH_MAX], report[PATH_MAX]; /* its private folder and log file ("": none) */
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
static int child_stop(ks_kchecker *c, kc_proc *p, double grace_s)
{
    int status = -1;
    if (p->to_child >= 0) close(p->to_child);
    p->to_child = -1;
    if (p->pid > 0) {
        const double end = ks_now_seconds() + grace_s;
        pid_t r;
        while ((r = waitpid(p->pid, &status, WNOHANG)) == 0 && ks_now_seconds() < end)
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        if (r == 0) {
            /* killed: a process whose GPU context is being torn down can take long to end,
               so it gets a few seconds, then is left to be reaped later; a check never
               waits on it for long */
            kill(p->own_group ? -p->pid : p->pid, SIGKILL); /* the leader unreaped: still its group */
            const double kill_end = ks_now_seconds() + kcheck_exit_s;
            while ((r = waitpid(p->pid, &status, WNOHANG)) == 0 && ks_now_seconds() < kill_end)
                nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
            if (r == 0) {
                reap_lingering(c);
                for (size_t i = 0; i < sizeof c->lingering / sizeof c->lingering[0]; ++i)
                    if (c->lingering[i] <= 0) {
                        c->lingering[i] = p->pid;
                        break;
                    }
                status = SIGKILL; /* as if reaped: killed by SIGKILL */
                r = p->pid;
            }
        }
        reap_lingering(c);
        if (r != p->pid) status = -1; /* ECHILD: someone else reaped it (SIGCHLD ignored) */
    }
    if (p->from_child >= 0) close(p->from_child);
    p->from_child = -1;
    p->pid = 0;
    p->ready = 0;
    p->len = 0;
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
static ks_status child_start(ks_kchecker *c, kc_proc *proc)
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
            if (!e && proc->own_group) e = posix_spawnattr_setpgroup(&attr, 0);
            if (!e)
                e = posix_spawnattr_setflags(&attr, (short)(POSIX_SPAWN_SETSIGMASK | (proc->own_group ? POSIX_SPAWN_SETPGROUP : 0)));
            if (!e) e = posix_spawn(&pid, proc->argv[0], &fa, &attr, proc->argv, environ);
            posix_spawnattr_destroy(&attr);
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    if (p[0][0] >= 0) close(p[0][0]);
    if (p[1][1] >= 0) close(p[1][1]);
    proc->pid = !e && pid > 0 ? pid : 0;
    proc->to_child = p[0][1];
    proc->from_child = p[1][0];
    /* non-blocking on our side, so that a child that stops reading cannot hold us past the deadline */
    if (!e && (fcntl(proc->to_child, F_SETFL, O_NONBLOCK) != 0 || fcntl(proc->from_child, F_SETFL, O_NONBLOCK) != 0))
        e = errno;
    if (!e) return KS_OK;
    child_stop(c, proc, 0);
    return ks_fail(KS_ERR_IO, "cannot start the check process '%s': %s", KS_QUOTED(proc->argv[0]), strerror(e));
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
static io_result send_all(kc_proc *c, const void *p, size_t n, double deadline)
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
static io_result send_request(kc_proc *c, const ks_kcheck_request *req, size_t file_len, double deadline)
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
static io_result read_line(kc_proc *c, char *line, size_t cap, double deadline)
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

/* Reads n bytes from the child by the deadline: first what read_line took
 * past its line, then the pipe. */
static io_result read_bytes(kc_proc *c, void *dst, size_t n, double deadline)
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
static io_result read_diff(kc_proc *c, const ks_kcheck_request *req, ks_kcheck_result *out, double deadline)
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

/* read_line, past any line of compute-sanitizer's own ("========= ...") that
 * reaches the child's stdout rather than its log. */
static io_result read_tool_line(kc_proc *p, char *line, size_t cap, double deadline)
{
    io_result r;
    while ((r = read_line(p, line, cap, deadline)) == IO_OK && p->own_group && strncmp(line, "=========", 9) == 0) {}
    return r;
}

/* One request to child p, its answer in out (the wire's, or why there is
 * none: a time-out, a death, a malformed answer). Returns ASK_SERVING when
 * the child serves on; else the child was stopped (a fatal answer waits
 * fatal_grace_s for it to end by itself: the tool writes its report then),
 * ASK_DONE_UNREADY when it never said ready. under: said after a failure's words. */
enum { ASK_SERVING, ASK_DONE, ASK_DONE_UNREADY };
static int ask(ks_kchecker *c, kc_proc *p, double timeout_s, double fatal_grace_s, const char *under,
               const ks_kcheck_request *req, size_t file_len, ks_kcheck_result *out)
{
    memset(out, 0, sizeof *out);
    const double t0 = ks_now_seconds();
    char line[KCHECK_LINE_MAX];
    io_result r = IO_OK;
    if (!p->ready) { /* a fresh child: its start does not count against the check */
        r = read_tool_line(p, line, sizeof line, t0 + kcheck_start_s);
        if (r == IO_OK && strcmp(line, KCHECK_MAGIC " ready") != 0) r = IO_BAD;
        p->ready = r == IO_OK;
    }
    const double deadline = ks_now_seconds() + timeout_s;
    if (r == IO_OK) r = send_request(p, req, file_len, deadline);
    if (r == IO_OK) r = read_tool_line(p, line, sizeof line, deadline);
    if (r == IO_OK && ks_kcheck_parse_answer(line, out) != 0) r = IO_BAD;
    if (r == IO_OK) r = read_diff(p, req, out, deadline);
    const int io_errno = errno;
    if (r == IO_OK && !out->fatal) return ASK_SERVING;
    /* this child is done (a fatal answer is the result as it stands): say why */
    const int was_ready = p->ready;
    const int status = child_stop(c, p, r == IO_EOF ? kcheck_exit_s : r == IO_OK ? fatal_grace_s : 0.0);
    char *m = out->message;
    const size_t cap = sizeof out->message;
    if (r != IO_OK) {
        out->passed = 0;
        ks_kcheck_result_free(out); /* nothing of a broken answer is kept */
    }
    if (r == IO_TIMEOUT && was_ready) snprintf(m, cap, "did not finish in %g s%s", timeout_s, under);
    if (r == IO_TIMEOUT && !was_ready) snprintf(m, cap, "the check process did not start in %g s%s", kcheck_start_s, under);
    if (r == IO_BAD) snprintf(m, cap, "the check process sent a malformed answer%s", under);
    if (r == IO_ERR) snprintf(m, cap, "cannot talk to the check process%s: %s", under, strerror(io_errno));
    if (r == IO_EOF && status >= 0 && WIFSIGNALED(status))
        snprintf(m, cap, "the check process died%s: killed by signal %d (%s)", under, WTERMSIG(status),
                 sigdescr_np(WTERMSIG(status)) ? sigdescr_np(WTERMSIG(status)) : "unknown");
    else if (r == IO_EOF && status >= 0 && WIFEXITED(status))
        snprintf(m, cap, "the check process died%s: exited with status %d", under, WEXITSTATUS(status));
    else if (r == IO_EOF)
        snprintf(m, cap, "the check process died%s", under);
    return was_ready ? ASK_DONE : ASK_DONE_UNREADY;
}

/* The child under compute-sanitizer started, its report file cleared first
 * (each of its runs has a report of its own). */
static ks_status memcheck_start(ks_kchecker *c)
{
    unlink(c->report);
    return child_start(c, &c->memcheck);
}

/* What a check under compute-sanitizer gave. */
enum { MC_PASSED, MC_FAILED, MC_NAMED, MC_UNAVAILABLE };

/* The request under compute-sanitizer (out: its answer, memchecked and
 * memcheck_ms): MC_NAMED when the tool's report holds an error (the message
 * then its first one in the user's words, the check failed), MC_UNAVAILABLE
 * when the tool could not run it (the message says why), else whether the
 * check passed. */
static int memcheck(ks_kchecker *c, const ks_kcheck_request *req, size_t file_len, ks_kcheck_result *out)
{
    const double t0 = ks_now_seconds();
    memset(out, 0, sizeof *out);
    if (!c->memcheck.pid && memcheck_start(c) != KS_OK) {
        snprintf(out->message, sizeof out->message, "compute-sanitizer could not run: %s", ks_error_cause());
        ks_error_clear();
        return MC_UNAVAILABLE;
    }
    const long long offset = ks_kcheck_report_size(c->report); /* what earlier checks of this run left */
    const int asked = ask(c, &c->memcheck, c->memcheck_timeout_s, memcheck_exit_s, under_memcheck, req, file_len, out);
    out->memchecked = asked != ASK_DONE_UNREADY;
    char *report = ks_kcheck_report_read(c->report, offset);
    char line[KS_KCHECK_MSG_MAX];
    /* allocations unnamed: the tool's nearest one places an access */
    const int named = report && ks_sanitizer_first_error(report, req->file, NULL, 0, line, sizeof line);
    free(report);
    if (named) {
        out->passed = 0;
        ks_kcheck_result_free(out);
        snprintf(out->message, sizeof out->message, "%s", line);
    }
    if (asked == ASK_SERVING && c->mode != KS_KCHECK_MEMCHECK_FIRST)
        child_stop(c, &c->memcheck, kcheck_exit_s); /* a fault's run: its GPU context not kept for the next */
    else if (asked != ASK_SERVING && c->mode == KS_KCHECK_MEMCHECK_FIRST && memcheck_start(c) != KS_OK)
        ks_error_clear(); /* started again at the next first check, which says why if it cannot be */
    out->memcheck_ms = (ks_now_seconds() - t0) * 1000.0;
    if (named) return MC_NAMED;
    if (asked == ASK_DONE_UNREADY) {
        char why[KS_KCHECK_MSG_MAX];
        snprintf(why, sizeof why, "%s", out->message);
        snprintf(out->message, sizeof out->message, "compute-sanitizer could not run: %.*s",
                 (int)sizeof out->message - 40, why);
        out->memchecked = 0;
        return MC_UNAVAILABLE;
    }
    return out->passed ? MC_PASSED : MC_FAILED;
}

/* A fault's answer: its first memory error in the user's words when
 * compute-sanitizer finds one, else the CUDA error (with why it stands alone). */
static void name_fault(ks_kchecker *c, const ks_kcheck_request *req, size_t file_len, ks_kcheck_result *out)
{
    char *m = out->message;
    const size_t cap = sizeof out->message, len = strnlen(m, cap);
    if (!c->sanitizer) {
        snprintf(m + len, cap - len, " (compute-sanitizer not found: the CUDA error alone)");
        return;
    }
    ks_kcheck_result again;
    const int got = memcheck(c, req, file_len, &again);
    out->memchecked = again.memchecked;
    out->memcheck_ms += again.memcheck_ms;
    if (got == MC_NAMED) snprintf(m, cap, "%s", again.message);
    if (got == MC_UNAVAILABLE) snprintf(m + len, cap - len, " (%s: the CUDA error alone)", again.message);
    ks_kcheck_result_free(&again);
}

ks_status ks_kchecker_run(ks_kchecker *c, const ks_kcheck_request *req, ks_kcheck_result *out)
{
    size_t file_len = 0;
    if (!c || !out) return ks_fail(KS_ERR_INVALID, "no checker or no result for a check");
    KS_TRY(check_request(req, &file_len));
    memset(out, 0, sizeof *out);
    const double t0 = ks_now_seconds();
    int memchecked = 0;
    double memcheck_ms = 0;
    if (req->first && c->mode == KS_KCHECK_MEMCHECK_FIRST && c->sanitizer) {
        /* under the tool first: a kernel that faults is stopped by it and never reaches the GPU plain */
        const int got = memcheck(c, req, file_len, out);
        if (got == MC_FAILED || got == MC_NAMED) {
            out->total_ms = (ks_now_seconds() - t0) * 1000.0;
            return KS_OK;
        }
        memchecked = out->memchecked;
        memcheck_ms = out->memcheck_ms;
        ks_kcheck_result_free(out); /* it passed (or could not run): the plain check's answer is the one */
    }
    if (!c->plain.pid) KS_TRY(child_start(c, &c->plain)); /* the last restart failed */
    const int asked = ask(c, &c->plain, c->timeout_s, 0.0, "", req, file_len, out);
    out->memchecked = memchecked;
    out->memcheck_ms = memcheck_ms;
    if (out->fatal && c->mode != KS_KCHECK_MEMCHECK_OFF) name_fault(c, req, file_len, out);
    out->total_ms = (ks_now_seconds() - t0) * 1000.0;
    return asked == ASK_SERVING ? KS_OK : child_start(c, &c->plain); /* replaced at once, ready for the next */
}

ks_status ks_kchecker_create(const ks_kchecker_desc *desc, ks_kchecker **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "no place for the checker");
    *out = NULL;
    const ks_kchecker_desc d = desc ? *desc : (ks_kchecker_desc){0};
    const double timeout_s = d.timeout_s == 0 ? 10.0 : d.timeout_s;
    const double memcheck_timeout_s = d.memcheck_timeout_s == 0 ? 3 * timeout_s : d.memcheck_timeout_s;
    if (!(timeout_s > 0 && timeout_s <= 1e6)) return ks_fail(KS_ERR_INVALID, "check time limit %g s", d.timeout_s);
    if (!(memcheck_timeout_s > 0 && memcheck_timeout_s <= 1e6))
        return ks_fail(KS_ERR_INVALID, "check time limit under compute-sanitizer %g s", d.memcheck_timeout_s);
    if (d.device < 0)
        return ks_fail(KS_ERR_INVALID, "the checker's GPU: %d is not 1 + a device's number (0: the default)", d.device);
    if (d.memcheck < KS_KCHECK_MEMCHECK_FAULT || d.memcheck > KS_KCHECK_MEMCHECK_OFF)
        return ks_fail(KS_ERR_INVALID, "the checker's memcheck mode %d", d.memcheck);
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
    if (c) c->plain.argv = calloc(extra + 5, sizeof *c->plain.argv);
    if (!c || !c->plain.argv) {
        free(c);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "no memory for the checker");
    }
    c->plain.to_child = c->plain.from_child = c->memcheck.to_child = c->memcheck.from_child = -1;
    c->memcheck.own_group = 1;
    c->timeout_s = timeout_s;
    c->memcheck_timeout_s = memcheck_timeout_s;
    c->mode = d.memcheck;
    char **argv = c->plain.argv;
    int ok = (argv[0] = strdup(d.exe ? d.exe : self)) && (argv[1] = strdup(KS_KCHECK_ARG));
    for (size_t i = 0; ok && i < extra; ++i) ok = (argv[2 + i] = strdup(d.extra_args[i])) != NULL;
    if (ok && d.device > 0) {
        char ordinal[16];
        snprintf(ordinal, sizeof ordinal, "%d", d.device - 1);
        ok = (argv[2 + extra] = strdup(KS_KCHECK_DEVICE_ARG)) && (argv[3 + extra] = strdup(ordinal));
    }
    ks_status st = ok ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "no memory for the checker");
    char tool[PATH_MAX];
    if (st == KS_OK && c->mode != KS_KCHECK_MEMCHECK_OFF && ks_kcheck_find_sanitizer(d.sanitizer, tool, sizeof tool)) {
        const int e = ks_kcheck_report_dir(c->report_dir, sizeof c->report_dir, c->report, sizeof c->report);
        if (e) {
            c->report_dir[0] = '\0';
            st = ks_fail(KS_ERR_IO, "cannot make a folder for compute-sanitizer's report: %s", strerror(e));
        }
        if (st == KS_OK && (!(c->sanitizer = strdup(tool)) ||
                            !(c->memcheck.argv = ks_kcheck_memcheck_argv(tool, c->report, c->plain.argv))))
            st = ks_fail(KS_ERR_OUT_OF_MEMORY, "no memory for the checker");
    }
    if (st == KS_OK) st = child_start(c, &c->plain);
    /* kept warm for the first checks; one that cannot start is tried again at the first check */
    if (st == KS_OK && c->sanitizer && c->mode == KS_KCHECK_MEMCHECK_FIRST && memcheck_start(c) != KS_OK)
        ks_error_clear();
    if (st != KS_OK) {
        ks_kchecker_destroy(c);
        return st;
    }
    *out = c;
    return KS_OK;
}

const char *ks_kchecker_sanitizer(const ks_kchecker *c) { return c ? c->sanitizer : NULL; }

int ks_kchecker_pid(const ks_kchecker *c) { return c ? (int)c->plain.pid : 0; }

void ks_kchecker_destroy(ks_kchecker *c)
{
    if (!c) return;
    child_stop(c, &c->plain, kcheck_exit_s); /* it sees the end of its stdin and exits 0 */
    child_stop(c, &c->memcheck, kcheck_exit_s);
    reap_lingering(c); /* one still ending is left to init once we exit: never waited for */
    ks_kcheck_report_dir_remove(c->report_dir);
    ks_kcheck_argv_free(c->plain.argv);
    ks_kcheck_argv_free(c->memcheck.argv);
    free(c->sanitizer);
    free(c);
}
