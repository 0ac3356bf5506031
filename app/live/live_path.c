#include "app/live/live_path.h"

#include <stdio.h>
#include <stdlib.h>

struct ks_live_path {
    ks_live_path_desc d;
    ks_interop_mode mode;      /* KS_INTEROP_PBO or _COPY on CUDA; KS_INTEROP_AUTO: the CPU backend */
    ks_interop *interop[KS_RENDERER_RING]; /* pbo: the renderer's ring buffers, registered */
    ks_copy_ring *copy;        /* copy: device + pinned host ring */
    void *host_picture;        /* CPU backend: the scene draws here, then it is uploaded */
    char name[48];
    int slot_w[KS_RENDERER_RING], slot_h[KS_RENDERER_RING]; /* picture size in each ring slot */
    int stage_map, stage_unmap;
};

/* pbo: registers every ring buffer with CUDA, or none. */
static ks_status register_ring(ks_live_path *p)
{
    for (int s = 0; s < KS_RENDERER_RING; ++s) {
        ks_status st = ks_interop_register(ks_renderer_pbo_slot(p->d.renderer, s), &p->interop[s]);
        if (st == KS_OK) continue;
        for (int k = 0; k < s; ++k) {
            ks_interop_unregister(p->interop[k]);
            p->interop[k] = NULL;
        }
        return st;
    }
    return KS_OK;
}

/* CPU: host memory uploaded; CUDA: --interop pbo, copy, or auto (pbo where
 * CUDA can register the GL buffer, copy otherwise). */
static ks_status open_path(ks_live_path *p)
{
    const ks_interop_mode want = p->d.want;
    if (!p->d.use_cuda) {
        p->host_picture = malloc(p->d.bytes);
        if (!p->host_picture) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the picture");
        p->mode = KS_INTEROP_AUTO;
        snprintf(p->name, sizeof p->name, "cpu, host upload x%d", KS_RENDERER_RING);
        return KS_OK;
    }
    if (want != KS_INTEROP_COPY) {
        ks_status st = register_ring(p);
        if (st == KS_OK) {
            p->mode = KS_INTEROP_PBO;
            snprintf(p->name, sizeof p->name, "pbo ring x%d", KS_RENDERER_RING);
            return KS_OK;
        }
        if (st != KS_ERR_CUDA) return st;
        char why[320];
        snprintf(why, sizeof why, "%s", ks_error_message());
        if (want == KS_INTEROP_PBO) /* asked for what this GL context cannot do: bad input */
            return ks_fail(KS_ERR_INVALID,
                           "--interop pbo: CUDA cannot register the GL buffer (%s); the GL context is not on "
                           "the CUDA device: use --interop copy or auto", why);
        if (p->d.notice && p->d.notice_cap)
            snprintf(p->d.notice, p->d.notice_cap, "CUDA cannot register the GL buffer (%s): using the copy path", why);
        else
            fprintf(stderr, "kernelscope: CUDA cannot register the GL buffer (%s): using the copy path\n", why);
    }
    const ks_copy_ring_desc cd = {.slots = KS_RENDERER_RING, .bytes = p->d.bytes};
    KS_TRY(ks_copy_ring_create(&cd, &p->copy));
    p->mode = KS_INTEROP_COPY;
    snprintf(p->name, sizeof p->name, "copy via pinned host x%d", KS_RENDERER_RING);
    return KS_OK;
}

ks_status ks_live_path_create(const ks_live_path_desc *desc, ks_live_path **out)
{
    if (!out) return ks_fail(KS_ERR_INVALID, "display path: no output pointer");
    *out = NULL;
    if (!desc || !desc->renderer || !desc->timer || !desc->api || desc->bytes == 0)
        return ks_fail(KS_ERR_INVALID, "display path: desc needs a renderer, a timer, a scene and a size");
    ks_live_path *p = calloc(1, sizeof *p);
    if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    p->d = *desc;
    if (desc->notice && desc->notice_cap) desc->notice[0] = '\0';
    ks_status st = open_path(p);
    if (st != KS_OK) {
        ks_live_path_destroy(p);
        return st;
    }
    /* the same names on both CUDA paths (copy: taking the slot, and queueing its copy to the
     * host); the CPU backend has nothing to map, only the upload */
    p->stage_map = desc->use_cuda ? ks_stage_timer_stage(desc->timer, "interop map") : -1;
    p->stage_unmap = ks_stage_timer_stage(desc->timer, desc->use_cuda ? "interop unmap" : "host upload");
    *out = p;
    return KS_OK;
}

void ks_live_path_destroy(ks_live_path *p)
{
    if (!p) return;
    for (int s = 0; s < KS_RENDERER_RING; ++s) ks_interop_unregister(p->interop[s]);
    ks_copy_ring_destroy(p->copy);
    free(p->host_picture);
    free(p);
}

const char *ks_live_path_name(const ks_live_path *p) { return p->name; }

/* One place, so a new display path shows up in every report that asks. */
const char *ks_live_path_kind(const ks_live_path *p)
{
    if (!p->d.use_cuda) return "cpu";
    return p->mode == KS_INTEROP_COPY ? "copy" : "pbo";
}

int ks_live_path_pipelined(const ks_live_path *p) { return p->mode != KS_INTEROP_AUTO; }

/* The frame's picture buffer (ring slot). pbo: waits (host) for GL's fence on
 * the slot's last read, a ring's turn ago and long finished, then maps it, so
 * the stream waits only for GL work that the solver before it has overlapped.
 * copy: the slot's device buffer. CPU: the host picture. */
static ks_status map_picture(ks_live_path *p, int slot, void **rgba)
{
    size_t bytes = 0;
    if (p->mode != KS_INTEROP_PBO && p->mode != KS_INTEROP_COPY) {
        *rgba = p->host_picture;
        return KS_OK;
    }
    if (p->mode == KS_INTEROP_PBO) KS_TRY(ks_renderer_wait_slot(p->d.renderer, slot));
    KS_TRY(ks_stage_timer_begin(p->d.timer, p->stage_map));
    if (p->mode == KS_INTEROP_PBO)
        KS_TRY(ks_interop_map(p->interop[slot], p->d.api->stream(p->d.scene), rgba, &bytes));
    else
        KS_TRY(ks_copy_ring_acquire(p->copy, slot, p->d.api->stream(p->d.scene), rgba));
    return ks_stage_timer_end(p->d.timer, p->stage_map);
}

/* pbo: unmaps (GL reads the buffer only after the CUDA work before this).
 * copy: queues device -> pinned host and the slot's event (bytes 0: the draw
 * failed, nothing to copy). CPU: uploads the picture (w x h) through the ring. */
static ks_status unmap_picture(ks_live_path *p, int slot, int w, int h)
{
    KS_TRY(ks_stage_timer_begin(p->d.timer, p->stage_unmap));
    void *stream = p->d.api->stream(p->d.scene);
    if (p->mode == KS_INTEROP_PBO) KS_TRY(ks_interop_unmap(p->interop[slot], stream));
    else if (p->mode == KS_INTEROP_COPY) KS_TRY(ks_copy_ring_submit(p->copy, slot, (size_t)w * (size_t)h * 4, stream));
    else if (w > 0 && h > 0) KS_TRY(ks_renderer_upload(p->d.renderer, p->host_picture, w, h));
    return ks_stage_timer_end(p->d.timer, p->stage_unmap);
}

/* GL takes the picture only once CUDA has finished writing it: pbo by the
 * unmap's ordering, copy by the slot's event. */
ks_status ks_live_path_draw(ks_live_path *p, ks_frame_ctx *ctx, int slot)
{
    void *rgba = NULL;
    int w = 0, h = 0;
    KS_TRY(map_picture(p, slot, &rgba));
    ks_status st = p->d.api->draw(p->d.scene, ctx, rgba, &w, &h);
    if (st != KS_OK) w = h = 0;
    ks_status st_unmap = unmap_picture(p, slot, w, h);
    if (st != KS_OK) return st;
    if (st_unmap != KS_OK) return st_unmap;
    p->slot_w[slot] = w;
    p->slot_h[slot] = h;
    return KS_OK;
}

ks_status ks_live_path_show(ks_live_path *p, int slot)
{
    const int w = p->slot_w[slot], h = p->slot_h[slot];
    if (p->mode == KS_INTEROP_PBO) return ks_renderer_set_image_slot(p->d.renderer, slot, w, h);
    if (p->mode == KS_INTEROP_COPY) {
        const void *host = NULL;
        KS_TRY(ks_copy_ring_host(p->copy, slot, &host));
        return ks_renderer_upload(p->d.renderer, host, w, h);
    }
    return KS_OK;
}
