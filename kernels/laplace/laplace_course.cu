/* Laplace on CUDA: the Oxford Practical 3 style kernels (kmarch, block3d,
 * block2d, smem2d), their launchers and the block checks every launcher
 * shares. The solver object is in laplace_gpu.cu, the optimised variants in
 * laplace_fast.cu and laplace_tblock.cu. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "laplace_launch.h"

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
    dim3 block(b[0], b[1]), grid(ks_fdiv_up(g->nx, b[0]), ks_fdiv_up(g->ny, b[1]));
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
    const unsigned gz = ks_fdiv_up(g->nz, b[2]);
    KS_TRY(ks_lcheck_grid_dim(sw, 2, gz));
    dim3 block(b[0], b[1], b[2]), grid(ks_fdiv_up(g->nx, b[0]), ks_fdiv_up(g->ny, b[1]), gz);
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
    const unsigned gy = ks_fdiv_up(g->ny, b[1]);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    dim3 block(b[0], b[1]), grid(ks_fdiv_up(g->nx, b[0]), gy);
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
    const unsigned gy = ks_fdiv_up(g->ny, b[1]);
    KS_TRY(ks_lcheck_grid_dim(sw, 1, gy));
    dim3 block(b[0], b[1]), grid(ks_fdiv_up(g->nx, b[0]), gy);
    jacobi2d_smem_tile_kernel<<<grid, block, smem, sw->stream>>>(sw->in, sw->out, g->nx, g->ny);
    KS_CUDA_TRY_LAUNCH("jacobi2d_smem_tile_kernel");
    return KS_OK;
}
