/* Laplace Jacobi solver: boundary presets, the CPU gold routine, the
 * kernel-variant table and the CUDA solver, all behind plain C types. The
 * grid, its layout and the slices are the shared field types
 * (base/field.h). */
#ifndef KS_LAPLACE_H
#define KS_LAPLACE_H

#include <stddef.h>

#include "base/cellmap.h"
#include "base/colormap.h"
#include "base/diff_colour.h"
#include "base/cuda_device.h" /* ks_kernel_attrs */
#include "base/field.h"       /* ks_grid, ks_axis, slices */
#include "base/bench_timing.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_bc {
    KS_BC_DEFAULT = 0, /* hot-top */
    KS_BC_SEED,        /* every boundary point 1 (as in the Oxford CUDA course's Practical 3) */
    KS_BC_HOT_TOP,     /* face k=nz-1 (3D) / edge j=ny-1 (2D) is 1, rest 0 */
    KS_BC_SINE,        /* that face/edge is sin(pi x) sin(pi y) (3D) / sin(pi x) (2D), rest 0 */
    KS_BC_NUM
} ks_bc;

const char *ks_bc_name(ks_bc bc);
int ks_bc_parse(const char *name, ks_bc *bc); /* 0 ok, -1 unknown */

/* ---- CPU gold (laplace_gold.c; OpenMP where available) ---- */

/* Boundary points per preset, interior 0. */
void ks_laplace_fill_initial(const ks_grid *g, ks_bc bc, float *u);
/* Exact solution of the sine preset at a grid point (double precision):
 * 3D: sin(pi x) sin(pi y) sinh(sqrt2 pi z)/sinh(sqrt2 pi); 2D: sin(pi x) sinh(pi y)/sinh(pi). */
double ks_laplace_exact_sine(const ks_grid *g, int i, int j, int k);
/* One Jacobi iteration: interior = mean of the 4/6 neighbours of u1; boundary copied. */
void ks_laplace_gold_step(const ks_grid *g, const float *u1, float *u2);
/* sum over all points of (a-b)^2, in double. RMS change = sqrt(sum / points). */
double ks_laplace_gold_sumsq_diff(const ks_grid *g, const float *a, const float *b);

/* ---- Slices (geometry: base/field.h) ----
 * CPU: colormapped slice into rgba (w*h*4 bytes); min/max of the slice values. */
void ks_laplace_cpu_render_slice(const ks_grid *g, const float *u, ks_axis axis, int index,
                                 ks_colormap map, float lo, float hi, unsigned char *rgba);
void ks_laplace_cpu_slice_minmax(const ks_grid *g, const float *u, ks_axis axis, int index,
                                 float *lo, float *hi);

/* ---- The live view's picture (base/cellmap.h) ----
 * A picture of m->x.pixels x m->y.pixels (rows bottom-up, RGBA8) of the slice
 * (m->x.cells x m->y.cells must be its ks_slice_dims). Pixel (p, q) shows the
 * cells [x0, x1) x [y0, y1) that ks_cellmap_range gives it, downsampled by
 * their MEAN: the values summed in double in row-major order (rows y0 up to
 * y1 - 1, in each row x0 up to x1 - 1), the sum divided by the count in
 * double, rounded once to float, then colormapped like the slice. Zoomed in,
 * the range is one cell and the pixel is that cell's colour (nearest). The
 * CUDA kernel (ks_lsolver_render_view) follows the same order, so both
 * backends give the same picture bit for bit. */
float ks_laplace_view_value(const ks_grid *g, const float *u, ks_axis axis, int index,
                            const ks_cellmap *m, int p, int q);
/* KS_ERR_INVALID unless m is valid (ks_cellmap_check) and covers the slice. */
ks_status ks_laplace_check_view(const ks_grid *g, ks_axis axis, int index, const ks_cellmap *m);
ks_status ks_laplace_cpu_render_view(const ks_grid *g, const float *u, ks_axis axis, int index,
                                     const ks_cellmap *m, ks_colormap map, float lo, float hi,
                                     unsigned char *rgba);

/* ---- The difference view (a user's kernel against ours, laplace_gold.c) ----
 * The values are |yours - ours| over a slice, w x h, cell (a, b) at a + b*w
 * (ks_slice_point's cells), each >= 0, or +inf where one field was left
 * unwritten (NaN) and the other not; their colours and summary are
 * base/diff_colour.h's. Pixel (p, q) of a view (m: the cellmap over
 * the w x h cells) shows the LARGEST value of the cells it covers, so one
 * wrong cell stays visible however far out the view is zoomed.
 * The view's picture (rows bottom-up, RGBA8, m->x.pixels x m->y.pixels) of the
 * values for the range [0, max]; KS_ERR_INVALID unless m is valid and covers
 * w x h cells. */
ks_status ks_laplace_diff_render_view(const float *diff, int w, int h, const ks_cellmap *m, float max,
                                      unsigned char *rgba);

/* ---- Kernel variants (laplace_variants.c: the table is plain C so the CLI
 * validates names in any build) ---- */
/* The variants, one row each: name, summary, dims, block rank, default block
 * (bx, by, bz), iterations per launch. The order is the Tab order in the live
 * view. laplace_variants.c makes the metadata table of these rows, the CUDA
 * solver its launcher table (ks_llaunch_<name>, same index), so a variant is
 * one row here and its kernel. Default blocks: the best of the sweep on an
 * H200 (docs/laplace-perf.md). */
#define KS_LVARIANT_ROWS(X)                                                                         \
    X(kmarch, "2D thread blocks marching in k, one column per thread (Oxford Practical 3)", 3, 2,  \
      128, 2, 1, 1)                                                                                 \
    X(block3d, "3D thread blocks, one point per thread (Oxford Practical 3)", 3, 3, 32, 8, 2, 1)    \
    X(regq,                                                                                         \
      "float4 rows marching 4 planes in k, register queue, x-neighbours by shuffles, "              \
      "interior-only launch",                                                                       \
      3, 2, 32, 8, 1, 1)                                                                            \
    X(tblock,                                                                                       \
      "temporally blocked: 4 iterations per launch; 32xW block = W warps of 128 x-points x 4 "      \
      "rows, level planes in shared memory, split barriers, halo recomputed on chip",               \
      3, 2, 32, 12, 1, 4)                                                                           \
    X(block2d, "2D thread blocks, one point per thread", 2, 2, 128, 2, 1, 1)                         \
    X(smem2d, "shared-memory tile with halo, one point per thread", 2, 2, 32, 8, 1, 1)              \
    X(vec2d, "float4 x 2 rows per thread, all loads up front, bands of rows streamed in order", 2, \
      2, 64, 4, 1, 1)

typedef struct ks_lvariant_info {
    const char *name;      /* CLI name, unique per dims */
    const char *summary;   /* one line for --help and the overlay */
    int dims;              /* scene it belongs to: 2 or 3 */
    int block_rank;        /* components the user gives in --block: 2 or 3 */
    int default_block[3];  /* used when nothing better is known */
    int steps_per_launch;  /* 1, or T for a temporally blocked variant */
} ks_lvariant_info;

int ks_lvariant_count(void);
const ks_lvariant_info *ks_lvariant_get(int id);   /* NULL when out of range */
int ks_lvariant_find(int dims, const char *name); /* id, or -1 */
int ks_lvariant_default(int dims);                 /* id of the variant used by default */
/* The GPU the built-in default blocks were measured on (the sweeps of
 * docs/laplace-perf.md and docs/perf-limits.md), when this one (cc = 10 major +
 * minor, its SM count) is that GPU: "H200" (the H100 SXM has the same chip and
 * SM count); NULL elsewhere, where bench laplace3d|laplace2d measures the best
 * block and the live view takes it from the best-config store. */
const char *ks_lvariant_blocks_measured_on(int cc, int sm_count);
int ks_lvariant_next(int id);                      /* next id of the same dims (wraps) */
/* Shape rule any device must meet: a variant with a 2-part block takes no z
 * component. KS_ERR_UNSUPPORTED with a message otherwise (no device needed). */
ks_status ks_lvariant_check_shape(int id, const int block[3]);
/* Iterations per frame the live view runs for a requested count: for a
 * temporally blocked variant the nearest multiple of its steps_per_launch
 * (halves round up, at least one whole launch), so every launch is a whole
 * time block; the request itself for the others (and for an unknown id). */
int ks_lvariant_frame_iters(int id, int requested);
/* Kernel launches ks_lsolver_run makes for iters iterations (exact_prev:
 * KS_LPREV_EXACT); 0 for an unknown id or iters < 1. */
int ks_lvariant_launches(int id, int iters, int exact_prev);
/* Writes "a, b, c" (the names valid for dims) into buf. */
void ks_lvariant_list(int dims, char *buf, size_t len);

/* ---- A user's kernel (--kernel-file FILE): one more variant ----
 * Its row follows the built-in ones: name (the file's name), dims, a block of
 * rank dims (default 32x4x4 / 32x8, the contract's), one step per launch. Its
 * code comes from ks_luser_load; the contract (laplace_contract.h): the
 * kernel `jacobi`, launched over the interior. Rows are added at start-up,
 * before any solver exists or any thread reads the table. */
enum { KS_LUSER_MAX = 8, KS_LUSER_NAME_MAX = 96 };
int ks_lvariant_builtin_count(void);
int ks_lvariant_is_user(int id);
/* The new row's id (the same id again for a name it has), or -1 with the
 * error set (a built-in's name, too long a name, the table full). */
int ks_luser_add(int dims, const char *name);
/* Loads code (CUBIN or NUL-terminated PTX, as NVRTC made it) as the user
 * variant's kernel, in place of what it ran before, and reads its entry
 * `jacobi`. Call it where no solver's stream has launches of the old code in
 * flight (ks_lsolver_wait); graphs captured with the old code are not used
 * again. KS_ERR_CUDA with the loader's words when the code does not load. */
ks_status ks_luser_load(int id, const void *code, size_t size);
/* 1 when the user variant has code loaded. */
int ks_luser_ready(int id);
/* Loads so far: 0 before the first (graph caches key on it). */
long long ks_luser_generation(int id);
/* Where the loaded file declares its launch (kernels/user/kernel_decl.h:
 * its entry, argument order, grid, block, `multiple`), that declaration, as the
 * variant's launches follow it; NULL under the contract or with nothing loaded. */
struct ks_kdecl;
const struct ks_kdecl *ks_luser_declaration(int id);


/* The code this binary runs for a variant on the current device, one line,
 * or NULL when the variant has one path on every GPU. It asks the driver
 * which PTX the kernel was built from, so a PTX-only build JIT-compiled on a
 * newer GPU names the path it really runs. */
const char *ks_lvariant_code_path(int id);

/* ---- CUDA solver (laplace_gpu.cu) ----
 * Two device fields (ping-pong) on the solver's own stream. Every call only
 * enqueues work unless it says otherwise. */
typedef struct ks_lsolver ks_lsolver;

/* Fails with KS_ERR_OUT_OF_MEMORY and a message naming the bytes needed and
 * the bytes free when the grid does not fit. */
ks_status ks_lsolver_create(const ks_grid *g, ks_lsolver **out);
void ks_lsolver_destroy(ks_lsolver *s);
void *ks_lsolver_stream(ks_lsolver *s); /* cudaStream_t */
/* Runs on `stream` (another solver's, of the same device) from now on, and
 * leaves it alone when destroyed: several solvers of one scene that the live
 * loop sees as one stream. Its own stream is destroyed. */
ks_status ks_lsolver_use_stream(ks_lsolver *s, void *stream);
/* Blocks the host until the solver's stream has done all its work. */
ks_status ks_lsolver_wait(ks_lsolver *s);
/* Copies host into both fields (so boundaries are valid in both); synchronous. */
ks_status ks_lsolver_upload(ks_lsolver *s, const float *host);
/* Copies host into the previous field only (tests poison it; the boundary
 * must still be valid); synchronous. */
ks_status ks_lsolver_upload_previous(ks_lsolver *s, const float *host);
/* Copies the current field to host; synchronous. */
ks_status ks_lsolver_download(ks_lsolver *s, float *host);
/* Copies the previous iterate (the field before the last single step) to host; synchronous. */
ks_status ks_lsolver_download_previous(ks_lsolver *s, float *host);
/* Checks that variant accepts block on this device (threads, dims, shared
 * memory, shape rules); the message says why not. Launches nothing. */
ks_status ks_lsolver_check_block(const ks_lsolver *s, int variant, const int block[3]);
/* Registers, shared memory and occupancy of the variant at that block. */
ks_status ks_lsolver_kernel_attrs(const ks_lsolver *s, int variant, const int block[3],
                                  ks_kernel_attrs *out);
/* Runs exactly iters Jacobi iterations with the variant; afterwards the
 * previous field holds iterate n-1 (a temporally blocked variant ends with a
 * single step so the residual is always between consecutive iterates). */
ks_status ks_lsolver_iterate(ks_lsolver *s, int variant, const int block[3], int iters);
/* One launch of the variant, never through a graph: steps_per_launch
 * iterations (a temporally blocked variant's time block; one for the
 * others), the fields swapped as a run swaps them. What the hardware
 * counters measure as "one launch" (the live Hardware panel, bench --counters). */
ks_status ks_lsolver_launch_once(ks_lsolver *s, int variant, const int block[3]);
/* How ks_lsolver_run leaves the previous field. */
typedef enum ks_lprev {
    KS_LPREV_EXACT = 0, /* iterate n-1, so a residual may follow (ks_lsolver_iterate) */
    KS_LPREV_ANY        /* whatever the last launch read: a temporally blocked variant
                           runs only its own launches (no trailing single step) */
} ks_lprev;
/* Runs exactly iters Jacobi iterations. With KS_LPREV_ANY a temporally
 * blocked variant runs launches of steps_per_launch steps (the last one
 * shorter when iters is not a multiple), nothing else; the other variants run
 * as ks_lsolver_iterate. With graphs on (ks_lsolver_use_graphs), the launches
 * are captured once as a CUDA graph per (variant, block, iters, prev, which
 * field is current) and replayed; the results are the same bit for bit. A
 * run of more than 256 launches replays a graph of 256 launches as often as
 * it fits, then one of the rest. */
ks_status ks_lsolver_run(ks_lsolver *s, int variant, const int block[3], int iters, ks_lprev prev);
/* Launch mode of ks_lsolver_run and ks_lsolver_iterate: 1 CUDA graphs
 * (captured on first use, kept in a small cache), 0 direct launches (the
 * default). Turning graphs off frees the cached ones. */
ks_status ks_lsolver_use_graphs(ks_lsolver *s, int on);
/* Frees the cached graphs (graphs stay on: the next run captures anew), so
 * that none holds a kernel whose code is about to be unloaded. */
void ks_lsolver_drop_graphs(ks_lsolver *s);
/* Graphs captured and replayed since create (both 0 with graphs off). */
typedef struct ks_lgraph_stats {
    long long captures, replays;
    int cached;             /* instantiated graphs held now */
} ks_lgraph_stats;
void ks_lsolver_graph_stats(const ks_lsolver *s, ks_lgraph_stats *out);
/* Enqueues the sum of squared differences between current and previous field
 * (warp-shuffle reduction) into a device accumulator. */
ks_status ks_lsolver_residual(ks_lsolver *s);
/* Enqueues a fill of `bytes` bytes of device memory at dst with value (a
 * line drawn over a picture) on the solver's stream. */
ks_status ks_lsolver_fill_bytes(ks_lsolver *s, void *dst, int value, size_t bytes);
/* Enqueues a copy of bytes bytes of host memory into device memory at dst (a
 * picture made on the host) on the solver's stream; src may be reused once
 * it returns (pageable memory is staged before the call returns). */
ks_status ks_lsolver_upload_bytes(ks_lsolver *s, void *dst, const void *src, size_t bytes);
/* Enqueues the colormapped slice into dst (device pointer, w*h*4 bytes). */
ks_status ks_lsolver_render_slice(ks_lsolver *s, ks_axis axis, int index, ks_colormap map,
                                  float lo, float hi, void *dst_rgba);

/* Enqueues the live view's picture of the slice (see ks_laplace_cpu_render_view,
 * the CPU reference) into dst (device pointer, m->x.pixels * m->y.pixels * 4
 * bytes): one thread per picture pixel, so its cost follows the picture, plus
 * the reads of the cells it shows. */
ks_status ks_lsolver_render_view(ks_lsolver *s, ks_axis axis, int index, const ks_cellmap *m,
                                 ks_colormap map, float lo, float hi, void *dst_rgba);
/* The whole slice at one pixel per cell into host memory (w*h*4 bytes, rows
 * bottom-up), through a temporary device buffer; synchronous. For saving. */
ks_status ks_lsolver_read_slice_rgba(ks_lsolver *s, ks_axis axis, int index, ks_colormap map,
                                     float lo, float hi, unsigned char *host_rgba);

/* Results that travel back without stalling the frame: enqueue with
 * ks_lsolver_request_readback, collect a frame or more later with
 * ks_lsolver_poll_readback (never blocks; returns 1 when new values arrived). */
typedef struct ks_lreadback {
    double residual_rms;    /* sqrt(sum/points) of the newest ks_lsolver_residual among the
                               requests collected (each request carries one enqueued since
                               the request before it), -1 if none */
    long long residual_iteration; /* the iteration of the request that carried it, -1 if none */
    float slice_min, slice_max;
    float probe_value;      /* field value at probe (NaN when no probe) */
    int probe[3];           /* the point probed, or -1s */
    long long iteration;    /* total iterations when the request was made */
} ks_lreadback;
ks_status ks_lsolver_request_readback(ks_lsolver *s, ks_axis axis, int index, const int probe[3],
                                      long long iteration);
int ks_lsolver_poll_readback(ks_lsolver *s, ks_lreadback *out);

/* The current field's values in bins over [lo, hi] (the colour range; values
 * outside land in the end bins), counted on the GPU on the solver's stream
 * (ks_field_hist_run, kernels/laplace/field_histogram.h: per-block
 * shared-memory histograms) and read back without stalling the frame, like
 * the readback above. A request made while the previous one is still in
 * flight is skipped. */
enum { KS_LHIST_MAX_BINS = 256 };
typedef struct ks_lhist {
    int bins;
    float lo, hi;
    unsigned counts[KS_LHIST_MAX_BINS];
    long long iteration;    /* total iterations when the request was made */
} ks_lhist;
/* lo < hi, 1 <= bins <= KS_LHIST_MAX_BINS, else KS_ERR_INVALID. */
ks_status ks_lsolver_request_histogram(ks_lsolver *s, float lo, float hi, int bins, long long iteration);
/* 1 when a requested histogram arrived (into out), 0 otherwise; never blocks. */
int ks_lsolver_poll_histogram(ks_lsolver *s, ks_lhist *out);
/* 1 while a requested histogram has not been collected by ks_lsolver_poll_histogram
 * (a new request now would be skipped). */
int ks_lsolver_histogram_pending(const ks_lsolver *s);

/* For the check of a user's kernel. Fills the current field with a random
 * field of the seed (values in [0.1, 1.1), the same on any device) and the
 * previous one with its boundary and NaN inside, so a point a kernel leaves
 * unwritten shows; enqueued. */
ks_status ks_lsolver_fill_random(ks_lsolver *s, unsigned long long seed);
typedef struct ks_ldiff {
    double max_err;     /* largest |a - b| (a NaN against a number counts as infinite) */
    long long bad;      /* points with |a - b| > tol */
    long long first;    /* the smallest such index (i + nx*(j + ny*k)), -1 when none */
    float got, want;    /* a and b there */
} ks_ldiff;
/* Compares a's current field with b's (the same grid); synchronous. */
ks_status ks_lsolver_diff(ks_lsolver *a, ks_lsolver *b, float tol, ks_ldiff *out);
/* |a - b| of the current fields over one slice into host (the difference
 * view's values: w x h of ks_slice_dims, cell (x, y) at x + y*w; NaN against a
 * number +inf, both NaN 0, as ks_lsolver_diff counts them); synchronous. */
ks_status ks_lsolver_diff_slice(ks_lsolver *a, ks_lsolver *b, ks_axis axis, int index, float *host);

/* Timed runs of iters iterations each (CUDA events, after warm-up runs) by the
 * benches' loop (base/bench_timing.h: the cache policy, repetitions
 * until the median's standard error is under 1 %); working set: the two
 * fields. out's times are per run: divide by iters for an iteration. */
ks_status ks_lsolver_time(ks_lsolver *s, int variant, const int block[3], int iters, const ks_timing_opts *o,
                          ks_timing *out);

#ifdef __cplusplus
}
#endif
#endif
