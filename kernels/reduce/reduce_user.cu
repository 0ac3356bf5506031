/* A user's reduce kernel (reduce_user.h): its code loaded by
 * kernels/user/user_code.h, launched by the contract's rule
 * (reduce_contract.h): the grid covers the floats, kernelscope_items_per_thread
 * a thread, into a zeroed float; or as the file's declaration says (kernel_decl.h:
 * its arguments' order, a grid covering the floats or N blocks a multiprocessor,
 * its block and dynamic shared memory), and where it writes one partial a block
 * those partials added into the float by a second launch (a tree a block, one
 * atomicAdd a block), timed with it. */
#include "reduce_gpu_internal.h"

#include <string.h>

#include "reduce_contract.h"
#include "reduce_user.h"
#include "reduce_add_partials.cuh"

extern "C" ks_status ks_reduce_user_load(const char *name, const void *code, size_t size, ks_reduce_user **out)
{
    /* the contract, or the file's declaration (ks_reduce_decl_check) */
    static const ks_user_code_desc contract = {KS_REDUCE_USER_ENTRY, KS_REDUCE_USER_ITEMS, 1,
                                               {KS_REDUCE_USER_ITEMS_MAX, 1, 1}, "1 to %d", KS_REDUCE_DECL_ROLES,
                                               KS_REDUCE_DECL_GRIDS, KS_REDUCE_DECL_NEED, ks_reduce_decl_check};
    return ks_user_code_load(&contract, name, code, size, out);
}

/* ---- a declared kernel's launch (kernel_decl.h): its block, grid, shared memory and arguments ---- */

/* A declared launch over n floats (ks_user_code_launch_1d), with reduce's own rules: without the
 * line's block=, the user's block is a power of two as for the contract; a kernel that declares
 * multiple runs only at multiples of its block. */
static ks_status declared_check(const ks_reduce_user *u, const ks_kdecl *d, long long n, int bx, ks_user_launch_1d *out)
{
    const char *name = ks_user_code_name(u);
    if (!d->block_dims && (bx < KS_REDUCE_MIN_BLOCK || bx > KS_REDUCE_MAX_BLOCK || (bx & (bx - 1))))
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1: a power of two in %d..%d", name, bx, KS_REDUCE_MIN_BLOCK,
                       KS_REDUCE_MAX_BLOCK);
    const int user[3] = {bx, 1, 1};
    KS_TRY(ks_user_code_launch_1d(u, user, n, "floats", out));
    if (d->multiple && n % out->threads)
        return ks_fail(KS_ERR_INVALID, "%s: it assumes sizes that are multiples of its block (multiple), and %lld "
                       "floats are not a multiple of %d", name, n, out->threads);
    return KS_OK;
}

/* The declared kernel over x[0..n), then (partials) its per-block floats added into *out;
 * partials: room for the grid's floats. */
static ks_status declared_launch(const ks_reduce_user *u, const ks_kdecl *d, const ks_user_launch_1d *l, const float *x,
                                 long long n, float *out, float *partials, cudaStream_t s)
{
    const ks_user_arg args[] = {{"x", &x}, {"out", &out}, {"partials", &partials}};
    KS_TRY(ks_user_code_launch_declared(u, l, args, 3, n, s));
    if (ks_kdecl_arg_index(d, "partials") >= 0) {
        ks_rd_add_partials<<<ks_rd_add_grid((long long)l->grid), KS_RD_ADD_THREADS, 0, s>>>(partials,
                                                                                         (long long)l->grid, out);
        KS_CUDA_TRY(cudaGetLastError());
    }
    return KS_OK;
}

/* The contract's grid for block bx over n floats. */
static unsigned long long grid_of(const ks_reduce_user *u, long long n, int bx)
{
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    const unsigned long long per = (unsigned long long)bx * (unsigned long long)a.per_thread[0];
    return ((unsigned long long)n + per - 1) / per;
}

extern "C" ks_status ks_reduce_user_check_block(const ks_reduce_user *u, long long n, int bx)
{
    const ks_kdecl *d = ks_user_code_declaration(u);
    ks_user_launch_1d l;
    if (d) return declared_check(u, d, n, bx, &l);
    const char *name = ks_user_code_name(u);
    ks_user_code_attrs a;
    ks_user_code_get_attrs(u, &a);
    if (bx < KS_REDUCE_MIN_BLOCK || bx > KS_REDUCE_MAX_BLOCK || (bx & (bx - 1)))
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1: a power of two in %d..%d", name, bx, KS_REDUCE_MIN_BLOCK,
                       KS_REDUCE_MAX_BLOCK);
    if (bx > a.max_threads)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1 has %d threads; the compiled kernel takes at most %d", name, bx,
                       bx, a.max_threads);
    const unsigned long long grid = grid_of(u, n, bx);
    if (grid > 2147483647ull)
        return ks_fail(KS_ERR_INVALID, "%s: block %dx1 needs %llu blocks for %lld floats (at most 2^31 - 1): a larger "
                       "block or more floats a thread", name, bx, grid, n);
    return KS_OK;
}

/* The contract's launch, or the declared one: adds x[0..n) into *out (n >= 1). A
 * declaration's partials go to partials, *cap floats, grown here (NULL, 0: none yet). */
static ks_status launch(const ks_reduce_user *u, int bx, const float *x, long long n, float *out, float **partials,
                        long long *cap, cudaStream_t s)
{
    const ks_kdecl *d = ks_user_code_declaration(u);
    if (d) {
        ks_user_launch_1d sh;
        KS_TRY(declared_check(u, d, n, bx, &sh));
        if (ks_kdecl_arg_index(d, "partials") >= 0 && (long long)sh.grid > *cap) {
            KS_CUDA_TRY(cudaStreamSynchronize(s)); /* the old ones may be in use */
            cudaFree(*partials);
            *partials = NULL;
            *cap = 0;
            KS_TRY(ks_rd_dev_alloc((void **)partials, (size_t)sh.grid * sizeof(float), "your kernel's partial sums"));
            *cap = (long long)sh.grid;
        }
        return declared_launch(u, d, &sh, x, n, out, *partials, s);
    }
    KS_TRY(ks_reduce_user_check_block(u, n, bx));
    void *args[] = {(void *)&x, (void *)&n, (void *)&out};
    KS_CUDA_TRY(cudaLaunchKernel(ks_user_code_function(u), dim3((unsigned)grid_of(u, n, bx)), dim3((unsigned)bx), args,
                                 0, s));
    return KS_OK;
}

typedef struct user_run {
    const ks_reduce_user *u;
    int bx;
} user_run;

static ks_status run_user(ks_reduce_gpu *g, const void *what)
{
    const user_run *r = (const user_run *)what;
    KS_CUDA_TRY(cudaMemsetAsync(g->result, 0, sizeof(float), g->stream));
    KS_TRY(launch(r->u, r->bx, g->x, g->d.n, g->result, &g->user_partials, &g->user_partials_cap, g->stream));
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_run_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx)
{
    const user_run r = {u, bx};
    KS_TRY(run_user(g, &r));
    KS_CUDA_TRY_LAUNCH("reduce (your kernel)");
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_time_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx, double span_ms,
                                             const ks_timing_opts *o, ks_reduce_timing *out)
{
    KS_TRY(ks_reduce_user_check_block(u, g->d.n, bx));
    const user_run r = {u, bx};
    KS_TRY(ks_rd_time_runs(g, run_user, &r, span_ms, 4.0 * (double)g->d.n, o, out));
    KS_CUDA_TRY_LAUNCH("reduce (your kernel)");
    return KS_OK;
}

/* ---- the check's run on its own buffers ---- */

enum { KS_RD_PROBE_WORDS = 2 * KS_REDUCE_PROBE_FLANK + 1 };

/* A declared kernel's partials for the probe: room for its larger launch's grid (*cap floats, 0: it
 * writes none), NaN words on either side that it must not write. */
static ks_status probe_partials(const ks_reduce_user *u, int bx, long long n, long long split, float **dpart,
                                long long *cap)
{
    *dpart = NULL;
    *cap = 0;
    const ks_kdecl *d = ks_user_code_declaration(u);
    if (!d || ks_kdecl_arg_index(d, "partials") < 0) return KS_OK;
    ks_user_launch_1d a, b;
    KS_TRY(declared_check(u, d, n - split, bx, &b));
    a = b;
    if (split > 0) KS_TRY(declared_check(u, d, split, bx, &a));
    *cap = (long long)(a.grid > b.grid ? a.grid : b.grid);
    const size_t words = (size_t)*cap + 2 * KS_REDUCE_PROBE_FLANK;
    KS_TRY(ks_rd_dev_alloc((void **)dpart, words * sizeof(float), "the check's partial sums"));
    KS_CUDA_TRY(cudaMemset(*dpart, 0xFF, words * sizeof(float))); /* NaN: a block that writes none shows */
    return KS_OK;
}

static ks_status probe_run(const ks_reduce_user *u, int bx, const float *x, long long n, long long split, float *dx,
                           float *dout, float *dpart, long long cap, cudaStream_t s, ks_reduce_probe *out)
{
    float words[KS_RD_PROBE_WORDS];
    for (int i = 0; i < KS_RD_PROBE_WORDS; ++i) words[i] = nanf(""); /* the flanks */
    words[KS_REDUCE_PROBE_FLANK] = 0.0f;                           /* *out starts at zero */
    KS_CUDA_TRY(cudaMemcpyAsync(dx, x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice, s));
    KS_CUDA_TRY(cudaMemsetAsync(dx + n, 0xFF, KS_REDUCE_PROBE_GUARD * sizeof(float), s)); /* NaN past the end */
    KS_CUDA_TRY(cudaMemcpyAsync(dout, words, sizeof words, cudaMemcpyHostToDevice, s));
    float *acc = dout + KS_REDUCE_PROBE_FLANK;
    float *part = dpart ? dpart + KS_REDUCE_PROBE_FLANK : NULL;
    if (split > 0) KS_TRY(launch(u, bx, dx, split, acc, &part, &cap, s));
    KS_TRY(launch(u, bx, dx + split, n - split, acc, &part, &cap, s));
    float flanks[2 * KS_REDUCE_PROBE_FLANK];
    if (dpart) {
        KS_CUDA_TRY(cudaMemcpyAsync(flanks, dpart, KS_REDUCE_PROBE_FLANK * sizeof(float), cudaMemcpyDeviceToHost, s));
        KS_CUDA_TRY(cudaMemcpyAsync(flanks + KS_REDUCE_PROBE_FLANK, part + cap, KS_REDUCE_PROBE_FLANK * sizeof(float),
                                    cudaMemcpyDeviceToHost, s));
    }
    KS_CUDA_TRY(cudaMemcpyAsync(words, dout, sizeof words, cudaMemcpyDeviceToHost, s));
    KS_CUDA_TRY(cudaStreamSynchronize(s));
    out->sum = words[KS_REDUCE_PROBE_FLANK];
    out->flank_ok = 1;
    out->partials_ok = 1;
    for (int i = 0; i < KS_RD_PROBE_WORDS; ++i) /* NaN bits, written by nobody: still NaN */
        if (i != KS_REDUCE_PROBE_FLANK && !isnan(words[i])) out->flank_ok = 0;
    for (int i = 0; dpart && i < 2 * KS_REDUCE_PROBE_FLANK; ++i)
        if (!isnan(flanks[i])) out->partials_ok = 0;
    return KS_OK;
}

extern "C" ks_status ks_reduce_user_probe(const ks_reduce_user *u, int bx, const float *x, long long n, long long split,
                                          ks_reduce_probe *out)
{
    if (n < 1 || split < 0 || split >= n || split % 4)
        return ks_fail(KS_ERR_INVALID, "reduce: a probe of %lld floats split at %lld", n, split);
    float *dx = NULL, *dout = NULL;
    cudaStream_t s = NULL;
    ks_status st = ks_rd_dev_alloc((void **)&dx, (size_t)(n + KS_REDUCE_PROBE_GUARD) * sizeof(float), "the check's input");
    if (st == KS_OK) st = ks_rd_dev_alloc((void **)&dout, KS_RD_PROBE_WORDS * sizeof(float), "the check's sum");
    if (st == KS_OK) {
        const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (e != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "reduce: cudaStreamCreate: %s", cudaGetErrorString(e));
    }
    float *dpart = NULL;
    long long cap = 0;
    if (st == KS_OK) st = probe_partials(u, bx, n, split, &dpart, &cap);
    if (st == KS_OK) st = probe_run(u, bx, x, n, split, dx, dout, dpart, cap, s, out);
    if (st == KS_OK) { /* a fault shows here: KS_ERR_CUDA, the caller gives the context up */
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "%s: %s", ks_user_code_name(u), cudaGetErrorString(e));
    }
    if (s) cudaStreamDestroy(s);
    cudaFree(dx);
    cudaFree(dout);
    cudaFree(dpart);
    return st;
}
