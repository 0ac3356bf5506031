/* The spheres scene's keys (ks_scene_api.key): M the variant (ours, then the
 * --kernel-file kernels), + - the sphere count, [ ] the block, V animate,
 * R reset, D the difference view of a kernel file. */
#include <stdio.h>

#include "app/scenes/spheres/live_state.h"

static ks_status set_count(ks_spheres_scene *s, int count)
{
    if (s->scene_file)
        return ks_fail(KS_ERR_UNSUPPORTED, "the scene file %s fixes the spheres (%d); + and - work on generated scenes",
                       s->scene_file, s->count);
    const int max = s->use_cuda ? KS_SPHERES_MAX : KS_SPH_CPU_LIVE_MAX;
    if (count > max) return ks_fail(KS_ERR_UNSUPPORTED, "%d spheres is the most here", max);
    if (count < KS_SPHERES_LIVE_MIN) return ks_fail(KS_ERR_UNSUPPORTED, "%d spheres is the fewest here", KS_SPHERES_LIVE_MIN);
    if (s->use_cuda && file_active(s) >= 0) {
        const int *rb = ks_variant_set_run_block(s->set);
        const int block[2] = {rb[0], rb[1]};
        KS_TRY(ks_spheres_user_check(ks_variant_set_code(s->set), count, block));
    } else if (s->use_cuda) {
        KS_TRY(ks_spheres_mem_check(s->mem, count));
    }
    return ks_spheres_scene_generate(s, count);
}

/* M passes over our constant variant where it cannot hold the count. */
static int skip_ours(void *user, int ours)
{
    const ks_spheres_scene *s = user;
    const ks_spheres_mem m = (ks_spheres_mem)(KS_SPHERES_MEM_GLOBAL + ours);
    if (ks_spheres_mem_check(m, s->count) == KS_OK) return 0;
    ks_error_clear();
    return 1;
}

ks_status ks_spheres_scene_key(void *self, const ks_key_event *ev, int *handled)
{
    ks_spheres_scene *s = self;
    *handled = 1;
    s->notice[0] = '\0';
    switch (ev->key) {
    case 'M': {
        if (!s->use_cuda) return ks_fail(KS_ERR_UNSUPPORTED, "cpu backend: the CPU gold has no memory variants");
        /* ours in order, then the kernel files, then round again; what cannot hold the count is passed over */
        const int all = ks_variant_set_count(s->set);
        for (int tries = 0; tries < all; ++tries) {
            int skipped = 0;
            ks_variant_set_select(s->set, ks_variant_set_next(s->set, 1, skip_ours, s, &skipped));
            if (skipped)
                snprintf(s->notice, sizeof s->notice, "constant skipped: memory holds at most %d spheres, not %d",
                         KS_SPHERES_CONST_MAX, s->count);
            const int file = ks_variant_set_file(s->set);
            if (file < 0) break;
            if (s->count <= ks_spheres_user_capacity(ks_variant_set_code(s->set))) break;
            snprintf(s->notice, sizeof s->notice, "%s skipped: its " "kernelscope_spheres holds %d spheres, not %d",
                     ks_variant_set_name(s->set), ks_spheres_user_capacity(ks_variant_set_code(s->set)), s->count);
        }
        if (ks_variant_set_ours(s->set) >= 0) s->mem = (ks_spheres_mem)(KS_SPHERES_MEM_GLOBAL + ks_variant_set_ours(s->set));
        s->attrs_valid = 0;
        s->user_attrs_valid = 0;
        return KS_OK;
    }
    case 'D':
        (void)ks_variant_set_diff_key(s->set, s->notice, sizeof s->notice);
        return KS_OK;
    case KS_KEY_PLUS: return set_count(s, s->count * 2);
    case KS_KEY_MINUS: return set_count(s, s->count / 2);
    case KS_KEY_LEFT_BRACKET:
    case KS_KEY_RIGHT_BRACKET: {
        if (file_active(s) >= 0) { /* the next block the compiled kernel takes; it runs there once checked */
            int block[3] = {s->block[0], s->block[1], 1};
            KS_TRY(ks_variant_set_next_block(s->set, (const int (*)[3])s->blocks, s->nblocks,
                                             ev->key == KS_KEY_RIGHT_BRACKET ? 1 : -1, block));
            s->block[0] = block[0];
            s->block[1] = block[1];
            s->user_attrs_valid = 0;
            return KS_OK;
        }
        const int (*list)[2];
        const int n = ks_spheres_block_presets(&list);
        int at = -1;
        for (int k = 0; k < n && at < 0; ++k)
            if (list[k][0] == s->block[0] && list[k][1] == s->block[1]) at = k;
        for (int k = 0; k < n && at < 0; ++k) /* a --block off the list: from the nearest not larger */
            if (list[k][0] * list[k][1] > s->block[0] * s->block[1]) at = k > 0 ? k - 1 : 0;
        if (at < 0) at = n - 1;
        if (ev->key == KS_KEY_RIGHT_BRACKET) at = at + 1 < n ? at + 1 : n - 1;
        else at = at > 0 ? at - 1 : 0;
        s->block[0] = list[at][0];
        s->block[1] = list[at][1];
        s->attrs_valid = 0;
        return KS_OK;
    }
    case 'V': s->animate = !s->animate; return KS_OK;
    case 'R':
        s->t = 0.0;
        ks_spheres_scene_refresh(s);
        return KS_OK;
    default: *handled = 0; return KS_OK;
    }
}
