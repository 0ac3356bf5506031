/* Bandwidth probe for the single-sweep Jacobi kernels (not a ctest test).
 * Question it answers: how far is a plain copy kernel, and how far are
 * different ways of ordering the regq/vec2d work, from the D2D memcpy that
 * defines T_peak? Every probe kernel is checked bitwise against the library's
 * regq/vec2d output for the same input (interior poisoned with NaN first).
 * The designs that won (docs/laplace-perf.md run 6a) moved into
 * kernels/laplace_fast.cu and are timed here as the "library" line; the
 * probe keeps the alternatives they were measured against: the old marching
 * kernels (march2d, march3d), banded ones with 1D blocks or R planes per
 * thread (band2d, band3d) and j-marching in 3D (jmarch3d).
 * Usage: perf_stream [--only 2d|3d] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernels/laplace/laplace.h"
#include "kernels/laplace/laplace_launch.h"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "perf_stream: %s: %s\n", #x, cudaGetErrorString(e_));                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

__global__ void copy4_kernel(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n4)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n4) b[i] = a[i];
}

/* vec2d body, one thread per float4 column, marching `chunk` rows; grid (x tiles, chunks) */
__global__ void march2d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                               int chunk)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int jbeg = 1 + blockIdx.y * chunk;
    if (i0 >= nx || jbeg > ny - 2) return;
    const int jend = min(jbeg + chunk, ny - 1);
    const size_t sy = (size_t)nx;
    size_t ind = (size_t)i0 + (size_t)jbeg * sy;
    const bool first = i0 == 0, last = i0 + 4 == nx;
    float4 ym = *(const float4 *)(u1 + ind - sy);
    float4 c = *(const float4 *)(u1 + ind);
#pragma unroll 4
    for (int j = jbeg; j < jend; ++j, ind += sy) {
        const float4 yp = *(const float4 *)(u1 + ind + sy);
        const float xl = first ? 0.0f : u1[ind - 1];
        const float xr = last ? 0.0f : u1[ind + 4];
        const float4 r = ks_stencil4_x4(xl, c, xr, ym, yp, first, last);
        *(float4 *)(u2 + ind) = r;
        ym = c;
        c = yp;
    }
}

/* R rows per thread, all R + 2 row loads issued before any arithmetic;
 * 1D grid, x tile fastest so resident blocks cover consecutive rows */
template <int R>
__global__ void band2d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                              int xtiles)
{
    const int xt = blockIdx.x % xtiles, band = blockIdx.x / xtiles;
    const int i0 = (xt * blockDim.x + threadIdx.x) * 4;
    const int jbeg = 1 + band * R;
    if (i0 >= nx) return;
    const bool first = i0 == 0, last = i0 + 4 == nx;
    const size_t sy = (size_t)nx;
    float4 v[R + 2];
    float xl[R], xr[R];
#pragma unroll
    for (int r = 0; r < R + 2; ++r) {
        const int j = min(jbeg - 1 + r, ny - 1);
        v[r] = *(const float4 *)(u1 + (size_t)i0 + (size_t)j * sy);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const size_t ind = (size_t)i0 + (size_t)min(jbeg + r, ny - 1) * sy;
        xl[r] = first ? 0.0f : u1[ind - 1];
        xr[r] = last ? 0.0f : u1[ind + 4];
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int j = jbeg + r;
        if (j > ny - 2) break;
        const float4 ym = v[r], c = v[r + 1], yp = v[r + 2];
        const float4 o = ks_stencil4_x4(xl[r], c, xr[r], ym, yp, first, last);
        *(float4 *)(u2 + (size_t)i0 + (size_t)j * sy) = o;
    }
}

/* regq body, block (bx, by), marching `chunk` planes; grid (x tiles, y tiles, chunks) */
__global__ void march3d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                               int nz, int chunk)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i0 >= nx || j > ny - 2) return;
    const int kbeg = 1 + blockIdx.z * chunk;
    const int kend = min(kbeg + chunk, nz - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    size_t ind = (size_t)i0 + (size_t)j * sy + (size_t)kbeg * sz;
    const bool first = i0 == 0, last = i0 + 4 == nx;
    float4 zm = *(const float4 *)(u1 + ind - sz);
    float4 c = *(const float4 *)(u1 + ind);
#pragma unroll 4
    for (int k = kbeg; k < kend; ++k, ind += sz) {
        const float4 zp = *(const float4 *)(u1 + ind + sz);
        const float4 ym = *(const float4 *)(u1 + ind - sy);
        const float4 yp = *(const float4 *)(u1 + ind + sy);
        const float xl = first ? 0.0f : u1[ind - 1];
        const float xr = last ? 0.0f : u1[ind + 4];
        const float4 r = ks_stencil6_x4(xl, c, xr, ym, yp, zm, zp, first, last);
        *(float4 *)(u2 + ind) = r;
        zm = c;
        c = zp;
    }
}

/* 3D: a thread owns a float4 column over R consecutive planes; every load
 * (R + 2 column planes, R rows above and below, x edges) is issued before the
 * arithmetic; 1D grid, x tile fastest, then y tile, then the plane band.
 * SHFL: x-neighbours from shuffles, lanes 0 / 31 load theirs. */
template <int R, bool SHFL>
__global__ void band3d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                              int nz, int xtiles, int ytiles)
{
    const int xt = blockIdx.x % xtiles, rest = blockIdx.x / xtiles;
    const int yt = rest % ytiles, kb = rest / ytiles;
    const int i0 = (xt * blockDim.x + threadIdx.x) * 4;
    const int j = yt * blockDim.y + threadIdx.y + 1;
    const int kbeg = 1 + kb * R;
    const bool live = i0 < nx && j <= ny - 2;
    if (!SHFL && !live) return;
    const int lane = threadIdx.x & 31;
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    const size_t base = (size_t)min(i0, nx - 4) + (size_t)min(j, ny - 2) * sy;
    const bool first = i0 == 0, last = i0 + 4 >= nx;
    float4 col[R + 2], ym[R], yp[R];
    float xl[R], xr[R];
#pragma unroll
    for (int r = 0; r < R + 2; ++r)
        col[r] = *(const float4 *)(u1 + base + (size_t)min(kbeg - 1 + r, nz - 1) * sz);
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const size_t ind = base + (size_t)min(kbeg + r, nz - 1) * sz;
        ym[r] = *(const float4 *)(u1 + ind - sy);
        yp[r] = *(const float4 *)(u1 + ind + sy);
        if (!SHFL) {
            xl[r] = first ? 0.0f : u1[ind - 1];
            xr[r] = last ? 0.0f : u1[ind + 4];
        } else {
            xl[r] = (lane == 0 && !first) ? u1[ind - 1] : 0.0f;
            xr[r] = (lane == 31 && !last) ? u1[ind + 4] : 0.0f;
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const float4 c = col[r + 1], zm = col[r], zp = col[r + 2];
        float a = xl[r], b = xr[r];
        if (SHFL) {
            const float up = __shfl_up_sync(0xffffffffu, c.w, 1);
            const float dn = __shfl_down_sync(0xffffffffu, c.x, 1);
            if (lane != 0) a = up;
            if (lane != 31) b = dn;
        }
        const float4 o = ks_stencil6_x4(a, c, b, ym[r], yp[r], zm, zp, first, last);
        if (live && kbeg + r <= nz - 2) *(float4 *)(u2 + base + (size_t)(kbeg + r) * sz) = o;
    }
}

/* 3D with the roles of j and k swapped: a thread owns (i, k) and marches a
 * chunk of rows j (rows 4 nx bytes apart, one plane); block (bx, by) spans x
 * and by planes, so the k +- 1 loads of its inner planes hit L1.
 * KMID: grid (x, k tiles, j chunks) instead of (x, j chunks, k tiles). */
template <bool KMID>
__global__ void jmarch3d_kernel(const float *__restrict__ u1, float *__restrict__ u2, int nx, int ny,
                                int nz, int chunk)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int ktile = KMID ? blockIdx.y : blockIdx.z, jc_ = KMID ? blockIdx.z : blockIdx.y;
    const int k = ktile * blockDim.y + threadIdx.y + 1;
    const bool live = i0 < nx && k <= nz - 2;
    const int lane = threadIdx.x & 31;
    const int jbeg = 1 + jc_ * chunk;
    const int jend = min(jbeg + chunk, ny - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    size_t ind = (size_t)min(i0, nx - 4) + (size_t)jbeg * sy + (size_t)min(k, nz - 2) * sz;
    const bool first = i0 == 0, last = i0 + 4 >= nx;
    float4 ym = *(const float4 *)(u1 + ind - sy);
    float4 c = *(const float4 *)(u1 + ind);
    for (int j = jbeg; j < jend; ++j, ind += sy) {
        const float4 yp = *(const float4 *)(u1 + ind + sy);
        const float4 zm = *(const float4 *)(u1 + ind - sz);
        const float4 zp = *(const float4 *)(u1 + ind + sz);
        float xl = __shfl_up_sync(0xffffffffu, c.w, 1);
        float xr = __shfl_down_sync(0xffffffffu, c.x, 1);
        if (lane == 0 && !first) xl = u1[ind - 1];
        if (lane == 31 && !last) xr = u1[ind + 4];
        const float4 r = ks_stencil6_x4(xl, c, xr, ym, yp, zm, zp, first, last);
        if (live) *(float4 *)(u2 + ind) = r;
        ym = c;
        c = yp;
    }
}

typedef struct probe_ctx {
    const ks_grid *g;
    float *in, *out;
    size_t bytes;
    double peak;
    const float *ref; /* library output, host */
    float *host;
    cudaEvent_t e0, e1;
} probe_ctx;

enum { KIND_COPY, KIND_MARCH2D, KIND_BAND2D, KIND_MARCH3D, KIND_BAND3D, KIND_BAND3DS, KIND_JM3D, KIND_JM3DK };

static void launch(const probe_ctx *c, int kind, int p, int bx, int by)
{
    const ks_grid *g = c->g;
    const int nx = g->nx, ny = g->ny, nz = g->nz;
    switch (kind) {
    case KIND_COPY: {
        const size_t n4 = c->bytes / 16;
        copy4_kernel<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4 *)c->in, (float4 *)c->out, n4);
        break;
    }
    case KIND_MARCH2D:
        march2d_kernel<<<dim3((nx / 4 + bx - 1) / bx, (ny - 2 + p - 1) / p), bx>>>(c->in, c->out, nx, ny, p);
        break;
    case KIND_BAND2D: {
        const int xt = (nx / 4 + bx - 1) / bx;
        const unsigned blocks = (unsigned)xt * (unsigned)((ny - 2 + p - 1) / p);
        if (p == 2) band2d_kernel<2><<<blocks, bx>>>(c->in, c->out, nx, ny, xt);
        if (p == 4) band2d_kernel<4><<<blocks, bx>>>(c->in, c->out, nx, ny, xt);
        if (p == 8) band2d_kernel<8><<<blocks, bx>>>(c->in, c->out, nx, ny, xt);
        break;
    }
    case KIND_BAND3D:
    case KIND_BAND3DS: {
        const int xt = (nx / 4 + bx - 1) / bx, yt = (ny - 2 + by - 1) / by;
        const unsigned blocks = (unsigned)xt * (unsigned)yt * (unsigned)((nz - 2 + p - 1) / p);
        const dim3 b(bx, by);
        if (kind == KIND_BAND3D) {
            if (p == 2) band3d_kernel<2, false><<<blocks, b>>>(c->in, c->out, nx, ny, nz, xt, yt);
            if (p == 4) band3d_kernel<4, false><<<blocks, b>>>(c->in, c->out, nx, ny, nz, xt, yt);
            if (p == 8) band3d_kernel<8, false><<<blocks, b>>>(c->in, c->out, nx, ny, nz, xt, yt);
        } else {
            if (p == 2) band3d_kernel<2, true><<<blocks, b>>>(c->in, c->out, nx, ny, nz, xt, yt);
            if (p == 4) band3d_kernel<4, true><<<blocks, b>>>(c->in, c->out, nx, ny, nz, xt, yt);
            if (p == 8) band3d_kernel<8, true><<<blocks, b>>>(c->in, c->out, nx, ny, nz, xt, yt);
        }
        break;
    }
    case KIND_JM3D:
    case KIND_JM3DK: {
        const unsigned gx = (nx / 4 + bx - 1) / bx, gk = (nz - 2 + by - 1) / by, gj = (ny - 2 + p - 1) / p;
        if (kind == KIND_JM3D)
            jmarch3d_kernel<false><<<dim3(gx, gj, gk), dim3(bx, by)>>>(c->in, c->out, nx, ny, nz, p);
        else
            jmarch3d_kernel<true><<<dim3(gx, gk, gj), dim3(bx, by)>>>(c->in, c->out, nx, ny, nz, p);
        break;
    }
    case KIND_MARCH3D: {
        dim3 grid((nx / 4 + bx - 1) / bx, (ny - 2 + by - 1) / by, (nz - 2 + p - 1) / p);
        march3d_kernel<<<grid, dim3(bx, by)>>>(c->in, c->out, nx, ny, nz, p);
        break;
    }
    }
}

/* median ms per launch over 7 reps of 10 launches, after 2 warm-up launches;
 * checks the output against the library's first (skipped for the copy) */
static void probe(const probe_ctx *c, const char *name, int kind, int p, int bx, int by)
{
    const ks_grid *g = c->g;
    if (kind != KIND_COPY) {
        CK(cudaMemset(c->out, 0xff, c->bytes)); /* NaN poison */
        launch(c, kind, p, bx, by);
        CK(cudaGetLastError());
        CK(cudaMemcpy(c->host, c->out, c->bytes, cudaMemcpyDeviceToHost));
        const size_t sy = (size_t)g->nx, sz = (size_t)g->nx * g->ny;
        size_t bad = 0;
        const int nz = g->dims == 3 ? g->nz : 3;
        for (int k = 1; k < nz - 1; ++k)
            for (int j = 1; j < g->ny - 1; ++j) {
                const size_t row = (size_t)j * sy + (g->dims == 3 ? (size_t)k * sz : 0);
                if (memcmp(c->host + row + 1, c->ref + row + 1, (size_t)(g->nx - 2) * 4) != 0) ++bad;
            }
        if (bad) {
            printf("%-10s %-12s p=%-4d %dx%d  WRONG (%zu rows differ)\n", "", name, p, bx, by, bad);
            return;
        }
    }
    for (int w = 0; w < 2; ++w) launch(c, kind, p, bx, by);
    float ms[7];
    for (int r = 0; r < 7; ++r) {
        CK(cudaEventRecord(c->e0, 0));
        for (int it = 0; it < 10; ++it) launch(c, kind, p, bx, by);
        CK(cudaEventRecord(c->e1, 0));
        CK(cudaEventSynchronize(c->e1));
        CK(cudaEventElapsedTime(&ms[r], c->e0, c->e1));
        ms[r] /= 10.0f;
    }
    CK(cudaGetLastError());
    qsort(ms, 7, sizeof(float), cmp_float);
    const double gbs = 2.0 * (double)c->bytes / (ms[3] * 1e-3) / 1e9;
    printf("%-10s %-12s p=%-4d %dx%d  %8.4f ms %8.1f GB/s ratio %.3f\n", "", name, p, bx, by,
           ms[3], gbs, gbs / c->peak);
}

static double memcpy_gbs(const probe_ctx *c)
{
    float ms[21];
    for (int w = 0; w < 3; ++w) CK(cudaMemcpyAsync(c->out, c->in, c->bytes, cudaMemcpyDeviceToDevice, 0));
    for (int r = 0; r < 21; ++r) {
        CK(cudaEventRecord(c->e0, 0));
        CK(cudaMemcpyAsync(c->out, c->in, c->bytes, cudaMemcpyDeviceToDevice, 0));
        CK(cudaEventRecord(c->e1, 0));
        CK(cudaEventSynchronize(c->e1));
        CK(cudaEventElapsedTime(&ms[r], c->e0, c->e1));
    }
    qsort(ms, 21, sizeof(float), cmp_float);
    return 2.0 * (double)c->bytes / (ms[10] * 1e-3) / 1e9;
}

int main(int argc, char **argv)
{
    const char *only = argc > 2 && strcmp(argv[1], "--only") == 0 ? argv[2] : NULL;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "perf_stream: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    const ks_grid grids[] = {{2, 8192, 8192, 1}, {2, 16384, 16384, 1}, {3, 512, 512, 512},
                             {3, 1024, 1024, 1024}};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi) {
        const ks_grid *g = &grids[gi];
        if (only && (g->dims == 3) != (strcmp(only, "3d") == 0)) continue;
        probe_ctx c;
        memset(&c, 0, sizeof c);
        c.g = g;
        c.bytes = ks_grid_bytes(g);
        float *u = (float *)malloc(c.bytes), *ref = (float *)malloc(c.bytes);
        c.host = (float *)malloc(c.bytes);
        if (!u || !ref || !c.host) return 1;
        unsigned st = 777u + (unsigned)gi;
        for (size_t p = 0; p < c.bytes / 4; ++p) {
            st = st * 1664525u + 1013904223u;
            u[p] = 0.5f + (float)(st >> 8) / 16777216.0f;
        }
        /* reference: one library step (regq / vec2d, default block) */
        ks_lsolver *s = NULL;
        const int id = ks_lvariant_find(g->dims, g->dims == 3 ? "regq" : "vec2d");
        const int blk[3] = {g->dims == 3 ? 64 : 128, g->dims == 3 ? 4 : 2, 1};
        if (ks_lsolver_create(g, &s) != KS_OK || ks_lsolver_upload(s, u) != KS_OK ||
            ks_lsolver_iterate(s, id, blk, 1) != KS_OK || ks_lsolver_download(s, ref) != KS_OK) {
            fprintf(stderr, "perf_stream: %s\n", ks_error_message());
            return 1;
        }
        ks_timing_opts seven = {};
        seven.cache = KS_CACHE_WARM;
        seven.reps = 7;
        ks_timing lib_t;
        if (ks_lsolver_time(s, id, blk, 10, &seven, &lib_t) != KS_OK) return 1;
        const double lib_ms = lib_t.median_ms / 10;
        ks_lsolver_destroy(s);
        c.ref = ref;
        CK(cudaMalloc((void **)&c.in, c.bytes));
        CK(cudaMalloc((void **)&c.out, c.bytes));
        CK(cudaMemcpy(c.in, u, c.bytes, cudaMemcpyHostToDevice));
        CK(cudaEventCreate(&c.e0));
        CK(cudaEventCreate(&c.e1));
        c.peak = memcpy_gbs(&c);
        const double lib_gbs = 2.0 * (double)c.bytes / (lib_ms * 1e-3) / 1e9;
        printf("# %dx%dx%d: T_peak %.1f GB/s; library %s %dx%d: %.4f ms %.1f GB/s ratio %.3f\n",
               g->nx, g->ny, g->nz, c.peak, g->dims == 3 ? "regq" : "vec2d", blk[0], blk[1],
               lib_ms, lib_gbs, lib_gbs / c.peak);
        probe(&c, "copy4", KIND_COPY, 0, 256, 1);
        if (g->dims == 2) {
            const int chunks[] = {8, 16, 32, 64, 128, 512};
            for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; ++k)
                probe(&c, "march2d", KIND_MARCH2D, chunks[k], 256, 1);
            for (int r = 2; r <= 8; r *= 2) probe(&c, "band2d", KIND_BAND2D, r, 256, 1);
        } else {
            const int chunks[] = {4, 16, 64, 510};
            for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; ++k) {
                probe(&c, "march3d", KIND_MARCH3D, chunks[k], 64, 4);
                probe(&c, "jmarch3d", KIND_JM3D, chunks[k], 32, 8);
                probe(&c, "jmarch3d_km", KIND_JM3DK, chunks[k], 32, 8);
            }
            for (int r = 2; r <= 8; r *= 2) {
                probe(&c, "band3d", KIND_BAND3D, r, 32, 8);
                probe(&c, "band3d_shfl", KIND_BAND3DS, r, 32, 8);
            }
        }
        fflush(stdout);
        CK(cudaFree(c.in));
        CK(cudaFree(c.out));
        free(u);
        free(ref);
        free(c.host);
    }
    return 0;
}
