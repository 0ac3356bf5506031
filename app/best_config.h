/* The best measured kernel configuration per device, scene, variant and grid,
 * written by `kernelscope bench laplace3d|laplace2d` and read by the live view
 * when the user chose no kernel or block. A small TSV file the user may delete:
 * $KS_BEST_CONFIG, else $XDG_CACHE_HOME/kernelscope/best-config.tsv, else
 * ~/.cache/kernelscope/best-config.tsv. A corrupt or stale file is ignored
 * with a notice, never fatal. */
#ifndef KS_BEST_CONFIG_H
#define KS_BEST_CONFIG_H

#include <stddef.h>

#include "base/ks_error.h"

enum { KS_BEST_MAX = 512 };

typedef struct ks_best_entry {
    char device[256];
    char scene[16];      /* laplace3d / laplace2d */
    char variant[32];
    int grid[3];
    int block[3];
    double ms_per_iter;
    double t_eff_gbs;
} ks_best_entry;

/* 1 when the scene has a kernel of that name (the scene registry answers it:
 * ks_scene_knows_kernel in app/scenes.h). */
typedef int (*ks_best_known_fn)(const char *scene, const char *variant);

typedef struct ks_best_store {
    int count;
    ks_best_entry entries[KS_BEST_MAX];
    /* Set before ks_best_load: an entry it refuses is stale (a kernel this build no
     * longer has) and is dropped with a notice. NULL: every well-formed entry is kept. */
    ks_best_known_fn known;
} ks_best_store;

/* Writes the store's path into buf; KS_ERR_IO when no location can be found. */
ks_status ks_best_path(char *buf, size_t len);
/* Loads path into store. A missing file gives an empty store. A file that is
 * corrupt or from another format version gives an empty store and a one-line
 * notice (notice[0] == 0 otherwise); entries naming unknown variants are
 * dropped with a notice. Never fails for the file's content. */
void ks_best_load(const char *path, ks_best_store *store, char *notice, size_t notice_len);
/* Entry for device and scene at the grid nearest in point count (exact grid
 * preferred); variant NULL picks the fastest variant there. NULL when none. */
const ks_best_entry *ks_best_find(const ks_best_store *store, const char *device,
                                  const char *scene, const char *variant, const int grid[3]);
/* Inserts or replaces the entry for (device, scene, variant, grid). */
void ks_best_put(ks_best_store *store, const ks_best_entry *entry);
/* Writes atomically, creating the parent directory when missing. */
ks_status ks_best_save(const char *path, const ks_best_store *store);

#endif
