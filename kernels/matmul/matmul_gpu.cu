/* The matmul GPU context (matmul.h): A, B and C on the device, runs of our
 * kernels (matmul_kernels.cu, matmul_regtile.cu in the shape chosen for the
 * size, matmul_tiles.h), of cuBLAS SGEMM in plain FP32 and of a user's
 * kernel (matmul_user.cu) with their timing, the blocks' records, and the
 * pictures (C, the tiles, the hovered bands). */
#include "base/ks_util.h"
#include "matmul.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/cuda_check.h"
#include "base/cuda_device.h"
#include "base/l2_flush.h"
#include "matmul_draw.h"
#include "matmul_launch.h"

#define KS_CUBLAS_TRY(call) KS_STATUS_TRY(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublasGetStatusString, call, #call)

struct ks_matmul_gpu {
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    cublasHandle_t blas;
    ks_matmul_size size;
    int have_size;
    float *a, *b, *c;
    size_t cap_a, cap_b, cap_c; /* elements */
    unsigned char *lut;         /* 256 x 4 */
    unsigned char *pal;         /* 256 x 4: the unit palette */
    int record;                 /* blocks write their records */
    ks_matmul_tile_rec *rec;    /* one per block of the last recorded run */
    size_t cap_rec;             /* records */
    int rec_count;              /* the last run's records (0: none, e.g. cuBLAS) */
    ks_matmul_tile rec_bt;      /* and their block tile */
    unsigned long long *clock;  /* ks_matmul_gpu_clock's slot */
    int cc, sm_count;           /* the device, for regtile's shape */
    ks_matmul_rt_choice rt;     /* regtile's shape at this size (setup) */
    ks_l2_flush *flush;         /* cold-cache timing's flush, made on first use */
};

__global__ void ks_mm_clock_kernel(unsigned long long *out)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    *out = t;
}

/* ---- inputs ---- */

__global__ void ks_mm_fill_kernel(float *a, long long na, float *b, long long nb)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < na; e += stride)
        a[e] = (float)(e % 17 - 8) / 8.0f;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < nb; e += stride)
        b[e] = (float)(e % 13 - 6) / 4.0f;
}

/* ---- picture: mean of the cells under each pixel, tile grid over it ---- */

__global__ void ks_mm_draw_kernel(const float *__restrict__ C, int M, int N, int w, int h,
                                  const uchar4 *__restrict__ lut, float lo, float inv_span, ks_matmul_tile grid,
                                  uchar4 *__restrict__ out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const int row_pic = h - 1 - py; /* rows bottom-up: C's row 0 at the top */
    long long i0, i1, j0, j1;
    ks_matmul_cells(row_pic, M, h, &i0, &i1);
    ks_matmul_cells(px, N, w, &j0, &j1);
    double sum = 0.0;
    for (long long i = i0; i < i1; ++i)
        for (long long j = j0; j < j1; ++j) sum += C[i * N + j];
    const float mean = (float)(sum / (double)((i1 - i0) * (j1 - j0)));
    uchar4 col = lut[ks_colormap_index(mean, lo, inv_span)];
    if ((grid.m > 0 && ks_matmul_edge(row_pic, M, h, grid.m)) || (grid.n > 0 && ks_matmul_edge(px, N, w, grid.n)))
        col = make_uchar4(255, 255, 255, 255);
    out[(size_t)py * w + px] = col;
}

/* ---- picture of the records: ks_matmul_tile_code, as the CPU's ---- */

__global__ void ks_mm_draw_tiles_kernel(const ks_matmul_tile_rec *__restrict__ rec, int M, int N, ks_matmul_tile bt, int edges,
                                        int pic, const uchar4 *__restrict__ table, unsigned long long first,
                                        float inv_span, int w, int h, uchar4 *__restrict__ out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const int code = ks_matmul_tile_code(px, h - 1 - py, M, N, w, h, bt, edges, rec, pic, first, inv_span);
    out[(size_t)py * w + px] = code == KS_MATMUL_TILE_EDGE   ? make_uchar4(20, 20, 20, 255)
                               : code == KS_MATMUL_TILE_NONE ? make_uchar4(96, 96, 96, 255)
                                                             : table[code];
}

/* ---- the hovered tile's bands over the picture drawn: ks_matmul_band_code, as the CPU's ---- */

__global__ void ks_mm_shade_bands_kernel(int M, int N, int w, int h, ks_matmul_band b, uchar4 *__restrict__ out)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const int code = ks_matmul_band_code(px, h - 1 - py, M, N, w, h, b.i0, b.i1, b.j0, b.j1);
    if (code == KS_MATMUL_BAND_KEEP) return;
    uchar4 c = out[(size_t)py * w + px];
    unsigned char rgba[4] = {c.x, c.y, c.z, c.w};
    ks_matmul_band_shade(code, rgba);
    out[(size_t)py * w + px] = make_uchar4(rgba[0], rgba[1], rgba[2], rgba[3]);
}

/* ---- context ---- */

extern "C" void ks_matmul_gpu_destroy(ks_matmul_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    if (g->blas) cublasDestroy(g->blas);
    cudaFree(g->a);
    cudaFree(g->b);
    cudaFree(g->c);
    cudaFree(g->lut);
    cudaFree(g->pal);
    cudaFree(g->rec);
    cudaFree(g->clock);
    ks_l2_flush_destroy(g->flush);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

static ks_status gpu_init(ks_matmul_gpu *g)
{
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaEventCreate(&g->e0));
    KS_CUDA_TRY(cudaEventCreate(&g->e1));
    KS_CUDA_TRY(cudaMalloc(&g->lut, 256 * 4));
    KS_CUDA_TRY(cudaMalloc(&g->pal, 256 * 4));
    KS_CUDA_TRY(cudaMalloc(&g->clock, sizeof *g->clock));
    KS_CUBLAS_TRY(cublasCreate(&g->blas));
    KS_CUBLAS_TRY(cublasSetStream(g->blas, g->stream));
    /* Plain FP32: pedantic math forbids tensor cores, TF32 and reduced-precision tricks. */
    KS_CUBLAS_TRY(cublasSetMathMode(g->blas, CUBLAS_PEDANTIC_MATH));
    return ks_matmul_rt_prepare();
}

extern "C" ks_status ks_matmul_gpu_create(ks_matmul_gpu **out)
{
    *out = NULL;
    ks_device_info dev;
    KS_TRY(ks_cuda_probe(&dev));
    if (!dev.present) return ks_fail(KS_ERR_NO_DEVICE, "matmul: no CUDA device");
    ks_matmul_gpu *g = (ks_matmul_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "matmul: out of host memory");
    g->cc = 10 * dev.cc_major + dev.cc_minor;
    g->sm_count = dev.sm_count;
    const ks_status st = gpu_init(g);
    if (st != KS_OK) {
        ks_matmul_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void *ks_matmul_gpu_stream(ks_matmul_gpu *g)
{
    return g ? (void *)g->stream : NULL;
}

static ks_status reserve(float **p, size_t *cap, size_t n, const char *what)
{
    if (*cap >= n) return KS_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    const cudaError_t err = cudaMalloc(p, n * sizeof(float));
    if (err != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return ks_fail(err == cudaErrorMemoryAllocation ? KS_ERR_OUT_OF_MEMORY : KS_ERR_CUDA,
                       "matmul: cannot allocate %s (%.1f MiB): %s", what, n * 4.0 / 1048576.0,
                       cudaGetErrorString(err));
    }
    *cap = n;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_setup(ks_matmul_gpu *g, const ks_matmul_size *s)
{
    KS_TRY(ks_matmul_size_check(s));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    g->have_size = 0;
    const size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
    KS_TRY(reserve(&g->a, &g->cap_a, na, "A"));
    KS_TRY(reserve(&g->b, &g->cap_b, nb, "B"));
    KS_TRY(reserve(&g->c, &g->cap_c, nc, "C"));
    ks_mm_fill_kernel<<<1024, 256, 0, g->stream>>>(g->a, (long long)na, g->b, (long long)nb);
    KS_CUDA_TRY_LAUNCH("fill");
    /* regtile's shape for this size: the measured table, else the fastest of a quick tune on
     * these matrices (C is written by every run anyway) */
    if (!ks_matmul_rt_choose(s, g->cc, g->sm_count, &g->rt)) KS_TRY(ks_matmul_rt_tune(g->a, g->b, g->c, s, g->stream, &g->rt));
    g->size = *s;
    g->have_size = 1;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_upload(ks_matmul_gpu *g, const float *a, const float *b)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    const ks_matmul_size *s = &g->size;
    KS_CUDA_TRY(cudaMemcpyAsync(g->a, a, (size_t)s->m * s->k * sizeof(float), cudaMemcpyHostToDevice, g->stream));
    KS_CUDA_TRY(cudaMemcpyAsync(g->b, b, (size_t)s->k * s->n * sizeof(float), cudaMemcpyHostToDevice, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_matmul_tile ks_matmul_gpu_block_tile(ks_matmul_gpu *g, ks_matmul_variant v, int tile)
{
    return ks_matmul_block_tile(v, tile, g->rt.config);
}

extern "C" ks_status ks_matmul_gpu_set_regtile(ks_matmul_gpu *g, int i)
{
    const ks_matmul_rt_config *c = ks_matmul_rt_get(i);
    if (!c) return ks_fail(KS_ERR_INVALID, "matmul: no regtile shape %d", i);
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    if (c->vec && !ks_matmul_rt_vec_ok(&g->size))
        return ks_fail(KS_ERR_UNSUPPORTED, "matmul: regtile %s needs K and N multiples of 4 (%dx%dx%d)", c->name,
                       g->size.m, g->size.n, g->size.k);
    memset(&g->rt, 0, sizeof g->rt);
    g->rt.config = i;
    g->rt.how = KS_MM_RT_ASKED;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_regtile(ks_matmul_gpu *g, ks_matmul_rt_choice *out)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    *out = g->rt;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_poison(ks_matmul_gpu *g)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    KS_CUDA_TRY(cudaMemsetAsync(g->c, 0xFF, (size_t)g->size.m * g->size.n * sizeof(float), g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_run(ks_matmul_gpu *g, ks_matmul_variant v, int tile)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    const int M = g->size.m, N = g->size.n, K = g->size.k;
    if (v == KS_MATMUL_TILED && tile != 8 && tile != 16 && tile != 32)
        return ks_fail(KS_ERR_INVALID, "matmul: tiled takes tile 8, 16 or 32, not %d", tile);
    /* records: one per block of this launch (none for cuBLAS) */
    ks_matmul_tile_rec *rec = NULL;
    g->rec_count = 0;
    if (g->record && v != KS_MATMUL_CUBLAS && v >= 0 && v < KS_MATMUL_NUM) {
        const ks_matmul_tile bt = ks_matmul_gpu_block_tile(g, v, tile);
        int tx, ty;
        ks_matmul_tile_grid(&g->size, bt, &tx, &ty);
        const size_t n = (size_t)tx * ty;
        if (g->cap_rec < n) {
            cudaFree(g->rec);
            g->rec = NULL;
            g->cap_rec = 0;
            KS_CUDA_TRY(cudaMalloc(&g->rec, n * sizeof *g->rec));
            g->cap_rec = n;
            KS_CUDA_TRY(cudaMemsetAsync(g->rec, 0, n * sizeof *g->rec, g->stream));
        }
        rec = g->rec;
        g->rec_count = (int)n;
        g->rec_bt = bt;
    }
    switch (v) {
    case KS_MATMUL_NAIVE:
    case KS_MATMUL_TILED: KS_TRY(ks_matmul_launch_ours(v, tile, g->a, g->b, g->c, &g->size, rec, g->stream)); break;
    case KS_MATMUL_REGTILE: KS_TRY(ks_matmul_rt_run(g->rt.config, g->a, g->b, g->c, &g->size, rec, g->stream)); break;
    case KS_MATMUL_CUBLAS: {
        /* cuBLAS is column-major: a row-major C (MxN) is a column-major C^T (NxM),
         * and C^T = B^T A^T with B^T the column-major view of B (N x K, ld N). */
        const float one = 1.0f, zero = 0.0f;
        KS_CUBLAS_TRY(cublasSgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, g->b, N, g->a, K, &zero,
                                  g->c, N));
        break;
    }
    default: return ks_fail(KS_ERR_INVALID, "matmul: unknown variant %d", (int)v);
    }
    KS_CUDA_TRY_LAUNCH("matmul");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_download(ks_matmul_gpu *g, float *c)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    KS_CUDA_TRY(cudaMemcpyAsync(c, g->c, (size_t)g->size.m * g->size.n * sizeof(float), cudaMemcpyDeviceToHost,
                                g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_draw(ks_matmul_gpu *g, int w, int h, const unsigned char lut[256][4], float lo,
                                        float hi, ks_matmul_tile grid_tile, void *rgba)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    KS_CUDA_TRY(cudaMemcpyAsync(g->lut, lut, 256 * 4, cudaMemcpyHostToDevice, g->stream));
    const float inv = hi > lo ? 1.0f / (hi - lo) : 1.0f;
    const dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    ks_mm_draw_kernel<<<grid, block, 0, g->stream>>>(g->c, g->size.m, g->size.n, w, h, (const uchar4 *)g->lut, lo,
                                                      inv, grid_tile, (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("matmul draw");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_read(ks_matmul_gpu *g, int i, int j, float *value)
{
    if (!g->have_size || i < 0 || j < 0 || i >= g->size.m || j >= g->size.n)
        return ks_fail(KS_ERR_INVALID, "matmul: no element C[%d][%d]", i, j);
    KS_CUDA_TRY(cudaMemcpyAsync(value, g->c + (size_t)i * g->size.n + j, sizeof(float), cudaMemcpyDeviceToHost,
                                g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_set_record(ks_matmul_gpu *g, int on)
{
    g->record = on != 0;
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_records(ks_matmul_gpu *g, ks_matmul_tile_rec *rec, int n, int *count)
{
    *count = g->rec_count;
    const int k = g->rec_count < n ? g->rec_count : n;
    if (k > 0)
        KS_CUDA_TRY(cudaMemcpyAsync(rec, g->rec, (size_t)k * sizeof *rec, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_clock(ks_matmul_gpu *g, unsigned long long *ns)
{
    ks_mm_clock_kernel<<<1, 1, 0, g->stream>>>(g->clock);
    KS_CUDA_TRY_LAUNCH("matmul clock");
    KS_CUDA_TRY(cudaMemcpyAsync(ns, g->clock, sizeof *ns, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_draw_tiles(ks_matmul_gpu *g, ks_matmul_tile bt, ks_matmul_picture pic,
                                              const unsigned char pal[256][4], const unsigned char lut[256][4],
                                              unsigned long long first, unsigned long long last, int w, int h,
                                              void *rgba)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    if (g->rec_count == 0 || bt.m != g->rec_bt.m || bt.n != g->rec_bt.n)
        return ks_fail(KS_ERR_INVALID, "matmul: no records of block tile %dx%d from the last run", bt.m, bt.n);
    unsigned char *table = pic == KS_MATMUL_PIC_UNIT ? g->pal : g->lut;
    KS_CUDA_TRY(cudaMemcpyAsync(table, pic == KS_MATMUL_PIC_UNIT ? pal : lut, 256 * 4, cudaMemcpyHostToDevice,
                                g->stream));
    const float inv = ks_colormap_inv_span(0.0f, (float)(last - first));
    const int edges = ks_matmul_tile_edges(g->size.m, g->size.n, bt, w, h);
    const dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    ks_mm_draw_tiles_kernel<<<grid, block, 0, g->stream>>>(g->rec, g->size.m, g->size.n, bt, edges, (int)pic,
                                                           (const uchar4 *)table, first, inv, w, h,
                                                           (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("matmul draw tiles");
    return KS_OK;
}

extern "C" ks_status ks_matmul_gpu_shade_bands(ks_matmul_gpu *g, const ks_matmul_band *b, int w, int h, void *rgba)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    const dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    ks_mm_shade_bands_kernel<<<grid, block, 0, g->stream>>>(g->size.m, g->size.n, w, h, *b, (uchar4 *)rgba);
    KS_CUDA_TRY_LAUNCH("matmul shade bands");
    return KS_OK;
}

/* ---- a user's kernel (matmul_user.h) ---- */

extern "C" ks_status ks_matmul_gpu_run_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3])
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    g->rec_count = 0; /* a user's kernel keeps no per-block records */
    KS_TRY(ks_matmul_user_launch(u, block, g->a, g->b, g->c, &g->size, g->stream));
    KS_CUDA_TRY_LAUNCH("matmul (your kernel)");
    return KS_OK;
}

/* ---- timing: ours, or a user's kernel at its block ---- */

typedef struct mm_run {
    ks_matmul_variant v;         /* ours, when user is NULL */
    int tile;
    const ks_matmul_user *user;  /* a user's kernel */
    const int *block;            /* its block */
} mm_run;

static ks_status run(ks_matmul_gpu *g, const mm_run *r)
{
    return r->user ? ks_matmul_gpu_run_user(g, r->user, r->block) : ks_matmul_gpu_run(g, r->v, r->tile);
}

/* One run between the context's two events. */
static ks_status run_timed(ks_matmul_gpu *g, const mm_run *r, double *ms)
{
    KS_CUDA_TRY(cudaEventRecord(g->e0, g->stream));
    KS_TRY(run(g, r));
    KS_CUDA_TRY(cudaEventRecord(g->e1, g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(g->e1));
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&f, g->e0, g->e1));
    *ms = f;
    return KS_OK;
}

typedef struct mm_timed {
    ks_matmul_gpu *g;
    const mm_run *r;
} mm_timed;

static ks_status mm_sample(void *ctx, double *ms)
{
    const mm_timed *t = (const mm_timed *)ctx;
    return run_timed(t->g, t->r, ms);
}

static ks_status mm_flush(void *ctx)
{
    ks_matmul_gpu *g = ((const mm_timed *)ctx)->g;
    return ks_l2_flush_run(&g->flush, g->stream);
}

/* The benches' loop (bench_timing.h) over run_timed; working set A, B and C. */
static ks_status time_runs(ks_matmul_gpu *g, const mm_run *r, const ks_timing_opts *o, ks_timing *out)
{
    if (!g->have_size) return ks_fail(KS_ERR_INVALID, "matmul: no size set");
    const ks_matmul_size *s = &g->size;
    double l2 = 0.0;
    KS_TRY(ks_cuda_l2_bytes(&l2));
    mm_timed t = {g, r};
    const ks_timing_run run = {mm_sample, mm_flush, &t,
                               4.0 * ((double)s->m * s->k + (double)s->k * s->n + (double)s->m * s->n), l2};
    return ks_timing_measure(&run, o, out);
}

extern "C" ks_status ks_matmul_gpu_run_timed(ks_matmul_gpu *g, ks_matmul_variant v, int tile, double *ms)
{
    const mm_run r = {v, tile, NULL, NULL};
    return run_timed(g, &r, ms);
}

extern "C" ks_status ks_matmul_gpu_time(ks_matmul_gpu *g, ks_matmul_variant v, int tile, const ks_timing_opts *o,
                                        ks_timing *out)
{
    const mm_run r = {v, tile, NULL, NULL};
    return time_runs(g, &r, o, out);
}

extern "C" ks_status ks_matmul_gpu_run_user_timed(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3],
                                                  double *ms)
{
    const mm_run r = {KS_MATMUL_NAIVE, 0, u, block};
    return run_timed(g, &r, ms);
}

extern "C" ks_status ks_matmul_gpu_time_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3],
                                             const ks_timing_opts *o, ks_timing *out)
{
    const mm_run r = {KS_MATMUL_NAIVE, 0, u, block};
    return time_runs(g, &r, o, out);
}
