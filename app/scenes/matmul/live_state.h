/* The matmul scene's state, shared by its frame code (live.c) and its view
 * (live_view.c); private to those files. */
#ifndef KS_MATMUL_LIVE_STATE_H
#define KS_MATMUL_LIVE_STATE_H

#include "app/kernel/variant_set.h"
#include "app/options.h"
#include "base/timing_window.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_tiles.h"
#include "render/view.h"

enum {
    KS_MM_PICTURE = 1024, KS_MM_CPU_DEFAULT = 512, KS_MM_REF_REPS = 5,
    KS_MM_CPU_TILE = 64, /* the CPU gold's tile of C: 8 x 8 tiles at the default 512 */
    KS_MM_UNITS = 1024,  /* SM ids / thread numbers counted per unit (more are drawn, not counted) */
};

typedef struct matmul_scene {
    const ks_options *opt;
    const char *name;         /* the row's */
    ks_matmul_size size;
    ks_matmul_variant variant;
    int tile;                 /* tiled's tile */
    int w, h;                 /* picture */
    ks_matmul_gpu *gpu;       /* NULL on the CPU backend */
    float *a, *b, *c;         /* host: CPU backend inputs and C; GPU: C for the range and the dump */
    int computed;             /* C holds a result */
    float lo, hi;             /* colour range: C's min and max */
    int range_valid;
    double cublas_ms;         /* reference, median at start */
    double peak_gflops;       /* measured FMA throughput */
    double t_peak_gbs;        /* copy bandwidth measured at start-up */
    ks_roof_log roof;         /* last roofline point of each variant (and tile) */
    ks_timing_window times;   /* this variant's last times */
    unsigned char lut[256][4];
    char notice[256];
    int probe_valid, probe_a, probe_b;
    ks_matmul_picture pic;    /* what the picture shows (V) */
    ks_matmul_tile_rec *rec;  /* the last run's records, host */
    int rec_cap, rec_n;       /* capacity, count (0: none, e.g. cuBLAS) */
    ks_matmul_tile rec_bt;    /* the records' block tile */
    unsigned long long first, last; /* earliest and latest finish (ns) */
    int units;                /* distinct SMs / threads in the records */
    int unit_min, unit_max;   /* fewest and most tiles one of them computed */
    unsigned char pal[256][4];
    /* ours, then the users' kernels (--kernel-file), and D: |yours - regtile| over C from each file's check */
    ks_variant_set *set;
    const char *our_names[KS_MATMUL_NUM];
    int block[3];             /* the users' kernels' block: --block, [ ] */
} matmul_scene;

/* The file that runs, -1: one of ours (variant). */
static inline int mm_active(const matmul_scene *s) { return s->gpu ? ks_variant_set_file(s->set) : -1; }

static inline const char *mm_variant_name(const matmul_scene *s)
{
    return s->gpu ? ks_variant_set_name(s->set) : "cpu";
}

/* The block tile of what runs: the variant's (regtile: the shape chosen for the size), the CPU
 * gold's; {0, 0} for a user's kernel (its tiling is its own) and cuBLAS. */
static inline ks_matmul_tile mm_block_tile(const matmul_scene *s)
{
    if (s->gpu && mm_active(s) >= 0) return (ks_matmul_tile){0, 0};
    return s->gpu ? ks_matmul_gpu_block_tile(s->gpu, s->variant, s->tile) : (ks_matmul_tile){KS_MM_CPU_TILE, KS_MM_CPU_TILE};
}

static inline ks_matmul_tile mm_grid_tile(const matmul_scene *s)
{
    return s->gpu && mm_active(s) < 0 ? mm_block_tile(s) : (ks_matmul_tile){0, 0};
}

/* The element of C under the cursor: 1 and (i, j), or 0 when the cursor is off the picture. */
static inline int mm_probe_cell(const matmul_scene *s, int *i, int *j)
{
    if (!s->probe_valid || s->probe_a < 0 || s->probe_b < 0 || s->probe_a >= s->w || s->probe_b >= s->h) return 0;
    *i = (int)((long long)(s->h - 1 - s->probe_b) * s->size.m / s->h);
    *j = (int)((long long)s->probe_a * s->size.n / s->w);
    return 1;
}

/* The tile whose inputs the hover names: the recorded tile in the tile pictures, else the
 * block tile of the variant (CPU: the gold's tile); 0 for cuBLAS, whose tiles are its own. */
static inline ks_matmul_tile mm_band_tile(const matmul_scene *s)
{
    if (s->pic != KS_MATMUL_PIC_VALUE && s->rec_n > 0) return s->rec_bt;
    if (s->gpu && (s->variant == KS_MATMUL_CUBLAS || mm_active(s) >= 0)) return (ks_matmul_tile){0, 0};
    return mm_block_tile(s);
}

/* The row band and column band of the hovered tile: 1, or 0 when nothing is hovered. */
static inline int mm_hovered_band(const matmul_scene *s, ks_matmul_band *band)
{
    int i, j;
    const ks_matmul_tile bt = mm_band_tile(s);
    if (bt.m <= 0 || bt.n <= 0 || !mm_probe_cell(s, &i, &j)) return 0;
    ks_matmul_band_of(&s->size, bt, i, j, band);
    return 1;
}

/* The scene's part of the view model (ks_scene_api.view; live_view.c). */
void ks_matmul_live_view(void *self, ks_view *v);

#endif
