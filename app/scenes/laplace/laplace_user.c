/* Users' kernels in the Laplace scenes (app/scenes/laplace/laplace_user.h). */
#include "app/scenes/laplace/laplace_user.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/kernel/kernel_checker.h"
#include "app/kernel/kernel_page.h"
#include "app/kernel/user_files.h"
#include "app/kernel/kernel_watch.h"
#include "app/scenes.h"
#include "app/signals.h"
#include "app/user_kernel.h"
#include "kernels/common/ks_util.h"
#include "render/image_io.h"
#include "serve/server.h"
#include "serve/state_json.h"

enum { KS_USER_LOG_LINES = 3 }; /* compile lines the panel shows */
#define KS_USER_START_LIMIT_S 300.0 /* the first builds of every file, the checks' own limits included */

/* What the panel says of one file. */
typedef struct user_file {
    const char *path;
    int id;                      /* its variant */
    int loaded;                  /* code of a passed build runs */
    int checked[3];              /* the block its running code passed the check with */
    int recheck[3];              /* a block asked for (the keys), being checked (rechecking) */
    int rechecking;
    char line[KS_KERNEL_WATCH_MSG]; /* what its last build did */
    int failed;                  /* the last build was refused */
    char log[KS_USER_LOG_LINES][KS_VIEW_TEXT];
    double compile_ms, check_ms, swap_ms, save_to_run_ms; /* of the last build that ran */
    char passed[KS_KCHECK_MSG_MAX]; /* the check's words (worker thread; under lock) */
} user_file;

/* Frame intervals, split by whether a build was on its way (the watch busy):
 * what compiling and checking on the side costs the frames, said at the end. */
enum { KS_USER_INTERVALS = 4096 };
typedef struct frame_intervals {
    double ms[2][KS_USER_INTERVALS]; /* [0] no build, [1] a build running */
    int n[2];
    double last;                     /* the previous poll, host seconds */
} frame_intervals;

/* One answer for the difference view: values, or why there are none. */
typedef struct diff_pic {
    int valid;               /* an answer is here */
    long long code_gen;      /* of the build it shows (diff.code_gen) */
    int passed;
    int axis, index;
    float *values;           /* w x h (malloc'd), NULL: none, why says why */
    int w, h;
    ks_diff_stats stats;
    int final;               /* none for this build on any slice (a fault, a time-out): not asked again */
    char why[KS_KCHECK_MSG_MAX];
} diff_pic;

struct ks_laplace_user {
    frame_intervals frames;
    int count;
    user_file files[KS_LUSER_MAX];
    char scene[KS_KCHECK_NAME_MAX];
    ks_grid grid;
    ks_kchecker *checker;
    ks_kernel_watch *watch;
    pthread_mutex_t lock;        /* blocks[] and files[].passed: the worker reads and writes them */
    int blocks[KS_LUSER_MAX][3]; /* the block each file's kernel runs with: its check's */
    char banner[KS_VIEW_TEXT];
    int banner_error;
    double banner_until;
    /* The difference view: the worker (check_build, diff_task) writes diff
       under lock, the frame loop moves diff.fresh into shown, its own. Only
       the worker replaces code, so a task reads it without the lock. */
    struct {
        int slot;            /* the file checked last, -1: none yet */
        void *code;          /* its code (a copy) and the block it was checked at */
        size_t code_size;
        int cubin;
        int block[3];
        long long code_gen;  /* bumped at every check of a build */
        int on;              /* what the view wants now (the frame loop's) */
        ks_axis axis;
        int index;
        int asked;           /* a task is on its way */
        long long last_gen;  /* the answer stored last (taken or not): its build, slice, finality */
        int last_axis, last_index, last_final;
        diff_pic fresh;      /* the newest answer, not yet taken (valid 0: none) */
    } diff;
    diff_pic shown;
    long long shown_serial;
    ks_kernel_page *page; /* --edit: the page's editor of the first file; NULL: none */
};


/* An answer for the difference view into pic (its values taken from r). */
static void diff_answer(diff_pic *pic, const ks_kcheck_request *req, ks_kcheck_result *r, long long code_gen)
{
    memset(pic, 0, sizeof *pic);
    pic->valid = 1;
    pic->code_gen = code_gen;
    pic->passed = r->passed;
    pic->axis = req->axis;
    pic->index = req->index;
    pic->values = r->diff;
    pic->w = r->diff_w;
    pic->h = r->diff_h;
    r->diff = NULL;
    if (pic->values) ks_diff_summarize(pic->values, (size_t)pic->w * (size_t)pic->h, &pic->stats);
    pic->final = !pic->values; /* the slice is never why: the sizes were checked before asking */
    if (!pic->values) snprintf(pic->why, sizeof pic->why, "%s", r->message);
}

/* Stores an answer as the newest (lock held). */
static void diff_store(ks_laplace_user *u, diff_pic *pic)
{
    free(u->diff.fresh.values);
    u->diff.fresh = *pic;
    u->diff.last_gen = pic->code_gen;
    u->diff.last_axis = pic->axis;
    u->diff.last_index = pic->index;
    u->diff.last_final = pic->final;
}

/* After the check of a build (worker thread): it is the file checked last,
 * its code kept for the slices asked later, its picture stored when the
 * check brought one. */
static void diff_checked(ks_laplace_user *u, int slot, const ks_kcheck_request *req, ks_kcheck_result *r)
{
    void *copy = malloc(req->code_size);
    if (copy) memcpy(copy, req->code, req->code_size);
    pthread_mutex_lock(&u->lock);
    const long long gen = ++u->diff.code_gen;
    diff_pic pic;
    if (req->diff || !copy) {
        diff_answer(&pic, req, r, gen);
        if (!copy && !pic.values) snprintf(pic.why, sizeof pic.why, "out of host memory for a copy of the code");
        pic.final |= !copy;
        diff_store(u, &pic);
    }
    free(u->diff.code);
    u->diff.code = copy;
    u->diff.code_size = req->code_size;
    u->diff.cubin = req->cubin;
    memcpy(u->diff.block, req->block, sizeof u->diff.block);
    u->diff.slot = slot;
    pthread_mutex_unlock(&u->lock);
    ks_kcheck_result_free(r);
}

/* ks_kernel_watch_task (worker thread): the file checked last, checked again
 * with the slice the view shows now, for its picture alone (the build that
 * runs stays as it is). */
static void diff_task(void *user)
{
    ks_laplace_user *u = user;
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    pthread_mutex_lock(&u->lock);
    const long long gen = u->diff.code_gen;
    const int have = u->diff.last_gen == gen &&
                     (u->diff.last_final || (u->diff.last_axis == (int)u->diff.axis && u->diff.last_index == u->diff.index));
    const int go = u->diff.on && u->diff.code && !have;
    const int slot = u->diff.slot;
    req.diff = 1;
    req.axis = (int)u->diff.axis;
    req.index = u->diff.index;
    memcpy(req.block, u->diff.block, sizeof req.block);
    if (!go) u->diff.asked = 0;
    pthread_mutex_unlock(&u->lock);
    if (!go) return;
    snprintf(req.scene, sizeof req.scene, "%s", u->scene);
    snprintf(req.file, sizeof req.file, "%s", ks_lvariant_get(u->files[slot].id)->name);
    req.grid[0] = u->grid.nx;
    req.grid[1] = u->grid.ny;
    req.grid[2] = u->grid.nz;
    req.code = u->diff.code; /* only this thread replaces it */
    req.code_size = u->diff.code_size;
    req.cubin = u->diff.cubin;
    ks_kcheck_result r;
    memset(&r, 0, sizeof r);
    diff_pic pic;
    if (ks_kchecker_run(u->checker, &req, &r) != KS_OK) { /* no check process to be had */
        pic = (diff_pic){.valid = 1, .code_gen = gen, .axis = req.axis, .index = req.index};
        snprintf(pic.why, sizeof pic.why, "the check could not run: %s", ks_error_message());
    } else {
        diff_answer(&pic, &req, &r, gen);
    }
    ks_kcheck_result_free(&r);
    pthread_mutex_lock(&u->lock);
    diff_store(u, &pic);
    u->diff.asked = 0;
    pthread_mutex_unlock(&u->lock);
}

/* The watch's check (its worker thread): the build in the checker process. */
static ks_status check_build(void *user, int slot, const void *code, size_t size, int cubin, char *msg, size_t cap,
                             int checked_block[3])
{
    ks_laplace_user *u = user;
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.scene, sizeof req.scene, "%s", u->scene);
    snprintf(req.file, sizeof req.file, "%s", ks_lvariant_get(u->files[slot].id)->name);
    req.grid[0] = u->grid.nx;
    req.grid[1] = u->grid.ny;
    req.grid[2] = u->grid.nz;
    pthread_mutex_lock(&u->lock);
    memcpy(req.block, u->blocks[slot], sizeof req.block);
    /* the view on: the build's check brings the picture along, no second check */
    req.diff = u->diff.on;
    req.axis = (int)u->diff.axis;
    req.index = u->diff.index;
    pthread_mutex_unlock(&u->lock);
    memcpy(checked_block, req.block, sizeof req.block);
    req.code = code;
    req.code_size = size;
    req.cubin = cubin;
    int w, h;
    if (req.diff && (!ks_kcheck_diff_dims(&req, &w, &h) || (long long)w * h > KS_KCHECK_DIFF_MAX))
        req.diff = 0; /* ks_laplace_user_diff says why */
    ks_kcheck_result r;
    memset(&r, 0, sizeof r);
    const ks_status st = ks_kchecker_run(u->checker, &req, &r);
    if (st != KS_OK) {
        ks_kcheck_result_free(&r);
        snprintf(msg, cap, "the check could not run: %s", ks_error_message());
        return st;
    }
    diff_checked(u, slot, &req, &r);
    snprintf(msg, cap, "%s", r.message);
    if (!r.passed) return KS_ERR_INVALID;
    pthread_mutex_lock(&u->lock);
    snprintf(u->files[slot].passed, sizeof u->files[slot].passed, "%s", r.message);
    pthread_mutex_unlock(&u->lock);
    return KS_OK;
}

/* The banner (name: what happened), cut to its size. */
static void set_banner(ks_laplace_user *u, int error, const char *name, const char *what)
{
    snprintf(u->banner, sizeof u->banner, "%.100s%s%.150s", name, name[0] ? ": " : "", what);
    u->banner_error = error;
    u->banner_until = ks_now_seconds() + 8.0;
}

/* Keeps the first lines of a build's compile log for the panel. */
static void keep_log(user_file *f, const char *lines)
{
    memset(f->log, 0, sizeof f->log);
    for (int n = 0; lines && *lines && n < KS_USER_LOG_LINES; ++n) {
        const char *end = strchr(lines, '\n');
        const size_t len = end ? (size_t)(end - lines) : strlen(lines);
        snprintf(f->log[n], sizeof f->log[n], "%.*s", (int)len, lines);
        lines = end ? end + 1 : lines + len;
    }
}

/* A finished build: swapped in when it passed, reported either way. With a
 * solver, its stream is drained first: no launch of the old code in flight. */
static ks_status apply(ks_laplace_user *u, ks_kernel_build *b, ks_lsolver *solver)
{
    user_file *f = &u->files[b->slot];
    const char *name = ks_lvariant_get(f->id)->name;
    if (b->lines && b->lines[0]) fputs(b->lines, stderr); /* errors and warnings, file:line: */
    keep_log(f, b->lines);
    if (b->status != KS_OK) {
        f->failed = 1;
        snprintf(f->line, sizeof f->line, "%s", b->message);
        /* before the run (no solver yet) the error that ends it is the one line: main prints it */
        if (solver)
            fprintf(stderr, "kernelscope: %s: %s%s\n", KS_QUOTED(name), b->message,
                    f->loaded ? "; the previous code goes on running" : "");
        set_banner(u, 1, name, b->message);
        if (!b->compiled) return ks_fail(b->status, "%s", b->message); /* it names the file already */
        return ks_fail(KS_ERR_INVALID, "%s: %s", name, b->message);
    }
    const double t0 = ks_now_seconds();
    ks_status st = solver ? ks_lsolver_wait(solver) : KS_OK;
    if (st == KS_OK && solver) ks_lsolver_drop_graphs(solver); /* none may hold the code about to go */
    if (st == KS_OK) st = ks_luser_load(f->id, b->code, b->code_size);
    const double t1 = ks_now_seconds();
    if (st != KS_OK) {
        f->failed = 1;
        snprintf(f->line, sizeof f->line, "%s", ks_error_message());
        fprintf(stderr, "kernelscope: %s\n", f->line);
        set_banner(u, 1, "", f->line);
        return st;
    }
    f->loaded = 1;
    f->failed = 0;
    pthread_mutex_lock(&u->lock);
    memcpy(f->checked, b->checked_block, sizeof f->checked); /* the block the code may run with: its own check's */
    pthread_mutex_unlock(&u->lock);
    f->compile_ms = b->compile_ms;
    f->check_ms = b->check_ms;
    f->swap_ms = (t1 - t0) * 1e3;
    f->save_to_run_ms = (t1 - b->seen_at) * 1e3;
    char passed[KS_KCHECK_MSG_MAX];
    pthread_mutex_lock(&u->lock);
    snprintf(passed, sizeof passed, "%s", f->passed);
    pthread_mutex_unlock(&u->lock);
    snprintf(f->line, sizeof f->line, "build %lld: compiled %.0f ms, checked %.0f ms, swapped %.1f ms", b->generation,
             f->compile_ms, f->check_ms, f->swap_ms);
    if (b->generation == 1)
        fprintf(stderr, "kernelscope: %s: compiled in %.0f ms, checked in %.0f ms; it %s\n", KS_QUOTED(name),
                f->compile_ms, f->check_ms, passed);
    else
        fprintf(stderr, "kernelscope: %s: build %lld runs %.0f ms after the save (compile %.0f ms, check %.0f ms, "
                "swap %.1f ms); it %s\n",
                KS_QUOTED(name), b->generation, f->save_to_run_ms, f->compile_ms, f->check_ms, f->swap_ms, passed);
    set_banner(u, 0, name, f->line);
    return KS_OK;
}

/* After a build of the first file: what the page shows of it. */
static void publish(ks_laplace_user *u, const ks_kernel_build *b)
{
    if (!u->page || b->slot != 0) return;
    const user_file *f = &u->files[0];
    ks_kernel_page_publish(u->page, b->generation, f->failed, f->line, f->log, KS_USER_LOG_LINES, f->save_to_run_ms);
}

/* The page's Compile waits while a build of any file runs. */
static int page_busy(void *user)
{
    ks_laplace_user *u = user;
    return u->watch && ks_kernel_watch_busy(u->watch);
}

int ks_laplace_user_ready(ks_laplace_user *u)
{
    if (!u) return 0;
    int ready = ks_kernel_watch_ready(u->watch);
    pthread_mutex_lock(&u->lock);
    ready |= u->diff.fresh.valid;
    pthread_mutex_unlock(&u->lock);
    return ready;
}

const ks_server_editor *ks_laplace_user_editor(ks_laplace_user *u) { return u ? ks_kernel_page_editor(u->page) : NULL; }

ks_status ks_laplace_user_create(const ks_laplace_user_desc *d, ks_laplace_user **out)
{
    *out = NULL;
    const ks_scene_def *def = d->opt->scene;
    int count = 0;
    while (def->kernel_file && count < KS_LUSER_MAX && def->kernel_file(d->opt, count)) ++count;
    if (!count) return KS_OK;
    ks_laplace_user *u = calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&u->lock, NULL);
    u->count = count;
    u->diff.slot = -1;
    u->grid = d->grid;
    snprintf(u->scene, sizeof u->scene, "%s", d->scene);
    const char *paths[KS_LUSER_MAX];
    for (int i = 0; i < count; ++i) {
        user_file *f = &u->files[i];
        f->path = paths[i] = def->kernel_file(d->opt, i);
        f->id = ks_lvariant_find(d->grid.dims, ks_path_base_name(f->path)); /* registered with the options */
        memcpy(u->blocks[i], ks_lvariant_get(f->id)->default_block, sizeof u->blocks[i]);
        if (d->opt->block_count) memcpy(u->blocks[i], d->opt->blocks[0], sizeof u->blocks[i]);
    }
    ks_status st = ks_user_files_checker(&u->checker);
    if (st == KS_OK && d->edit && d->watch)
        st = ks_kernel_page_create(&(ks_kernel_page_desc){.path = paths[0], .busy = page_busy, .user = u}, &u->page);
    const ks_kernel_watch_desc wd = {
        .paths = paths,
        .count = count,
        .cc_major = d->device->cc_major,
        .cc_minor = d->device->cc_minor,
        .cubin = 1,
        .check = check_build,
        .check_user = u,
        .initial_build = 1,
        .task = diff_task,
    };
    if (st == KS_OK) st = ks_kernel_watch_create(&wd, &u->watch);
    /* The first build of every file, before anything runs. */
    int built = 0;
    const double limit = ks_now_seconds() + KS_USER_START_LIMIT_S;
    while (st == KS_OK && built < count) {
        ks_kernel_build b;
        if (!ks_kernel_watch_poll(u->watch, &b)) {
            if (ks_now_seconds() > limit) st = ks_fail(KS_ERR_IO, "--kernel-file: the first builds took over %.0f s",
                                                       KS_USER_START_LIMIT_S);
            if (ks_signals_stop_requested()) st = ks_fail(KS_ERR_INVALID, "--kernel-file: stopped before the first builds");
            nanosleep(&(struct timespec){0, 2000000}, NULL); /* the builds take tens of ms and more */
            continue;
        }
        if (b.generation == 1) ++built;
        st = apply(u, &b, NULL);
        publish(u, &b);
        ks_kernel_build_free(&b);
    }
    if (st == KS_OK && !d->watch) { /* built once: nothing more to follow */
        ks_kernel_watch_destroy(u->watch);
        ks_kchecker_destroy(u->checker);
        u->watch = NULL;
        u->checker = NULL;
    }
    if (st != KS_OK) {
        ks_laplace_user_destroy(u);
        return st;
    }
    *out = u;
    return KS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "median 16.7 ms, p99 17.9 ms over 300 frames" of one side (sorts it). */
static void interval_text(double *ms, int n, char *buf, size_t cap)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    snprintf(buf, cap, "median %.2f ms, p99 %.2f ms over %d frames", ms[n / 2], ms[(int)(0.99 * (n - 1) + 0.5)], n);
}

void ks_laplace_user_destroy(ks_laplace_user *u)
{
    if (!u) return;
    frame_intervals *fi = &u->frames;
    if (fi->n[1] >= 10 && fi->n[0] >= 10) {
        char quiet[128], busy[128];
        interval_text(fi->ms[0], fi->n[0], quiet, sizeof quiet);
        interval_text(fi->ms[1], fi->n[1], busy, sizeof busy);
        fprintf(stderr, "kernelscope: frame interval while a kernel file was compiled and checked: %s; otherwise %s\n",
                busy, quiet);
    }
    ks_kernel_watch_destroy(u->watch); /* first: its worker may be inside a check */
    ks_kchecker_destroy(u->checker);
    ks_kernel_page_destroy(u->page);
    pthread_mutex_destroy(&u->lock);
    free(u->diff.code);
    free(u->diff.fresh.values);
    free(u->shown.values);
    free(u);
}

int ks_laplace_user_first(const ks_laplace_user *u) { return u && u->count ? u->files[0].id : -1; }

/* The block variant runs with this frame: the one asked for once its code has
 * passed the check at it; until then the one it last passed with, while a
 * check at the new one is asked for (a kernel right at one block may fault
 * at another: it never runs unchecked). */
static void choose_block(ks_laplace_user *u, int variant, const int want[3], int run[3])
{
    memcpy(run, want, 3 * sizeof *run);
    for (int i = 0; i < u->count; ++i) {
        user_file *f = &u->files[i];
        if (f->id != variant || !f->loaded) continue;
        if (memcmp(f->checked, want, sizeof f->checked) == 0) {
            f->rechecking = 0;
            return;
        }
        if (!f->rechecking || memcmp(f->recheck, want, sizeof f->recheck) != 0) {
            pthread_mutex_lock(&u->lock);
            memcpy(u->blocks[i], want, sizeof u->blocks[i]); /* the block the next check runs with */
            pthread_mutex_unlock(&u->lock);
            memcpy(f->recheck, want, sizeof f->recheck);
            f->rechecking = ks_kernel_watch_rebuild(u->watch, i) == KS_OK;
            if (f->rechecking) {
                char line[96];
                snprintf(line, sizeof line, "checking it at block %dx%dx%d; it runs at %dx%dx%d meanwhile", want[0],
                         want[1], want[2], f->checked[0], f->checked[1], f->checked[2]);
                set_banner(u, 0, ks_lvariant_get(f->id)->name, line);
            }
        }
        memcpy(run, f->checked, 3 * sizeof *run);
        return;
    }
}

ks_status ks_laplace_user_poll(ks_laplace_user *u, ks_lsolver *solver, int variant, const int block[3], int *changed,
                               int run_block[3], int *reverted)
{
    *changed = 0;
    *reverted = 0;
    memcpy(run_block, block, 3 * sizeof *run_block);
    if (!u || !u->watch) return KS_OK;
    const double now = ks_now_seconds();
    const int busy = ks_kernel_watch_busy(u->watch);
    frame_intervals *fi = &u->frames;
    if (fi->last > 0 && fi->n[busy] < KS_USER_INTERVALS) fi->ms[busy][fi->n[busy]++] = (now - fi->last) * 1e3;
    fi->last = now;
    ks_kernel_build b;
    while (ks_kernel_watch_poll(u->watch, &b)) {
        user_file *f = &u->files[b.slot];
        if (apply(u, &b, solver) == KS_OK && f->id == variant) *changed = 1;
        else if (f->rechecking && f->loaded && f->id == variant) { /* refused at the new block: back to the old */
            f->rechecking = 0;
            *reverted = 1;
            char line[KS_VIEW_TEXT];
            snprintf(line, sizeof line, "refused at block %dx%dx%d, runs on at %dx%dx%d", f->recheck[0], f->recheck[1],
                     f->recheck[2], f->checked[0], f->checked[1], f->checked[2]);
            fprintf(stderr, "kernelscope: %s: %s\n", ks_lvariant_get(f->id)->name, line);
            set_banner(u, 1, ks_lvariant_get(f->id)->name, line);
            memcpy(run_block, f->checked, 3 * sizeof *run_block);
        }
        publish(u, &b);
        ks_error_clear(); /* a refused build is shown, not an error of the frame */
        ks_kernel_build_free(&b);
    }
    if (*reverted) return KS_OK; /* run_block: the block it passed with; the scene takes it back */
    choose_block(u, variant, block, run_block);
    return KS_OK;
}

void ks_laplace_user_view(const ks_laplace_user *u, int variant, ks_view *v)
{
    if (!u) return;
    if (!v->message[0] && u->banner[0] && ks_now_seconds() < u->banner_until) {
        snprintf(v->message, sizeof v->message, "%s", u->banner);
        v->message_kind = u->banner_error ? KS_VMSG_ERROR : KS_VMSG_NOTICE;
    }
    for (int i = 0; i < u->count; ++i) {
        const user_file *f = &u->files[i];
        if (f->id != variant && !f->failed) continue; /* the one in use, and any whose save was refused */
        ks_view_text(v, KS_VGROUP_KERNEL, "kernel file", "%s", f->path);
        ks_view_text(v, KS_VGROUP_KERNEL, f->failed ? "refused" : "last build", "%s", f->line);
        if (f->loaded && f->id == variant)
            ks_view_num(v, KS_VGROUP_KERNEL, "save to running", f->save_to_run_ms, "ms", KS_VFMT_INT);
        for (int n = 0; n < KS_USER_LOG_LINES && f->failed; ++n)
            if (f->log[n][0]) ks_view_text(v, KS_VGROUP_KERNEL, "log", "%s", f->log[n]);
    }
}

void ks_laplace_user_diff(ks_laplace_user *u, int on, ks_axis axis, int index, ks_laplace_diff *out)
{
    memset(out, 0, sizeof *out);
    if (!u) return; /* KS_LDIFF_NO_KERNEL */
    const ks_lvariant_info *ref = ks_lvariant_get(ks_lvariant_default(u->grid.dims));
    out->reference = ref ? ref->name : "";
    int w, h;
    ks_slice_dims(&u->grid, axis, &w, &h);
    const int fits = (long long)w * h <= KS_KCHECK_DIFF_MAX;
    int ask = 0;
    pthread_mutex_lock(&u->lock);
    u->diff.on = on && fits && u->watch;
    u->diff.axis = axis;
    u->diff.index = index;
    if (u->diff.fresh.valid) { /* the newest answer becomes the one shown */
        free(u->shown.values);
        u->shown = u->diff.fresh;
        memset(&u->diff.fresh, 0, sizeof u->diff.fresh);
        ++u->shown_serial;
    }
    const int slot = u->diff.slot;
    const long long gen = u->diff.code_gen;
    const int have = u->diff.last_gen == gen &&
                     (u->diff.last_final || (u->diff.last_axis == (int)axis && u->diff.last_index == index));
    if (u->diff.on && slot >= 0 && !have && !u->diff.asked) ask = u->diff.asked = 1;
    pthread_mutex_unlock(&u->lock);
    if (ask && ks_kernel_watch_task(u->watch) != KS_OK) {
        pthread_mutex_lock(&u->lock);
        u->diff.asked = 0;
        pthread_mutex_unlock(&u->lock);
        ks_error_clear(); /* the watch's own builds say why it stopped */
    }
    const diff_pic *p = &u->shown;
    if (slot < 0) {
        out->state = KS_LDIFF_UNCHECKED;
        return;
    }
    snprintf(out->kernel, sizeof out->kernel, "%s", ks_lvariant_get(u->files[slot].id)->name);
    if (!fits) {
        out->state = KS_LDIFF_NONE;
        snprintf(out->why, sizeof out->why, "the slice has %dx%d cells, more than the %d the difference view takes", w,
                 h, KS_KCHECK_DIFF_MAX);
        return;
    }
    if (!p->valid || p->code_gen != gen || (!p->final && (p->axis != (int)axis || p->index != index))) {
        out->state = KS_LDIFF_WAITING;
        return;
    }
    out->passed = p->passed;
    out->serial = u->shown_serial;
    if (!p->values) {
        out->state = KS_LDIFF_NONE;
        snprintf(out->why, sizeof out->why, "%s", p->why);
        return;
    }
    out->state = KS_LDIFF_READY;
    out->axis = p->axis;
    out->index = p->index;
    out->w = p->w;
    out->h = p->h;
    out->values = p->values;
    out->stats = p->stats;
}
