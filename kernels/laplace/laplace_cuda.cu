/* Laplace on CUDA: the Oxford Practical 3 style kernels (kmarch, block3d, block2d,
 * smem2d), the shared block checks, and the solver object (fields, stream,
 * residual, slice rendering, non-blocking readback, timing). The optimised
 * variants live in laplace_fast.cu. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/ks_util.h"
#include "laplace_launch.h"
#include "kernels/histogram/histogram.h"

/* ================= shared helpers ================= */

void ks_lblock_text(const int block[3], char *buf, size_t len)
{
    if (block[2] != 1)
        snprintf(buf, len, "%dx%dx%d", block[0], block[1], block[2]);
    else
        snprintf(buf, len, "%dx%d", block[0], block[1]);
}

ks_status ks_lcheck_block_limits(const ks_lsweep *sw, int threads, size_t dyn_smem)
{
    const cudaDeviceProp *p = sw->prop;
    char txt[64];
    ks_lblock_text(sw->block, txt, sizeof txt);
    for (int d = 0; d < 3; ++d) {
        if (sw->block[d] < 1)
            return ks_fail(KS_ERR_UNSUPPORTED, "block %s has 0 threads; every component must be >= 1",
                           txt);
    }
    const long long total = (long long)sw->block[0] * sw->block[1] * sw->block[2];
    if (total > p->maxThreadsPerBlock)
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s has %lld threads; %s allows %d per block", txt,
                       total, p->name, p->maxThreadsPerBlock);
    if (threads > p->maxThreadsPerBlock)
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s needs %d threads; %s allows %d per block", txt,
                       threads, p->name, p->maxThreadsPerBlock);
    static const char axis[3] = {'x', 'y', 'z'};
    for (int d = 0; d < 3; ++d) {
        if (sw->block[d] > p->maxThreadsDim[d])
            return ks_fail(KS_ERR_UNSUPPORTED, "block %s: %c extent %d exceeds %s's limit of %d", txt,
                           axis[d], sw->block[d], p->name, p->maxThreadsDim[d]);
    }
    if (dyn_smem > p->sharedMemPerBlockOptin)
        return ks_fail(KS_ERR_UNSUPPORTED,
                       "block %s needs %zu bytes of shared memory; %s allows %zu per block", txt,
                       dyn_smem, p->name, (size_t)p->sharedMemPerBlockOptin);
    return KS_OK;
}

ks_status ks_lcheck_kernel(const ks_lsweep *sw, const void *fn, const char *name, int threads,
                           size_t dyn_smem)
{
    KS_TRY(ks_lcheck_block_limits(sw, threads, dyn_smem));
    if (!sw->dry_run) return KS_OK; /* validated before the launch loop */
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, fn));
    ks_kernel_attrs at;
    KS_TRY(ks_cuda_kernel_attrs(fn, threads, dyn_smem, sw->prop->maxThreadsPerMultiProcessor, &at));
    char txt[64];
    ks_lblock_text(sw->block, txt, sizeof txt);
    if (threads > fa.maxThreadsPerBlock) /* registers decide it where no launch bounds do */
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: %s allows at most %d threads per block on %s",
                       txt, name, fa.maxThreadsPerBlock, sw->prop->name);
    if (at.blocks_per_sm < 1)
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: %s cannot be resident on %s", txt, name,
                       sw->prop->name);
    if (sw->attrs) *sw->attrs = at;
    return KS_OK;
}


static unsigned ks_div_up(long long a, long long b) { return (unsigned)((a + b - 1) / b); }

/* ============ Oxford Practical 3 style kernels ============ */

/* 2D thread blocks over (i, j); each thread walks its column in k and copies
 * boundary points (the practical's structure, per-point boundary branch). */
__global__ void jacobi3d_kmarch_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                                       int ny, int nz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const size_t kstride = (size_t)nx * (size_t)ny;
    size_t ind = (size_t)i + (size_t)j * (size_t)nx;
    for (int k = 0; k < nz; ++k, ind += kstride) {
        if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1)
            u2[ind] = u1[ind];
        else
            u2[ind] = ks_stencil6(u1[ind - 1], u1[ind + 1], u1[ind - nx], u1[ind + nx],
                                  u1[ind - kstride], u1[ind + kstride]);
    }
}

/* 3D thread blocks, one point per thread. */
__global__ void jacobi3d_block3d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                                        int ny, int nz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;
    const size_t kstride = (size_t)nx * (size_t)ny;
    const size_t ind = (size_t)i + (size_t)j * (size_t)nx + (size_t)k * kstride;
    if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1)
        u2[ind] = u1[ind];
    else
        u2[ind] = ks_stencil6(u1[ind - 1], u1[ind + 1], u1[ind - nx], u1[ind + nx],
                              u1[ind - kstride], u1[ind + kstride]);
}

/* 2D, one point per thread, all loads from global (L1). */
__global__ void jacobi2d_block2d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx,
                                        int ny)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const size_t ind = (size_t)i + (size_t)j * (size_t)nx;
    if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1)
        u2[ind] = u1[ind];
    else
        u2[ind] = ks_stencil4(u1[ind - 1], u1[ind + 1], u1[ind - nx], u1[ind + nx]);
}

/* 2D, the block's tile plus a one-point halo staged in shared memory
 * ((bx+2) x (by+2) floats, dynamic), then one point per thread. */
__global__ void jacobi2d_smem_tile_kernel(const float *__restrict__ u1, float *__restrict__ u2,
                                          int nx, int ny)
{
    extern __shared__ float ks_tile2d[];
    const int tw = blockDim.x + 2, th = blockDim.y + 2;
    const int i0 = blockIdx.x * blockDim.x - 1, j0 = blockIdx.y * blockDim.y - 1;
    const int tid = threadIdx.x + threadIdx.y * blockDim.x;
    const int nthreads = blockDim.x * blockDim.y;
    for (int t = tid; t < tw * th; t += nthreads) {
        const int gi = i0 + t % tw, gj = j0 + t / tw;
        float v = 0.0f;
        if (gi >= 0 && gi < nx && gj >= 0 && gj < ny) v = u1[(size_t)gi + (size_t)gj * (size_t)nx];
        ks_tile2d[t] = v;
    }
    __syncthreads();
    const int i = i0 + 1 + threadIdx.x, j = j0 + 1 + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int c = (threadIdx.x + 1) + (threadIdx.y + 1) * tw;
    float v = ks_tile2d[c];
    if (!(i == 0 || i == nx - 1 || j == 0 || j == ny - 1))
        v = ks_stencil4(ks_tile2d[c - 1], ks_tile2d[c + 1], ks_tile2d[c - tw], ks_tile2d[c + tw]);
    u2[(size_t)i + (size_t)j * (size_t)nx] = v;
}

/* ================= launchers ================= */

ks_status ks_lcheck_grid_dim(const ks_lsweep *sw, int axis, unsigned blocks)
{
    if (blocks <= (unsigned)sw->prop->maxGridSize[axis]) return KS_OK;
    return ks_fail(KS_ERR_UNSUPPORTED, "grid needs %u blocks in %c; %s allows %d", blocks,
                   "xyz"[axis], sw->prop->name, sw->prop->maxGridSize[axis]);
}

ks_status ks_lneed_2d_block(const ks_lsweep *sw, const char *name)
{
    if (sw->block[2] != 1) {
        char txt[64];
        ks_lblock_text(sw->block, txt, sizeof txt);
        return ks_fail(KS_ERR_UNSUPPORTED, "block %s: %s takes a 2D block (bx x by)", txt, name);
    }
    return KS_OK;
}

ks_status ks_llaunch_kmarch(const ks_lsweep *sw)
{
    const int *b = sw->block;
    KS_TRY(ks_lneed_2d_block(sw, "kmarch"));
    KS_TRY(ks_lcheck_kernel(sw, (const void *)jacobi3d_kmarch_kernel, "kmarch", b[0] * b[1], 0));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    dim3 block(b[0], b[1]), grid(ks_div_up(g->nx, b[0]), ks_div_up(g->ny, b[1]));
    jacobi3d_kmarch_kernel<<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx, g->ny, g->nz);
    KS_CUDA_TRY_LAUNCH("jacobi3d_kmarch_kernel");
    return KS_OK;
}

ks_status ks_llaunch_block3d(const ks_lsweep *sw)
{
    const int *b = sw->block;
    KS_TRY(ks_lcheck_kernel(sw, (const void *)jacobi3d_block3d_kernel, "block3d", b[0] * b[1] * b[2],
                            0));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    const unsigned gz = ks_div_up(g->nz, b[2]);
    KS_TRY(ks_lcheck_grid_dim(sw, 2, gz));
    dim3 block(b[0], b[1], b[2]), grid(ks_div_up(g->nx, b[0]), ks_div_up(g->ny, b[1]), gz);
    jacobi3d_block3d_kernel<<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx, g->ny, g->nz);
    KS_CUDA_TRY_LAUNCH("jacobi3d_block3d_kernel");
    return KS_OK;
}

ks_status ks_llaunch_block2d(const ks_lsweep *sw)
{
    const int *b = sw->block;
    KS_TRY(ks_lneed_2d_block(sw, "block2d"));
    KS_TRY(ks_lcheck_kernel(sw, (const void *)jacobi2d_block2d_kernel, "block2d", b[0] * b[1], 0));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    const unsigned gy = ks_div_up(g->ny, b[1]);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    dim3 block(b[0], b[1]), grid(ks_div_up(g->nx, b[0]), gy);
    jacobi2d_block2d_kernel<<<grid, block, 0, sw->stream>>>(sw->in, sw->out, g->nx, g->ny);
    KS_CUDA_TRY_LAUNCH("jacobi2d_block2d_kernel");
    return KS_OK;
}

ks_status ks_llaunch_smem2d(const ks_lsweep *sw)
{
    const int *b = sw->block;
    KS_TRY(ks_lneed_2d_block(sw, "smem2d"));
    const size_t smem = (size_t)(b[0] + 2) * (size_t)(b[1] + 2) * sizeof(float);
    KS_TRY(ks_lcheck_block_limits(sw, b[0] * b[1], smem)); /* before asking for smem */
    const void *fn = (const void *)jacobi2d_smem_tile_kernel;
    if (smem > 48 * 1024)
        KS_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    KS_TRY(ks_lcheck_kernel(sw, fn, "smem2d", b[0] * b[1], smem));
    if (sw->dry_run) return KS_OK;
    const ks_grid *g = sw->grid;
    const unsigned gy = ks_div_up(g->ny, b[1]);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    dim3 block(b[0], b[1]), grid(ks_div_up(g->nx, b[0]), gy);
    jacobi2d_smem_tile_kernel<<<grid, block, smem, sw->stream>>>(sw->in, sw->out, g->nx, g->ny);
    KS_CUDA_TRY_LAUNCH("jacobi2d_smem_tile_kernel");
    return KS_OK;
}

/* ================= solver ================= */

enum { KS_LREADBACK_SLOTS = 8 }; /* more than the frames a host may run ahead */

/* What one readback copies into pinned memory. */
typedef struct ks_lreadback_raw {
    double residual_sum;   /* the residual accumulator */
    unsigned minmax[2];    /* order-preserving encodings of the slice min, max */
    float probe;
} ks_lreadback_raw;

typedef struct ks_lreadback_slot {
    ks_lreadback_raw *host; /* pinned */
    cudaEvent_t done;
    int pending;            /* requested and not yet handed out */
    long long seq;          /* request order */
    int had_residual, has_probe;
    int probe[3];
    long long iteration;
} ks_lreadback_slot;

struct ks_lsolver {
    ks_grid g;
    size_t points, bytes;
    int device;
    cudaDeviceProp prop;
    cudaStream_t stream;
    float *cur, *prev;      /* cur = newest iterate, prev = the one before */
    double *d_residual;     /* residual accumulator (sum of squares) */
    unsigned *d_minmax;     /* encoded slice min, max */
    int have_residual;      /* a residual was enqueued at least once */
    ks_lreadback_slot slots[KS_LREADBACK_SLOTS];
    long long next_seq;
    cudaEvent_t t0, t1;     /* timing pair */
    ks_hist_ctx *hctx;      /* the value histogram (created on first use) */
    unsigned *d_hist;
    ks_lhist *h_hist;       /* pinned: where the counts land */
    cudaEvent_t hist_done;
    int hist_pending;
    ks_lhist hist_req;      /* bins, range and iteration of the request in flight */
};

/* The colormap currently in constant memory (one per process, so switching
 * maps re-uploads: 1 KiB, in stream order). */
__constant__ uchar4 c_ks_colormap_rgba[256];
static int ks_colormap_loaded = -1;

static ks_status ks_lcheck_grid(const ks_grid *g)
{
    if (!g || (g->dims != 2 && g->dims != 3))
        return ks_fail(KS_ERR_INVALID, "grid must be 2D or 3D");
    if (g->nx < 3 || g->ny < 3 || (g->dims == 3 && g->nz < 3) || (g->dims == 2 && g->nz != 1))
        return ks_fail(KS_ERR_INVALID, "grid %dx%dx%d: need >= 3 points per axis (nz = 1 in 2D)",
                       g->nx, g->ny, g->nz);
    return KS_OK;
}

static ks_status ks_lsolver_alloc(ks_lsolver *s)
{
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaMalloc((void **)&s->cur, s->bytes));
    KS_CUDA_TRY(cudaMalloc((void **)&s->prev, s->bytes));
    KS_CUDA_TRY(cudaMalloc((void **)&s->d_residual, sizeof(double)));
    KS_CUDA_TRY(cudaMalloc((void **)&s->d_minmax, 2 * sizeof(unsigned)));
    KS_CUDA_TRY(cudaMemset(s->d_residual, 0, sizeof(double)));
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n) {
        KS_CUDA_TRY(cudaMallocHost((void **)&s->slots[n].host, sizeof(ks_lreadback_raw)));
        KS_CUDA_TRY(cudaEventCreateWithFlags(&s->slots[n].done, cudaEventDisableTiming));
    }
    KS_CUDA_TRY(cudaEventCreate(&s->t0));
    KS_CUDA_TRY(cudaEventCreate(&s->t1));
    return KS_OK;
}

ks_status ks_lsolver_create(const ks_grid *g, ks_lsolver **out)
{
    *out = NULL;
    KS_TRY(ks_lcheck_grid(g));
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        return ks_fail(KS_ERR_NO_DEVICE, "no CUDA device");
    }
    ks_lsolver *s = (ks_lsolver *)calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "solver: host allocation failed");
    s->g = *g;
    if (s->g.dims == 2) s->g.nz = 1;
    s->points = ks_grid_points(&s->g);
    s->bytes = ks_grid_bytes(&s->g);
    ks_status st = KS_OK;
    size_t free_b = 0, total_b = 0;
    if (cudaGetDevice(&s->device) != cudaSuccess ||
        cudaGetDeviceProperties(&s->prop, s->device) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        st = ks_fail(KS_ERR_CUDA, "solver: cannot query the CUDA device: %s",
                     cudaGetErrorString(cudaGetLastError()));
    } else {
        const double need = 2.0 * (double)s->bytes;
        const double gib = 1024.0 * 1024.0 * 1024.0;
        /* leave a little room for the driver, the render buffer and scratch */
        if (need + 64.0 * 1024.0 * 1024.0 > (double)free_b)
            st = ks_fail(KS_ERR_OUT_OF_MEMORY,
                         "grid %dx%dx%d needs %.1f GiB of GPU memory (2 fields), %s has %.1f GiB free",
                         g->nx, g->ny, s->g.nz, need / gib, s->prop.name, (double)free_b / gib);
    }
    if (st == KS_OK) st = ks_lsolver_alloc(s);
    if (st != KS_OK) {
        ks_lsolver_destroy(s);
        return st;
    }
    *out = s;
    return KS_OK;
}

void ks_lsolver_destroy(ks_lsolver *s)
{
    if (!s) return;
    if (s->stream) cudaStreamSynchronize(s->stream);
    cudaFree(s->cur);
    cudaFree(s->prev);
    cudaFree(s->d_residual);
    cudaFree(s->d_minmax);
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n) {
        if (s->slots[n].host) cudaFreeHost(s->slots[n].host);
        if (s->slots[n].done) cudaEventDestroy(s->slots[n].done);
    }
    if (s->t0) cudaEventDestroy(s->t0);
    if (s->t1) cudaEventDestroy(s->t1);
    cudaFree(s->d_hist);
    if (s->h_hist) cudaFreeHost(s->h_hist);
    if (s->hist_done) cudaEventDestroy(s->hist_done);
    ks_hist_ctx_destroy(s->hctx);
    if (s->stream) cudaStreamDestroy(s->stream);
    cudaGetLastError(); /* nothing to report on the way out */
    free(s);
}

void *ks_lsolver_stream(ks_lsolver *s) { return (void *)s->stream; }

ks_status ks_lsolver_upload(ks_lsolver *s, const float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(s->cur, host, s->bytes, cudaMemcpyHostToDevice, s->stream));
    KS_CUDA_TRY(cudaMemcpyAsync(s->prev, host, s->bytes, cudaMemcpyHostToDevice, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

ks_status ks_lsolver_upload_previous(ks_lsolver *s, const float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(s->prev, host, s->bytes, cudaMemcpyHostToDevice, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

ks_status ks_lsolver_download(ks_lsolver *s, float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(host, s->cur, s->bytes, cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

ks_status ks_lsolver_download_previous(ks_lsolver *s, float *host)
{
    KS_CUDA_TRY(cudaMemcpyAsync(host, s->prev, s->bytes, cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(s->stream));
    return KS_OK;
}

/* The launcher of each variant, at the variant's index (laplace.h's rows). */
#define KS_LLAUNCH_ROW(name, summary, dims, rank, bx, by, bz, steps) ks_llaunch_##name,
static const ks_llaunch_fn ks_llaunchers[] = {KS_LVARIANT_ROWS(KS_LLAUNCH_ROW)};
#undef KS_LLAUNCH_ROW

static ks_status ks_llookup(const ks_lsolver *s, int variant, const ks_lvariant_info **info,
                            ks_llaunch_fn *fn)
{
    const ks_lvariant_info *v = ks_lvariant_get(variant);
    if (!v) return ks_fail(KS_ERR_INVALID, "no kernel variant %d", variant);
    if (v->dims != s->g.dims)
        return ks_fail(KS_ERR_INVALID, "variant %s is for %dD grids, this grid is %dD", v->name,
                       v->dims, s->g.dims);
    *info = v;
    *fn = ks_llaunchers[variant];
    return KS_OK;
}

static void ks_lsweep_init(const ks_lsolver *s, const int block[3], ks_lsweep *sw)
{
    memset(sw, 0, sizeof *sw);
    sw->grid = &s->g;
    sw->in = s->cur;
    sw->out = s->prev;
    for (int d = 0; d < 3; ++d) sw->block[d] = block[d];
    sw->steps = 1;
    sw->stream = s->stream;
    sw->prop = &s->prop;
}

ks_status ks_lsolver_check_block(const ks_lsolver *s, int variant, const int block[3])
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_llookup(s, variant, &info, &fn));
    ks_lsweep sw;
    ks_lsweep_init(s, block, &sw);
    sw.steps = info->steps_per_launch;
    sw.dry_run = 1;
    return fn(&sw);
}

ks_status ks_lsolver_kernel_attrs(const ks_lsolver *s, int variant, const int block[3],
                                  ks_kernel_attrs *out)
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_llookup(s, variant, &info, &fn));
    ks_lsweep sw;
    ks_lsweep_init(s, block, &sw);
    sw.steps = info->steps_per_launch;
    sw.dry_run = 1;
    sw.attrs = out;
    return fn(&sw);
}

static ks_status ks_lsolver_sweep(ks_lsolver *s, ks_llaunch_fn fn, const int block[3], int steps)
{
    ks_lsweep sw;
    ks_lsweep_init(s, block, &sw);
    sw.steps = steps;
    KS_TRY(fn(&sw));
    float *t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return KS_OK;
}

ks_status ks_lsolver_iterate(ks_lsolver *s, int variant, const int block[3], int iters)
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_llookup(s, variant, &info, &fn));
    if (iters < 0) return ks_fail(KS_ERR_INVALID, "iterations must be >= 0, got %d", iters);
    if (iters == 0) return KS_OK;
    const int T = info->steps_per_launch;
    /* Validated once here (a dry run), so the launches skip the driver queries */
    ks_lsweep sw;
    ks_lsweep_init(s, block, &sw);
    sw.dry_run = 1;
    if (T <= 1) {
        KS_TRY(fn(&sw));
        for (int n = 0; n < iters; ++n) KS_TRY(ks_lsolver_sweep(s, fn, block, 1));
        return KS_OK;
    }
    /* Temporally blocked: launches of up to T steps, then one single step with
     * regq so that prev holds iterate n-1. Validate both before launching. */
    sw.steps = iters - 1 < T ? iters - 1 : T;
    if (sw.steps > 0) KS_TRY(fn(&sw));
    sw.steps = 1;
    KS_TRY(ks_llaunch_regq(&sw));
    int rem = iters - 1;
    while (rem > 0) {
        const int st = rem < T ? rem : T;
        KS_TRY(ks_lsolver_sweep(s, fn, block, st));
        rem -= st;
    }
    return ks_lsolver_sweep(s, ks_llaunch_regq, block, 1);
}

/* ---- residual: sum of (cur - prev)^2 ---- */

static __device__ __forceinline__ double ks_warp_sum(double v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* Grid-stride partial sums in double, a warp-shuffle reduction per warp, the
 * warps' sums through shared memory, then one atomicAdd per block. */
__global__ void residual_sumsq_shfl_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                           size_t n, double *__restrict__ acc)
{
    __shared__ double warp_sums[32];
    double sum = 0.0;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n;
         p += (size_t)gridDim.x * blockDim.x) {
        const double d = (double)a[p] - (double)b[p];
        sum += d * d;
    }
    sum = ks_warp_sum(sum);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        sum = lane < nwarps ? warp_sums[lane] : 0.0;
        sum = ks_warp_sum(sum);
        if (lane == 0) atomicAdd(acc, sum);
    }
}

ks_status ks_lsolver_residual(ks_lsolver *s)
{
    KS_CUDA_TRY(cudaMemsetAsync(s->d_residual, 0, sizeof(double), s->stream));
    const int threads = 256;
    long long blocks = (long long)s->prop.multiProcessorCount * 8;
    const long long need = ((long long)s->points + threads - 1) / threads;
    if (blocks > need) blocks = need;
    residual_sumsq_shfl_kernel<<<(unsigned)blocks, threads, 0, s->stream>>>(s->cur, s->prev,
                                                                            s->points, s->d_residual);
    KS_CUDA_TRY_LAUNCH("residual_sumsq_shfl_kernel");
    s->have_residual = 1;
    return KS_OK;
}

/* ---- slices on the device ---- */

typedef struct ks_lslice_map {
    int w, h;
    size_t base;        /* index of pixel (0, 0) */
    size_t sa, sb;      /* index step per pixel in a, in b */
} ks_lslice_map;

static ks_lslice_map ks_lslice_make(const ks_grid *g, ks_axis axis, int index)
{
    ks_lslice_map m;
    ks_slice_dims(g, axis, &m.w, &m.h);
    int p0[3], pa[3], pb[3];
    ks_slice_point(g, axis, index, 0, 0, p0);
    ks_slice_point(g, axis, index, 1, 0, pa);
    ks_slice_point(g, axis, index, 0, 1, pb);
    const size_t sx = 1, sy = (size_t)g->nx, sz = (size_t)g->nx * (size_t)g->ny;
    m.base = (size_t)p0[0] * sx + (size_t)p0[1] * sy + (size_t)p0[2] * sz;
    m.sa = (size_t)(pa[0] - p0[0]) * sx + (size_t)(pa[1] - p0[1]) * sy + (size_t)(pa[2] - p0[2]) * sz;
    m.sb = (size_t)(pb[0] - p0[0]) * sx + (size_t)(pb[1] - p0[1]) * sy + (size_t)(pb[2] - p0[2]) * sz;
    return m;
}

static ks_status ks_lcheck_slice(const ks_lsolver *s, ks_axis axis, int index)
{
    if (axis < 0 || axis >= KS_AXIS_NUM) return ks_fail(KS_ERR_INVALID, "bad slice axis %d", axis);
    const int last = ks_slice_max_index(&s->g, axis);
    if (index < 0 || index > last)
        return ks_fail(KS_ERR_INVALID, "slice index %d outside 0..%d", index, last);
    return KS_OK;
}

__global__ void slice_colormap_rgba_kernel(const float *__restrict__ u, ks_lslice_map m, float lo,
                                           float inv_span, uchar4 *__restrict__ dst)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (a >= m.w || b >= m.h) return;
    const float v = u[m.base + (size_t)a * m.sa + (size_t)b * m.sb];
    dst[(size_t)b * (size_t)m.w + (size_t)a] = c_ks_colormap_rgba[ks_colormap_index(v, lo, inv_span)];
}

ks_status ks_lsolver_render_slice(ks_lsolver *s, ks_axis axis, int index, ks_colormap map,
                                  float lo, float hi, void *dst_rgba)
{
    KS_TRY(ks_lcheck_slice(s, axis, index));
    if (map < 0 || map >= KS_CMAP_NUM) return ks_fail(KS_ERR_INVALID, "bad colormap %d", map);
    if ((int)map != ks_colormap_loaded) {
        unsigned char table[256][4];
        ks_colormap_table_rgba(map, table);
        KS_CUDA_TRY(cudaMemcpyToSymbolAsync(c_ks_colormap_rgba, table, sizeof table, 0,
                                            cudaMemcpyHostToDevice, s->stream));
        ks_colormap_loaded = (int)map;
    }
    const ks_lslice_map m = ks_lslice_make(&s->g, axis, index);
    dim3 block(32, 8), grid(ks_div_up(m.w, 32), ks_div_up(m.h, 8));
    slice_colormap_rgba_kernel<<<grid, block, 0, s->stream>>>(
        s->cur, m, lo, ks_colormap_inv_span(lo, hi), (uchar4 *)dst_rgba);
    KS_CUDA_TRY_LAUNCH("slice_colormap_rgba_kernel");
    return KS_OK;
}

/* Floats as unsigned so that unsigned order is float order (atomicMin/Max). */
static __host__ __device__ __forceinline__ unsigned ks_float_order_key(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static float ks_float_from_order_key(unsigned u)
{
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

__global__ void slice_minmax_atomic_kernel(const float *__restrict__ u, ks_lslice_map m,
                                           unsigned *__restrict__ minmax)
{
    unsigned lo = 0xffffffffu, hi = 0u;
    const long long n = (long long)m.w * m.h;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < n;
         p += (long long)gridDim.x * blockDim.x) {
        const int a = (int)(p % m.w), b = (int)(p / m.w);
        const float v = u[m.base + (size_t)a * m.sa + (size_t)b * m.sb];
        if (v != v) continue; /* NaN takes no part */
        const unsigned key = ks_float_order_key(v);
        lo = min(lo, key);
        hi = max(hi, key);
    }
    for (int off = 16; off > 0; off >>= 1) {
        lo = min(lo, __shfl_down_sync(0xffffffffu, lo, off));
        hi = max(hi, __shfl_down_sync(0xffffffffu, hi, off));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&minmax[0], lo);
        atomicMax(&minmax[1], hi);
    }
}

ks_status ks_lsolver_request_readback(ks_lsolver *s, ks_axis axis, int index, const int probe[3],
                                      long long iteration)
{
    KS_TRY(ks_lcheck_slice(s, axis, index));
    /* A free slot; when every slot is still in flight (the host runs frames
     * ahead of the GPU) this request is skipped. Overwriting the oldest
     * instead would starve the reader: no request would ever finish before
     * being overwritten. */
    int pick = -1;
    for (int n = 0; n < KS_LREADBACK_SLOTS && pick < 0; ++n)
        if (!s->slots[n].pending) pick = n;
    if (pick < 0) return KS_OK;
    ks_lreadback_slot *slot = &s->slots[pick];
    int has_probe = probe != NULL;
    for (int d = 0; d < 3 && has_probe; ++d) {
        const int n = d == 0 ? s->g.nx : d == 1 ? s->g.ny : s->g.nz;
        if (probe[d] < 0 || probe[d] >= n) has_probe = 0;
    }
    const ks_lslice_map m = ks_lslice_make(&s->g, axis, index);
    KS_CUDA_TRY(cudaMemsetAsync(s->d_minmax, 0xff, sizeof(unsigned), s->stream));
    KS_CUDA_TRY(cudaMemsetAsync(s->d_minmax + 1, 0, sizeof(unsigned), s->stream));
    long long blocks = ((long long)m.w * m.h + 255) / 256;
    if (blocks > s->prop.multiProcessorCount * 4LL) blocks = s->prop.multiProcessorCount * 4LL;
    slice_minmax_atomic_kernel<<<(unsigned)blocks, 256, 0, s->stream>>>(s->cur, m, s->d_minmax);
    KS_CUDA_TRY_LAUNCH("slice_minmax_atomic_kernel");
    ks_lreadback_raw *h = slot->host;
    KS_CUDA_TRY(cudaMemcpyAsync(h->minmax, s->d_minmax, 2 * sizeof(unsigned),
                                cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaMemcpyAsync(&h->residual_sum, s->d_residual, sizeof(double),
                                cudaMemcpyDeviceToHost, s->stream));
    if (has_probe) {
        const size_t at = (size_t)probe[0] +
                          (size_t)s->g.nx * ((size_t)probe[1] + (size_t)s->g.ny * (size_t)probe[2]);
        KS_CUDA_TRY(cudaMemcpyAsync(&h->probe, s->cur + at, sizeof(float), cudaMemcpyDeviceToHost,
                                    s->stream));
    }
    KS_CUDA_TRY(cudaEventRecord(slot->done, s->stream));
    slot->pending = 1;
    slot->seq = s->next_seq++;
    slot->had_residual = s->have_residual;
    slot->has_probe = has_probe;
    for (int d = 0; d < 3; ++d) slot->probe[d] = has_probe ? probe[d] : -1;
    slot->iteration = iteration;
    return KS_OK;
}

int ks_lsolver_poll_readback(ks_lsolver *s, ks_lreadback *out)
{
    /* the newest finished request wins; older pending ones are dropped */
    int best = -1;
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n) {
        ks_lreadback_slot *slot = &s->slots[n];
        if (!slot->pending) continue;
        const cudaError_t e = cudaEventQuery(slot->done);
        if (e == cudaErrorNotReady) continue;
        if (e != cudaSuccess) {
            cudaGetLastError(); /* a real fault shows up at the next checked call */
            slot->pending = 0;
            continue;
        }
        if (best < 0 || slot->seq > s->slots[best].seq) best = n;
    }
    if (best < 0) return 0;
    const ks_lreadback_slot *b = &s->slots[best];
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n)
        if (s->slots[n].pending && s->slots[n].seq <= b->seq) s->slots[n].pending = 0;
    const ks_lreadback_raw *h = b->host;
    out->residual_rms = b->had_residual ? sqrt(h->residual_sum / (double)s->points) : -1.0;
    out->slice_min = ks_float_from_order_key(h->minmax[0]);
    out->slice_max = ks_float_from_order_key(h->minmax[1]);
    out->probe_value = b->has_probe ? h->probe : NAN;
    for (int d = 0; d < 3; ++d) out->probe[d] = b->probe[d];
    out->iteration = b->iteration;
    return 1;
}

/* ---- value histogram ---- */

ks_status ks_lsolver_request_histogram(ks_lsolver *s, float lo, float hi, int bins, long long iteration)
{
    if (!(lo < hi) || bins < 1 || bins > KS_LHIST_MAX_BINS)
        return ks_fail(KS_ERR_INVALID, "field histogram: range [%g, %g] and %d bins (lo < hi, 1..%d bins)", lo, hi,
                       bins, (int)KS_LHIST_MAX_BINS);
    if (!s->hctx) {
        KS_TRY(ks_hist_ctx_create(&s->hctx));
        KS_CUDA_TRY(cudaMalloc((void **)&s->d_hist, KS_LHIST_MAX_BINS * sizeof(unsigned)));
        KS_CUDA_TRY(cudaMallocHost((void **)&s->h_hist, sizeof(ks_lhist)));
        KS_CUDA_TRY(cudaEventCreateWithFlags(&s->hist_done, cudaEventDisableTiming));
    }
    if (s->hist_pending) {
        const cudaError_t e = cudaEventQuery(s->hist_done);
        if (e == cudaErrorNotReady) return KS_OK; /* the last one is still on its way */
        if (e != cudaSuccess) KS_CUDA_TRY(e);
    }
    KS_CUDA_TRY(cudaMemsetAsync(s->d_hist, 0, (size_t)bins * sizeof(unsigned), s->stream));
    KS_TRY(ks_hist_float_run(s->hctx, s->cur, s->points, lo, hi, (unsigned)bins, s->d_hist, s->stream));
    KS_CUDA_TRY(cudaMemcpyAsync(s->h_hist->counts, s->d_hist, (size_t)bins * sizeof(unsigned),
                                cudaMemcpyDeviceToHost, s->stream));
    KS_CUDA_TRY(cudaEventRecord(s->hist_done, s->stream));
    s->hist_req.bins = bins;
    s->hist_req.lo = lo;
    s->hist_req.hi = hi;
    s->hist_req.iteration = iteration;
    s->hist_pending = 1;
    return KS_OK;
}

int ks_lsolver_poll_histogram(ks_lsolver *s, ks_lhist *out)
{
    if (!s->hist_pending) return 0;
    const cudaError_t e = cudaEventQuery(s->hist_done);
    if (e == cudaErrorNotReady) return 0;
    s->hist_pending = 0;
    if (e != cudaSuccess) {
        cudaGetLastError(); /* a real fault shows up at the next checked call */
        return 0;
    }
    out->bins = s->hist_req.bins;
    out->lo = s->hist_req.lo;
    out->hi = s->hist_req.hi;
    out->iteration = s->hist_req.iteration;
    memcpy(out->counts, s->h_hist->counts, (size_t)out->bins * sizeof(unsigned));
    return 1;
}

/* ---- timing ---- */

/* launches of `steps` each, no trailing single step (timing only) */
static ks_status ks_lsolver_run_launches(ks_lsolver *s, ks_llaunch_fn fn, const int block[3],
                                         int launches, int steps)
{
    for (int n = 0; n < launches; ++n) KS_TRY(ks_lsolver_sweep(s, fn, block, steps));
    return KS_OK;
}

ks_status ks_lsolver_time(ks_lsolver *s, int variant, const int block[3], int iters, int reps,
                          double *ms_per_iter)
{
    if (iters < 1 || reps < 1)
        return ks_fail(KS_ERR_INVALID, "timing needs iters >= 1 and reps >= 1 (got %d, %d)", iters,
                       reps);
    KS_TRY(ks_lsolver_check_block(s, variant, block));
    double *ms = (double *)malloc((size_t)reps * sizeof(double));
    if (!ms) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timing: host allocation failed");
    /* A temporally blocked variant is timed as pure launches of T steps when
     * iters is a multiple of T: no trailing single step, so the figure is the
     * variant's own. Otherwise the iterate contract (ends with a single step). */
    const ks_lvariant_info *info = ks_lvariant_get(variant);
    const int T = info ? info->steps_per_launch : 1;
    const int pure = T > 1 && iters % T == 0;
    ks_llaunch_fn fn = NULL;
    if (pure) {
        const ks_lvariant_info *unused;
        ks_status lst = ks_llookup(s, variant, &unused, &fn);
        if (lst != KS_OK) {
            free(ms);
            return lst;
        }
    }
    ks_status st = KS_OK;
    for (int w = 0; w < 2 && st == KS_OK; ++w)
        st = pure ? ks_lsolver_run_launches(s, fn, block, iters / T, T)
                  : ks_lsolver_iterate(s, variant, block, iters);
    for (int r = 0; r < reps && st == KS_OK; ++r) {
        float t = 0.0f;
        cudaError_t e = cudaEventRecord(s->t0, s->stream);
        if (e == cudaSuccess)
            st = pure ? ks_lsolver_run_launches(s, fn, block, iters / T, T)
                      : ks_lsolver_iterate(s, variant, block, iters);
        if (e == cudaSuccess && st == KS_OK) e = cudaEventRecord(s->t1, s->stream);
        if (e == cudaSuccess && st == KS_OK) e = cudaEventSynchronize(s->t1);
        if (e == cudaSuccess && st == KS_OK) e = cudaEventElapsedTime(&t, s->t0, s->t1);
        if (e != cudaSuccess)
            st = ks_fail(KS_ERR_CUDA, "timing: %s", cudaGetErrorString(e));
        ms[r] = t;
    }
    if (st == KS_OK) {
        qsort(ms, (size_t)reps, sizeof(double), ks_cmp_double);
        const double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        *ms_per_iter = med / iters;
    }
    free(ms);
    return st;
}
