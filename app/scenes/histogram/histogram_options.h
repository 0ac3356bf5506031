/* The histogram scene's own options, stored in ks_options through its option group. */
#ifndef KS_HISTOGRAM_OPTIONS_H
#define KS_HISTOGRAM_OPTIONS_H

#include "app/options.h"

typedef struct ks_histogram_opts {
    const char *input;          /* --input FILE, NULL = generated text */
    int words;                  /* --words */
    int bins;                   /* --bins B (1..65536), 0 = not given; the first of bins_list */
    int bins_list[KS_MAX_LIST]; /* bench: --bins as a list */
    int bins_n;
    int size_n;                 /* --size in bytes (a list for bench); default 100 MiB */
    unsigned long long sizes[KS_MAX_LIST];
} ks_histogram_opts;

struct ks_option_group;
extern const struct ks_option_group ks_histogram_options;
#define KS_HIST_OPTS(o) ((const ks_histogram_opts *)ks_options_own_const((o), &ks_histogram_options))

#endif
