/* Jacobi on several GPUs (laplace_multi.h): the edge-first blocks. A block of
 * b iterations on one slab computes the edge planes first and posts their
 * exchange (laplace_multi_halo.cu), then the interior beside it; tblock with
 * stream waits in one launch that signals its edges (dom_block_fused). */
#include <string.h>

#include "laplace_multi_internal.h"

/* A launch of fn over the sub-slab of `planes` planes starting at in / out, on stream. */
static ks_status sub_sweep(dom *d, ks_llaunch_fn fn, const int block[3], int steps, const float *in, float *out,
                           int planes, cudaStream_t stream, ks_ledges *edges)
{
    ks_grid sub = d->sgrid;
    if (sub.dims == 3) sub.nz = planes;
    else sub.ny = planes;
    ks_lsweep sw;
    memset(&sw, 0, sizeof sw);
    sw.grid = &sub;
    sw.in = in;
    sw.out = out;
    for (int k = 0; k < 3; ++k) sw.block[k] = block[k];
    sw.steps = steps;
    sw.stream = stream;
    sw.prop = &d->s->prop;
    sw.edges = edges;
    return fn(&sw);
}

/* tblock over the whole slab in one launch that writes the high edge first
 * and the low edge early, and signals when both are written: the exchange
 * stream sends them while the rest of the launch runs. Edges through a
 * separate launch first left the GPU half idle for its length and cost tblock
 * 7 % at 512^3 a GPU on 2 H100s. */
static int fused_edges(const dom *d, ks_llaunch_fn fn, int D)
{
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    return fn == ks_llaunch_tblock && d->signal && (has_hi(d) ? l - D : l) - f >= 2 * D;
}

/* regq and vec2d write the interior of what they are given and nothing
 * else, so for one step their edge planes can go straight into the new
 * field beside a concurrent interior launch. */
static int interior_only(ks_llaunch_fn fn) { return fn == ks_llaunch_regq || fn == ks_llaunch_vec2d; }

/* b iterations (1 <= b <= D <= KS_LMULTI_DEPTH) with launcher fn; the
 * exchange moves D planes a side. prof >= 0: record the profile events of
 * that block. */
/* dom_block for tblock with fused_edges: one launch over the whole slab, the
 * exchange stream waiting for its edge signal. */
static ks_status dom_block_fused(dom *d, ks_llaunch_fn fn, const int block[3], int b, int D, int prof)
{
    ks_lsolver *s = d->s;
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count;
    const int side = has_lo(d) || has_hi(d);
    if (side && d->halo_valid < b) KS_TRY(ks_lmulti_refresh_halos(d, D));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][0], s->stream));
    ks_ledges e;
    memset(&e, 0, sizeof e);
    e.lo = f;
    e.hi = has_hi(d) ? l - D : l;
    if (has_hi(d)) {
        e.edge_lo = l - D;
        e.edge_hi = l;
    }
    e.low_end = has_lo(d) ? f + D : 0;
    e.signal = d->signal;
    KS_TRY(sub_sweep(d, fn, block, b, s->cur, s->prev, d->sgrid.dims == 3 ? d->sgrid.nz : d->sgrid.ny, s->stream, &e));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][1], s->stream));
    if (side) {
        KS_TRY(ks_lmulti_wait_signal(&d->ops, d->xs, d->signal, e.signals));
        KS_TRY(ks_lmulti_exchange_post(d, s->prev, has_lo(d) ? plane_at(d, s->prev, f) : NULL,
                             has_hi(d) ? plane_at(d, s->prev, l - D) : NULL, D, prof));
        KS_TRY(ks_lmulti_join(d));
    }
    float *t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return KS_OK;
}

static ks_status dom_block(dom *d, ks_llaunch_fn fn, const int block[3], int b, int D, int prof)
{
    ks_lsolver *s = d->s;
    const int f = d->slab.first - d->slab.lo, l = f + d->slab.count, X = KS_LMULTI_DEPTH;
    const int side = has_lo(d) || has_hi(d);
    if (side && d->halo_valid < b) KS_TRY(ks_lmulti_refresh_halos(d, D));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][0], s->stream));
    float *lo_edge = NULL, *hi_edge = NULL; /* what is sent */
    const int direct = b == 1 && D == 1 && interior_only(fn);
    /* Direct edges run on the exchange stream beside the interior. Edges
     * through the scratch (a variant that copies its boundary; tblock on a
     * slab too thin for fused_edges, or without stream waits) run first on
     * the solver's stream: a temporally blocked interior holds every SM until
     * it ends, so an exchange queued behind it would wait for its end (2
     * H100s, tblock 512^3 a GPU: 0.146 ms an iteration this way, 0.160 with
     * the edges beside it, 0.143 with fused_edges) */
    if (side && direct) KS_TRY(ks_lmulti_fork_exchange(d));
    if (direct) {
        /* plane f from [f - 1, f + 2), plane l - 1 from [l - 2, l + 1), into the new field */
        if (has_lo(d)) {
            lo_edge = plane_at(d, s->prev, f);
            KS_TRY(sub_sweep(d, fn, block, 1, plane_at(d, s->cur, f - 1), plane_at(d, s->prev, f - 1), 3, d->xs, NULL));
        }
        if (has_hi(d)) {
            hi_edge = plane_at(d, s->prev, l - 1);
            KS_TRY(sub_sweep(d, fn, block, 1, plane_at(d, s->cur, l - 2), plane_at(d, s->prev, l - 2), 3, d->xs, NULL));
        }
    } else {
        /* planes [f, f + D) from the sub-slab [f - b, f + D + b) (its outer
         * planes go stale, b planes in, and none of those is kept), into the
         * scratch: the low one holds planes [f - X, f + 2X), the high one
         * [l - 2X, l + X) */
        if (has_lo(d)) {
            lo_edge = d->scratch[0] + (size_t)X * d->plane;
            KS_TRY(sub_sweep(d, fn, block, b, plane_at(d, s->cur, f - b), d->scratch[0] + (size_t)(X - b) * d->plane,
                             D + 2 * b, s->stream, NULL));
        }
        if (has_hi(d)) {
            hi_edge = d->scratch[1] + (size_t)(2 * X - D) * d->plane;
            KS_TRY(sub_sweep(d, fn, block, b, plane_at(d, s->cur, l - D - b),
                             d->scratch[1] + (size_t)(2 * X - D - b) * d->plane, D + 2 * b, s->stream, NULL));
        }
        if (side) KS_TRY(ks_lmulti_fork_exchange(d));
    }
    if (side) KS_TRY(ks_lmulti_exchange_post(d, s->prev, lo_edge, hi_edge, D, prof));
    /* The rest: the slab's own planes, with the grid's boundary plane where
     * there is no neighbour. Its outermost planes are not written, or come out
     * stale or copied; the edges replace them below. */
    const int ilo = has_lo(d) ? f : f - 1, ihi = has_hi(d) ? l : l + 1;
    KS_TRY(sub_sweep(d, fn, block, b, plane_at(d, s->cur, ilo), plane_at(d, s->prev, ilo), ihi - ilo, s->stream, NULL));
    if (prof >= 0) KS_CUDA_TRY(cudaEventRecord(d->pe[prof][1], s->stream));
    if (side) KS_TRY(ks_lmulti_join(d)); /* the edges and the halos received */
    const size_t bytes = (size_t)D * d->plane * sizeof(float);
    if (!direct && has_lo(d))
        KS_CUDA_TRY(cudaMemcpyAsync(plane_at(d, s->prev, f), lo_edge, bytes, cudaMemcpyDeviceToDevice, s->stream));
    if (!direct && has_hi(d))
        KS_CUDA_TRY(cudaMemcpyAsync(plane_at(d, s->prev, l - D), hi_edge, bytes, cudaMemcpyDeviceToDevice, s->stream));
    float *t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return KS_OK;
}

/* iters iterations in blocks, as ks_lsolver_run does them on one GPU: a
 * temporally blocked variant in blocks of its time block (exchanging that
 * many planes), with KS_LPREV_EXACT its last iteration a single regq step;
 * the others one iteration a block. prof_blocks > 0: the first blocks are
 * profiled. */
ks_status ks_lmulti_dom_run(dom *d, int variant, const int block[3], int iters, ks_lprev prev, int prof_blocks)
{
    const ks_lvariant_info *info = NULL;
    ks_llaunch_fn fn = NULL;
    KS_TRY(ks_lsolver_launcher(d->s, variant, &info, &fn));
    const int T = info->steps_per_launch > KS_LMULTI_DEPTH ? KS_LMULTI_DEPTH : info->steps_per_launch;
    const int single = T > 1 && prev == KS_LPREV_EXACT; /* end with one regq step */
    int rem = single ? iters - 1 : iters, n = 0;
    while (rem > 0) {
        const int b = rem < T ? rem : T;
        if (fused_edges(d, fn, T)) KS_TRY(dom_block_fused(d, fn, block, b, T, n < prof_blocks ? n : -1));
        else KS_TRY(dom_block(d, fn, block, b, T, n < prof_blocks ? n : -1));
        rem -= b;
        ++n;
    }
    if (single && iters > 0) KS_TRY(dom_block(d, ks_llaunch_regq, block, 1, T, n < prof_blocks ? n : -1));
    d->prof_blocks = n + single < prof_blocks ? n + single : prof_blocks;
    return KS_OK;
}
