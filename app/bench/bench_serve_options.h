/* `bench serve`'s own options (--browser, --replot), stored in ks_options
 * through its option group (bench_serve_options.c). */
#ifndef KS_BENCH_SERVE_OPTIONS_H
#define KS_BENCH_SERVE_OPTIONS_H

#include "app/options.h"

struct ks_option_group;
extern const struct ks_option_group ks_bench_serve_group;

/* bench serve --replot CSV, or NULL. */
const char *ks_bench_serve_replot_path(const ks_options *o);
/* bench serve --browser PATH, or NULL. */
const char *ks_bench_serve_browser(const ks_options *o);

#endif
