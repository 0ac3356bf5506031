/* CUDA sphere renderer: five memory variants of one ray cast (spheres.h);
 * the variant table, their launches and each kernel's attributes.
 *
 *  global   spheres_global_kernel       plain loads from a device array, one pixel a thread
 *  readonly spheres_readonly_kernel     const __restrict__ + __ldg (read-only data cache)
 *  constant spheres_constant_kernel     c_spheres in __constant__ memory
 *  shared   spheres_shared_cull_kernel  tiles of blockDim spheres staged in shared memory;
 *                                       while staging, each block keeps only those whose
 *                                       bounding square touches its pixels; 4 pixels a thread
 *  binned   spheres_bin_count/scan/fill_kernel build per-tile lists on the GPU (tile = the
 *           spheres_binned_kernel       pixels of one block), then each block renders its
 *                                       tile from its own list, 4 pixels a thread
 * The first three are the Sheffield lab's kernels and differ only in where the
 * spheres live; shared and binned change the algorithm's work as well.
 */
#include "spheres_gpu_internal.h"

/* [2k] = x, y, z, r2; [2k+1] = red, green, blue, radius. Exactly 64 KiB. */
__constant__ float4 c_spheres[2 * KS_SPHERES_CONST_MAX];

/* ---- Kernels ---- */

struct ks_load_global {
    const float4 *p;
    __device__ __forceinline__ float4 operator()(int k) const { return p[k]; }
};
struct ks_load_readonly {
    const float4 *__restrict__ p;
    __device__ __forceinline__ float4 operator()(int k) const { return __ldg(p + k); }
};
struct ks_load_constant {
    __device__ __forceinline__ float4 operator()(int k) const { return c_spheres[k]; }
};

/* Brute force in list order: strict > keeps the first sphere on equal depth. */
template <class Load>
__device__ __forceinline__ void ks_sph_brute(Load load, int n, int w, int h, uchar4 *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= w || j >= h) return;
    const float px = ks_sph_ray(i, w), py = ks_sph_ray(j, h);
    float best_depth = -INFINITY;
    int best = -1;
    for (int k = 0; k < n; ++k) {
        const float4 g = load(2 * k);
        const float d2 = ks_sph_d2(px, py, g.x, g.y);
        if (d2 < g.w) {
            const float depth = ks_sph_depth(g.z, g.w, d2);
            if (depth > best_depth) {
                best_depth = depth;
                best = k;
            }
        }
    }
    const int hit = best >= 0;
    const float4 g = hit ? load(2 * best) : make_float4(0.f, 0.f, 0.f, 0.f);
    const float4 c = hit ? load(2 * best + 1) : make_float4(0.f, 0.f, 0.f, 1.f);
    out[(size_t)j * w + i] = ks_sph_color(px, py, g, c, hit);
}

__global__ void spheres_global_kernel(const float4 *spheres, int n, int w, int h, uchar4 *out)
{
    ks_load_global load = {spheres};
    ks_sph_brute(load, n, w, h, out);
}

__global__ void spheres_readonly_kernel(const float4 *__restrict__ spheres, int n, int w, int h,
                                        uchar4 *__restrict__ out)
{
    ks_load_readonly load = {spheres};
    ks_sph_brute(load, n, w, h, out);
}

__global__ void spheres_constant_kernel(int n, int w, int h, uchar4 *out)
{
    ks_load_constant load;
    ks_sph_brute(load, n, w, h, out);
}

__global__ void spheres_shared_cull_kernel(const float4 *__restrict__ spheres, int n, int w, int h,
                                           uchar4 *__restrict__ out)
{
    extern __shared__ float4 s_geom[]; /* T spheres' (x, y, z, r2), then T list indices */
    __shared__ int s_count;
    const int T = blockDim.x * blockDim.y;
    int *s_index = (int *)(s_geom + T);
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int i0 = blockIdx.x * blockDim.x, j0 = blockIdx.y * blockDim.y * KS_SPH_ROWS;
    const int i1 = min(i0 + (int)blockDim.x, w) - 1;
    const int j1 = min(j0 + (int)blockDim.y * KS_SPH_ROWS, h) - 1;
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    ks_sph_rows p;
    ks_sph_rows_init(&p, i, j, w, h);
    for (int base = 0; base < n; base += T) {
        if (tid == 0) s_count = 0;
        __syncthreads();
        const int k = base + tid;
        if (k < n) { /* stage the spheres whose bounding square touches this block's pixels */
            const float4 g = __ldg(spheres + 2 * k);
            const float r = __ldg(&spheres[2 * k + 1].w);
            int lo, hi, lo2, hi2;
            ks_sph_span(g.x, r, w, &lo, &hi);
            ks_sph_span(g.y, r, h, &lo2, &hi2);
            if (lo <= i1 && hi >= i0 && lo2 <= j1 && hi2 >= j0) {
                const int slot = atomicAdd(&s_count, 1);
                s_geom[slot] = g;
                s_index[slot] = k;
            }
        }
        __syncthreads();
        ks_sph_rows_test(&p, s_geom, s_index, s_count);
        __syncthreads(); /* the next tile of spheres overwrites the list */
    }
    ks_sph_rows_store(&p, spheres, i, j, w, h, out);
}

/* ---- Launchers and the variant table ---- */
/* The launchers keep the ks_sph_launch_ prefix, static or not: the table's
 * row macro pastes it onto the variant's name. */

static ks_status ks_sph_launch_global(ks_spheres_gpu *g, const ks_sph_launch *l)
{
    spheres_global_kernel<<<l->grid, l->threads, 0, g->stream>>>(g->d_spheres, l->n, l->w, l->h, l->out);
    return KS_OK;
}

static ks_status ks_sph_launch_readonly(ks_spheres_gpu *g, const ks_sph_launch *l)
{
    spheres_readonly_kernel<<<l->grid, l->threads, 0, g->stream>>>(g->d_spheres, l->n, l->w, l->h, l->out);
    return KS_OK;
}

static ks_status ks_sph_launch_constant(ks_spheres_gpu *g, const ks_sph_launch *l)
{
    spheres_constant_kernel<<<l->grid, l->threads, 0, g->stream>>>(l->n, l->w, l->h, l->out);
    return KS_OK;
}

static ks_status ks_sph_launch_shared(ks_spheres_gpu *g, const ks_sph_launch *l)
{
    spheres_shared_cull_kernel<<<l->tile_grid, l->threads, l->list_smem, g->stream>>>(g->d_spheres, l->n,
                                                                                      l->w, l->h, l->out);
    return KS_OK;
}

/* One row per variant, indexed by ks_spheres_mem (DEFAULT resolves to global
 * before the table is read): the render kernel (for its attributes), whether
 * it stages a list in shared memory, and its launcher. */
typedef struct variant_launch {
    const void *kernel;
    int tiled;
    ks_sph_launch_fn launch;
} variant_launch;

#define KS_SPH_VARIANT_ROW(id, name, summary, kernel, tiled) {(const void *)kernel, tiled, ks_sph_launch_##name},
static const variant_launch ks_sph_variants[KS_SPHERES_MEM_NUM] = {
    {NULL, 0, NULL}, /* DEFAULT */
    KS_SPHERES_MEM_ROWS(KS_SPH_VARIANT_ROW)};
#undef KS_SPH_VARIANT_ROW

cudaError_t ks_sph_copy_constant(const void *src, size_t bytes, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c_spheres, src, bytes, 0, cudaMemcpyHostToDevice, stream);
}

/* One render's kernel of variant m with its launch configuration (the context's render,
 * spheres_gpu.cu, sizes it and times it). */
ks_status ks_sph_launch_variant(ks_spheres_gpu *g, ks_spheres_mem m, const ks_sph_launch *l)
{
    return ks_sph_variants[m].launch(g, l);
}

extern "C" ks_status ks_spheres_gpu_kernel_attrs(ks_spheres_gpu *g, ks_spheres_mem m,
                                                 const int block[2], ks_kernel_attrs *out)
{
    memset(out, 0, sizeof *out);
    m = ks_spheres_mem_resolve(m);
    KS_TRY(ks_spheres_block_check(block));
    const int T = block[0] * block[1];
    const variant_launch *v = &ks_sph_variants[m];
    const size_t dyn = v->tiled ? (size_t)T * (sizeof(float4) + sizeof(int)) : 0;
    return ks_cuda_kernel_attrs(v->kernel, T, dyn, g->max_threads_sm, out);
}
