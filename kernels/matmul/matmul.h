/* Matrix multiply C = A * B: the course's tiled-matmul exercise
 * made visible. Inputs are fixed by formula (ks_matmul_a / ks_matmul_b) so
 * that every element of C is exact in float32 and every correct kernel gives
 * the same C bit for bit. Row-major float32; A is MxK, B is KxN, C is MxN.
 *
 * The GPU side is a variant table (one row per variant: name, summary, the
 * tile sizes it takes, its DRAM byte model, its launcher) and a small context
 * holding the device buffers, a cuBLAS handle, a stream and events. */
#ifndef KS_MATMUL_H
#define KS_MATMUL_H

#include <stddef.h>

#include "base/bench_timing.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KS_MATMUL_MAX_DIM = 65536,      /* per side */
    KS_MATMUL_DEFAULT_SIZE = 2048,  /* M = N = K */
};
/* Largest total of A + B + C elements (4 GiB each at most... 16 GiB in all). */
#define KS_MATMUL_MAX_ELEMS 4294967296.0
/* Exactness holds for any K with 1.5 * K < 2^19 (docs/scenes.md, matmul: "Exact in float32"). */
#define KS_MATMUL_EXACT_MAX_K 349525

typedef enum ks_matmul_variant {
    KS_MATMUL_NAIVE = 0,
    KS_MATMUL_TILED,
    KS_MATMUL_REGTILE,
    KS_MATMUL_CUBLAS,
    KS_MATMUL_NUM
} ks_matmul_variant;

typedef struct ks_matmul_size {
    int m, n, k;
} ks_matmul_size;

/* The tile of C one block computes: m rows by n columns ({0, 0}: none, cuBLAS's own). */
typedef struct ks_matmul_tile {
    int m, n;
} ks_matmul_tile;

/* The inputs, by formula: A[i][k] = ((i*K + k) mod 17 - 8) / 8,
 * B[k][j] = ((k*N + j) mod 13 - 6) / 4. */
float ks_matmul_a(const ks_matmul_size *s, int i, int k);
float ks_matmul_b(const ks_matmul_size *s, int k, int j);
void ks_matmul_fill(const ks_matmul_size *s, float *a, float *b);
/* Size checks: each side 1..KS_MATMUL_MAX_DIM, A+B+C at most KS_MATMUL_MAX_ELEMS
 * elements (KS_ERR_INVALID naming the size otherwise). */
ks_status ks_matmul_size_check(const ks_matmul_size *s);
/* "MxNxK" or "M" (square) into *s; 0 on success, -1 when malformed or a side is
 * outside 1..KS_MATMUL_MAX_DIM. */
int ks_matmul_size_parse(const char *text, ks_matmul_size *s);
/* CPU gold: i-k-j loops, OpenMP over rows; exact (see docs/scenes.md). */
void ks_matmul_gold(const ks_matmul_size *s, const float *a, const float *b, float *c);
/* First index where the two C differ bit for bit, or -1. */
long long ks_matmul_first_diff(const float *want, const float *got, size_t n);
/* Where a C differs from the one expected by more than the tolerance. */
typedef struct ks_matmul_mismatch {
    long long first;   /* the first such element (i*N + j), -1: none */
    long long bad;     /* how many */
    float got, want;   /* at first */
    double max_err;    /* the largest |got - want| of all (inf where got is NaN) */
} ks_matmul_mismatch;
/* The tolerance at depth K: the rounding bound of a float32 sum of K products
 * of at most 1.5 (these A and B), K * 1.5 * 2^-24; any product missed or added
 * costs at least 1/32, so it is caught at every K this scene takes. */
double ks_matmul_check_tolerance(int k);
/* got against want (M*N each): KS_OK when every element is within the
 * tolerance, else KS_ERR_INVALID (no error text: *out says where). */
ks_status ks_matmul_compare(const float *got, const float *want, const ks_matmul_size *s, ks_matmul_mismatch *out);
/* "differs from AGAINST at M=.. N=.. K=.. at C[i][j]: GOT where WANT is expected; n elements differ, max error E". */
void ks_matmul_mismatch_text(const ks_matmul_mismatch *m, const ks_matmul_size *s, const char *against, char *buf,
                             size_t cap);
/* The CPU's picture of C, as ks_matmul_gpu_draw draws it (rgba host, rows bottom-up). */
void ks_matmul_draw_cpu(const ks_matmul_size *s, const float *c, int w, int h, const unsigned char lut[256][4],
                        float lo, float hi, ks_matmul_tile grid, unsigned char *rgba);
/* The difference view's picture (rgba host, rows bottom-up, laid out as
 * ks_matmul_draw_cpu's): diff holds |yours - ours| of C[i][j] at i + j * M
 * (base/diff_colour.h's values and colours); a pixel shows the
 * largest of the elements it covers, so one wrong element stays visible. */
void ks_matmul_draw_diff_cpu(const ks_matmul_size *s, const float *diff, int w, int h, float max, unsigned char *rgba);
/* ---- how the work was done: one record per block tile of C ---- */
/* What a picture of C shows (the V key cycles them). */
typedef enum ks_matmul_picture {
    KS_MATMUL_PIC_VALUE = 0, /* C's values over the colormap */
    KS_MATMUL_PIC_UNIT,      /* each tile by the SM (GPU) or OpenMP thread (CPU) that computed it */
    KS_MATMUL_PIC_TIME,      /* each tile by when it finished, over [first, last] (the live view's default) */
    KS_MATMUL_PIC_NUM
} ks_matmul_picture;
const char *ks_matmul_picture_name(ks_matmul_picture p); /* "values", "SM / thread", "finish time" */

/* Written once per block at its end: by thread 0 of the block after its store of C
 * (GPU), or after the tile's last row (CPU gold). 16 bytes. */
typedef struct ks_matmul_tile_rec {
    unsigned int unit;       /* %smid (GPU) or omp_get_thread_num() (CPU) */
    unsigned int done;       /* 1 once written (the GPU context clears it before each recorded run) */
    unsigned long long t_ns; /* %globaltimer (GPU, ns) or the host's monotonic clock (CPU, ns) */
} ks_matmul_tile_rec;

/* Tiles of C for a block tile bt: tiles_x = ceil(N / bt.n) across, tiles_y = ceil(M / bt.m) down. */
void ks_matmul_tile_grid(const ks_matmul_size *s, ks_matmul_tile bt, int *tiles_x, int *tiles_y);
/* CPU gold computed tile by tile (bt x bt tiles of C, OpenMP hands tiles out dynamically, as a
 * GPU hands out blocks), recording each tile's thread and end time into rec (tiles_x * tiles_y,
 * row of tiles by row; NULL: none). Same C as ks_matmul_gold, bit for bit. */
void ks_matmul_gold_tiles(const ks_matmul_size *s, const float *a, const float *b, float *c, int bt,
                          ks_matmul_tile_rec *rec);
/* A categorical palette for unit numbers (unit % 256): neighbours in number far apart in colour. */
void ks_matmul_unit_palette(unsigned char pal[256][4]);
/* Earliest and latest t_ns of the written records (0, 0 when none). */
void ks_matmul_tile_span(const ks_matmul_tile_rec *rec, int n, unsigned long long *first,
                         unsigned long long *last);
/* The tile picture (rgba host, rows bottom-up, C's row 0 at the top): each pixel the tile of its
 * first cell; PIC_UNIT colours by pal[unit % 256], PIC_TIME by lut over [first, last]; a record not
 * written is gray; tile edges dark where a tile is at least KS_MATMUL_TILE_EDGE_PX pixels wide. */
void ks_matmul_draw_tiles_cpu(const ks_matmul_size *s, ks_matmul_tile bt, const ks_matmul_tile_rec *rec,
                              ks_matmul_picture pic, const unsigned char pal[256][4],
                              const unsigned char lut[256][4], unsigned long long first,
                              unsigned long long last, int w, int h, unsigned char *rgba);

/* ---- what fed a tile of C ---- */
/* The tile of C under the cursor (cells, half open): rows [i0, i1) are its row band, which is
 * where the rows of A it read sit, and columns [j0, j1) its column band, the columns of B. */
typedef struct ks_matmul_band {
    int i0, i1, j0, j1;
} ks_matmul_band;
/* The band of the tile bt that holds C[i][j]. */
void ks_matmul_band_of(const ks_matmul_size *s, ks_matmul_tile bt, int i, int j, ks_matmul_band *b);
/* Shades a drawn picture of C (rgba host, w x h, rows bottom-up) for a hovered tile: pixels
 * outside both bands dimmed, the tile's outline white, the bands as drawn (matmul_draw.h). */
void ks_matmul_shade_bands_cpu(const ks_matmul_size *s, const ks_matmul_band *b, int w, int h, unsigned char *rgba);

/* Picture size for C: enlarged by a whole factor up to max_side, or shrunk to fit it. */
void ks_matmul_picture_size(const ks_matmul_size *s, int max_side, int *w, int *h);
/* 2*M*N*K */
double ks_matmul_flops(const ks_matmul_size *s);

/* ---- variant table ---- */
typedef struct ks_matmul_variant_info {
    const char *name;
    const char *summary;
    int tiles[3];      /* run-time tile sizes ([ ] cycles), 0 ends; tiles[0] == 0: fixed */
} ks_matmul_variant_info;

const ks_matmul_variant_info *ks_matmul_variant_get(ks_matmul_variant v);
int ks_matmul_variant_parse(const char *name, ks_matmul_variant *out); /* 0 ok, -1 unknown */
void ks_matmul_variant_list(char *buf, size_t len);                   /* "naive, tiled, ..." */
/* Block tile of C for the variant: naive 16x16, tiled TxT (T = tile), regtile its shape
 * rt_config (matmul_tiles.h: the GPU context says which runs), cublas {0, 0}. */
ks_matmul_tile ks_matmul_block_tile(ks_matmul_variant v, int tile, int rt_config);
/* The textbook DRAM model (bytes) for a variant computing block tiles bt, labelled
 * "model" wherever shown: naive 2MNK*4 (every operand from DRAM); tiled, regtile
 * 4MNK (1/bt.n + 1/bt.m) + 4MN (each A element read once per bt.n-wide column
 * band of C, each B element once per bt.m-tall row band); cublas as 128x128
 * tiles (its own are at least as large). 4MN: writing C once. Caches make the
 * real counts lower. */
double ks_matmul_model_bytes(ks_matmul_variant v, ks_matmul_tile bt, const ks_matmul_size *s);

/* ---- GPU ---- */
typedef struct ks_matmul_gpu ks_matmul_gpu;

ks_status ks_matmul_gpu_create(ks_matmul_gpu **out);
void ks_matmul_gpu_destroy(ks_matmul_gpu *g);
void *ks_matmul_gpu_stream(ks_matmul_gpu *g);
/* (Re)allocates for s and fills A and B on the device by the formula. */
ks_status ks_matmul_gpu_setup(ks_matmul_gpu *g, const ks_matmul_size *s);
/* C[] = NaN bits everywhere. */
ks_status ks_matmul_gpu_poison(ks_matmul_gpu *g);
/* A (M*K floats) and B (K*N) from the host in place of the formula's inputs, until the next
 * setup (tests: random data); synchronises. */
ks_status ks_matmul_gpu_upload(ks_matmul_gpu *g, const float *a, const float *b);
/* One launch of the variant (asynchronous on the context's stream). tile: for tiled
 * 8, 16 or 32 (others ignore it). KS_ERR_INVALID for a tile tiled does not take.
 * regtile runs the shape the context chose for the size at setup (matmul_tiles.h,
 * ks_matmul_gpu_regtile). */
ks_status ks_matmul_gpu_run(ks_matmul_gpu *g, ks_matmul_variant v, int tile);
/* Times one launch (events around it): ms. */
ks_status ks_matmul_gpu_run_timed(ks_matmul_gpu *g, ks_matmul_variant v, int tile, double *ms);
/* Timed launches by the benches' loop (base/bench_timing.h: the cache policy,
 * repetitions until the median's standard error is under 1 %); working set A, B and C. */
ks_status ks_matmul_gpu_time(ks_matmul_gpu *g, ks_matmul_variant v, int tile, const ks_timing_opts *o,
                             ks_timing *out);
/* C to host (M*N floats); synchronises. */
ks_status ks_matmul_gpu_download(ks_matmul_gpu *g, float *c);
/* C drawn into rgba (device, w*h*4, rows bottom-up, C's row 0 at the top): each pixel the
 * mean of the cells it covers, colour over [lo, hi], tile grid lines every grid_tile cells
 * (0: none) where a tile edge falls within the pixel. */
ks_status ks_matmul_gpu_draw(ks_matmul_gpu *g, int w, int h, const unsigned char lut[256][4],
                             float lo, float hi, ks_matmul_tile grid, void *rgba);
/* Per-block records (off by default): on, every later run of naive, tiled and regtile has each
 * block's thread 0 store one ks_matmul_tile_rec at its end (cuBLAS keeps none: its runs leave
 * the records cleared). Costs one 16-byte store and two special-register reads per block. */
ks_status ks_matmul_gpu_set_record(ks_matmul_gpu *g, int on);
/* The last run's records to host (tiles_x * tiles_y of the variant's block tile, at most n);
 * synchronises. *count: how many there are. */
ks_status ks_matmul_gpu_records(ks_matmul_gpu *g, ks_matmul_tile_rec *rec, int n, int *count);
/* The device's %globaltimer now (a one-thread kernel on the context's stream; synchronises). */
ks_status ks_matmul_gpu_clock(ks_matmul_gpu *g, unsigned long long *ns);
/* The block tile of C the variant computes here (regtile: the shape chosen for the size). */
ks_matmul_tile ks_matmul_gpu_block_tile(ks_matmul_gpu *g, ks_matmul_variant v, int tile);
/* The tile picture drawn on the device, equal to ks_matmul_draw_tiles_cpu on the same records
 * (the last run's, of block tile bt). */
ks_status ks_matmul_gpu_draw_tiles(ks_matmul_gpu *g, ks_matmul_tile bt, ks_matmul_picture pic, const unsigned char pal[256][4],
                                   const unsigned char lut[256][4], unsigned long long first,
                                   unsigned long long last, int w, int h, void *rgba);
/* ks_matmul_shade_bands_cpu on the device, over the picture in rgba (device, w x h). */
ks_status ks_matmul_gpu_shade_bands(ks_matmul_gpu *g, const ks_matmul_band *b, int w, int h, void *rgba);
/* One element of C (synchronises). */
ks_status ks_matmul_gpu_read(ks_matmul_gpu *g, int i, int j, float *value);

#ifdef __cplusplus
}
#endif
#endif
