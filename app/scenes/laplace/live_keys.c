/* The Laplace scene's keys (ks_scene_api.key): the kernel variant (Tab, in the
 * variant set's order) and the thread block, the slice axis and index, the
 * iterations per frame, the colours, D. */
#include <stdio.h>
#include <string.h>

#include "app/scenes/laplace/live_state.h"
#include "base/ks_util.h"
#include "kernels/laplace/laplace_multi.h"

/* Candidate blocks for [ and ]: by rank, in increasing thread count. */
static const int ks_blocks_rank2[][3] = {{8, 8, 1},   {16, 8, 1},  {32, 4, 1},  {16, 16, 1},
                                         {32, 8, 1},  {64, 4, 1},  {128, 2, 1}, {32, 16, 1},
                                         {64, 8, 1},  {128, 4, 1}, {256, 2, 1}, {32, 32, 1},
                                         {64, 16, 1}, {128, 8, 1}, {256, 4, 1}};
static const int ks_blocks_rank3[][3] = {{8, 8, 2},  {8, 8, 4},  {16, 4, 4}, {32, 4, 2},
                                         {16, 8, 4}, {32, 4, 4}, {32, 8, 2}, {8, 8, 8},
                                         {32, 8, 4}, {64, 4, 4}, {32, 4, 8}, {32, 16, 2}};




static ks_status cycle_block(ks_laplace_scene *s, int dir)
{
    const ks_lvariant_info *info = ks_lvariant_get(s->variant);
    const int(*list)[3] = info->block_rank == 3 ? ks_blocks_rank3 : ks_blocks_rank2;
    const int n = info->block_rank == 3 ? (int)(sizeof ks_blocks_rank3 / sizeof ks_blocks_rank3[0])
                                        : (int)(sizeof ks_blocks_rank2 / sizeof ks_blocks_rank2[0]);
    /* Position of the current block, or where it would sort by thread count. */
    int pos = -1;
    const long threads = (long)s->block[0] * s->block[1] * s->block[2];
    for (int i = 0; i < n; ++i)
        if (memcmp(list[i], s->block, sizeof s->block) == 0) pos = i;
    if (pos < 0) {
        pos = dir > 0 ? -1 : n;
        for (int i = 0; i < n; ++i)
            if ((long)list[i][0] * list[i][1] * list[i][2] <= threads) pos = dir > 0 ? i : i + 1;
    }
    const int next = pos + dir;
    if (next < 0 || next >= n)
        return ks_fail(KS_ERR_UNSUPPORTED, "no %s block in that direction",
                       dir > 0 ? "larger" : "smaller");
    ks_status st = ks_laplace_scene_check_block(s, s->variant, list[next]);
    if (st != KS_OK) return st; /* the device refuses it: keep the old block */
    memcpy(s->block, list[next], sizeof s->block);
    snprintf(s->block_from, sizeof s->block_from, "chosen with [ ]");
    ks_laplace_scene_refresh_attrs(s);
    ks_iters_auto_restart(&s->iters_auto); /* another cost per iteration */
    return KS_OK;
}

static ks_status next_kernel(ks_laplace_scene *s)
{
    const int k = ks_variant_set_next(s->set, 1, NULL, NULL, NULL); /* a user's kernel that never passed: passed over */
    const int next = ks_laplace_scene_variant_at(s, k);
    int block[3];
    memcpy(block, s->block, sizeof block);
    char from[sizeof s->block_from];
    memcpy(from, s->block_from, sizeof from);
    if (ks_laplace_scene_check_block(s, next, block) != KS_OK) ks_laplace_scene_default_block(s, next, block);
    else snprintf(s->block_from, sizeof s->block_from, "kept from the previous kernel");
    const ks_status st = ks_laplace_scene_check_block(s, next, block);
    if (st != KS_OK) {
        memcpy(s->block_from, from, sizeof from); /* nothing changes */
        return st;
    }
    ks_variant_set_select(s->set, k);
    s->variant = next;
    memcpy(s->block, block, sizeof block);
    ks_laplace_scene_refresh_attrs(s);
    ks_iters_auto_restart(&s->iters_auto);
    return KS_OK;
}

static void set_axis(ks_laplace_scene *s, ks_axis axis)
{
    if (s->grid.dims != 3) return;
    s->axis = axis;
    s->index = ks_slice_max_index(&s->grid, axis) / 2;
    s->have_minmax = 0;
}

static void move_index(ks_laplace_scene *s, int delta)
{
    const int max = ks_slice_max_index(&s->grid, s->axis);
    int idx = s->index + delta;
    s->index = idx < 0 ? 0 : idx > max ? max : idx;
}

/* D: the difference view on / off; without a user kernel a notice says why
 * there is none (the CPU backend runs none). */
static void toggle_diff(ks_laplace_scene *s)
{
    if (!ks_variant_set_diff_key(s->set, s->notice, sizeof s->notice)) s->notice_until = ks_now_seconds() + 4.0;
}

ks_status ks_laplace_scene_key(void *self, const ks_key_event *ev, int *handled)
{
    ks_laplace_scene *s = self;
    *handled = 1;
    s->keyed = 1;
    const int page = ks_slice_max_index(&s->grid, s->axis) / 10 + 1;
    switch (ev->key) {
    case KS_KEY_TAB: return next_kernel(s);
    case KS_KEY_LEFT_BRACKET: return cycle_block(s, -1);
    case KS_KEY_RIGHT_BRACKET: return cycle_block(s, +1);
    /* from what runs (tblock: whole time blocks, so the result rounds to
     * whole blocks again) */
    case KS_KEY_PLUS: {
        s->iters_auto.on = 0; /* a count asked for: fixed from now on (I: automatic again) */
        const int now = scene_frame_iters(s);
        s->iters = now >= 500000 ? 1000000 : now * 2;
        return KS_OK;
    }
    case KS_KEY_MINUS: {
        s->iters_auto.on = 0;
        const int now = scene_frame_iters(s);
        s->iters = now > 1 ? now / 2 : 1;
        return KS_OK;
    }
    case 'I':
        ks_iters_auto_init(&s->iters_auto, 1, s->iters_auto.fps_target); /* the same target */
        return KS_OK;
    case 'X': set_axis(s, KS_AXIS_X); return KS_OK;
    case 'Y': set_axis(s, KS_AXIS_Y); return KS_OK;
    case 'Z': set_axis(s, KS_AXIS_Z); return KS_OK;
    case KS_KEY_UP:
    case KS_KEY_RIGHT: move_index(s, 1); return KS_OK;
    case KS_KEY_DOWN:
    case KS_KEY_LEFT: move_index(s, -1); return KS_OK;
    case KS_KEY_PAGE_UP: move_index(s, page); return KS_OK;
    case KS_KEY_PAGE_DOWN: move_index(s, -page); return KS_OK;
    case 'C': s->cmap = ks_colormap_next(s->cmap); return KS_OK;
    case 'A':
        s->auto_range = !s->auto_range;
        if (s->auto_range && s->have_minmax) ks_laplace_scene_apply_minmax(s, s->slice_min, s->slice_max);
        return KS_OK;
    case 'R': return ks_laplace_scene_upload_initial(s);
    case 'D': toggle_diff(s); return KS_OK;
    default: *handled = 0; return KS_OK;
    }
}
