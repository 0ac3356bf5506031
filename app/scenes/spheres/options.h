/* The spheres scene's own options, stored in ks_options through its option
 * group (bench live and bench serve borrow --spheres). */
#ifndef KS_SPHERES_OPTIONS_H
#define KS_SPHERES_OPTIONS_H

#include "app/kernel/kernel_files.h"
#include "app/options.h"

typedef struct ks_spheres_opts {
    int count;                /* --spheres, default 256 */
    int counts[KS_MAX_LIST];  /* bench: --spheres list */
    int count_n;
    const char *file;         /* --scene FILE */
    const char *mem;          /* --mem variant name, NULL = default */
    ks_kernel_files kernel_files; /* --kernel-file FILE (repeatable): users' kernels (the contract in
                                     kernels/spheres/spheres_contract.h) */
} ks_spheres_opts;

/* The flags' checks and the picture's default (the row's finish_options; bench live and
 * bench serve run it on the options of their runs). */
ks_status ks_spheres_finish_options(ks_options *o);
/* The row's cpu_notice: a count that constant memory could not hold on a GPU. */
int ks_spheres_cpu_notice(const ks_options *o, char *buf, size_t len);

/* The i-th --kernel-file (0, 1, ...), NULL past the last (the row's kernel_file). */
const char *ks_spheres_kernel_file(const ks_options *o, int i);

struct ks_option_group;
extern const struct ks_option_group ks_spheres_options;
#define KS_SPHERES_OPTS(o) ((const ks_spheres_opts *)ks_options_own_const((o), &ks_spheres_options))

#endif
