/* Command line of kernelscope: one zero-initialised struct, parsed from argv,
 * defaults filled in one place (ks_options_finish). */
#ifndef KS_OPTIONS_H
#define KS_OPTIONS_H

#include "base/bench_timing.h"
#include "base/colormap.h"
#include "display/interop.h"
#include "base/ks_error.h"
#include "render/image_io.h"

typedef enum ks_mode { KS_MODE_LIVE = 0, KS_MODE_BENCH } ks_mode;

struct ks_scene_def; /* app/scenes.h */

typedef enum ks_backend { KS_BACKEND_DEFAULT = 0 /* cuda if a device exists */, KS_BACKEND_CUDA, KS_BACKEND_CPU } ks_backend;

enum {
    KS_MAX_LIST = 16,
    KS_OPTION_GROUPS_MAX = 16,     /* scenes' option groups (app/option_group.h) */
    KS_OPTION_GROUP_BYTES = 1024,  /* storage of one group */
    KS_FLAGS_MAX = 128,            /* common flags plus every group's */
};

typedef struct ks_options {
    ks_mode mode;
    const struct ks_scene_def *scene; /* its registry row; never NULL after parsing */
    /* Kernel variants by name (live: the first; bench: all listed, none = all). */
    int kernel_count;
    const char *kernels[KS_MAX_LIST];
    /* Block sizes (live: the first; bench: all listed, none = the sweep). Unused components 1. */
    int block_count;
    int blocks[KS_MAX_LIST][3];
    ks_backend backend;
    ks_interop_mode interop; /* --interop: how CUDA pictures reach GL; default auto */
    int headless;         /* --headless given */
    int progress;         /* --progress: progress lines even when stderr is not a terminal */
    int window;           /* --window given: never fall back to headless */
    int frames;           /* frames to run; 0 = until closed (window); headless default 60 */
    const char *out_dir;  /* default "." */
    int out_set;          /* --out given (bench defaults to a results folder otherwise) */
    int save_every;       /* 0 = never */
    ks_image_format format;
    int width, height;    /* --size: window (Laplace) / picture (spheres); default 1280x800 / 1024x768 */
    int size_set;
    const char *size_text; /* --size as given: WxH, or the scene's own sizes (read once the scene is known) */
    ks_colormap colormap;
    int range_set;
    float range_lo, range_hi;
    int no_overlay;
    int serve;            /* --serve given */
    char serve_addr[64];  /* --serve ADDR (default 127.0.0.1) */
    int serve_port;       /* --serve PORT (0: a free one) */
    const char *token;    /* --token, or NULL (generated when the address is not loopback) */
    int edit;             /* --edit: the browser page edits the first --kernel-file */
    const char *dump_field; /* .npy path or NULL */
    const char *record;   /* --record FILE.mp4|.mkv: a video of what is shown, or NULL */
    int fps;              /* --fps: the video's frame rate (--record and the E key), default 60 */
    unsigned long long seed; /* --seed (spheres, histogram), default 1 */
    int seed_set;
    int reps;             /* bench: timed repetitions per configuration, default 20 (--reps not given: the
                             GPU rows time until the SE of the median is under 1 %, app/bench/bench_output.h) */
    ks_cache_policy cache; /* bench --cache: cold or warm; default auto (cold under 4x the L2) */
    /* Hardware counters (docs/counters.md): live, the Hardware panel and the timeline strip
     * (app/live/live_counters.h); bench, the counter columns (app/bench/bench_counters.h). */
    double counters_every; /* --counters-every SECONDS: measure the running kernel this often (0: on K only) */
    int timeline;          /* --timeline: the PM-sampling strip under the picture from the start */
    int timeline_us;       /* --timeline-interval US: its sampling interval, 20..100 (0: 50) */
    int counters;          /* bench --counters: each row's kernel measured once more, after its timing */
    int counters_ncu;      /* bench --counters-ncu: that launch made between cudaProfilerStart and Stop, for ncu */
    int help, version, list_scenes;
    int scene_given;      /* a scene word was given (--help then describes that scene alone) */
    unsigned char flags_given[KS_FLAGS_MAX]; /* 1: flag k was given (options.c numbers them) */
    /* Each option group's storage (the scene's own struct, zero meaning default),
     * reached through ks_options_own; plain bytes, so that a copy of the options
     * copies them too. */
    _Alignas(16) unsigned char own[KS_OPTION_GROUPS_MAX][KS_OPTION_GROUP_BYTES];
} ks_options;

/* Parses argv into *o (zeroed first) and fills defaults. On bad input returns
 * KS_ERR_INVALID with a one-line message. Does not touch the device. */
ks_status ks_options_parse(int argc, char **argv, ks_options *o);
/* Fills every zero field with its default and checks what depends on the
 * scene (grid components, kernel names). Called by ks_options_parse. */
ks_status ks_options_finish(ks_options *o);
/* Defaults that depend on the backend (grid size, iterations per frame), once
 * the backend is known. */
void ks_options_backend_defaults(ks_options *o, int use_cuda);
/* On the cpu backend: the next notice line, from *cursor (start at 0), for a flag that
 * only chooses GPU work (marked so in the flag rows), e.g. "--block has no effect on
 * the cpu backend (the CPU gold routine runs)"; 0 when there is none left. */
int ks_options_cpu_notice(const ks_options *o, int *cursor, char *buf, size_t len);
/* The storage of a scene's option group (app/option_group.h) inside o. */
struct ks_option_group;
void *ks_options_own(ks_options *o, const struct ks_option_group *g);
const void *ks_options_own_const(const ks_options *o, const struct ks_option_group *g);
/* 1 when the flag called name was given. */
int ks_options_given(const ks_options *o, const char *name);
/* Picture size --size WxH (16..16384 each) into o->width/height. */
ks_status ks_options_size_wh(ks_options *o);
/* --help: with a scene word, the common options in brief and that scene's (of
 * the live view, or of its bench) in full; without one, everything. */
void ks_options_print_help(const ks_options *o);
/* One line per scene for scripts: "NAME view|bench-only [SAMPLE ARGS...]". */
void ks_options_print_scenes(void);

#endif
