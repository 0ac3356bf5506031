#include "app/kernel/user_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_device.h"
#include "base/ks_util.h"

void ks_user_diff_poll(ks_user_diff *ud, ks_user_files *files)
{
    const int n = ks_user_files_count(files);
    for (int i = 0; i < n && i < KS_USER_FILES_MAX; ++i) {
        ks_user_files_diff d;
        if (!ks_user_files_take_diff(files, i, &d)) continue;
        free(ud->d[i].values);
        ud->d[i] = d;
        ud->have[i] = 1;
        memset(&ud->stats[i], 0, sizeof ud->stats[i]);
        if (d.values) ks_diff_summarize(d.values, (size_t)d.w * (size_t)d.h, &ud->stats[i]);
        ++ud->serial[i];
    }
}

int ks_user_diff_slot(const ks_user_files *files, int active)
{
    return ks_user_files_count(files) > 0 ? (active >= 0 ? active : 0) : -1;
}

int ks_user_diff_shown(const ks_user_diff *ud, int slot)
{
    return ud->on && slot >= 0 && slot < KS_USER_FILES_MAX && ud->have[slot] && ud->d[slot].values;
}

float ks_user_diff_range(const ks_user_diff *ud, int slot)
{
    const float m = slot >= 0 && slot < KS_USER_FILES_MAX ? ud->stats[slot].max : 0.0f;
    return m > 0.0f ? m : 1.0f;
}

int ks_user_diff_toggle(ks_user_diff *ud, const ks_user_files *files, int use_cuda, char *notice, size_t cap)
{
    ud->drawn_slot = -1; /* a picture kept from before may have been drawn over by the scene's own */
    if (ks_user_files_count(files) > 0) {
        ud->on = !ud->on;
        return 1;
    }
    ud->on = 0;
    snprintf(notice, cap, "D: no difference view: %s",
             use_cuda ? "no --kernel-file kernel to compare with ours"
                      : "the CPU backend runs no user kernels (--kernel-file needs a CUDA device)");
    return 0;
}

void ks_user_diff_view(const ks_user_diff *ud, const ks_user_files *files, int slot, const char *ours,
                       const char *cells, const char *how, int colour_bar, ks_view *v)
{
    if (slot < 0) return;
    ks_view_toggle(v, "difference", 'D', ud->on ? "on" : "off", ud->on ? "off" : "on");
    if (!ud->on) return;
    const char *name = ks_user_files_name(files, slot);
    const ks_user_files_diff *d = &ud->d[slot];
    const ks_diff_stats *st = &ud->stats[slot];
    char line[KS_VIEW_TEXT];
    size_t used = 0; /* a long reason is cut to the line */
    if (!ud->have[slot])
        ks_text_append(line, sizeof line, &used, "no check of %s has answered since the view was made; save it to "
                                                 "check it again", name);
    else if (!d->values)
        ks_text_append(line, sizeof line, &used, "no difference picture of %s: %s", name, d->why);
    else if (st->nonzero == 0 && d->passed)
        ks_text_append(line, sizeof line, &used, "%s equals %s in all %lld %s", name, ours, (long long)d->w * d->h,
                       cells);
    else if (st->nonzero == 0) /* wrong elsewhere: on the check's own inputs */
        ks_text_append(line, sizeof line, &used, "%s was refused, yet equals %s in all %lld %s of the live run: its "
                       "check's line says where it is wrong", name, ours, (long long)d->w * d->h, cells);
    else {
        char max[48] = ""; /* the largest finite difference; none when every one is a cell left unwritten */
        if (st->max > 0.0f) snprintf(max, sizeof max, ", max %.2e", (double)st->max);
        ks_text_append(line, sizeof line, &used, "%s%s against %s: %lld of %lld %s differ%s%s%s; %s", name,
                       d->passed ? "" : " (refused)", ours, st->nonzero, (long long)d->w * d->h, cells,
                       st->unwritten ? " (inf: left unwritten)" : "", max,
                       d->passed ? " (within the check's tolerance)" : "", how);
    }
    ks_view_text(v, KS_VGROUP_SCENE, "difference view", "%s", line);
    if (!ks_user_diff_shown(ud, slot)) {
        if (!v->message[0]) { /* the learner must know why the picture is not the difference */
            size_t n = 0;
            ks_text_append(v->message, sizeof v->message, &n, "D: %s", line);
            v->message_kind = KS_VMSG_NOTICE;
        }
        return;
    }
    if (!colour_bar) return;
    v->colorbar.on = 1;
    v->colorbar.cmap = KS_DIFF_CMAP;
    v->colorbar.lo = 0.0;
    v->colorbar.hi = ks_user_diff_range(ud, slot);
    v->colorbar.hist_n = 0;
    if (st->nonzero == 0)
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "|yours - %s| = 0 (grey)", ours);
    else if (st->max > 0.0f)
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "|yours - %s|, max %.1e (grey: 0)", ours, st->max);
    else
        snprintf(v->colorbar.label, sizeof v->colorbar.label, "|yours - %s|: inf, left unwritten (grey: 0)", ours);
}

ks_status ks_user_diff_picture(ks_user_diff *ud, int slot, int w, int h, ks_user_diff_draw_fn draw, void *user,
                               int on_device, void *stream, void *rgba)
{
    const size_t bytes = (size_t)w * (size_t)h * 4;
    if (bytes > ud->rgba_cap) {
        unsigned char *p = realloc(ud->rgba, bytes);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the difference picture");
        ud->rgba = p;
        ud->rgba_cap = bytes;
        ud->drawn_slot = -1;
    }
    if (ud->drawn_slot != slot || ud->drawn_serial != ud->serial[slot]) {
        draw(user, &ud->d[slot], ks_user_diff_range(ud, slot), w, h, ud->rgba);
        ud->drawn_slot = slot;
        ud->drawn_serial = ud->serial[slot];
    }
    if (on_device) return ks_cuda_upload(rgba, ud->rgba, bytes, stream);
    memcpy(rgba, ud->rgba, bytes);
    return KS_OK;
}

void ks_user_diff_free(ks_user_diff *ud)
{
    for (int i = 0; i < KS_USER_FILES_MAX; ++i) free(ud->d[i].values);
    free(ud->rgba);
    memset(ud, 0, sizeof *ud);
}
