/* The common flags: the rows every scene's command line shares (--backend,
 * --out, --kernel, ...), before each scene's own option group. Internal to
 * the parser (app/options.c) and --help (app/options_help.c). */
#ifndef KS_OPTIONS_COMMON_H
#define KS_OPTIONS_COMMON_H

#include "app/option_group.h"
#include "app/options.h"

extern const ks_flag_row ks_common_flags[];
extern const int ks_common_flag_count;

/* Every flag gets a number: the common ones first, then each option group's in
 * registry order. */
typedef struct ks_flag_ref {
    const ks_flag_row *row;
    const ks_option_group *group; /* NULL: a common flag */
} ks_flag_ref;
int ks_flags_count(void);
ks_flag_ref ks_flags_at(int k);
struct ks_scene_def;
/* 1 when flag f means something in this mode of scene d. */
int ks_flag_applies(const ks_flag_ref *f, const struct ks_scene_def *d, ks_mode mode);
/* 1 when a flag of f's name means something in this mode of scene d (rows of
 * several groups may share the name). */
int ks_flag_applies_by_name(const ks_flag_ref *f, const struct ks_scene_def *d, ks_mode mode);

#endif
