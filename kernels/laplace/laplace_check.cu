/* What the check of a user's kernel needs on the GPU (laplace.h): a random
 * field made in place (a large grid's worth from the host would cost the
 * check most of its time), the previous field's interior poisoned, the
 * first cell where two solvers' fields differ, and their difference over a
 * slice (the difference view). */
#include <math.h>
#include <string.h>

#include "laplace_gpu_internal.h"

/* A hash of the point's index (splitmix64's finaliser): the same field for a
 * seed on any device and launch shape, values in [0.1, 1.1) so none is 0. */
static __device__ __forceinline__ float hash_value(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return 0.1f + (float)(x >> 40) * (1.0f / 16777216.0f);
}

static __device__ __forceinline__ int is_boundary(size_t p, int nx, int ny, int nz, int dims)
{
    const int i = (int)(p % (size_t)nx);
    const int j = (int)((p / (size_t)nx) % (size_t)ny);
    const int k = (int)(p / ((size_t)nx * (size_t)ny));
    return i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || (dims == 3 && (k == 0 || k == nz - 1));
}

__global__ void laplace_fill_random_kernel(float *cur, float *prev, size_t n, unsigned long long seed, int nx,
                                           int ny, int nz, int dims)
{
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) {
        const float v = hash_value(seed * 0x100000001b3ULL + p);
        cur[p] = v;
        prev[p] = is_boundary(p, nx, ny, nz, dims) ? v : __int_as_float(0x7fc00000); /* NaN inside */
    }
}

ks_status ks_lsolver_fill_random(ks_lsolver *s, unsigned long long seed)
{
    const ks_grid *g = &s->g;
    laplace_fill_random_kernel<<<s->prop.multiProcessorCount * 8, 256, 0, s->stream>>>(
        s->cur, s->prev, s->points, seed, g->nx, g->ny, g->nz, g->dims);
    KS_CUDA_TRY_LAUNCH("laplace_fill_random_kernel");
    return KS_OK;
}

/* first: the smallest index where |a - b| > tol (or either is NaN), as an
 * unsigned long long min; worst: the largest |a - b| as the bits of a
 * non-negative float (their order is the value's), NaN counted as +inf. */
__global__ void laplace_diff_kernel(const float *a, const float *b, size_t n, float tol,
                                    unsigned long long *first, unsigned *worst, unsigned long long *bad)
{
    float local = 0.0f;
    unsigned long long count = 0;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) {
        const float x = a[p], y = b[p];
        float d = fabsf(x - y);
        if (isnan(x) != isnan(y) || (isnan(d) && !(isnan(x) && isnan(y)))) d = INFINITY;
        if (isnan(d)) d = 0.0f; /* both NaN: both left a point alone the same way */
        if (d > tol) {
            atomicMin(first, (unsigned long long)p);
            ++count;
        }
        local = fmaxf(local, d);
    }
    atomicMax(worst, __float_as_uint(local));
    if (count) atomicAdd(bad, count);
}

ks_status ks_lsolver_diff(ks_lsolver *a, ks_lsolver *b, float tol, ks_ldiff *out)
{
    memset(out, 0, sizeof *out);
    out->first = -1;
    if (a->points != b->points) return ks_fail(KS_ERR_INVALID, "comparing fields of different grids");
    KS_CUDA_TRY(cudaStreamSynchronize(b->stream));
    struct {
        unsigned long long first;
        unsigned worst;
        unsigned long long bad;
    } h, *d = NULL;
    KS_CUDA_TRY(cudaMalloc((void **)&d, sizeof *d));
    h.first = ~0ULL;
    h.worst = 0;
    h.bad = 0;
    cudaError_t e = cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice, a->stream);
    if (e == cudaSuccess) {
        laplace_diff_kernel<<<a->prop.multiProcessorCount * 8, 256, 0, a->stream>>>(a->cur, b->cur, a->points, tol,
                                                                                    &d->first, &d->worst, &d->bad);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, a->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(a->stream);
    cudaFree(d);
    if (e != cudaSuccess) return ks_fail(KS_ERR_CUDA, "comparing two fields: %s", cudaGetErrorString(e));
    float worst;
    memcpy(&worst, &h.worst, sizeof worst);
    out->max_err = worst;
    out->bad = (long long)h.bad;
    if (h.bad) {
        out->first = (long long)h.first;
        KS_CUDA_TRY(cudaMemcpy(&out->got, a->cur + h.first, sizeof(float), cudaMemcpyDeviceToHost));
        KS_CUDA_TRY(cudaMemcpy(&out->want, b->cur + h.first, sizeof(float), cudaMemcpyDeviceToHost));
    }
    return KS_OK;
}

/* One thread a cell of the slice: cell (x, y) is point base + x*sa + y*sb. */
__global__ void laplace_diff_slice_kernel(const float *a, const float *b, size_t base, size_t sa, size_t sb, int w,
                                          int h, float *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    /* rows by grid stride: a tall slice may have more rows than a grid's 65535 blocks cover */
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
        const size_t p = base + (size_t)x * sa + (size_t)y * sb;
        const float u = a[p], v = b[p];
        float d = u == v ? 0.0f : fabsf(u - v); /* == first: inf against inf is no difference */
        if (isnan(u) != isnan(v)) d = INFINITY; /* one of them never wrote it */
        else if (isnan(d)) d = 0.0f; /* both NaN: both left the cell alone alike */
        out[(size_t)y * w + x] = d;
    }
}

ks_status ks_lsolver_diff_slice(ks_lsolver *a, ks_lsolver *b, ks_axis axis, int index, float *host)
{
    if (a->points != b->points || memcmp(&a->g, &b->g, sizeof a->g) != 0)
        return ks_fail(KS_ERR_INVALID, "comparing fields of different grids");
    if (axis < 0 || axis >= KS_AXIS_NUM || index < 0 || index > ks_slice_max_index(&a->g, axis))
        return ks_fail(KS_ERR_INVALID, "difference slice: axis %d index %d outside the grid", (int)axis, index);
    int w, h, p0[3], pa[3], pb[3];
    ks_slice_dims(&a->g, axis, &w, &h);
    ks_slice_point(&a->g, axis, index, 0, 0, p0);
    ks_slice_point(&a->g, axis, index, w > 1 ? 1 : 0, 0, pa);
    ks_slice_point(&a->g, axis, index, 0, h > 1 ? 1 : 0, pb);
    const long long st[3] = {1, a->g.nx, (long long)a->g.nx * a->g.ny};
    long long base = 0, sa = 0, sb = 0;
    for (int d = 0; d < 3; ++d) {
        base += p0[d] * st[d];
        sa += (pa[d] - p0[d]) * st[d];
        sb += (pb[d] - p0[d]) * st[d];
    }
    const size_t bytes = (size_t)w * (size_t)h * sizeof(float);
    KS_CUDA_TRY(cudaStreamSynchronize(b->stream));
    float *d = NULL;
    KS_CUDA_TRY(cudaMalloc((void **)&d, bytes));
    const int rows = (h + 7) / 8;
    const dim3 block(32, 8), grid((unsigned)((w + 31) / 32), (unsigned)(rows < 65535 ? rows : 65535));
    laplace_diff_slice_kernel<<<grid, block, 0, a->stream>>>(a->cur, b->cur, (size_t)base, (size_t)sa, (size_t)sb, w,
                                                             h, d);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpyAsync(host, d, bytes, cudaMemcpyDeviceToHost, a->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(a->stream);
    const cudaError_t freed = cudaFree(d);
    if (e == cudaSuccess) e = freed;
    if (e != cudaSuccess) return ks_fail(KS_ERR_CUDA, "the difference of two fields over a slice: %s", cudaGetErrorString(e));
    return KS_OK;
}
