/* A user's sphere kernel (spheres_user.h): its code loaded by
 * kernels/user/user_code.h, launched by the contract's rule
 * (spheres_contract.h): one pixel a thread, the grid over the picture; the
 * spheres in the renderer's device array, and copied into the file's
 * __constant__ kernelscope_spheres when it declares one. */
#include <stdio.h>
#include <string.h>

#include "spheres_contract.h"
#include "spheres_gpu_internal.h"
#include "spheres_user.h"

extern "C" ks_status ks_spheres_user_load(const char *name, const void *code, size_t size, ks_spheres_user **out)
{
    static const ks_user_code_desc contract = {KS_SPHERES_USER_ENTRY, NULL, 0, {1, 1, 1}, NULL, NULL, 0, NULL, NULL};
    KS_TRY(ks_user_code_load(&contract, name, code, size, out));
    void *dev = NULL;
    size_t bytes = 0;
    if (ks_user_code_global(*out, KS_SPHERES_USER_CONST, &dev, &bytes) &&
        (bytes < sizeof(ks_sphere_packed) || bytes % sizeof(ks_sphere_packed) != 0 ||
         bytes > KS_SPHERES_CONST_MAX * sizeof(ks_sphere_packed))) {
        ks_user_code_destroy(*out);
        *out = NULL;
        return ks_fail(KS_ERR_INVALID,
                       "%s: " KS_SPHERES_USER_CONST " is %zu bytes: it must hold whole spheres (2 float4, 32 bytes, "
                       "each), 1 to %d of them",
                       name, bytes, (int)KS_SPHERES_CONST_MAX);
    }
    return KS_OK;
}

extern "C" int ks_spheres_user_constant(const ks_spheres_user *u)
{
    void *dev;
    size_t bytes;
    return ks_user_code_global(u, KS_SPHERES_USER_CONST, &dev, &bytes);
}

extern "C" int ks_spheres_user_capacity(const ks_spheres_user *u)
{
    void *dev;
    size_t bytes;
    if (!ks_user_code_global(u, KS_SPHERES_USER_CONST, &dev, &bytes)) return KS_SPHERES_MAX;
    return (int)(bytes / sizeof(ks_sphere_packed));
}

extern "C" ks_status ks_spheres_user_check(const ks_spheres_user *u, int count, const int block[2])
{
    const char *name = ks_user_code_name(u);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    KS_TRY(ks_spheres_block_check(block));
    const int threads = block[0] * block[1];
    if (threads > a.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx%d has %d threads; the compiled kernel takes at most %d", name,
                       block[0], block[1], threads, a.max_threads);
    const int cap = ks_spheres_user_capacity(u);
    if (count > cap)
        return ks_fail(KS_ERR_UNSUPPORTED, "%s: its " KS_SPHERES_USER_CONST " holds %d spheres, the scene has %d", name,
                       cap, count);
    return KS_OK;
}

/* The spheres into u's kernelscope_spheres when they are not there yet
 * (another upload since, or another file's array). */
static ks_status fill_constant(ks_spheres_gpu *g, const ks_spheres_user *u, int n)
{
    void *dev = NULL;
    size_t bytes = 0;
    if (!ks_user_code_global(u, KS_SPHERES_USER_CONST, &dev, &bytes)) return KS_OK;
    if (g->user_const == dev && g->user_const_gen == g->global_gen) return KS_OK;
    if (n) KS_CUDA_TRY(cudaMemcpyAsync(dev, g->d_spheres, (size_t)n * sizeof(ks_sphere_packed), cudaMemcpyDeviceToDevice,
                                       g->stream));
    g->user_const = dev;
    g->user_const_gen = g->global_gen;
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_render_user(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], int w,
                                                int h, void *dst, int tag)
{
    if (!u) return ks_fail(KS_ERR_INVALID, "spheres: no kernel of a file to render with");
    if (w < 1 || h < 1 || w > 32768 || h > 32768)
        return ks_fail(KS_ERR_INVALID, "spheres: image %dx%d must be 1..32768 on each side", w, h);
    const int n = g->n_global;
    if (n < 0) return ks_fail(KS_ERR_INVALID, "spheres: nothing uploaded for %s", ks_user_code_name(u));
    KS_TRY(ks_spheres_user_check(u, n, block));
    if (!dst) {
        KS_TRY(ks_sph_grow_image(g, (size_t)w * h * 4));
        dst = g->d_image;
    }
    KS_TRY(fill_constant(g, u, n));
    const float4 *spheres = g->d_spheres;
    uchar4 *out = (uchar4 *)dst;
    int count = n, width = w, height = h;
    void *args[] = {(void *)&spheres, &count, &width, &height, (void *)&out};
    const dim3 threads((unsigned)block[0], (unsigned)block[1]);
    const dim3 grid((unsigned)((w + block[0] - 1) / block[0]), (unsigned)((h + block[1] - 1) / block[1]));
    const int slot = tag >= 0 ? ks_sph_sample_begin(g, KS_SPHERES_SAMPLE_RENDER, (ks_spheres_mem)tag, n) : -1;
    const cudaError_t e = cudaLaunchKernel(ks_user_code_function(u), grid, threads, args, 0, g->stream);
    ks_sph_sample_end(g, slot);
    if (e != cudaSuccess) return ks_fail(KS_ERR_CUDA, "%s: launching it failed: %s", ks_user_code_name(u), cudaGetErrorString(e));
    return KS_OK;
}

/* ks_spheres_gpu_time_user's render. */
typedef struct user_render {
    const ks_spheres_user *u;
    const int *block;
    int w, h;
} user_render;

static ks_status render_user(ks_spheres_gpu *g, const void *ctx)
{
    const user_render *r = (const user_render *)ctx;
    return ks_spheres_gpu_render_user(g, r->u, r->block, r->w, r->h, NULL, -1);
}

extern "C" ks_status ks_spheres_gpu_time_user(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], int w,
                                              int h, const ks_timing_opts *o, ks_timing *out)
{
    const user_render r = {u, block, w, h};
    return ks_sph_time_renders(g, render_user, &r, ks_user_code_name(u), g->n_global, w, h, o, out);
}

extern "C" ks_status ks_spheres_user_attrs(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2],
                                           ks_kernel_attrs *out)
{
    memset(out, 0, sizeof *out);
    KS_TRY(ks_spheres_block_check(block));
    return ks_cuda_kernel_attrs(ks_user_code_function(u), block[0] * block[1], 0, g->max_threads_sm, out);
}
