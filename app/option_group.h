/* The types of a flag and of a scene's option group: what app/options.c
 * parses and what a scene's options.c defines (its rows and storage). Apart
 * from app/options.h, so that the scene registry (app/scenes.h) describes
 * its rows without depending on the parser. */
#ifndef KS_OPTION_GROUP_H
#define KS_OPTION_GROUP_H

#include <stddef.h>

#include "base/ks_error.h"

typedef struct ks_options ks_options; /* app/options.h */

/* Where a flag means something (ks_flag_row.in). */
enum {
    KS_IN_LIVE = 1 << 0,   /* the live view of the scene that owns the flag */
    KS_IN_BENCH = 1 << 1,  /* the bench of the scene that owns the flag */
    KS_IN_EVERY_LIVE = 1 << 2,  /* every scene's live view (common flags) */
    KS_IN_EVERY_BENCH = 1 << 3, /* every bench (common flags) */
};

/* One flag: its name, what it takes, its --help line and where it applies.
 * A row with set == NULL only describes, in a scene's words, a common flag
 * that the scene takes (its --kernel names, say): --help shows it, the parser
 * skips it.
 * A common flag (options.c) lives in ks_options; a scene's flag writes into
 * its option group's storage, `own` (ks_options_own). A flag also applies
 * wherever a scene row names it in takes_live / takes_bench (a bench that
 * runs other scenes' live loops borrows their flags so). */
typedef struct ks_flag_row {
    const char *name;   /* "--grid" */
    const char *arg;    /* "N | NXxNY[xNZ]" for --help; NULL: takes no value */
    const char *help;   /* --help text; '\n' starts a continuation line; may hold one %s for help_list */
    unsigned in;        /* KS_IN_* */
    ks_status (*set)(ks_options *o, void *own, const char *flag, const char *value);
    const char *gpu_only;                         /* non-NULL: chooses GPU work only; why it does nothing on the CPU */
    void (*help_list)(char *buf, size_t len);    /* fills the %s of help (variant names), or NULL */
    int repeatable;     /* 1: a list flag whose values add up when given again; else twice is an error */
} ks_flag_row;

/* A scene's options: its flags and the storage they write (zeroed at parse,
 * copied with ks_options). Two rows may share a group (laplace3d, laplace2d). */
typedef struct ks_option_group {
    const char *title;         /* --help section title, e.g. "Laplace scenes" */
    size_t size;               /* bytes of storage, at most KS_OPTION_GROUP_BYTES */
    const ks_flag_row *flags;
    int flag_count;
    const char *help_notes;    /* more --help lines after the flags (NULL: none) */
} ks_option_group;

#endif
