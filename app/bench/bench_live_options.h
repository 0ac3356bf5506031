/* `bench live`'s own options (--modes), stored in ks_options through its option group. */
#ifndef KS_BENCH_LIVE_OPTIONS_H
#define KS_BENCH_LIVE_OPTIONS_H

#include "app/options.h"

enum { KS_LIVE_MODE_HEADLESS = 1 << 0, KS_LIVE_MODE_WINDOW = 1 << 1 };
typedef struct ks_live_bench_opts {
    unsigned modes;    /* KS_LIVE_MODE_* bits; 0 = not given: headless, and window when a display exists */
    int modes_n;
    unsigned order[2]; /* the modes in the order given */
} ks_live_bench_opts;

struct ks_option_group;
extern const struct ks_option_group ks_bench_live_group;

/* 1 when a display (X or Wayland) is there for --modes window. */
int ks_bench_live_has_display(void);
/* The checks bench live and bench serve share: the frames (default 120) and every
 * --kernel name known to some scene that takes part. */
ks_status ks_runner_finish_options(ks_options *o, const char *bench);

#endif
