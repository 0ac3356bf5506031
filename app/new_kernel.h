/* kernelscope new-kernel SCENE [-o FILE]: writes a starter .cu for a user's
 * kernel (the scene's kernel contract as comments, then its starter kernel;
 * registry fields kernel_contract / kernel_starter). */
#ifndef KS_NEW_KERNEL_H
#define KS_NEW_KERNEL_H

#include <stddef.h>

#include "kernels/common/ks_error.h"

/* 1 when argv asks for new-kernel (its first word). */
int ks_new_kernel_asked(int argc, char **argv);
/* Parses argv (argv[1] == "new-kernel") and writes the file through a
 * temporary name, never over an existing file. KS_OK with the path written in
 * path; KS_ERR_INVALID (bad arguments, unknown scene, a scene without a
 * contract, an existing file) or KS_ERR_IO, with one line. help: set to 1 for
 * --help (nothing written). */
ks_status ks_new_kernel_run(int argc, char **argv, char *path, size_t path_len, int *help);
/* The file's text for scene row d (malloc'd; NULL without a contract or memory). */
struct ks_scene_def;
char *ks_new_kernel_text(const struct ks_scene_def *d, const char *file);

#endif
