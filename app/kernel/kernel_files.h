/* A scene's --kernel-file flag: the files it names (each one more variant,
 * named after the file's last path part), as its option group keeps them
 * (app/scenes/<scene>/options.c). Zeroed means none. */
#ifndef KS_KERNEL_FILES_H
#define KS_KERNEL_FILES_H

#include "base/ks_error.h"

enum { KS_KERNEL_FILES_MAX = 8 };

typedef struct ks_kernel_files {
    const char *paths[KS_KERNEL_FILES_MAX]; /* as given (the command line's text) */
    int count;
} ks_kernel_files;

/* One more file (flag: the flag's name for the refusals: empty, too many). */
ks_status ks_kernel_files_add(ks_kernel_files *f, const char *flag, const char *path);
/* Each file a variant name of its own: not a folder, not another file's name
 * and, where given, at most name_max - 1 bytes (0: no limit) and not one of
 * ours (is_ours(name) 1; NULL: not asked). KS_ERR_INVALID, naming --kernel-file. */
ks_status ks_kernel_files_check(const ks_kernel_files *f, int name_max, int (*is_ours)(const char *name));
/* 1 when name is a file's variant name (its base name). */
int ks_kernel_files_named(const ks_kernel_files *f, const char *name);
/* The i-th path (0, 1, ...), NULL past the last. */
const char *ks_kernel_files_at(const ks_kernel_files *f, int i);

#endif
