/* Users' kernel files of a scene (app/kernel/user_files.h): the watch's
 * worker compiles and checks (in the checker process), the frame thread loads
 * what passed and keeps the panel's words. */
#include "app/kernel/user_files.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "app/options.h"
#include "app/scenes.h"

#include "app/kernel/kernel_checker.h"
#include "app/kernel/kernel_page.h"
#include "app/signals.h"
#include "base/cuda_device.h"
#include "base/ks_util.h"

enum { KS_UF_LOG_LINES = 3 }; /* compile lines the panel shows */
#define KS_UF_START_LIMIT_S 300.0 /* the first builds of every file, the checks' own limits included */

typedef struct uf_file {
    const char *path;
    char name[KS_KCHECK_FILE_MAX]; /* its base name: the variant's */
    int loaded;                  /* code of a passed build runs */
    int checked[3];              /* the block its running code passed the check with */
    int recheck[3];              /* a block asked for, being checked */
    int rechecking;
    int failed;                  /* the last build was refused */
    char line[KS_KERNEL_WATCH_MSG]; /* what its last build did */
    char log[KS_UF_LOG_LINES][KS_VIEW_TEXT];
    double save_to_run_ms;       /* of the last build that runs */
    /* the worker's, under lock */
    int block[3];                /* the block the next check runs with */
    char passed[KS_KCHECK_MSG_MAX]; /* the check's words */
    double memcheck_ms;          /* its time under compute-sanitizer; < 0: it did not run there */
    ks_user_files_diff diff;     /* desc.diff: the newest check's difference slice */
    int diff_fresh;              /* ... not yet taken */
} uf_file;

struct ks_user_files {
    ks_user_files_desc d;
    char scene[KS_KCHECK_NAME_MAX];
    int count;
    uf_file files[KS_USER_FILES_MAX];
    ks_kchecker *checker;
    ks_kernel_watch *watch;
    pthread_mutex_t lock;        /* files[].block, .passed */
    char banner[KS_VIEW_TEXT];
    int banner_error;
    double banner_until;
    ks_kernel_page *page; /* desc.edit: the page's editor of the first file; NULL: none */
    ks_slice_diffs *slices; /* KS_USER_DIFF_SLICE: the difference view's answers; NULL: none */
};

/* The watch's check (its worker thread): the build in the checker process. */
static ks_status check_build(void *user, int slot, const void *code, size_t size, int cubin, char *msg, size_t cap,
                             int checked_block[3])
{
    ks_user_files *u = user;
    uf_file *f = &u->files[slot];
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.scene, sizeof req.scene, "%s", u->scene);
    snprintf(req.file, sizeof req.file, "%s", f->name);
    memcpy(req.grid, u->d.grid, sizeof req.grid);
    pthread_mutex_lock(&u->lock);
    memcpy(req.block, f->block, sizeof req.block);
    pthread_mutex_unlock(&u->lock);
    memcpy(checked_block, req.block, sizeof req.block);
    req.code = code;
    req.code_size = size;
    req.cubin = cubin;
    req.first = 1; /* a new build, or the code at a new block: under compute-sanitizer first when the
                      checker's mode says so (start_checker) */
    int dw = 0, dh = 0;
    if (u->slices) ks_slice_diffs_request(u->slices, &req); /* the view on: the picture comes with the check */
    if (u->d.diff == KS_USER_DIFF_WHOLE) { /* the whole output, the slice across z of the check's box */
        req.axis = 2;
        req.index = 0;
        memcpy(req.cells, u->d.diff_cells, sizeof req.cells);
        req.diff = ks_kcheck_diff_dims(&req, &dw, &dh) && (long long)dw * dh <= KS_KCHECK_DIFF_MAX;
    }
    ks_kcheck_result r;
    memset(&r, 0, sizeof r);
    const ks_status st = ks_kchecker_run(u->checker, &req, &r);
    if (st != KS_OK) {
        ks_kcheck_result_free(&r);
        snprintf(msg, cap, "the check could not run: %s", ks_error_message());
        return st;
    }
    snprintf(msg, cap, "%s", r.message);
    if (u->slices) ks_slice_diffs_checked(u->slices, f->name, &req, &r);
    if (u->d.diff == KS_USER_DIFF_WHOLE) { /* the newest answer replaces one the frame thread has not taken */
        ks_user_files_diff d = {.values = r.diff, .w = r.diff_w, .h = r.diff_h, .passed = r.passed, .asked = req.diff};
        snprintf(d.why, sizeof d.why, "%s", r.diff ? "" : !req.diff ? "the output is too large to send" : r.message);
        r.diff = NULL;
        pthread_mutex_lock(&u->lock);
        free(f->diff.values);
        f->diff = d;
        f->diff_fresh = 1;
        pthread_mutex_unlock(&u->lock);
    }
    ks_kcheck_result_free(&r);
    if (!r.passed) return KS_ERR_INVALID;
    pthread_mutex_lock(&u->lock);
    snprintf(f->passed, sizeof f->passed, "%s", r.message);
    f->memcheck_ms = r.memchecked ? r.memcheck_ms : -1.0;
    pthread_mutex_unlock(&u->lock);
    return KS_OK;
}

static void set_banner(ks_user_files *u, int error, const char *name, const char *what)
{
    snprintf(u->banner, sizeof u->banner, "%.100s%s%.150s", name, name[0] ? ": " : "", what);
    u->banner_error = error;
    u->banner_until = ks_now_seconds() + 8.0;
}

/* Keeps the first lines of a build's compile log for the panel. */
static void keep_log(uf_file *f, const char *lines)
{
    memset(f->log, 0, sizeof f->log);
    for (int n = 0; lines && *lines && n < KS_UF_LOG_LINES; ++n) {
        const char *end = strchr(lines, '\n');
        const size_t len = end ? (size_t)(end - lines) : strlen(lines);
        snprintf(f->log[n], sizeof f->log[n], "%.*s", (int)len, lines);
        lines = end ? end + 1 : lines + len;
    }
}

/* A finished build: loaded by the scene when it passed, reported either way.
 * running: the live run is on (before it, main prints the error that ends it). */
static ks_status apply(ks_user_files *u, ks_kernel_build *b, int running)
{
    uf_file *f = &u->files[b->slot];
    if (b->lines && b->lines[0]) fputs(b->lines, stderr); /* errors and warnings, file:line: */
    keep_log(f, b->lines);
    if (b->status != KS_OK) {
        f->failed = 1;
        snprintf(f->line, sizeof f->line, "%s", b->message);
        if (running)
            fprintf(stderr, "kernelscope: %s: %s%s\n", KS_QUOTED(f->name), b->message,
                    f->loaded ? "; the previous code goes on running" : "");
        set_banner(u, 1, f->name, b->message);
        if (!b->compiled) return ks_fail(b->status, "%s", b->message); /* it names the file already */
        return ks_fail(KS_ERR_INVALID, "%s: %s", f->name, b->message);
    }
    const double t0 = ks_now_seconds();
    const ks_status st = u->d.load(u->d.user, b->slot, f->name, b->code, b->code_size, b->cubin);
    const double t1 = ks_now_seconds();
    if (st != KS_OK) {
        f->failed = 1;
        snprintf(f->line, sizeof f->line, "%s", ks_error_message());
        if (running) fprintf(stderr, "kernelscope: %s\n", f->line);
        set_banner(u, 1, "", f->line);
        return st;
    }
    f->loaded = 1;
    f->failed = 0;
    char passed[KS_KCHECK_MSG_MAX], memcheck[40] = "";
    pthread_mutex_lock(&u->lock);
    memcpy(f->checked, b->checked_block, sizeof f->checked); /* the block the code may run with: its own check's */
    snprintf(passed, sizeof passed, "%s", f->passed);
    if (f->memcheck_ms >= 0) /* what the check under compute-sanitizer cost (part of the check's time) */
        snprintf(memcheck, sizeof memcheck, " (memcheck %.2f s)", f->memcheck_ms / 1000.0);
    pthread_mutex_unlock(&u->lock);
    f->save_to_run_ms = (t1 - b->seen_at) * 1e3;
    const double swap_ms = (t1 - t0) * 1e3;
    snprintf(f->line, sizeof f->line, "build %lld: compiled %.0f ms, checked %.0f ms%s, %s %.1f ms", b->generation,
             b->compile_ms, b->check_ms, memcheck, u->d.swap ? "swapped" : "loaded", swap_ms);
    if (b->generation == 1)
        fprintf(stderr, "kernelscope: %s: compiled in %.0f ms, checked in %.0f ms%s; it %s\n", KS_QUOTED(f->name),
                b->compile_ms, b->check_ms, memcheck, passed);
    else
        fprintf(stderr, "kernelscope: %s: build %lld runs %.0f ms after the save (compile %.0f ms, check %.0f ms%s, "
                "%s %.1f ms); it %s\n",
                KS_QUOTED(f->name), b->generation, f->save_to_run_ms, b->compile_ms, b->check_ms, memcheck,
                u->d.swap ? "swap" : "load", swap_ms, passed);
    set_banner(u, 0, f->name, f->line);
    return KS_OK;
}

/* apply, then what the page (--edit) shows of the first file. */
static ks_status take_build(ks_user_files *u, ks_kernel_build *b, int running)
{
    const ks_status st = apply(u, b, running);
    if (u->page && b->slot == 0) {
        const uf_file *f = &u->files[0];
        ks_kernel_page_publish(u->page, b->generation, f->failed, f->line, f->log, KS_UF_LOG_LINES, f->save_to_run_ms);
    }
    return st;
}

/* The page's Compile waits while a build of any file runs. */
static int page_busy(void *user) { return ks_user_files_busy(user); }

/* The slice view's task, on the watch's worker. */
static void slice_task(void *user)
{
    ks_user_files *u = user;
    ks_slice_diffs_task(u->slices);
}

/* When the checks run under compute-sanitizer (KS_MEMCHECK: first, fault or off; unset: first
 * when the checks share this run's GPU, else fault). */
static ks_status memcheck_mode(int spare, int *mode)
{
    const char *v = getenv("KS_MEMCHECK");
    *mode = spare < 0 ? KS_KCHECK_MEMCHECK_FIRST : KS_KCHECK_MEMCHECK_FAULT;
    if (!v || !*v) return KS_OK;
    if (strcmp(v, "first") == 0) *mode = KS_KCHECK_MEMCHECK_FIRST;
    else if (strcmp(v, "fault") == 0) *mode = KS_KCHECK_MEMCHECK_FAULT;
    else if (strcmp(v, "off") == 0) *mode = KS_KCHECK_MEMCHECK_OFF;
    else return ks_fail(KS_ERR_INVALID, "KS_MEMCHECK='%s': first, fault or off", KS_QUOTED(v));
    return KS_OK;
}

/* The checker process: on another GPU of the same kind when there is one, so that a kernel
 * that faults there cannot stall this run's GPU (a fault can leave a GPU unable to switch to
 * its other programs); on one GPU every build's first check runs under compute-sanitizer
 * memcheck, which stops an out-of-bounds access before the GPU faults. Says so on stderr. */
static ks_status start_checker(ks_kchecker **out)
{
    const int spare = ks_cuda_spare_device();
    int mode = 0;
    KS_TRY(memcheck_mode(spare, &mode));
    const char *tool = getenv("KS_COMPUTE_SANITIZER"); /* its path, when it is not where the toolkit puts it */
    const ks_kchecker_desc desc = {.device = spare + 1, .memcheck = mode, .sanitizer = tool && *tool ? tool : NULL};
    KS_TRY(ks_kchecker_create(&desc, out));
    if (spare >= 0) fprintf(stderr, "kernelscope: your kernels are checked on GPU %d, apart from this run's\n", spare);
    if (mode == KS_KCHECK_MEMCHECK_FIRST && ks_kchecker_sanitizer(*out))
        fprintf(stderr, "kernelscope: each build's first check runs under compute-sanitizer memcheck, so that a kernel "
                        "that writes out of bounds cannot fault the GPU this run shares (KS_MEMCHECK=fault turns it off)\n");
    else if (mode == KS_KCHECK_MEMCHECK_FIRST)
        fprintf(stderr, "kernelscope: compute-sanitizer not found (KS_COMPUTE_SANITIZER names it): a kernel that "
                        "faults is reported by its CUDA error alone, and faults the GPU this run shares\n");
    return KS_OK;
}

ks_status ks_user_files_create(const ks_user_files_desc *d, ks_user_files **out)
{
    *out = NULL;
    if (!d || !d->paths || d->count < 1 || d->count > KS_USER_FILES_MAX || !d->load || !d->scene ||
        strlen(d->scene) >= KS_KCHECK_NAME_MAX)
        return ks_fail(KS_ERR_INVALID, "kernel files: a bad description (%d files)", d ? d->count : 0);
    ks_user_files *u = calloc(1, sizeof *u);
    if (!u) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&u->lock, NULL);
    u->d = *d;
    u->d.paths = NULL;
    u->count = d->count;
    snprintf(u->scene, sizeof u->scene, "%s", d->scene);
    ks_status st = KS_OK;
    for (int i = 0; i < u->count && st == KS_OK; ++i) {
        uf_file *f = &u->files[i];
        f->path = d->paths[i]; /* the options' text: outlives the run */
        if (snprintf(f->name, sizeof f->name, "%s", ks_path_base_name(f->path)) >= (int)sizeof f->name)
            st = ks_fail(KS_ERR_INVALID, "--kernel-file: the name of '%s' is too long", KS_QUOTED(f->path));
        memcpy(f->block, d->block, sizeof f->block);
    }
    if (st == KS_OK) st = start_checker(&u->checker);
    if (st == KS_OK && d->diff == KS_USER_DIFF_SLICE)
        st = ks_slice_diffs_create(u->scene, d->grid, d->diff_reference, u->checker, &u->slices);
    if (st == KS_OK && d->edit && d->watch)
        st = ks_kernel_page_create(&(ks_kernel_page_desc){.path = u->files[0].path, .busy = page_busy, .user = u},
                                   &u->page);
    const ks_kernel_watch_desc wd = {
        .paths = d->paths,
        .count = d->count,
        .cc_major = d->device ? d->device->cc_major : 0,
        .cc_minor = d->device ? d->device->cc_minor : 0,
        .cubin = 1,
        .check = check_build,
        .check_user = u,
        .initial_build = 1,
        .task = u->slices ? slice_task : NULL,
    };
    if (st == KS_OK) st = ks_kernel_watch_create(&wd, &u->watch);
    /* The first build of every file, before anything runs. */
    int built = 0;
    const double limit = ks_now_seconds() + KS_UF_START_LIMIT_S;
    while (st == KS_OK && built < u->count) {
        ks_kernel_build b;
        if (!ks_kernel_watch_poll(u->watch, &b)) {
            if (ks_now_seconds() > limit)
                st = ks_fail(KS_ERR_IO, "--kernel-file: the first builds took over %.0f s", KS_UF_START_LIMIT_S);
            if (ks_signals_stop_requested()) st = ks_fail(KS_ERR_INVALID, "--kernel-file: stopped before the first builds");
            nanosleep(&(struct timespec){0, 2000000}, NULL); /* the builds take tens of ms and more */
            continue;
        }
        if (b.generation == 1) ++built;
        st = take_build(u, &b, 0);
        ks_kernel_build_free(&b);
    }
    if (st == KS_OK && !d->watch) { /* built once: nothing more to follow */
        ks_kernel_watch_destroy(u->watch);
        ks_kchecker_destroy(u->checker);
        u->watch = NULL;
        u->checker = NULL;
    }
    if (st != KS_OK) {
        ks_user_files_destroy(u);
        return st;
    }
    *out = u;
    return KS_OK;
}

void ks_user_files_destroy(ks_user_files *u)
{
    if (!u) return;
    ks_kernel_watch_destroy(u->watch); /* first: its worker may be inside a check */
    ks_kchecker_destroy(u->checker);
    ks_kernel_page_destroy(u->page);
    ks_slice_diffs_destroy(u->slices);
    for (int i = 0; i < u->count; ++i) free(u->files[i].diff.values);
    pthread_mutex_destroy(&u->lock);
    free(u);
}

int ks_user_files_count(const ks_user_files *u) { return u ? u->count : 0; }

int ks_user_files_take_diff(ks_user_files *u, int slot, ks_user_files_diff *out)
{
    if (!u || slot < 0 || slot >= u->count) return 0;
    pthread_mutex_lock(&u->lock);
    uf_file *f = &u->files[slot];
    const int fresh = f->diff_fresh;
    if (fresh) { /* the values go with it */
        *out = f->diff;
        memset(&f->diff, 0, sizeof f->diff);
        f->diff_fresh = 0;
    }
    pthread_mutex_unlock(&u->lock);
    return fresh;
}

int ks_user_files_ready(ks_user_files *u)
{
    if (!u) return 0;
    int ready = ks_kernel_watch_ready(u->watch);
    pthread_mutex_lock(&u->lock);
    for (int i = 0; i < u->count && !ready; ++i) ready = u->files[i].diff_fresh;
    pthread_mutex_unlock(&u->lock);
    return ready || ks_slice_diffs_ready(u->slices);
}

const ks_server_editor *ks_user_files_editor(ks_user_files *u) { return u ? ks_kernel_page_editor(u->page) : NULL; }

const char *ks_user_files_name(const ks_user_files *u, int slot)
{
    return u && slot >= 0 && slot < u->count ? u->files[slot].name : "";
}

int ks_user_files_loaded(const ks_user_files *u, int slot)
{
    return u && slot >= 0 && slot < u->count && u->files[slot].loaded;
}

int ks_user_files_busy(const ks_user_files *u) { return u && u->watch && ks_kernel_watch_busy(u->watch); }

void ks_user_files_slice_diff(ks_user_files *u, int on, int axis, int index, ks_slice_diff *out)
{
    ks_slice_diffs_get(u ? u->slices : NULL, u ? u->watch : NULL, on, axis, index, out);
}

/* The block the active file runs with this frame (see ks_user_files_poll). */
static void choose_block(ks_user_files *u, int active, const int want[3], int run[3])
{
    memcpy(run, want, 3 * sizeof *run);
    if (active < 0 || active >= u->count || !u->files[active].loaded) return;
    uf_file *f = &u->files[active];
    if (memcmp(f->checked, want, sizeof f->checked) == 0) {
        f->rechecking = 0;
        return;
    }
    if (!f->rechecking || memcmp(f->recheck, want, sizeof f->recheck) != 0) {
        pthread_mutex_lock(&u->lock);
        memcpy(f->block, want, sizeof f->block); /* the block the next check runs with */
        pthread_mutex_unlock(&u->lock);
        memcpy(f->recheck, want, sizeof f->recheck);
        f->rechecking = ks_kernel_watch_rebuild(u->watch, active) == KS_OK;
        ks_error_clear(); /* a stopped watch says why in its own builds */
        if (f->rechecking) {
            char line[96];
            snprintf(line, sizeof line, "checking it at block %dx%dx%d; it runs at %dx%dx%d meanwhile", want[0],
                     want[1], want[2], f->checked[0], f->checked[1], f->checked[2]);
            set_banner(u, 0, f->name, line);
        }
    }
    memcpy(run, f->checked, 3 * sizeof *run);
}

void ks_user_files_poll(ks_user_files *u, int active, const int block[3], int *changed, int run_block[3],
                        int *reverted)
{
    *changed = 0;
    *reverted = 0;
    memcpy(run_block, block, 3 * sizeof *run_block);
    if (!u || !u->watch) return;
    ks_kernel_build b;
    while (ks_kernel_watch_poll(u->watch, &b)) {
        uf_file *f = &u->files[b.slot];
        if (take_build(u, &b, 1) == KS_OK && b.slot == active) {
            *changed = 1;
        } else if (f->rechecking && f->loaded && b.slot == active) { /* refused at the new block: back to the old */
            f->rechecking = 0;
            *reverted = 1;
            char line[KS_VIEW_TEXT];
            snprintf(line, sizeof line, "refused at block %dx%dx%d, runs on at %dx%dx%d", f->recheck[0], f->recheck[1],
                     f->recheck[2], f->checked[0], f->checked[1], f->checked[2]);
            fprintf(stderr, "kernelscope: %s: %s\n", f->name, line);
            set_banner(u, 1, f->name, line);
            memcpy(run_block, f->checked, 3 * sizeof *run_block);
        }
        ks_error_clear(); /* a refused build is shown, not an error of the frame */
        ks_kernel_build_free(&b);
    }
    if (*reverted) return;
    choose_block(u, active, block, run_block);
}

void ks_user_files_view(const ks_user_files *u, int active, ks_view *v)
{
    if (!u) return;
    if (!v->message[0] && u->banner[0] && ks_now_seconds() < u->banner_until) {
        snprintf(v->message, sizeof v->message, "%s", u->banner);
        v->message_kind = u->banner_error ? KS_VMSG_ERROR : KS_VMSG_NOTICE;
    }
    for (int i = 0; i < u->count; ++i) {
        const uf_file *f = &u->files[i];
        if (i != active && !f->failed) continue; /* the one in use, and any whose save was refused */
        ks_view_text(v, KS_VGROUP_KERNEL, "kernel file", "%s", f->path);
        ks_view_text(v, KS_VGROUP_KERNEL, f->failed ? "refused" : "last build", "%s", f->line);
        if (f->loaded && i == active)
            ks_view_num(v, KS_VGROUP_KERNEL, "save to running", f->save_to_run_ms, "ms", KS_VFMT_INT);
        for (int n = 0; n < KS_UF_LOG_LINES && f->failed; ++n)
            if (f->log[n][0]) ks_view_text(v, KS_VGROUP_KERNEL, "log", "%s", f->log[n]);
    }
}

int ks_user_files_paths(const struct ks_options *opt, const char **paths, int max)
{
    const ks_scene_def *def = opt->scene;
    int n = 0;
    while (n < max && def && def->kernel_file && def->kernel_file(opt, n)) {
        paths[n] = def->kernel_file(opt, n);
        ++n;
    }
    return n;
}
