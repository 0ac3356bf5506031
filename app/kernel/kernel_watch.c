/* Hot reload of users' kernel files (app/kernel/kernel_watch.h). One worker
 * thread waits on inotify and a wake-up pipe; a change starts a quiet time
 * (debounce), then the file is read, compiled with NVRTC and checked, and the
 * build joins a queue the frame loop drains without waiting. */
#define _GNU_SOURCE /* pipe2 */
#include "app/kernel/kernel_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "app/user_kernel.h"
#include "kernels/common/ks_util.h"
#include "kernels/common/nvrtc_compile.h"

typedef struct watched {
    char path[PATH_MAX];
    char dir[PATH_MAX];
    const char *base;        /* the name inside dir */
    int wd;                  /* inotify watch of dir (several files may share one) */
    double due;              /* build at this time (0: nothing asked) */
    long long generation;
} watched;

typedef struct done_build {
    ks_kernel_build b;
    struct done_build *next;
} done_build;

struct ks_kernel_watch {
    ks_kernel_watch_desc d;
    watched files[KS_KERNEL_WATCH_MAX];
    int inotify_fd, wake[2];
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;    /* everything below, and files[].due */
    int stop;
    int building;            /* a build is running */
    done_build *head, *tail; /* finished builds, oldest first */
};

static void wake(ks_kernel_watch *w)
{
    const char c = 1;
    while (write(w->wake[1], &c, 1) < 0 && errno == EINTR) {}
}

/* One build of slot i: read, compile, check; the result onto the queue. */
static void build(ks_kernel_watch *w, int i, double seen_at)
{
    done_build *n = calloc(1, sizeof *n);
    if (!n) return; /* nothing to say it with; the next save tries again */
    ks_kernel_build *b = &n->b;
    watched *f = &w->files[i];
    b->slot = i;
    b->seen_at = seen_at;
    b->generation = ++f->generation;
    char *source = NULL;
    double t = ks_now_seconds();
    b->status = ks_user_kernel_read(f->path, &source);
    b->read_ms = (ks_now_seconds() - t) * 1e3;
    if (b->status != KS_OK) {
        snprintf(b->message, sizeof b->message, "%s", ks_error_message());
    } else {
        const ks_nvrtc_desc nd = {.source = source, .name = f->path, .cc_major = w->d.cc_major,
                                  .cc_minor = w->d.cc_minor, .cubin = w->d.cubin};
        ks_nvrtc_result r;
        t = ks_now_seconds();
        b->status = ks_nvrtc_compile(&nd, &r);
        b->compile_ms = (ks_now_seconds() - t) * 1e3;
        b->lines = r.lines;
        r.lines = NULL;
        if (b->status != KS_OK) {
            snprintf(b->message, sizeof b->message, "%s", ks_error_message());
        } else {
            b->compiled = 1;
            char msg[KS_KERNEL_WATCH_MSG] = "";
            t = ks_now_seconds();
            b->status = w->d.check ? w->d.check(w->d.check_user, i, r.code, r.code_size, r.cubin, msg, sizeof msg)
                                   : KS_OK;
            b->check_ms = w->d.check ? (ks_now_seconds() - t) * 1e3 : 0.0;
            if (b->status != KS_OK) {
                snprintf(b->message, sizeof b->message, "%s", msg[0] ? msg : ks_error_message());
            } else {
                snprintf(b->message, sizeof b->message, "compiled in %.0f ms, checked in %.0f ms", b->compile_ms,
                         b->check_ms);
                b->code = r.code; /* handed over */
                b->code_size = r.code_size;
                b->cubin = r.cubin;
                r.code = NULL;
            }
        }
        ks_nvrtc_result_free(&r);
    }
    free(source);
    pthread_mutex_lock(&w->lock);
    if (w->tail) w->tail->next = n;
    else w->head = n;
    w->tail = n;
    pthread_mutex_unlock(&w->lock);
}

/* A change seen in a folder: the files of that name start (or restart) their quiet time. */
static void take_events(ks_kernel_watch *w, double now)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        const ssize_t n = read(w->inotify_fd, buf, sizeof buf);
        if (n <= 0) return; /* EAGAIN: all read */
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            p += sizeof *e + e->len;
            if (!e->len) continue;
            pthread_mutex_lock(&w->lock);
            for (int i = 0; i < w->d.count; ++i)
                if (w->files[i].wd == e->wd && strcmp(w->files[i].base, e->name) == 0)
                    w->files[i].due = now + w->d.debounce_ms * 1e-3;
            pthread_mutex_unlock(&w->lock);
        }
    }
}

static void *worker(void *arg)
{
    ks_kernel_watch *w = arg;
    for (;;) {
        /* the nearest build due decides how long to wait */
        pthread_mutex_lock(&w->lock);
        const int stop = w->stop;
        double next = 0.0;
        for (int i = 0; i < w->d.count; ++i)
            if (w->files[i].due > 0 && (next == 0.0 || w->files[i].due < next)) next = w->files[i].due;
        pthread_mutex_unlock(&w->lock);
        if (stop) return NULL;
        const double now = ks_now_seconds();
        int timeout = -1;
        if (next > 0) timeout = next <= now ? 0 : (int)((next - now) * 1e3) + 1;
        struct pollfd p[2] = {{w->inotify_fd, POLLIN, 0}, {w->wake[0], POLLIN, 0}};
        const int r = poll(p, 2, timeout);
        if (r < 0 && errno != EINTR) return NULL;
        if (r > 0 && (p[1].revents & POLLIN)) {
            char drain[64];
            while (read(w->wake[0], drain, sizeof drain) > 0) {}
        }
        if (r > 0 && (p[0].revents & POLLIN)) take_events(w, ks_now_seconds());
        /* builds whose quiet time is over, one slot at a time */
        for (int i = 0; i < w->d.count; ++i) {
            pthread_mutex_lock(&w->lock);
            const double due = w->files[i].due;
            const int go = due > 0 && due <= ks_now_seconds() && !w->stop;
            if (go) {
                w->files[i].due = 0;
                w->building = 1;
            }
            pthread_mutex_unlock(&w->lock);
            if (!go) continue;
            build(w, i, due - w->d.debounce_ms * 1e-3);
            pthread_mutex_lock(&w->lock);
            w->building = 0;
            pthread_mutex_unlock(&w->lock);
        }
    }
}

ks_status ks_kernel_watch_rebuild(ks_kernel_watch *w, int slot)
{
    if (!w || slot < 0 || slot >= w->d.count) return ks_fail(KS_ERR_INVALID, "no watched kernel file %d", slot);
    pthread_mutex_lock(&w->lock);
    if (w->files[slot].due == 0) w->files[slot].due = ks_now_seconds();
    pthread_mutex_unlock(&w->lock);
    wake(w);
    return KS_OK;
}

ks_status ks_kernel_watch_create(const ks_kernel_watch_desc *desc, ks_kernel_watch **out)
{
    *out = NULL;
    if (!desc || !desc->paths || desc->count < 1 || desc->count > KS_KERNEL_WATCH_MAX)
        return ks_fail(KS_ERR_INVALID, "kernel watch: 1..%d files", KS_KERNEL_WATCH_MAX);
    ks_kernel_watch *w = calloc(1, sizeof *w);
    if (!w) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    w->d = *desc;
    if (w->d.debounce_ms <= 0) w->d.debounce_ms = 30;
    w->inotify_fd = w->wake[0] = w->wake[1] = -1;
    pthread_mutex_init(&w->lock, NULL);
    ks_status st = KS_OK;
    w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->inotify_fd < 0) st = ks_fail(KS_ERR_IO, "kernel watch: inotify: %s", strerror(errno));
    if (st == KS_OK && pipe2(w->wake, O_NONBLOCK | O_CLOEXEC) != 0)
        st = ks_fail(KS_ERR_IO, "kernel watch: pipe: %s", strerror(errno));
    for (int i = 0; i < desc->count && st == KS_OK; ++i) {
        watched *f = &w->files[i];
        if (!desc->paths[i] || snprintf(f->path, sizeof f->path, "%s", desc->paths[i]) >= (int)sizeof f->path) {
            st = ks_fail(KS_ERR_INVALID, "kernel watch: a file path is missing or too long");
            break;
        }
        /* the folder: an editor replaces the file by a rename, which a watch on the file misses */
        const char *slash = strrchr(f->path, '/');
        snprintf(f->dir, sizeof f->dir, "%.*s", slash ? (int)(slash - f->path) + (slash == f->path) : 1,
                 slash ? f->path : ".");
        f->base = slash ? slash + 1 : f->path;
        f->wd = inotify_add_watch(w->inotify_fd, f->dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB);
        if (f->wd < 0)
            st = ks_fail(KS_ERR_INVALID, "kernel watch: cannot watch the folder of '%s': %s", KS_QUOTED(f->path),
                         strerror(errno));
        if (desc->initial_build) f->due = ks_now_seconds();
    }
    if (st == KS_OK) {
        const int e = pthread_create(&w->thread, NULL, worker, w);
        if (e) st = ks_fail(KS_ERR_IO, "kernel watch: thread: %s", strerror(e));
        w->thread_started = e == 0;
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
        w->stop = 1;
        pthread_mutex_unlock(&w->lock);
        wake(w);
        pthread_join(w->thread, NULL);
    }
    ks_kernel_build b;
    while (ks_kernel_watch_poll(w, &b)) ks_kernel_build_free(&b);
    if (w->inotify_fd >= 0) close(w->inotify_fd);
    if (w->wake[0] >= 0) close(w->wake[0]);
    if (w->wake[1] >= 0) close(w->wake[1]);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

int ks_kernel_watch_poll(ks_kernel_watch *w, ks_kernel_build *out)
{
    pthread_mutex_lock(&w->lock);
    done_build *n = w->head;
    if (n) {
        w->head = n->next;
        if (!w->head) w->tail = NULL;
    }
    pthread_mutex_unlock(&w->lock);
    if (!n) return 0;
    *out = n->b;
    free(n);
    return 1;
}

int ks_kernel_watch_busy(ks_kernel_watch *w)
{
    pthread_mutex_lock(&w->lock);
    int busy = w->building;
    for (int i = 0; i < w->d.count; ++i) busy |= w->files[i].due > 0;
    pthread_mutex_unlock(&w->lock);
    return busy;
}

void ks_kernel_build_free(ks_kernel_build *b)
{
    free(b->lines);
    free(b->code);
    b->lines = NULL;
    b->code = NULL;
}
