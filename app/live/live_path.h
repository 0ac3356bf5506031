/* The display path: how the scene's picture reaches GL (docs/live-view.md, "Display
 * path"). One of three, chosen at creation:
 *   pbo   CUDA writes the renderer's ring buffers through interop;
 *   copy  CUDA writes a device ring, copied to pinned host memory, uploaded;
 *   cpu   the CPU backend draws into host memory, uploaded.
 * The ring protocol: a frame draws into slot frame % KS_RENDERER_RING
 * (ks_live_path_draw) and GL shows a finished slot (ks_live_path_show). */
#ifndef KS_LIVE_PATH_H
#define KS_LIVE_PATH_H

#include <stddef.h>

#include "display/interop.h"
#include "base/stage_timer.h"
#include "render/renderer.h"
#include "app/scene.h"

typedef struct ks_live_path ks_live_path;

typedef struct ks_live_path_desc {
    int use_cuda;             /* 0: the CPU backend (host picture) */
    ks_interop_mode want;     /* --interop: KS_INTEROP_AUTO (default), _PBO or _COPY; CUDA only */
    size_t bytes;             /* largest picture in bytes (RGBA8); required */
    ks_renderer *renderer;    /* its ring; required */
    ks_stage_timer *timer;    /* map / unmap stages are named here; required */
    const ks_scene_api *api;  /* draws into the slot; required */
    void *scene;
    char *notice;             /* gets the auto path's fallback notice ("" none), for the caller to print
                                 when set-up has gone well; NULL: printed on stderr at once */
    size_t notice_cap;
} ks_live_path_desc;

/* auto falls back to copy, with one notice line, where CUDA cannot register
 * the GL buffer; --interop pbo there is the user's error (KS_ERR_INVALID). */
ks_status ks_live_path_create(const ks_live_path_desc *desc, ks_live_path **out);
void ks_live_path_destroy(ks_live_path *p);
/* For the overlay: "pbo ring x2", "copy via pinned host x2", "cpu, host upload x2". */
const char *ks_live_path_name(const ks_live_path *p);
/* For reports: "pbo", "copy" or "cpu". */
const char *ks_live_path_kind(const ks_live_path *p);
/* 1 on the CUDA paths: a frame may show the previous frame's slot while its
 * own is drawn (app/live/live.c, compute_and_show). */
int ks_live_path_pipelined(const ks_live_path *p);
/* Maps the slot, lets the scene draw this frame's picture into it, unmaps it
 * (on every path, also when the draw failed). */
ks_status ks_live_path_draw(ks_live_path *p, ks_frame_ctx *ctx, int slot);
/* Hands a drawn slot to GL as the picture (the CPU backend uploaded it already). */
ks_status ks_live_path_show(ks_live_path *p, int slot);

#endif
