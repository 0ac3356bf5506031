/* The histogram scene's own options, stored in ks_options through its option group. */
#ifndef KS_HISTOGRAM_OPTIONS_H
#define KS_HISTOGRAM_OPTIONS_H

#include "app/kernel/kernel_files.h"
#include "app/options.h"

typedef struct ks_histogram_opts {
    const char *input;          /* --input FILE, NULL = generated text */
    int words;                  /* --words */
    int bins;                   /* --bins B (1..65536), 0 = not given; the first of bins_list */
    int bins_list[KS_MAX_LIST]; /* bench: --bins as a list */
    int bins_n;
    int size_n;                 /* --size in bytes (a list for bench); default 100 MiB */
    unsigned long long sizes[KS_MAX_LIST];
    ks_kernel_files kernel_files; /* --kernel-file FILE (repeatable): users' kernels (the contract in
                                     kernels/histogram/histogram_contract.h), each one more variant named
                                     after the file */
} ks_histogram_opts;

enum { KS_HIST_USER_BLOCK = 256 }; /* a user's kernel's block without --block */

/* 1 when name is a --kernel-file's variant name (its base name). */
int ks_hist_kernel_file_named(const ks_options *o, const char *name);
/* The i-th --kernel-file (0, 1, ...), NULL past the last (the row's kernel_file). */
const char *ks_hist_kernel_file(const ks_options *o, int i);
/* Sizes in bytes, bins, input, kernel names and files (the row's finish_options). */
ks_status ks_hist_finish_options(ks_options *o);

struct ks_option_group;
extern const struct ks_option_group ks_histogram_options;
#define KS_HIST_OPTS(o) ((const ks_histogram_opts *)ks_options_own_const((o), &ks_histogram_options))

#endif
