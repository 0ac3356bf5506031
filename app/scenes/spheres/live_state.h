/* The spheres scene's state, shared by its frame code (live.c), its keys
 * (live_keys.c), its view (live_view.c) and its Hardware panel launch
 * (live_counters.c). Private to those files. */
#ifndef KS_SPHERES_LIVE_STATE_H
#define KS_SPHERES_LIVE_STATE_H

#include "app/kernel/variant_set.h"
#include "app/scene.h"
#include "app/scenes.h"
#include "app/scenes/spheres/options.h"
#include "base/timing_window.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_user.h"

enum {
    KS_SPH_TABLE_ROWS = 8,    /* sphere counts remembered */
    KS_SPH_CPU_LIVE_MAX = 4096, /* + stops here on the CPU backend (seconds a frame beyond) */
    KS_SPH_OURS = KS_SPHERES_MEM_NUM - 1, /* global .. binned */
    KS_SPH_COLS = KS_SPHERES_MEM_NUM + KS_USER_FILES_MAX, /* ks_spheres_mem, then a column a kernel file */
    KS_SPH_BLOCKS_MAX = 32,
};

typedef struct ks_spheres_count_row {
    int count;                                  /* 0: unused */
    long long used;                             /* last frame it was touched, for reuse */
    ks_timing_window render[KS_SPH_COLS];   /* [0] is the CPU gold; KS_SPHERES_MEM_NUM + i: kernel file i */
    ks_timing_window upload[KS_SPH_COLS];
} ks_spheres_count_row;

typedef struct ks_spheres_scene {
    const ks_options *opt;
    int use_cuda;
    int w, h;                   /* picture, pixels */
    const char *scene_file;     /* NULL: generated from seed */
    unsigned long long seed;
    int count;
    ks_sphere *base;            /* as generated or loaded */
    ks_sphere *now;             /* after t frames of drift */
    float *vel;                 /* 3 per sphere, pixels per frame */
    ks_sphere_packed *packed;   /* what the renderers read */
    int animate;
    double t;                   /* frames of drift */
    ks_spheres_mem mem;
    int block[2];
    ks_spheres_gpu *gpu;        /* NULL on the CPU backend */
    long long data_gen;         /* bumps when packed changes */
    long long global_gen, const_gen; /* data_gen last uploaded to each place, -1 none */
    ks_kernel_attrs attrs;
    int attrs_valid;
    char notice[256];           /* last refusal or hint, shown until the next key */
    ks_spheres_count_row rows[KS_SPH_TABLE_ROWS];
    double t_peak_gbs, fma_gflops; /* roofline ceilings, measured at start-up */
    long long frame;
    int probe_valid, probe_a, probe_b;
    ks_variant_set *set;        /* ours (M order), then the --kernel-file kernels */
    const char *our_names[KS_SPH_OURS];
    int blocks[KS_SPH_BLOCKS_MAX][3]; /* the [ ] list as 3-part blocks, for a file's next block */
    int nblocks;
    ks_kernel_attrs user_attrs;  /* of the file that runs, at its block */
    int user_attrs_valid;
} ks_spheres_scene;

/* The kernel file that runs (its slot), -1: one of ours. */
static inline int file_active(const ks_spheres_scene *s) { return s->gpu ? ks_variant_set_file(s->set) : -1; }

/* Where the spheres go for what runs: a kernel file reads the global array (and its own
 * __constant__ copy of it, which the render fills). */
static inline ks_spheres_mem upload_mem(const ks_spheres_scene *s)
{
    return file_active(s) >= 0 ? KS_SPHERES_MEM_GLOBAL : s->mem;
}

/* The table's column of what runs. */
static inline int active_col(const ks_spheres_scene *s)
{
    if (!s->gpu) return 0;
    return file_active(s) >= 0 ? KS_SPHERES_MEM_NUM + file_active(s) : (int)s->mem;
}

/* live.c: the A/B table's row of a sphere count (made, or the least recently
 * used one reused); the renderer's tagged times into their rows. */
ks_spheres_count_row *ks_spheres_scene_row(ks_spheres_scene *s, int count);
void ks_spheres_scene_collect(ks_spheres_scene *s);
/* live.c: count spheres generated from the seed; the positions at s->t into
 * what the renderers read; that onto the device where what runs reads it,
 * when it changed (ctx NULL: untimed). */
ks_status ks_spheres_scene_generate(ks_spheres_scene *s, int count);
void ks_spheres_scene_refresh(ks_spheres_scene *s);
ks_status ks_spheres_scene_upload(ks_spheres_scene *s, ks_frame_ctx *ctx);

/* live_keys.c: the keys (ks_scene_api.key). */
ks_status ks_spheres_scene_key(void *self, const ks_key_event *ev, int *handled);
/* live_view.c: the scene's part of the view model (ks_scene_api.view). */
void ks_spheres_scene_view(void *self, ks_view *v);
/* live_counters.c: the Hardware panel's launch (ks_scene_api.counters). */
int ks_spheres_scene_counters(void *self, ks_scene_counters *out);

#endif
