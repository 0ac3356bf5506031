/* The scene registry: every scene kernelscope knows describes itself in one
 * row (a ks_scene_def defined in its own folder, app/scenes/<scene>/), and the
 * list of rows is app/scenes/registry.h, one line each. main, the option
 * parser, --help, bench live, bench serve and the scene list read the rows;
 * no code outside a scene's folder names a scene (docs/architecture.md, "Add
 * a scene"). */
#ifndef KS_SCENES_H
#define KS_SCENES_H

#include <stddef.h>

#include "app/best_config.h"
#include "app/option_group.h"
#include "base/cuda_device.h"

typedef struct ks_scene_api ks_scene_api; /* app/scene.h */

/* What every bench gets. */
typedef struct ks_bench_env {
    const ks_options *opt;
    const ks_device_info *device; /* present == 0 on the CPU backend */
    int use_cuda;
    ks_best_store *best;          /* Laplace records its best blocks here */
    const char *best_path;        /* NULL: not saved */
} ks_bench_env;

struct ks_live_bench;
struct ks_kcheck_request;
struct ks_kcheck_result;
struct ks_serve_bench;

/* One of a scene's own variants written to its kernel contract (new-kernel --from). */
typedef struct ks_kernel_from {
    const char *variant;
    const char *text;
} ks_kernel_from;

typedef struct ks_scene_def {
    const char *name;     /* the command-line word, the saved files' prefix */
    int rank;             /* place in --help and the scene list, smallest first */
    const char *summary;  /* one line for --help */
    const ks_option_group *options;      /* its flags and their storage, or NULL */
    const char *takes_live, *takes_bench; /* the opt-in common flags and borrowed flags it takes,
                                             space-separated ("--kernel --block") */
    int size_is_picture;  /* --size is the picture's WxH (else the scene reads it itself) */
    /* The scene's own option checks and defaults, after the common ones; no device. */
    ks_status (*finish_options)(ks_options *o);
    /* Defaults that depend on the backend (NULL: none). */
    void (*backend_defaults)(ks_options *o, int use_cuda);
    /* Optional: refuses options the chosen backend and machine cannot run (e.g.
     * more GPUs than it has), after backend_defaults, before the run says anything. */
    ks_status (*backend_check)(const ks_options *o, int use_cuda, int device_count);
    /* Optional: a live run under mpirun. Rank 0 runs the live view; every other rank
     * runs this instead, doing its part of each frame until rank 0 ends. NULL: the
     * scene has no live view under mpirun. */
    ks_status (*mpi_follow)(const ks_options *o);
    const ks_scene_api *live;  /* NULL: a bench only (it runs other scenes' live loops) */
    ks_status (*bench)(const ks_bench_env *env);
    /* Optional start-up lines on this device (e.g. the code path a variant takes on it). */
    void (*report)(const ks_device_info *d, void (*line)(const char *text));
    /* Optional: the bytes the live solver's field holds, so that the copy that measures
     * T_peak at start-up is at least as large (0 or NULL: 256 MiB). */
    size_t (*field_bytes)(const ks_options *o);
    /* Optional: a notice for the cpu backend about this scene's options (one at most). */
    int (*cpu_notice)(const ks_options *o, char *buf, size_t len);
    /* A short run's arguments for scripts (a sanitizer pass, a screenshot), shown by
     * --list-scenes; NULL: none. */
    const char *sample_args;
    const char *solver_stage; /* the stage that is the scene's own work ("jacobi", "render") */
    /* A bench that runs other scenes' live loops (bench live, bench serve) asks each row
     * for its runs; NULL: the scene takes no part. */
    ks_status (*live_bench)(const struct ks_scene_def *d, struct ks_live_bench *b);
    /* Optional: checks of its flags that such a bench borrowed (--grid to bench live). */
    ks_status (*runner_finish)(ks_options *o);
    /* bench serve: adds the case for --kernel variant, or (variant NULL) its default cases, if any. */
    ks_status (*serve_case)(const struct ks_scene_def *d, struct ks_serve_bench *b, const char *variant);
    /* Optional: 1 when NAME is one of its --kernel names (bench live / serve check them). */
    int (*has_kernel)(const struct ks_scene_def *d, const char *name);
    void (*kernel_list)(const struct ks_scene_def *d, char *buf, size_t len); /* ", "-separated */
    const void *data;     /* the scene's own constant data (Laplace: its rank, 3 or 2) */
    /* A user's kernel (--kernel-file, new-kernel): the contract, lines of text each ending
     * in '\n' (its signature first), and a starter kernel that keeps it; NULL: none. */
    const char *kernel_contract;
    const char *kernel_starter;
    /* What new-kernel --from copies: {variant name, kernel text} rows ending with {NULL, NULL};
     * the starter is not among them. NULL: only the starter. */
    const struct ks_kernel_from *kernel_from;
    /* The i-th file its --kernel-file flag named (0, 1, ...), NULL past the last: main compiles
     * them at start-up where nothing can run them (no CUDA device), to report their errors. */
    const char *(*kernel_file)(const ks_options *o, int i);
    /* In the checker process (app/kernel/kernel_checker.h): checks a user's compiled kernel
     * against the CPU gold and the scene's reference variant. NULL: none. */
    ks_status (*kernel_check)(const struct ks_kcheck_request *req, struct ks_kcheck_result *out);
} ks_scene_def;

int ks_scene_def_count(void);
const ks_scene_def *ks_scene_def_at(int i);           /* 0..count-1, in rank order */
const ks_scene_def *ks_scene_def_default(void);       /* the scene run without a scene word */
const ks_scene_def *ks_scene_def_find(const char *name); /* NULL when unknown */
/* "laplace3d, laplace2d, ..." (sep ", ") or "laplace3d|laplace2d|..." (sep "|");
 * views_only: the rows with a live view. */
void ks_scene_def_names(const char *sep, int views_only, char *buf, size_t len);
/* Option groups: every distinct group of the rows, in rank order of first use. */
int ks_option_group_count(void);
const ks_option_group *ks_option_group_at(int i);
int ks_option_group_index(const ks_option_group *g); /* -1 when not registered */
/* 1 when scene is a registered scene with a kernel called variant (its has_kernel). */
int ks_scene_knows_kernel(const char *scene, const char *variant);
/* 1 when the space-separated list names flag. */
int ks_flag_named(const char *list, const char *flag);

#endif
