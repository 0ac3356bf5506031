/* Command line of kernelscope: one zero-initialised struct, parsed from argv,
 * defaults filled in one place (ks_options_finish). */
#ifndef KS_OPTIONS_H
#define KS_OPTIONS_H

#include "kernels/common/colormap.h"
#include "kernels/common/interop.h"
#include "kernels/common/ks_error.h"
#include "kernels/laplace/laplace.h"
#include "render/image_io.h"

typedef enum ks_mode { KS_MODE_LIVE = 0, KS_MODE_BENCH } ks_mode;

typedef enum ks_scene_id {
    KS_SCENE_DEFAULT = 0, /* laplace3d */
    KS_SCENE_LAPLACE3D,
    KS_SCENE_LAPLACE2D,
    KS_SCENE_SPHERES,
    KS_SCENE_MATMUL,
    KS_SCENE_HISTOGRAM,
    KS_SCENE_LIVE, /* `bench live`: the live loop of the other scenes, timed; no live view of its own */
    KS_SCENE_SERVE, /* `bench serve`: the live loop with the browser viewer's server; bench only */
    KS_SCENE_NUM
} ks_scene_id;

typedef enum ks_backend { KS_BACKEND_DEFAULT = 0 /* cuda if a device exists */, KS_BACKEND_CUDA, KS_BACKEND_CPU } ks_backend;

/* Where a flag applies (the flag table in options.c): a bit per (mode, scene);
 * each scene's registry row names its two bits. */
enum {
    KS_AT_LIVE_L3 = 1 << 0,
    KS_AT_LIVE_L2 = 1 << 1,
    KS_AT_LIVE_SPH = 1 << 2,
    KS_AT_BENCH_L3 = 1 << 3,
    KS_AT_BENCH_L2 = 1 << 4,
    KS_AT_BENCH_SPH = 1 << 5,
    KS_AT_LIVE_MM = 1 << 6,
    KS_AT_BENCH_MM = 1 << 7,
    KS_AT_LIVE_HIST = 1 << 8,
    KS_AT_BENCH_HIST = 1 << 9,
    KS_AT_BENCH_LIVE = 1 << 10,
    KS_AT_BENCH_SERVE = 1 << 11,
    KS_AT_LIVE = KS_AT_LIVE_L3 | KS_AT_LIVE_L2 | KS_AT_LIVE_SPH | KS_AT_LIVE_MM | KS_AT_LIVE_HIST,
    KS_AT_BENCH = KS_AT_BENCH_L3 | KS_AT_BENCH_L2 | KS_AT_BENCH_SPH | KS_AT_BENCH_MM | KS_AT_BENCH_HIST |
                  KS_AT_BENCH_LIVE | KS_AT_BENCH_SERVE,
    KS_AT_MATMUL = KS_AT_LIVE_MM | KS_AT_BENCH_MM,
    KS_AT_HISTOGRAM = KS_AT_LIVE_HIST | KS_AT_BENCH_HIST,
    KS_AT_LAPLACE_LIVE = KS_AT_LIVE_L3 | KS_AT_LIVE_L2,
    KS_AT_LAPLACE = KS_AT_LAPLACE_LIVE | KS_AT_BENCH_L3 | KS_AT_BENCH_L2,
    KS_AT_SPHERES = KS_AT_LIVE_SPH | KS_AT_BENCH_SPH,
    KS_AT_ALL = KS_AT_LIVE | KS_AT_BENCH,
};

enum { KS_MAX_LIST = 16 };

/* Each scene's own options, zero meaning "default"; its defaults are filled in
 * one place, the scene's finish function (options_scenes.c, called through the scene
 * registry, app/scenes.h). Lists are for bench; the live view takes one value. */
typedef struct ks_laplace_opts {
    int grid_count;
    int grids[KS_MAX_LIST][3];   /* nx, ny, nz (nz = 1 in 2D); resolved by the finish */
    int grid_parts[KS_MAX_LIST]; /* components given: 1 (N), 2 or 3 */
    ks_bc bc;                    /* default hot-top */
    int iters;                   /* Jacobi iterations per frame; default: automatic on the CUDA
                                    backend (starting at 20), 2 on the CPU backend; tblock runs
                                    the nearest multiple of its time block */
    int iters_set;               /* --iters given (a count or auto) */
    int iters_auto;              /* --iters auto (the CUDA default): sized so the solver fills
                                    at least 97 % of a frame (app/scenes/laplace/iters_auto.h) */
    int residual_every;          /* --residual-every K: residual every K frames; 0 = automatic */
    int no_graph;                /* --no-graph: direct launches instead of a CUDA graph */
} ks_laplace_opts;

typedef struct ks_spheres_opts {
    int count;                /* --spheres, default 256 */
    int counts[KS_MAX_LIST];  /* bench: --spheres list */
    int count_n;
    const char *file;         /* --scene FILE */
    const char *mem;          /* --mem variant name, NULL = default */
} ks_spheres_opts;

typedef struct ks_matmul_opts {
    int size_n;               /* --size M or MxNxK (bench: a list) */
    int sizes[KS_MAX_LIST][3]; /* m, n, k */
    int tile_n;               /* --tile T (bench: a list) */
    int tiles[KS_MAX_LIST];
} ks_matmul_opts;

typedef struct ks_histogram_opts {
    const char *input;        /* --input FILE, NULL = generated text */
    int words;                /* --words */
    int bins;                 /* --bins B (1..65536), 0 = not given; the first of bins_list */
    int bins_list[KS_MAX_LIST]; /* bench: --bins as a list */
    int bins_n;
    int size_n;               /* --size in bytes (a list for bench); default 100 MiB */
    unsigned long long sizes[KS_MAX_LIST];
} ks_histogram_opts;

/* `bench live`: how the frames are shown. */
enum { KS_LIVE_MODE_HEADLESS = 1 << 0, KS_LIVE_MODE_WINDOW = 1 << 1 };
typedef struct ks_live_bench_opts {
    unsigned modes;           /* KS_LIVE_MODE_* bits; 0 = not given: headless, and window when a display exists */
    int modes_n;
    unsigned order[2];        /* the modes in the order given */
} ks_live_bench_opts;

typedef struct ks_options {
    ks_mode mode;
    ks_scene_id scene;
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
    const char *dump_field; /* .npy path or NULL */
    const char *record;   /* --record FILE.mp4|.mkv: a video of what is shown, or NULL */
    const char *browser;  /* bench serve --browser PATH: a Chromium to open the page with, or NULL */
    int fps;              /* --fps: the video's frame rate (--record and the E key), default 60 */
    unsigned long long seed; /* --seed (spheres, histogram), default 1 */
    int seed_set;
    int reps;             /* bench: timed repetitions per configuration, default 20 */
    int help, version;
    unsigned long long flags_given; /* bit k: row k of the flag table was given (options.c) */
    ks_laplace_opts laplace;
    ks_spheres_opts spheres;
    ks_matmul_opts matmul;
    ks_histogram_opts histogram;
    ks_live_bench_opts live;
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
 * only chooses GPU work (marked so in the flag table), e.g. "--block has no effect on
 * the cpu backend (the CPU gold routine runs)"; 0 when there is none left. */
int ks_options_cpu_notice(const ks_options *o, int *cursor, char *buf, size_t len);
/* From the scene registry (app/scenes.c): the command-line name, and 3 / 2 for
 * the Laplace scenes (what --grid takes), 0 for the others. */
const char *ks_scene_name(ks_scene_id s);
int ks_scene_dims(ks_scene_id s);
/* Each scene's own option checks and defaults (the registry calls them from
 * ks_options_finish, after the common ones). */
ks_status ks_options_finish_laplace(ks_options *o);
ks_status ks_options_finish_spheres(ks_options *o);
ks_status ks_options_finish_matmul(ks_options *o);
ks_status ks_options_finish_histogram(ks_options *o);
ks_status ks_options_finish_live(ks_options *o);
void ks_options_laplace_backend_defaults(ks_options *o, int use_cuda);
void ks_options_live_backend_defaults(ks_options *o, int use_cuda);
/* `bench serve`: as bench live's checks; the picture size by backend. */
ks_status ks_options_finish_serve(ks_options *o);
void ks_options_serve_backend_defaults(ks_options *o, int use_cuda);
void ks_options_print_help(void);
/* The grid of grids[idx] as a ks_grid for the scene. */
ks_grid ks_options_grid(const ks_options *o, int idx);

#endif
