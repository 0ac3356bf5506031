/* A scene's variants, ours then the kernel files (variant_set.h). */
#include "app/kernel/variant_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/options.h"
#include "app/scenes.h"

struct ks_variant_set {
    ks_variant_set_desc d;
    ks_user_files *files;             /* NULL without any */
    int nfiles;
    ks_user_code *code[KS_USER_FILES_MAX]; /* each file's handle of its last passed build */
    int at;                           /* what runs, in Tab's order: ours 0 .. ours-1, then the files */
    int run_block[3];                 /* the block the active file runs with this frame */
    int block_asked[3];               /* the block the last poll was asked for */
    ks_user_diff diff;                /* D: on / off, and the whole-output answers */
};

/* user_files' load (the frame thread): the scene's handle replaces the file's. */
static ks_status load_file(void *user, int slot, const char *name, const void *code, size_t size, int cubin)
{
    (void)cubin; /* the loaders tell CUBIN from PTX themselves */
    ks_variant_set *vs = user;
    if (vs->d.quiesce) KS_TRY(vs->d.quiesce(vs->d.scene));
    ks_user_code *h = NULL;
    KS_TRY(vs->d.contract->load(name, code, size, &h));
    ks_user_code_destroy(vs->code[slot]);
    vs->code[slot] = h;
    return KS_OK;
}

ks_status ks_variant_set_create(const ks_variant_set_desc *d, ks_variant_set **out)
{
    *out = NULL;
    if (!d || !d->contract || !d->contract->load || !d->opt || d->ours < 0 || d->ours > KS_VARIANT_OURS_MAX ||
        (d->ours && !d->our_names))
        return ks_fail(KS_ERR_INVALID, "variant set: a bad description");
    ks_variant_set *vs = calloc(1, sizeof *vs);
    if (!vs) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    vs->d = *d;
    vs->at = d->first >= 0 && d->first < d->ours ? d->first : 0;
    memcpy(vs->run_block, d->block, sizeof vs->run_block);
    memcpy(vs->block_asked, d->block, sizeof vs->block_asked);
    vs->diff.drawn_slot = -1;
    const char *paths[KS_USER_FILES_MAX];
    const int n = d->use_cuda ? ks_user_files_paths(d->opt, paths, KS_USER_FILES_MAX) : 0;
    if (n) {
        const ks_user_files_desc fd = {
            .paths = paths, .count = n, .scene = d->opt->scene->name, .device = d->device,
            .grid = {d->grid[0], d->grid[1], d->grid[2]}, .block = {d->block[0], d->block[1], d->block[2]},
            .watch = d->watch, .edit = d->watch && d->opt->edit, .diff = d->diff,
            .diff_cells = {d->diff_cells[0], d->diff_cells[1]}, .diff_reference = d->diff_reference,
            .swap = d->contract->swap, .load = load_file, .user = vs,
        };
        const ks_status st = ks_user_files_create(&fd, &vs->files);
        if (st != KS_OK) {
            ks_variant_set_destroy(vs);
            return st;
        }
        vs->nfiles = n;
        /* the first file runs (the reason for the run) unless --kernel names ours or another file */
        int active = d->opt->kernel_count ? -1 : 0;
        for (int i = 0; i < n && d->opt->kernel_count && active < 0; ++i)
            if (strcmp(ks_user_files_name(vs->files, i), d->opt->kernels[0]) == 0) active = i;
        if (active >= 0) vs->at = d->ours + active;
    }
    *out = vs;
    return KS_OK;
}

void ks_variant_set_destroy(ks_variant_set *vs)
{
    if (!vs) return;
    ks_user_files_destroy(vs->files); /* first: its worker may be inside a check */
    for (int i = 0; i < KS_USER_FILES_MAX; ++i) ks_user_code_destroy(vs->code[i]);
    ks_user_diff_free(&vs->diff);
    free(vs);
}

int ks_variant_set_files(const ks_variant_set *vs) { return vs ? vs->nfiles : 0; }

const char *ks_variant_set_file_name(const ks_variant_set *vs, int slot)
{
    return vs ? ks_user_files_name(vs->files, slot) : "";
}

ks_user_code *ks_variant_set_code_at(const ks_variant_set *vs, int slot)
{
    return vs && slot >= 0 && slot < vs->nfiles ? vs->code[slot] : NULL;
}

int ks_variant_set_file(const ks_variant_set *vs) { return vs && vs->at >= vs->d.ours ? vs->at - vs->d.ours : -1; }

int ks_variant_set_ours(const ks_variant_set *vs) { return vs && vs->at < vs->d.ours ? vs->at : -1; }

/* The name of the k-th in Tab's order. */
static const char *name_at(const ks_variant_set *vs, int k)
{
    return k < vs->d.ours ? vs->d.our_names[k] : ks_user_files_name(vs->files, k - vs->d.ours);
}

const char *ks_variant_set_name(const ks_variant_set *vs) { return vs ? name_at(vs, vs->at) : ""; }

int ks_variant_set_count(const ks_variant_set *vs) { return vs ? vs->d.ours + vs->nfiles : 0; }

const char *ks_variant_set_name_at(const ks_variant_set *vs, int k)
{
    return vs && k >= 0 && k < ks_variant_set_count(vs) ? name_at(vs, k) : "";
}

ks_user_code *ks_variant_set_code(const ks_variant_set *vs) { return ks_variant_set_code_at(vs, ks_variant_set_file(vs)); }

int ks_variant_set_next(const ks_variant_set *vs, int dir, int (*skip)(void *user, int ours), void *user,
                        int *skipped)
{
    if (skipped) *skipped = 0;
    const int all = vs->d.ours + vs->nfiles;
    int k = vs->at;
    if (all < 1) return k;
    for (int tries = 0; tries < all; ++tries) {
        k = (k + (dir < 0 ? all - 1 : 1)) % all;
        if (k >= vs->d.ours && !ks_user_files_loaded(vs->files, k - vs->d.ours)) continue; /* never passed yet */
        if (k < vs->d.ours && skip && skip(user, k)) {
            if (skipped) *skipped = 1;
            continue;
        }
        break;
    }
    return k;
}

void ks_variant_set_select(ks_variant_set *vs, int k)
{
    if (k < 0 || k >= vs->d.ours + vs->nfiles) return;
    vs->at = k;
    memcpy(vs->run_block, vs->block_asked, sizeof vs->run_block); /* the poll picks the checked one */
}

/* What runs starts its times again (desc.times). */
static void clear_times(ks_variant_set *vs)
{
    if (vs->d.times) ks_timing_window_clear(vs->d.times(vs->d.scene));
}

void ks_variant_set_poll(ks_variant_set *vs, int block[3], int *changed)
{
    int reverted = 0, replaced = 0;
    memcpy(vs->block_asked, block, sizeof vs->block_asked);
    ks_user_files_poll(vs->files, ks_variant_set_file(vs), block, &replaced, vs->run_block, &reverted);
    if (replaced) clear_times(vs); /* new code: its own times */
    if (changed) *changed = replaced;
    if (reverted) { /* refused there: back to the one it passed at */
        memcpy(block, vs->run_block, 3 * sizeof *block);
        memcpy(vs->block_asked, block, sizeof vs->block_asked);
    }
    if (vs->d.diff == KS_USER_DIFF_WHOLE && vs->files) ks_user_diff_poll(&vs->diff, vs->files);
}

const int *ks_variant_set_run_block(const ks_variant_set *vs) { return vs->run_block; }

ks_status ks_variant_set_next_block(ks_variant_set *vs, const int (*list)[3], int n, int dir, int block[3])
{
    const ks_user_code *h = ks_variant_set_code(vs);
    const long threads = (long)block[0] * block[1] * block[2];
    int pos = -1;
    for (int i = 0; i < n; ++i)
        if (memcmp(list[i], block, 3 * sizeof *block) == 0) pos = i;
    for (int i = dir > 0 ? (pos >= 0 ? pos + 1 : 0) : (pos >= 0 ? pos - 1 : n - 1); i >= 0 && i < n; i += dir) {
        const long t = (long)list[i][0] * list[i][1] * list[i][2];
        if (pos < 0 && (dir > 0 ? t <= threads : t >= threads)) continue; /* a block off the list: past it */
        if (vs->d.contract->check_block && vs->d.contract->check_block(h, vs->d.grid, list[i]) != KS_OK) {
            ks_error_clear();
            continue;
        }
        memcpy(block, list[i], 3 * sizeof *block);
        clear_times(vs);
        return KS_OK;
    }
    return ks_fail(KS_ERR_UNSUPPORTED, "no %s block for %s", dir > 0 ? "larger" : "smaller", ks_variant_set_name(vs));
}

int ks_variant_set_busy(const ks_variant_set *vs) { return vs && ks_user_files_busy(vs->files); }
int ks_variant_set_ready(const ks_variant_set *vs) { return vs && ks_user_files_ready(vs->files); }

void ks_variant_set_choices(const ks_variant_set *vs, ks_vcontrol *c)
{
    /* Tab's order from the one that runs round to it again: ours, then the kernel files */
    const int all = vs->d.ours + vs->nfiles;
    for (int i = 0; i < all && c->nchoices < KS_VIEW_CHOICES; ++i)
        snprintf(c->choices[c->nchoices++], sizeof c->choices[0], "%s", name_at(vs, (vs->at + i) % all));
    snprintf(c->value, sizeof c->value, "%s", ks_variant_set_name(vs));
}

void ks_variant_set_view(const ks_variant_set *vs, ks_view *v)
{
    const int file = ks_variant_set_file(vs);
    ks_user_files_view(vs->files, file, v);
    if (vs->d.diff == KS_USER_DIFF_WHOLE)
        ks_user_diff_view(&vs->diff, vs->files, ks_user_diff_slot(vs->files, file), vs->d.diff_reference,
                          vs->d.diff_cells_name, vs->d.diff_how, vs->d.diff_colour_bar, v);
}

const struct ks_server_editor *ks_variant_set_editor(ks_variant_set *vs) { return vs ? ks_user_files_editor(vs->files) : NULL; }

int ks_variant_set_diff_key(ks_variant_set *vs, char *notice, size_t cap)
{
    return ks_user_diff_toggle(&vs->diff, vs->files, vs->d.use_cuda, notice, cap);
}

int ks_variant_set_diff_on(const ks_variant_set *vs) { return vs && vs->diff.on; }

const ks_user_files_diff *ks_variant_set_diff_shown(const ks_variant_set *vs)
{
    const int slot = ks_user_diff_slot(vs->files, ks_variant_set_file(vs));
    return ks_user_diff_shown(&vs->diff, slot) ? &vs->diff.d[slot] : NULL;
}

/* ks_user_diff_picture's draw: the scene's (desc.draw_diff). */
static void draw_diff(void *user, const ks_user_files_diff *d, float max, int w, int h, unsigned char *rgba)
{
    const ks_variant_set *vs = user;
    vs->d.draw_diff(vs->d.scene, d, max, w, h, rgba);
}

ks_status ks_variant_set_diff_picture(ks_variant_set *vs, int w, int h, int on_device, void *stream, void *rgba)
{
    if (!vs->d.draw_diff) return ks_fail(KS_ERR_INVALID, "no difference picture in this scene");
    const int slot = ks_user_diff_slot(vs->files, ks_variant_set_file(vs));
    return ks_user_diff_picture(&vs->diff, slot, w, h, draw_diff, vs, on_device, stream, rgba);
}

void ks_variant_set_slice_diff(ks_variant_set *vs, int axis, int index, ks_slice_diff *out)
{
    ks_user_files_slice_diff(vs->files, vs->diff.on, axis, index, out);
}
