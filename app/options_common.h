/* The common flags: the rows every scene's command line shares (--backend,
 * --out, --kernel, ...), before each scene's own option group. Internal to
 * the parser (app/options.c) and --help (app/options_help.c). */
#ifndef KS_OPTIONS_COMMON_H
#define KS_OPTIONS_COMMON_H

#include "app/option_group.h"
#include "app/options.h"

extern const ks_flag_row ks_common_flags[];
extern const int ks_common_flag_count;

#endif
