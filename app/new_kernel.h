/* kernelscope new-kernel SCENE [--from VARIANT] [-o FILE]: writes a starter
 * .cu for a user's kernel (the scene's kernel contract as comments, then its
 * starter kernel, or with --from one of kernelscope's own variants written to
 * the contract; registry fields kernel_contract, kernel_starter, kernel_from). */
#ifndef KS_NEW_KERNEL_H
#define KS_NEW_KERNEL_H

#include <stddef.h>

#include "base/ks_error.h"

/* 1 when argv asks for new-kernel (its first word). */
int ks_new_kernel_asked(int argc, char **argv);
/* Parses argv (argv[1] == "new-kernel") and writes the file through a
 * temporary name, never over an existing file. KS_OK with the path written in
 * path; KS_ERR_INVALID (bad arguments, unknown scene, a scene without a
 * contract, an existing file) or KS_ERR_IO, with one line. help: set to 1 for
 * --help (nothing written). */
ks_status ks_new_kernel_run(int argc, char **argv, char *path, size_t path_len, int *help);
struct ks_scene_def;
/* The kernel --from variant copies (NULL: the starter); NULL when d has no such row. */
const char *ks_new_kernel_from(const struct ks_scene_def *d, const char *variant);
/* The file's text for scene row d, from variant as ks_new_kernel_from (malloc'd;
 * NULL without a contract, without that variant or without memory). */
char *ks_new_kernel_text(const struct ks_scene_def *d, const char *from, const char *file);

#endif
