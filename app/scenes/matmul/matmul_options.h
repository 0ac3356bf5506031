/* The matmul scene's own options, stored in ks_options through its option group. */
#ifndef KS_MATMUL_OPTIONS_H
#define KS_MATMUL_OPTIONS_H

#include "app/options.h"

typedef struct ks_matmul_opts {
    int size_n;                /* --size M or MxNxK (bench: a list) */
    int sizes[KS_MAX_LIST][3]; /* m, n, k */
    int tile_n;                /* --tile T (bench: a list) */
    int tiles[KS_MAX_LIST];
    int picture;               /* --picture: ks_matmul_picture (0: values) */
} ks_matmul_opts;

struct ks_option_group;
extern const struct ks_option_group ks_matmul_options;
#define KS_MATMUL_OPTS(o) ((const ks_matmul_opts *)ks_options_own_const((o), &ks_matmul_options))

#endif
