/* The matmul scene's own options, stored in ks_options through its option group. */
#ifndef KS_MATMUL_OPTIONS_H
#define KS_MATMUL_OPTIONS_H

#include "app/kernel/kernel_files.h"
#include "app/options.h"

typedef struct ks_matmul_opts {
    int size_n;                /* --size M or MxNxK (bench: a list) */
    int sizes[KS_MAX_LIST][3]; /* m, n, k */
    int tile_n;                /* --tile T (bench: a list) */
    int tiles[KS_MAX_LIST];
    int picture;               /* --picture: ks_matmul_picture, when picture_set */
    int picture_set;           /* 0: the default, by finish time */
    ks_kernel_files kernel_files; /* --kernel-file FILE (repeatable): users' kernels (the contract in
                                     kernels/matmul/matmul_contract.h), each one more variant named after
                                     the file */
} ks_matmul_opts;

enum { KS_MATMUL_USER_BLOCK_X = 16, KS_MATMUL_USER_BLOCK_Y = 16 }; /* a user's kernel's block without --block */

/* The variant names --kernel takes: ours, then the kernel files' base names. */
int ks_matmul_kernel_known(const ks_options *o, const char *name);
/* The i-th --kernel-file (0, 1, ...), NULL past the last (the row's kernel_file). */
const char *ks_matmul_kernel_file(const ks_options *o, int i);
/* Sizes, tiles, blocks, kernel names and files (the row's finish_options). */
ks_status ks_matmul_finish_options(ks_options *o);

struct ks_option_group;
extern const struct ks_option_group ks_matmul_options;
#define KS_MATMUL_OPTS(o) ((const ks_matmul_opts *)ks_options_own_const((o), &ks_matmul_options))

#endif
