/* Laplace on CUDA: slices of the solver's field on the device (colormap into
 * an RGBA image, min/max) and the non-blocking readback. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "laplace_gpu_internal.h"

/* The colormap currently in constant memory (one per process, so switching
 * maps re-uploads: 1 KiB, in stream order). */
__constant__ uchar4 c_ks_colormap_rgba[256];
static int ks_colormap_loaded = -1;

/* ---- slices on the device ---- */

typedef struct slice_map {
    int w, h;
    size_t base;        /* index of pixel (0, 0) */
    size_t sa, sb;      /* index step per pixel in a, in b */
} slice_map;

static slice_map slice_make(const ks_grid *g, ks_axis axis, int index)
{
    slice_map m;
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

static ks_status check_slice(const ks_lsolver *s, ks_axis axis, int index)
{
    if (axis < 0 || axis >= KS_AXIS_NUM) return ks_fail(KS_ERR_INVALID, "bad slice axis %d", axis);
    const int last = ks_slice_max_index(&s->g, axis);
    if (index < 0 || index > last)
        return ks_fail(KS_ERR_INVALID, "slice index %d outside 0..%d", index, last);
    return KS_OK;
}

__global__ void slice_colormap_rgba_kernel(const float *__restrict__ u, slice_map m, float lo,
                                           float inv_span, uchar4 *__restrict__ dst)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (a >= m.w || b >= m.h) return;
    const float v = u[m.base + (size_t)a * m.sa + (size_t)b * m.sb];
    dst[(size_t)b * (size_t)m.w + (size_t)a] = c_ks_colormap_rgba[ks_colormap_index(v, lo, inv_span)];
}

/* Puts map's table in constant memory (in stream order) unless it is there. */
static ks_status load_colormap(ks_lsolver *s, ks_colormap map)
{
    if (map < 0 || map >= KS_CMAP_NUM) return ks_fail(KS_ERR_INVALID, "bad colormap %d", map);
    if ((int)map != ks_colormap_loaded) {
        unsigned char table[256][4];
        ks_colormap_table_rgba(map, table);
        KS_CUDA_TRY(cudaMemcpyToSymbolAsync(c_ks_colormap_rgba, table, sizeof table, 0,
                                            cudaMemcpyHostToDevice, s->stream));
        ks_colormap_loaded = (int)map;
    }
    return KS_OK;
}

ks_status ks_lsolver_render_slice(ks_lsolver *s, ks_axis axis, int index, ks_colormap map,
                                  float lo, float hi, void *dst_rgba)
{
    KS_TRY(check_slice(s, axis, index));
    KS_TRY(load_colormap(s, map));
    const slice_map m = slice_make(&s->g, axis, index);
    dim3 block(32, 8), grid(ks_fdiv_up(m.w, 32), ks_fdiv_up(m.h, 8));
    slice_colormap_rgba_kernel<<<grid, block, 0, s->stream>>>(
        s->cur, m, lo, ks_colormap_inv_span(lo, hi), (uchar4 *)dst_rgba);
    KS_CUDA_TRY_LAUNCH("slice_colormap_rgba_kernel");
    return KS_OK;
}

/* The live view's picture: one thread per picture pixel, the mean of the
 * cells it shows summed in double in row-major order (laplace.h states the
 * rule; ks_laplace_cpu_render_view is the reference, bit for bit). */
__global__ void view_mean_colormap_rgba_kernel(const float *__restrict__ u, slice_map sm,
                                               ks_cellmap cm, float lo, float inv_span,
                                               uchar4 *__restrict__ dst)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int q = blockIdx.y * blockDim.y + threadIdx.y;
    if (p >= cm.x.pixels || q >= cm.y.pixels) return;
    int x0, x1, y0, y1;
    ks_cellmap_range(&cm.x, p, &x0, &x1);
    ks_cellmap_range(&cm.y, q, &y0, &y1);
    double sum = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float *row = u + sm.base + (size_t)y * sm.sb;
        for (int x = x0; x < x1; ++x) sum = __dadd_rn(sum, (double)row[(size_t)x * sm.sa]);
    }
    const double n = (double)((long long)(x1 - x0) * (long long)(y1 - y0));
    const float v = __double2float_rn(__ddiv_rn(sum, n));
    dst[(size_t)q * (size_t)cm.x.pixels + (size_t)p] = c_ks_colormap_rgba[ks_colormap_index(v, lo, inv_span)];
}

ks_status ks_lsolver_render_view(ks_lsolver *s, ks_axis axis, int index, const ks_cellmap *m,
                                 ks_colormap map, float lo, float hi, void *dst_rgba)
{
    KS_TRY(ks_laplace_check_view(&s->g, axis, index, m));
    if (dst_rgba == NULL) return ks_fail(KS_ERR_INVALID, "view picture: no destination");
    KS_TRY(load_colormap(s, map));
    const slice_map sm = slice_make(&s->g, axis, index);
    dim3 block(32, 8), grid(ks_fdiv_up(m->x.pixels, 32), ks_fdiv_up(m->y.pixels, 8));
    view_mean_colormap_rgba_kernel<<<grid, block, 0, s->stream>>>(
        s->cur, sm, *m, lo, ks_colormap_inv_span(lo, hi), (uchar4 *)dst_rgba);
    KS_CUDA_TRY_LAUNCH("view_mean_colormap_rgba_kernel");
    return KS_OK;
}

ks_status ks_lsolver_read_slice_rgba(ks_lsolver *s, ks_axis axis, int index, ks_colormap map,
                                     float lo, float hi, unsigned char *host_rgba)
{
    KS_TRY(check_slice(s, axis, index));
    int w, h;
    ks_slice_dims(&s->g, axis, &w, &h);
    const size_t bytes = (size_t)w * (size_t)h * 4;
    void *d = NULL;
    cudaError_t e = cudaMalloc(&d, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "the %d x %d picture needs %.1f MiB of device memory: %s", w, h,
                       (double)bytes / 1048576.0, cudaGetErrorString(e));
    }
    ks_status st = ks_lsolver_render_slice(s, axis, index, map, lo, hi, d);
    if (st == KS_OK) {
        e = cudaMemcpyAsync(host_rgba, d, bytes, cudaMemcpyDeviceToHost, s->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s->stream);
        if (e != cudaSuccess)
            st = ks_fail(KS_ERR_CUDA, "copying the %d x %d picture to the host: %s", w, h, cudaGetErrorString(e));
    }
    cudaFree(d);
    return st;
}

/* Floats as unsigned so that unsigned order is float order (atomicMin/Max). */
static __host__ __device__ __forceinline__ unsigned float_order_key(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static float float_from_order_key(unsigned u)
{
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

__global__ void slice_minmax_atomic_kernel(const float *__restrict__ u, slice_map m,
                                           unsigned *__restrict__ minmax)
{
    unsigned lo = 0xffffffffu, hi = 0u;
    const long long n = (long long)m.w * m.h;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < n;
         p += (long long)gridDim.x * blockDim.x) {
        const int a = (int)(p % m.w), b = (int)(p / m.w);
        const float v = u[m.base + (size_t)a * m.sa + (size_t)b * m.sb];
        if (v != v) continue; /* NaN takes no part */
        const unsigned key = float_order_key(v);
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
    KS_TRY(check_slice(s, axis, index));
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
    const slice_map m = slice_make(&s->g, axis, index);
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
    s->have_residual = 0; /* reported once: a later request without a new residual says none */
    slot->has_probe = has_probe;
    for (int d = 0; d < 3; ++d) slot->probe[d] = has_probe ? probe[d] : -1;
    slot->iteration = iteration;
    return KS_OK;
}

int ks_lsolver_poll_readback(ks_lsolver *s, ks_lreadback *out)
{
    /* the newest finished request wins; older pending ones are dropped, but
     * the newest residual among the finished ones is kept (a residual is not
     * computed every frame, so the request that carries it is often not the
     * newest by the time the host looks) */
    int best = -1, with_residual = -1;
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
        if (slot->had_residual && (with_residual < 0 || slot->seq > s->slots[with_residual].seq))
            with_residual = n;
    }
    if (best < 0) return 0;
    const ks_lreadback_slot *b = &s->slots[best];
    const ks_lreadback_slot *r = with_residual >= 0 ? &s->slots[with_residual] : NULL;
    out->residual_rms = r ? sqrt(r->host->residual_sum / (double)s->points) : -1.0;
    out->residual_iteration = r ? r->iteration : -1;
    for (int n = 0; n < KS_LREADBACK_SLOTS; ++n)
        if (s->slots[n].pending && s->slots[n].seq <= b->seq) s->slots[n].pending = 0;
    const ks_lreadback_raw *h = b->host;
    out->slice_min = float_from_order_key(h->minmax[0]);
    out->slice_max = float_from_order_key(h->minmax[1]);
    out->probe_value = b->has_probe ? h->probe : NAN;
    for (int d = 0; d < 3; ++d) out->probe[d] = b->probe[d];
    out->iteration = b->iteration;
    return 1;
}
