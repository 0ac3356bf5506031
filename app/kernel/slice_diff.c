/* The difference view over a slice of the live grid (slice_diff.h). The
 * worker (a build's check, a task) writes under the lock, the frame thread
 * moves the newest answer into the one it shows, its own. Only the worker
 * replaces the kept code, so a task reads it without the lock. */
#include "app/kernel/slice_diff.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One answer for the difference view: values, or why there are none. */
typedef struct diff_pic {
    int valid;               /* an answer is here */
    long long code_gen;      /* of the build it shows (code_gen below) */
    int passed;
    int axis, index;
    float *values;           /* w x h (malloc'd), NULL: none, why says why */
    int w, h;
    ks_diff_stats stats;
    int final;               /* none for this build on any slice (a fault, a time-out): not asked again */
    char why[KS_KCHECK_MSG_MAX];
} diff_pic;

struct ks_slice_diffs {
    char scene[KS_KCHECK_NAME_MAX];
    int grid[3];
    const char *reference;
    ks_kchecker *checker;
    pthread_mutex_t lock;
    char file[KS_KCHECK_FILE_MAX]; /* the file checked last, "": none yet */
    void *code;              /* its code (a copy) and the block it was checked at */
    size_t code_size;
    int cubin;
    int block[3];
    long long code_gen;      /* bumped at every check of a build */
    int on;                  /* what the view wants now (the frame loop's) */
    int axis, index;
    int asked;               /* a task is on its way */
    long long last_gen;      /* the answer stored last (taken or not): its build, slice, finality */
    int last_axis, last_index, last_final;
    diff_pic fresh;          /* the newest answer, not yet taken (valid 0: none) */
    diff_pic shown;          /* the frame thread's */
    long long shown_serial;
};

ks_status ks_slice_diffs_create(const char *scene, const int grid[3], const char *reference, ks_kchecker *checker,
                                ks_slice_diffs **out)
{
    *out = NULL;
    ks_slice_diffs *sd = calloc(1, sizeof *sd);
    if (!sd) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&sd->lock, NULL);
    snprintf(sd->scene, sizeof sd->scene, "%s", scene);
    memcpy(sd->grid, grid, sizeof sd->grid);
    sd->reference = reference ? reference : "";
    sd->checker = checker;
    *out = sd;
    return KS_OK;
}

void ks_slice_diffs_destroy(ks_slice_diffs *sd)
{
    if (!sd) return;
    pthread_mutex_destroy(&sd->lock);
    free(sd->code);
    free(sd->fresh.values);
    free(sd->shown.values);
    free(sd);
}

/* The cells of a slice of the live grid, 0 when it lies outside it. */
static int slice_dims(const ks_slice_diffs *sd, int axis, int index, int *w, int *h)
{
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.grid, sd->grid, sizeof req.grid);
    req.axis = axis;
    req.index = index;
    return ks_kcheck_diff_dims(&req, w, h);
}

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
static void diff_store(ks_slice_diffs *sd, diff_pic *pic)
{
    free(sd->fresh.values);
    sd->fresh = *pic;
    sd->last_gen = pic->code_gen;
    sd->last_axis = pic->axis;
    sd->last_index = pic->index;
    sd->last_final = pic->final;
}

/* 1 when the answer stored last is of the newest build and of this slice (or final). */
static int have_answer(const ks_slice_diffs *sd, int axis, int index)
{
    return sd->last_gen == sd->code_gen && (sd->last_final || (sd->last_axis == axis && sd->last_index == index));
}

void ks_slice_diffs_request(ks_slice_diffs *sd, ks_kcheck_request *req)
{
    pthread_mutex_lock(&sd->lock);
    req->diff = sd->on;
    req->axis = sd->axis;
    req->index = sd->index;
    pthread_mutex_unlock(&sd->lock);
    int w, h;
    if (req->diff && (!ks_kcheck_diff_dims(req, &w, &h) || (long long)w * h > KS_KCHECK_DIFF_MAX))
        req->diff = 0; /* ks_slice_diffs_get says why */
}

void ks_slice_diffs_checked(ks_slice_diffs *sd, const char *file, const ks_kcheck_request *req, ks_kcheck_result *r)
{
    void *copy = malloc(req->code_size);
    if (copy) memcpy(copy, req->code, req->code_size);
    pthread_mutex_lock(&sd->lock);
    const long long gen = ++sd->code_gen;
    diff_pic pic;
    if (req->diff || !copy) {
        diff_answer(&pic, req, r, gen);
        if (!copy && !pic.values) snprintf(pic.why, sizeof pic.why, "out of host memory for a copy of the code");
        pic.final |= !copy;
        diff_store(sd, &pic);
    }
    free(sd->code);
    sd->code = copy;
    sd->code_size = req->code_size;
    sd->cubin = req->cubin;
    memcpy(sd->block, req->block, sizeof sd->block);
    snprintf(sd->file, sizeof sd->file, "%s", file);
    pthread_mutex_unlock(&sd->lock);
}

void ks_slice_diffs_task(void *user)
{
    ks_slice_diffs *sd = user;
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    pthread_mutex_lock(&sd->lock);
    const long long gen = sd->code_gen;
    const int go = sd->on && sd->code && !have_answer(sd, sd->axis, sd->index);
    req.diff = 1;
    req.axis = sd->axis;
    req.index = sd->index;
    memcpy(req.block, sd->block, sizeof req.block);
    snprintf(req.file, sizeof req.file, "%s", sd->file);
    if (!go) sd->asked = 0;
    pthread_mutex_unlock(&sd->lock);
    if (!go) return;
    snprintf(req.scene, sizeof req.scene, "%s", sd->scene);
    memcpy(req.grid, sd->grid, sizeof req.grid);
    req.code = sd->code; /* only this thread replaces it */
    req.code_size = sd->code_size;
    req.cubin = sd->cubin;
    ks_kcheck_result r;
    memset(&r, 0, sizeof r);
    diff_pic pic;
    if (ks_kchecker_run(sd->checker, &req, &r) != KS_OK) { /* no check process to be had */
        pic = (diff_pic){.valid = 1, .code_gen = gen, .axis = req.axis, .index = req.index};
        snprintf(pic.why, sizeof pic.why, "the check could not run: %s", ks_error_message());
    } else {
        diff_answer(&pic, &req, &r, gen);
    }
    ks_kcheck_result_free(&r);
    pthread_mutex_lock(&sd->lock);
    diff_store(sd, &pic);
    sd->asked = 0;
    pthread_mutex_unlock(&sd->lock);
}

void ks_slice_diffs_get(ks_slice_diffs *sd, ks_kernel_watch *watch, int on, int axis, int index, ks_slice_diff *out)
{
    memset(out, 0, sizeof *out);
    if (!sd) return; /* KS_SDIFF_NO_KERNEL */
    out->reference = sd->reference;
    int w = 0, h = 0;
    const int fits = slice_dims(sd, axis, index, &w, &h) && (long long)w * h <= KS_KCHECK_DIFF_MAX;
    int ask = 0;
    pthread_mutex_lock(&sd->lock);
    sd->on = on && fits && watch;
    sd->axis = axis;
    sd->index = index;
    if (sd->fresh.valid) { /* the newest answer becomes the one shown */
        free(sd->shown.values);
        sd->shown = sd->fresh;
        memset(&sd->fresh, 0, sizeof sd->fresh);
        ++sd->shown_serial;
    }
    const int checked = sd->file[0] != '\0';
    const long long gen = sd->code_gen;
    snprintf(out->kernel, sizeof out->kernel, "%s", sd->file);
    if (sd->on && checked && !have_answer(sd, axis, index) && !sd->asked) ask = sd->asked = 1;
    pthread_mutex_unlock(&sd->lock);
    if (ask && ks_kernel_watch_task(watch) != KS_OK) {
        pthread_mutex_lock(&sd->lock);
        sd->asked = 0;
        pthread_mutex_unlock(&sd->lock);
        ks_error_clear(); /* the watch's own builds say why it stopped */
    }
    const diff_pic *p = &sd->shown;
    if (!checked) {
        out->state = KS_SDIFF_UNCHECKED;
        return;
    }
    if (!fits) {
        out->state = KS_SDIFF_NONE;
        snprintf(out->why, sizeof out->why, "the slice has %dx%d cells, more than the %d the difference view takes", w,
                 h, KS_KCHECK_DIFF_MAX);
        return;
    }
    if (!p->valid || p->code_gen != gen || (!p->final && (p->axis != axis || p->index != index))) {
        out->state = KS_SDIFF_WAITING;
        return;
    }
    out->passed = p->passed;
    out->serial = sd->shown_serial;
    if (!p->values) {
        out->state = KS_SDIFF_NONE;
        snprintf(out->why, sizeof out->why, "%s", p->why);
        return;
    }
    out->state = KS_SDIFF_READY;
    out->axis = p->axis;
    out->index = p->index;
    out->w = p->w;
    out->h = p->h;
    out->values = p->values;
    out->stats = p->stats;
}

int ks_slice_diffs_ready(ks_slice_diffs *sd)
{
    if (!sd) return 0;
    pthread_mutex_lock(&sd->lock);
    const int ready = sd->fresh.valid;
    pthread_mutex_unlock(&sd->lock);
    return ready;
}
