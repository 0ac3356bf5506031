/* The reduce scene's own options, stored in ks_options through its option group. */
#ifndef KS_REDUCE_OPTIONS_H
#define KS_REDUCE_OPTIONS_H

#include "app/kernel/kernel_files.h"
#include "app/options.h"

typedef struct ks_reduce_opts {
    int size_n;                   /* --size N (elements; bench: a list); 0: the default */
    long long sizes[8];
    int integer;                  /* --values integer: small integers (the scan is exact) */
    ks_kernel_files kernel_files; /* --kernel-file FILE (repeatable): users' sum kernels (the contract in
                                     kernels/reduce/reduce_contract.h), each one more variant named after
                                     the file */
} ks_reduce_opts;

/* 1 when name is a --kernel-file's variant name (its base name). */
int ks_reduce_kernel_file_named(const ks_options *o, const char *name);
/* The i-th --kernel-file (0, 1, ...), NULL past the last (the row's kernel_file). */
const char *ks_reduce_kernel_file(const ks_options *o, int i);
/* Sizes, kernel names and files, blocks (the row's finish_options). */
ks_status ks_reduce_finish_options(ks_options *o);

struct ks_option_group;
extern const struct ks_option_group ks_reduce_options;
#define KS_REDUCE_OPTS(o) ((const ks_reduce_opts *)ks_options_own_const((o), &ks_reduce_options))

#endif
