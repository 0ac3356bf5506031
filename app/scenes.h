/* The scene registry: every scene kernelscope knows, one row each (its
 * command-line name, what --grid means for it, where the flags apply, its
 * option checks and defaults, its live view and its bench), looked up in one
 * place. Adding a scene is its folder under kernels/, its app files and one
 * row here (docs/architecture.md). */
#ifndef KS_SCENES_H
#define KS_SCENES_H

#include "app/best_config.h"
#include "app/options.h"
#include "app/scene.h"

/* What every bench gets. */
typedef struct ks_bench_env {
    const ks_options *opt;
    const ks_device_info *device; /* present == 0 on the CPU backend */
    int use_cuda;
    ks_best_store *best;          /* Laplace records its best blocks here */
    const char *best_path;        /* NULL: not saved */
} ks_bench_env;

typedef struct ks_scene_def {
    ks_scene_id id;
    const char *name;     /* the command-line word, the saved files' prefix */
    const char *summary;  /* one line for --help */
    int grid_dims;        /* Laplace: 3 or 2 (what --grid takes); 0 for the other scenes */
    int size_is_picture;  /* --size is the picture's WxH (else the scene reads it itself) */
    unsigned live_at, bench_at; /* its bits in the flag table's "applies" masks (options.h) */
    /* The scene's own option checks and defaults, after the common ones; no device. */
    ks_status (*finish_options)(ks_options *o);
    /* Defaults that depend on the backend (NULL: none). */
    void (*backend_defaults)(ks_options *o, int use_cuda);
    const ks_scene_api *live;
    ks_status (*bench)(const ks_bench_env *env);
} ks_scene_def;

int ks_scene_def_count(void);
const ks_scene_def *ks_scene_def_at(int i);           /* 0..count-1 */
const ks_scene_def *ks_scene_def_get(ks_scene_id id); /* KS_SCENE_DEFAULT: the default scene */
const ks_scene_def *ks_scene_def_find(const char *name); /* NULL when unknown */
/* "laplace3d, laplace2d, ..." (sep ", ") or "laplace3d|laplace2d|..." (sep "|"). */
void ks_scene_def_names(const char *sep, char *buf, size_t len);

#endif
