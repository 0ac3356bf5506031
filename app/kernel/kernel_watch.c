/* Hot reload of users' kernel files (app/kernel/kernel_watch.h). One worker
 * thread waits in poll() on inotify and an eventfd; a change starts a quiet
 * time (debounce), then the file is read, compiled with NVRTC and checked, and
 * the build joins a FIFO that the frame loop drains without waiting. */
#define _GNU_SOURCE /* inotify_init1's flags, eventfd */
#include "app/kernel/kernel_watch.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "app/user_kernel.h"
#include "base/ks_util.h"
#include "app/kernel/nvrtc_compile.h"

enum { KS_WATCH_DEBOUNCE_MS = 30 }; /* an editor's save is a few events within a few ms */

typedef struct watched {
    char path[PATH_MAX];
    char dir[PATH_MAX];
    const char *base;        /* the name inside dir, as the folder's events name it */
    int wd;                  /* inotify watch of dir (files of one folder share it) */
    double due;              /* ks_now_seconds() at which to build; 0: nothing asked */
    double seen_at;          /* the latest change not built yet */
    long long generation;    /* builds so far (the worker's alone) */
} watched;

typedef struct queued {
    ks_kernel_build b;
    struct queued *next;
} queued;

struct ks_kernel_watch {
    ks_kernel_watch_desc d;  /* paths dropped: the text is copied into files[] */
    watched files[KS_KERNEL_WATCH_MAX];
    int inotify_fd;
    int wake_fd;             /* eventfd: ends the worker's poll() for a stop or a rebuild */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;    /* guards what follows and files[].due, .seen_at */
    int stop;                /* 1: destroy asked; 2: the worker ended on an error */
    int building;            /* a build is running */
    int task_due;            /* ks_kernel_watch_task asked, desc.task not yet called */
    queued *head, *tail;     /* finished builds, oldest first */
};

static double ms_since(double t) { return (ks_now_seconds() - t) * 1e3; }

static void wake(ks_kernel_watch *w) /* EAGAIN: the counter is full, so the worker is woken already */
{
    while (write(w->wake_fd, &(uint64_t){1}, sizeof(uint64_t)) < 0 && errno == EINTR) {}
}

static void enqueue(ks_kernel_watch *w, queued *n) /* lock held */
{
    if (w->tail) w->tail->next = n;
    else w->head = n;
    w->tail = n;
}

/* Asks for a build of f at due (lock held). A save restarts the quiet time;
 * a rebuild brings it forward. */
static void ask(watched *f, double now, double due, int restart)
{
    f->seen_at = now;
    if (f->due == 0 || restart || due < f->due) f->due = due;
}

/* Reads, compiles and checks slot i into b (slot, seen_at, generation set). */
static void build(ks_kernel_watch *w, int i, ks_kernel_build *b)
{
    const watched *f = &w->files[i];
    char *source = NULL, msg[KS_KERNEL_WATCH_MSG] = "";
    ks_nvrtc_result r = {0};
    double t = ks_now_seconds();
    b->status = ks_user_kernel_read(f->path, &source);
    if (b->status == KS_OK) b->status = ks_user_kernel_declare(f->path, &source);
    b->read_ms = ms_since(t);
    if (b->status == KS_OK) {
        const ks_nvrtc_desc nd = {.source = source, .name = f->path, .cc_major = w->d.cc_major,
                                  .cc_minor = w->d.cc_minor, .cubin = w->d.cubin};
        t = ks_now_seconds();
        b->status = ks_nvrtc_compile(&nd, &r); /* KS_ERR_PARSE with lines, or KS_ERR_UNSUPPORTED without NVRTC */
        b->compile_ms = ms_since(t);
        b->lines = r.lines; /* warnings too, when it compiled */
        r.lines = NULL;
        b->compiled = b->status == KS_OK;
    }
    if (b->status != KS_OK) snprintf(msg, sizeof msg, "%s", ks_error_message()); /* this thread's own text */
    if (b->compiled && w->d.check) {
        ks_error_clear(); /* a check that fails without a msg may have said why through ks_fail */
        t = ks_now_seconds();
        b->status = w->d.check(w->d.check_user, i, r.code, r.code_size, r.cubin, msg, sizeof msg, b->checked_block);
        b->check_ms = ms_since(t);
        msg[sizeof msg - 1] = '\0';
        if (b->status != KS_OK && !msg[0])
            snprintf(msg, sizeof msg, "%s", ks_error_message()[0] ? ks_error_message() : ks_status_name(b->status));
    }
    if (b->status == KS_OK) {
        size_t used = 0;
        ks_text_append(b->message, sizeof b->message, &used, "compiled in %.0f ms", b->compile_ms);
        if (w->d.check) ks_text_append(b->message, sizeof b->message, &used, ", checked in %.0f ms", b->check_ms);
        b->code = r.code; /* handed over */
        b->code_size = r.code_size;
        b->cubin = r.cubin;
        r.code = NULL;
    } else {
        snprintf(b->message, sizeof b->message, "%s", msg);
    }
    for (char *p = b->message; *p; ++p) /* one line, whatever the check wrote */
        if (*p == '\n' || *p == '\r') *p = ' ';
    ks_nvrtc_result_free(&r);
    free(source);
}

static void run_build(ks_kernel_watch *w, int i, double seen_at)
{
    queued *n = calloc(1, sizeof *n);
    if (n) {
        n->b.slot = i;
        n->b.seen_at = seen_at;
        n->b.generation = ++w->files[i].generation;
        build(w, i, &n->b);
    }
    pthread_mutex_lock(&w->lock);
    if (n) enqueue(w, n);
    else ask(&w->files[i], seen_at, ks_now_seconds() + 1.0, 0); /* out of memory: try again rather than lose the save */
    w->building = 0; /* with the enqueue: busy() never reads 0 before the build can be polled */
    pthread_mutex_unlock(&w->lock);
}

/* Everything waiting in the inotify fd: the files it names start their quiet
 * time again. 0, or the errno of a failed read. */
static int take_events(ks_kernel_watch *w)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        const ssize_t n = read(w->inotify_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n == 0 || errno == EAGAIN ? 0 : errno; /* EAGAIN: all read */
        const double now = ks_now_seconds(), due = now + w->d.debounce_ms * 1e-3;
        pthread_mutex_lock(&w->lock);
        for (const char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            p += sizeof *e + e->len;
            for (int i = 0; i < w->d.count; ++i) {
                watched *f = &w->files[i];
                /* an overflow lost events: any file may have changed */
                if ((e->mask & IN_Q_OVERFLOW) || (e->len && e->wd == f->wd && strcmp(e->name, f->base) == 0))
                    ask(f, now, due, 1);
            }
        }
        pthread_mutex_unlock(&w->lock);
    }
}

/* The worker cannot wait any more: each file gets a build that says why, and
 * requests are refused from now on (a watch that stops in silence would look
 * like one with nothing to do). */
static void *worker_fails(ks_kernel_watch *w, const char *what, int e)
{
    pthread_mutex_lock(&w->lock);
    w->stop = 2;
    for (int i = 0; i < w->d.count; ++i) {
        w->files[i].due = 0;
        queued *n = calloc(1, sizeof *n);
        if (!n) continue;
        n->b = (ks_kernel_build){.slot = i, .status = KS_ERR_IO, .seen_at = ks_now_seconds(),
                                 .generation = ++w->files[i].generation};
        snprintf(n->b.message, sizeof n->b.message, "kernel watch stopped: %s: %s", what, strerror(e));
        enqueue(w, n);
    }
    const int task = w->task_due; /* asked before the stop: it still runs once, so its caller hears back */
    w->task_due = 0;
    pthread_mutex_unlock(&w->lock);
    if (task) w->d.task(w->d.check_user);
    return NULL;
}

static void *worker(void *arg)
{
    ks_kernel_watch *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock); /* the nearest build due decides how long to wait */
        const int stop = w->stop;
        double next = 0;
        for (int i = 0; i < w->d.count; ++i)
            if (w->files[i].due > 0 && (next == 0 || w->files[i].due < next)) next = w->files[i].due;
        pthread_mutex_unlock(&w->lock);
        if (stop) return NULL;
        int timeout = -1;
        if (next > 0) {
            const double ms = (next - ks_now_seconds()) * 1e3;
            timeout = ms <= 0 ? 0 : (int)ms + 1; /* +1: never wake just before it is due */
        }
        struct pollfd p[2] = {{w->inotify_fd, POLLIN, 0}, {w->wake_fd, POLLIN, 0}};
        const int r = poll(p, 2, timeout);
        if ((r < 0 && errno != EINTR) || (r > 0 && ((p[0].revents | p[1].revents) & (POLLERR | POLLNVAL))))
            return worker_fails(w, "poll", r < 0 ? errno : EIO);
        if (r > 0 && (p[1].revents & POLLIN)) {
            uint64_t count; /* one read empties an eventfd */
            if (read(w->wake_fd, &count, sizeof count) < 0 && errno != EAGAIN && errno != EINTR)
                return worker_fails(w, "eventfd", errno);
        }
        if (r > 0 && (p[0].revents & POLLIN)) {
            const int e = take_events(w);
            if (e) return worker_fails(w, "inotify", e);
        }
        for (int i = 0; i < w->d.count; ++i) { /* builds whose quiet time is over, one at a time */
            pthread_mutex_lock(&w->lock);
            watched *f = &w->files[i];
            const int go = !w->stop && f->due > 0 && f->due <= ks_now_seconds();
            const double seen_at = f->seen_at;
            if (go) f->due = 0; /* a request from now on is a follow-up build */
            w->building = go;
            pthread_mutex_unlock(&w->lock);
            if (go) run_build(w, i, seen_at);
        }
        pthread_mutex_lock(&w->lock);
        const int task = w->task_due && !w->stop;
        w->task_due = 0;
        pthread_mutex_unlock(&w->lock);
        if (task) w->d.task(w->d.check_user);
    }
}

/* Copies path into slot i and watches its folder: an editor that saves by a
 * rename replaces the file, and a watch on the file itself would go with it. */
static ks_status watch_file(ks_kernel_watch *w, int i, const char *path)
{
    watched *f = &w->files[i];
    if (!path || !path[0] || snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
        return ks_fail(KS_ERR_INVALID, "kernel watch: file %d has no path, or one too long", i);
    const char *slash = strrchr(f->path, '/');
    f->base = slash ? slash + 1 : f->path;
    if (!f->base[0]) return ks_fail(KS_ERR_INVALID, "kernel watch: '%s' names a folder", KS_QUOTED(path));
    if (!slash) snprintf(f->dir, sizeof f->dir, ".");
    else snprintf(f->dir, sizeof f->dir, "%.*s", slash == f->path ? 1 : (int)(slash - f->path), path);
    f->wd = inotify_add_watch(w->inotify_fd, f->dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB | IN_ONLYDIR);
    if (f->wd < 0) {
        const int e = errno; /* ENOSPC, ENOMEM: the user's inotify limits, not the path */
        return ks_fail(e == ENOSPC || e == ENOMEM ? KS_ERR_IO : KS_ERR_INVALID,
                       "kernel watch: cannot watch the folder of '%s': %s", KS_QUOTED(path), strerror(e));
    }
    return KS_OK;
}

ks_status ks_kernel_watch_create(const ks_kernel_watch_desc *desc, ks_kernel_watch **out)
{
    *out = NULL;
    if (!desc || !desc->paths || desc->count < 1 || desc->count > KS_KERNEL_WATCH_MAX)
        return ks_fail(KS_ERR_INVALID, "kernel watch: %d files; it follows 1 to %d", desc && desc->paths ? desc->count : 0,
                       KS_KERNEL_WATCH_MAX);
    if (desc->debounce_ms < 0) return ks_fail(KS_ERR_INVALID, "kernel watch: debounce of %d ms", desc->debounce_ms);
    ks_kernel_watch *w = calloc(1, sizeof *w);
    if (!w) return ks_fail(KS_ERR_OUT_OF_MEMORY, "kernel watch: out of host memory");
    int e = pthread_mutex_init(&w->lock, NULL);
    if (e) {
        free(w);
        return ks_fail(KS_ERR_IO, "kernel watch: mutex: %s", strerror(e));
    }
    w->d = *desc;
    w->d.paths = NULL;
    if (!w->d.debounce_ms) w->d.debounce_ms = KS_WATCH_DEBOUNCE_MS;
    w->wake_fd = -1;
    w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ks_status st = w->inotify_fd < 0 ? ks_fail(KS_ERR_IO, "kernel watch: inotify: %s", strerror(errno)) : KS_OK;
    if (st == KS_OK && (w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        st = ks_fail(KS_ERR_IO, "kernel watch: eventfd: %s", strerror(errno));
    const double now = ks_now_seconds();
    for (int i = 0; i < desc->count && st == KS_OK; ++i) {
        st = watch_file(w, i, desc->paths[i]);
        if (desc->initial_build) ask(&w->files[i], now, now, 0);
    }
    if (st == KS_OK) {
        /* the worker takes no signals: they stay with the threads that wait for them (the frame loop) */
        sigset_t all, old;
        sigfillset(&all);
        e = pthread_sigmask(SIG_SETMASK, &all, &old);
        if (!e) {
            e = pthread_create(&w->thread, NULL, worker, w);
            w->thread_started = e == 0;
            const int restored = pthread_sigmask(SIG_SETMASK, &old, NULL);
            if (!e) e = restored;
        }
        if (e) st = ks_fail(KS_ERR_IO, "kernel watch: thread: %s", strerror(e));
    }
    if (st != KS_OK) {
        ks_kernel_watch_destroy(w);
        return st;
    }
    *out = w;
    return KS_OK;
}

void ks_kernel_watch_destroy(ks_kernel_watch *w)
{
    if (!w) return;
    if (w->thread_started) {
        pthread_mutex_lock(&w->lock);
        if (!w->stop) w->stop = 1;
        pthread_mutex_unlock(&w->lock);
        wake(w);
        /* fails only for a thread that is not ours to join; nothing is left to do then */
        if (pthread_join(w->thread, NULL) != 0) {}
    }
    ks_kernel_build b;
    while (ks_kernel_watch_poll(w, &b)) ks_kernel_build_free(&b);
    /* close() of an fd we own fails only with EINTR or EIO, and either way the fd is gone */
    if (w->inotify_fd >= 0 && close(w->inotify_fd) != 0) {} /* the folders' watches go with it */
    if (w->wake_fd >= 0 && close(w->wake_fd) != 0) {}
    pthread_mutex_destroy(&w->lock);
    free(w);
}

int ks_kernel_watch_poll(ks_kernel_watch *w, ks_kernel_build *out)
{
    if (!w || !out) return 0;
    pthread_mutex_lock(&w->lock);
    queued *n = w->head;
    if (n) {
        w->head = n->next;
        if (!w->head) w->tail = NULL;
    }
    pthread_mutex_unlock(&w->lock);
    if (!n) {
        memset(out, 0, sizeof *out); /* safe to free */
        return 0;
    }
    *out = n->b;
    free(n);
    return 1;
}

ks_status ks_kernel_watch_rebuild(ks_kernel_watch *w, int slot)
{
    if (!w || slot < 0 || slot >= w->d.count) return ks_fail(KS_ERR_INVALID, "kernel watch: no file %d", slot);
    pthread_mutex_lock(&w->lock);
    const int stopped = w->stop;
    const double now = ks_now_seconds();
    if (!stopped) ask(&w->files[slot], now, now, 0);
    pthread_mutex_unlock(&w->lock);
    if (stopped) return ks_fail(KS_ERR_IO, "kernel watch: stopped on an error (its last builds say which)");
    wake(w);
    return KS_OK;
}

ks_status ks_kernel_watch_task(ks_kernel_watch *w)
{
    if (!w || !w->d.task) return ks_fail(KS_ERR_INVALID, "kernel watch: no task to run");
    pthread_mutex_lock(&w->lock);
    const int stopped = w->stop;
    if (!stopped) w->task_due = 1;
    pthread_mutex_unlock(&w->lock);
    if (stopped) return ks_fail(KS_ERR_IO, "kernel watch: stopped on an error (its last builds say which)");
    wake(w);
    return KS_OK;
}

int ks_kernel_watch_busy(ks_kernel_watch *w)
{
    if (!w) return 0;
    pthread_mutex_lock(&w->lock);
    int busy = w->building;
    for (int i = 0; i < w->d.count; ++i) busy |= w->files[i].due > 0;
    pthread_mutex_unlock(&w->lock);
    return busy;
}

int ks_kernel_watch_ready(ks_kernel_watch *w)
{
    if (!w) return 0;
    pthread_mutex_lock(&w->lock);
    const int ready = w->head != NULL;
    pthread_mutex_unlock(&w->lock);
    return ready;
}

void ks_kernel_build_free(ks_kernel_build *b)
{
    if (!b) return;
    free(b->lines);
    free(b->code);
    b->lines = NULL;
    b->code = NULL;
}
