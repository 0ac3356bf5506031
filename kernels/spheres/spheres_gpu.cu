/* CUDA sphere renderer: the renderer object, uploads, the render (sized and
 * timed here, launched by spheres_render.cu), the live timing ring and the
 * benchmark timing (spheres.h). The kernels are in spheres_render.cu
 * and spheres_binning.cu. */
#include "base/ks_util.h"
#include "base/l2_flush.h"
#include "spheres_gpu_internal.h"

const ks_spheres_gpu *ks_const_owner;

/* ---- Host side ---- */

extern "C" ks_status ks_spheres_gpu_create(ks_spheres_gpu **out)
{
    *out = NULL;
    ks_spheres_gpu *g = (ks_spheres_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: out of host memory");
    g->n_global = g->n_const = -1;
    g->bound = -1;
    ks_status st = KS_OK;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&g->max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g->stage_done, cudaEventDisableTiming);
    if (e != cudaSuccess) {
        st = ks_fail(KS_ERR_CUDA, "spheres: creating the renderer failed: %s", cudaGetErrorString(e));
        ks_spheres_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void ks_spheres_gpu_destroy(ks_spheres_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    if (ks_const_owner == g) ks_const_owner = NULL;
    if (g->ring_ready)
        for (int k = 0; k < KS_SPH_RING; ++k) {
            cudaEventDestroy(g->ring[k].start);
            cudaEventDestroy(g->ring[k].stop);
        }
    cudaFree(g->d_spheres);
    cudaFree(g->d_tile_count);
    cudaFree(g->d_tile_offset);
    cudaFree(g->d_tile_cursor);
    cudaFree(g->d_entries);
    cudaFree(g->d_entry_geom);
    cudaFree(g->d_image);
    ks_l2_flush_destroy(g->flush);
    cudaFreeHost(g->h_stage);
    free(g->h_global);
    if (g->stage_done) cudaEventDestroy(g->stage_done);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

extern "C" void *ks_spheres_gpu_stream(ks_spheres_gpu *g) { return (void *)g->stream; }

/* Live timing: a sample slot opened before the work and closed after it. */
int ks_sph_sample_begin(ks_spheres_gpu *g, ks_spheres_sample_kind kind, ks_spheres_mem m, int count)
{
    if (!g->track || !g->ring_ready || g->ring_used == KS_SPH_RING) return -1; /* full: drop */
    const int slot = (g->ring_head + g->ring_used) % KS_SPH_RING;
    if (cudaEventRecord(g->ring[slot].start, g->stream) != cudaSuccess) return -1;
    g->ring[slot].sample.kind = kind;
    g->ring[slot].sample.mem = m;
    g->ring[slot].sample.count = count;
    g->ring[slot].sample.ms = 0.0;
    return slot;
}

void ks_sph_sample_end(ks_spheres_gpu *g, int slot)
{
    if (slot < 0) return;
    if (cudaEventRecord(g->ring[slot].stop, g->stream) == cudaSuccess) ++g->ring_used;
}

extern "C" void ks_spheres_gpu_track(ks_spheres_gpu *g, int on)
{
    if (on && !g->ring_ready) {
        int made = 0;
        for (; made < KS_SPH_RING; ++made) {
            if (cudaEventCreate(&g->ring[made].start) != cudaSuccess) break;
            if (cudaEventCreate(&g->ring[made].stop) != cudaSuccess) {
                cudaEventDestroy(g->ring[made].start);
                break;
            }
        }
        if (made < KS_SPH_RING) { /* timing is optional: go without it */
            for (int k = 0; k < made; ++k) {
                cudaEventDestroy(g->ring[k].start);
                cudaEventDestroy(g->ring[k].stop);
            }
            (void)cudaGetLastError();
            return;
        }
        g->ring_ready = 1;
    }
    g->track = on;
}

extern "C" int ks_spheres_gpu_collect(ks_spheres_gpu *g, ks_spheres_sample *out, int max)
{
    int got = 0;
    while (got < max && g->ring_used > 0) {
        ks_sph_slot *s = &g->ring[g->ring_head];
        const cudaError_t e = cudaEventQuery(s->stop);
        if (e == cudaErrorNotReady) break;
        float ms = -1.0f;
        if (e == cudaSuccess && cudaEventElapsedTime(&ms, s->start, s->stop) == cudaSuccess) {
            out[got] = s->sample;
            out[got].ms = ms;
            ++got;
        }
        g->ring_head = (g->ring_head + 1) % KS_SPH_RING;
        --g->ring_used;
    }
    return got;
}

static ks_status grow_stage(ks_spheres_gpu *g, int count)
{
    if (count <= g->stage_cap) return KS_OK;
    KS_CUDA_TRY(cudaEventSynchronize(g->stage_done));
    KS_CUDA_TRY(cudaFreeHost(g->h_stage));
    g->h_stage = NULL;
    g->stage_cap = 0;
    free(g->h_global);
    g->h_global = NULL;
    const size_t bytes = (size_t)count * sizeof(ks_sphere_packed);
    KS_CUDA_TRY(cudaMallocHost((void **)&g->h_stage, bytes));
    g->h_global = (ks_sphere_packed *)malloc(bytes);
    if (!g->h_global) return ks_fail(KS_ERR_OUT_OF_MEMORY, "spheres: no host memory for %d spheres", count);
    g->stage_cap = count;
    g->n_global = -1; /* the host copy is gone */
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_upload(ks_spheres_gpu *g, ks_spheres_mem m,
                                           const ks_sphere_packed *s, int count)
{
    m = ks_spheres_mem_resolve(m);
    KS_TRY(ks_spheres_mem_check(m, count));
    KS_TRY(grow_stage(g, count > 0 ? count : 1));
    KS_CUDA_TRY(cudaEventSynchronize(g->stage_done)); /* the previous copy has left h_stage */
    const size_t bytes = (size_t)count * sizeof(ks_sphere_packed);
    if (count) memcpy(g->h_stage, s, bytes);
    if (m != KS_SPHERES_MEM_CONSTANT && count > g->device_cap) {
        KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
        KS_CUDA_TRY(cudaFree(g->d_spheres));
        g->d_spheres = NULL;
        g->device_cap = 0;
        g->n_global = -1;
        KS_CUDA_TRY(cudaMalloc((void **)&g->d_spheres, bytes));
        g->device_cap = count;
    }
    const int slot = ks_sph_sample_begin(g, KS_SPHERES_SAMPLE_UPLOAD, m, count);
    cudaError_t e = cudaSuccess;
    if (count && m == KS_SPHERES_MEM_CONSTANT)
        e = ks_sph_copy_constant(g->h_stage, bytes, g->stream);
    else if (count)
        e = cudaMemcpyAsync(g->d_spheres, g->h_stage, bytes, cudaMemcpyHostToDevice, g->stream);
    ks_sph_sample_end(g, slot);
    KS_CUDA_TRY(e);
    KS_CUDA_TRY(cudaEventRecord(g->stage_done, g->stream));
    if (m == KS_SPHERES_MEM_CONSTANT) {
        g->n_const = count;
        ks_const_owner = g;
    } else {
        if (count) memcpy(g->h_global, s, bytes);
        g->n_global = count;
        g->bound = -1;
        ++g->global_gen;
    }
    return KS_OK;
}

ks_status ks_sph_grow_image(ks_spheres_gpu *g, size_t bytes)
{
    if (bytes <= g->image_cap) return KS_OK;
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    KS_CUDA_TRY(cudaFree(g->d_image));
    g->d_image = NULL;
    g->image_cap = 0;
    KS_CUDA_TRY(cudaMalloc((void **)&g->d_image, bytes));
    g->image_cap = bytes;
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_render(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2],
                                           int w, int h, void *dst)
{
    m = ks_spheres_mem_resolve(m);
    KS_TRY(ks_spheres_block_check(block));
    if (w < 1 || h < 1 || w > 32768 || h > 32768)
        return ks_fail(KS_ERR_INVALID, "spheres: image %dx%d must be 1..32768 on each side", w, h);
    const int n = m == KS_SPHERES_MEM_CONSTANT ? g->n_const : g->n_global;
    if (n < 0)
        return ks_fail(KS_ERR_INVALID, "spheres: nothing uploaded for the %s variant", ks_spheres_mem_name(m));
    if (m == KS_SPHERES_MEM_CONSTANT && ks_const_owner != g)
        return ks_fail(KS_ERR_INVALID, "spheres: constant memory was overwritten by another renderer; upload again");
    if (!dst) {
        KS_TRY(ks_sph_grow_image(g, (size_t)w * h * 4));
        dst = g->d_image;
    }
    ks_sph_launch l;
    l.n = n;
    l.w = w;
    l.h = h;
    l.out = (uchar4 *)dst;
    l.threads = dim3((unsigned)block[0], (unsigned)block[1]);
    l.grid = dim3((unsigned)((w + block[0] - 1) / block[0]), (unsigned)((h + block[1] - 1) / block[1]));
    /* shared and binned: each thread shades KS_SPH_ROWS pixels, so a block covers a taller tile */
    l.tw = block[0];
    l.th = block[1] * KS_SPH_ROWS;
    l.tile_grid = dim3((unsigned)((w + l.tw - 1) / l.tw), (unsigned)((h + l.th - 1) / l.th));
    const int T = block[0] * block[1];
    l.list_smem = (size_t)T * (sizeof(float4) + sizeof(int));
    const int tiles = (int)(l.tile_grid.x * l.tile_grid.y);
    if (m == KS_SPHERES_MEM_BINNED) KS_TRY(ks_sph_prepare_bins(g, l.tw, l.th, w, h, tiles));

    const int slot = ks_sph_sample_begin(g, KS_SPHERES_SAMPLE_RENDER, m, n);
    KS_TRY(ks_sph_launch_variant(g, m, &l));
    ks_sph_sample_end(g, slot);
    KS_CUDA_TRY_LAUNCH(ks_spheres_mem_kernel(m));
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_poison(ks_spheres_gpu *g, int w, int h, unsigned char byte)
{
    const size_t bytes = (size_t)w * h * 4;
    KS_TRY(ks_sph_grow_image(g, bytes));
    KS_CUDA_TRY(cudaMemsetAsync(g->d_image, byte, bytes, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_spheres_gpu_download(ks_spheres_gpu *g, int w, int h, unsigned char *rgba)
{
    const size_t bytes = (size_t)w * h * 4;
    if (bytes > g->image_cap) return ks_fail(KS_ERR_INVALID, "spheres: no %dx%d image to download", w, h);
    KS_CUDA_TRY(cudaMemcpyAsync(rgba, g->d_image, bytes, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

/* Holds the stream for ns nanoseconds (the device's global timer), so the
 * timed launches queued behind it start back to back: the host's launch
 * overhead (several launches for binned) is not counted, as in the live
 * loop, where it overlaps the previous frame. */
__global__ void spheres_wait_kernel(long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}

/* One timed render of a timing (the loop's sample): ours or a user's, by its render function. */
typedef struct sph_timed {
    ks_spheres_gpu *g;
    ks_sph_render_fn render;
    const void *ctx;
    cudaEvent_t ev[2];
} sph_timed;

static ks_status sph_sample(void *ctx, double *ms)
{
    sph_timed *t = (sph_timed *)ctx;
    ks_spheres_gpu *g = t->g;
    /* a head start for the host to queue the render's launches (a few us each) behind the wait */
    spheres_wait_kernel<<<1, 1, 0, g->stream>>>(200000LL);
    KS_CUDA_TRY(cudaPeekAtLastError());
    KS_CUDA_TRY(cudaEventRecord(t->ev[0], g->stream));
    KS_TRY(t->render(g, t->ctx));
    KS_CUDA_TRY(cudaEventRecord(t->ev[1], g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(t->ev[1]));
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&f, t->ev[0], t->ev[1]));
    *ms = f;
    return KS_OK;
}

static ks_status sph_flush(void *ctx)
{
    ks_spheres_gpu *g = ((sph_timed *)ctx)->g;
    return ks_l2_flush_run(&g->flush, g->stream);
}

ks_status ks_sph_time_renders(ks_spheres_gpu *g, ks_sph_render_fn render, const void *ctx, const char *name,
                              int n, int w, int h, const ks_timing_opts *o, ks_timing *out)
{
    double l2 = 0.0;
    KS_TRY(ks_cuda_l2_bytes(&l2));
    sph_timed t = {g, render, ctx, {NULL, NULL}};
    cudaError_t e = cudaEventCreate(&t.ev[0]);
    if (e == cudaSuccess) e = cudaEventCreate(&t.ev[1]);
    if (e != cudaSuccess) {
        if (t.ev[0]) cudaEventDestroy(t.ev[0]);
        return ks_fail(KS_ERR_CUDA, "spheres: timing events: %s", cudaGetErrorString(e));
    }
    const int track = g->track; /* the live ring would record these renders too */
    g->track = 0;
    /* the working set: 32 bytes a sphere read, 4 a pixel written */
    const ks_timing_run run = {sph_sample, sph_flush, &t, 32.0 * (n > 0 ? n : 0) + 4.0 * (double)w * h, l2};
    ks_status st = ks_timing_measure(&run, o, out);
    if (st != KS_OK) ks_error_prefix("spheres: timing %s", name);
    cudaStreamSynchronize(g->stream);
    cudaEventDestroy(t.ev[0]);
    cudaEventDestroy(t.ev[1]);
    g->track = track;
    return st;
}

/* ks_spheres_gpu_time's render: our variant m. */
typedef struct our_render {
    ks_spheres_mem m;
    const int *block;
    int w, h;
} our_render;

static ks_status render_ours(ks_spheres_gpu *g, const void *ctx)
{
    const our_render *r = (const our_render *)ctx;
    return ks_spheres_gpu_render(g, r->m, r->block, r->w, r->h, NULL);
}

extern "C" ks_status ks_spheres_gpu_time(ks_spheres_gpu *g, ks_spheres_mem m, const int block[2], int w, int h,
                                         const ks_timing_opts *o, ks_timing *out)
{
    const our_render r = {m, block, w, h};
    const int n = m == KS_SPHERES_MEM_CONSTANT ? g->n_const : g->n_global;
    return ks_sph_time_renders(g, render_ours, &r, ks_spheres_mem_name(m), n, w, h, o, out);
}
