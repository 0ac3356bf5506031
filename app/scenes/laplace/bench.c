#include "base/ks_util.h"
#include "app/kernel/variant_set.h"
#include "app/scenes/laplace/check.h"
#include "app/scenes.h"
#include "app/scenes/laplace/options.h"
#include "app/scenes/laplace/bench.h"
#include "app/scenes/laplace/bench_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fma_peak.h"
#include "base/host_peak.h"
#include "kernels/user/kernel_decl.h"
#include "kernels/laplace/laplace.h"
#include "app/bench/bench_counters.h"
#include "app/scenes/laplace/counters.h"
#include "app/bench/bench_output.h"
#include "app/bench/bench_roofline.h"
#include "render/chart.h"
#include "render/image_io.h"
#include "app/run_outputs.h"
#include "app/signals.h"

enum { KS_BENCH_MAX_ROWS = 2048 };

/* Block sweeps by rank (each also checked against the device before use). */
static const int ks_sweep_rank2[][3] = {{32, 4, 1},  {32, 8, 1},  {32, 12, 1}, {32, 16, 1},
                                        {64, 4, 1},  {64, 8, 1},  {128, 2, 1}, {128, 4, 1},
                                        {256, 1, 1}, {256, 2, 1}, {32, 32, 1}, {16, 16, 1}};
static const int ks_sweep_rank3[][3] = {{32, 4, 4}, {32, 8, 2}, {32, 8, 4}, {64, 4, 2},
                                        {64, 4, 4}, {16, 8, 4}, {32, 4, 8}, {128, 2, 2}};

void ks_bench_laplace_fill_random(const ks_grid *g, float *u, unsigned long long seed)
{
    const size_t n = ks_grid_points(g);
    unsigned long long x = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        u[i] = 0.1f + (float)(x >> 40) * (1.0f / 16777216.0f);
    }
}

/* A small odd grid, each size rounded up to a multiple of the block for a kernel file that declares
 * it assumes multiples (kernel_decl.h). */
static ks_grid small_grid(int dims, int variant, const int block[3], int nx, int ny, int nz)
{
    int n[3] = {nx, ny, dims == 3 ? nz : 1};
    ks_kdecl_round_sizes(ks_luser_declaration(variant), block, dims, n);
    return (ks_grid){dims, n[0], n[1], n[2]};
}

/* A variant/block pair against the gold routine on a small odd grid. */
static ks_status check_against_gold(int dims, int variant, const int block[3])
{
    const ks_grid g = dims == 2 ? small_grid(dims, variant, block, 97, 61, 1) : small_grid(dims, variant, block, 37, 29, 23);
    const size_t n = ks_grid_points(&g);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *gpu = malloc(n * sizeof *gpu);
    ks_lsolver *s = NULL;
    ks_status st = (a && b && gpu) ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    const int iters = 12;
    if (st == KS_OK) {
        ks_bench_laplace_fill_random(&g, a, 7);
        st = ks_lsolver_create(&g, &s);
    }
    if (st == KS_OK) st = ks_lsolver_upload(s, a);
    if (st == KS_OK) st = ks_lsolver_iterate(s, variant, block, iters);
    if (st == KS_OK) st = ks_lsolver_download(s, gpu);
    if (st == KS_OK) {
        for (int it = 0; it < iters; ++it) {
            ks_laplace_gold_step(&g, a, b);
            float *t = a;
            a = b;
            b = t;
        }
        for (size_t i = 0; i < n && st == KS_OK; ++i) {
            const float ref = a[i], got = gpu[i];
            if (!(fabsf(got - ref) <= 1e-6f * fmaxf(1.0f, fabsf(ref))))
                st = ks_fail(KS_ERR_UNSUPPORTED,
                             "kernel %s block %dx%dx%d disagrees with the CPU gold at point %zu "
                             "(%.9g vs %.9g): not timing a wrong kernel",
                             ks_lvariant_get(variant)->name, block[0], block[1], block[2], i,
                             (double)got, (double)ref);
        }
    }
    ks_lsolver_destroy(s);
    free(a);
    free(b);
    free(gpu);
    return st;
}

/* One gold step, the fields swapped after it (the timing loop's sample, host clock). */
typedef struct cpu_step {
    const ks_grid *g;
    float *a, *b;
} cpu_step;

static ks_status cpu_sample(void *ctx, double *ms)
{
    cpu_step *c = ctx;
    const double t0 = ks_now_seconds();
    ks_laplace_gold_step(c->g, c->a, c->b);
    *ms = (ks_now_seconds() - t0) * 1e3;
    float *t = c->a;
    c->a = c->b;
    c->b = t;
    return KS_OK;
}

/* The CPU backend: the gold routine on the host clock (T_peak is measured once for the run);
 * reps steps after one warm-up. */
static ks_status bench_cpu_grid(const ks_grid *g, int reps, ks_bench_row *row)
{
    const size_t bytes = ks_grid_bytes(g);
    char what[96];
    snprintf(what, sizeof what, "grid %dx%dx%d", g->nx, g->ny, g->nz);
    KS_TRY(ks_host_memory_check(2.0 * (double)bytes, what)); /* refuse before allocating */
    float *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "grid %dx%dx%d needs %.2f GiB of host memory", g->nx,
                       g->ny, g->nz, 2.0 * (double)bytes / 1073741824.0);
    }
    ks_bench_laplace_fill_random(g, a, 3);
    memcpy(b, a, bytes);
    cpu_step c = {g, a, b};
    const ks_timing_opts o = {.reps = reps, .warmup = 1};
    const ks_timing_run run = {cpu_sample, NULL, &c, 2.0 * (double)bytes, 0.0};
    const ks_status st = ks_timing_measure(&run, &o, &row->timing);
    if (st == KS_OK) row->ms_per_iter = row->timing.median_ms;
    free(c.a);
    free(c.b);
    return st;
}

ks_status ks_bench_laplace_time_one(const ks_grid *g, int use_cuda, int variant, const int block[3], int reps,
                                    double *ms_per_iter)
{
    *ms_per_iter = 0.0;
    if (!use_cuda) {
        ks_bench_row row;
        memset(&row, 0, sizeof row);
        KS_TRY(bench_cpu_grid(g, reps, &row));
        *ms_per_iter = row.ms_per_iter;
        return KS_OK;
    }
    KS_TRY(check_against_gold(g->dims, variant, block));
    ks_lsolver *s = NULL;
    KS_TRY(ks_lsolver_create(g, &s));
    const size_t bytes = ks_grid_bytes(g);
    char what[96];
    snprintf(what, sizeof what, "grid %dx%dx%d (initial field)", g->nx, g->ny, g->nz);
    ks_status st = ks_host_memory_check((double)bytes, what);
    float *init = st == KS_OK ? malloc(bytes) : NULL;
    if (st == KS_OK && !init) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    if (st == KS_OK) {
        ks_bench_laplace_fill_random(g, init, 11);
        st = ks_lsolver_upload(s, init);
    }
    free(init);
    /* the same iterations per timed run as bench laplace3d/2d; back to back, as the live view runs */
    const int iters = ks_lvariant_get(variant)->steps_per_launch * 4;
    const ks_timing_opts o = {.cache = KS_CACHE_WARM, .reps = reps};
    ks_timing t;
    if (st == KS_OK) st = ks_lsolver_time(s, variant, block, iters, &o, &t);
    if (st == KS_OK) *ms_per_iter = t.median_ms / iters;
    ks_lsolver_destroy(s);
    return st;
}

typedef struct bench_plan {
    int dims;
    int ngrids;
    int grids[KS_MAX_LIST][3];
    int nvariants;
    int variants[KS_MAX_LIST];
} bench_plan;

static void plan_defaults(const ks_options *opt, int use_cuda, bench_plan *p)
{
    p->dims = ks_laplace_dims(opt);
    if (ks_laplace_opts_get(opt)->grid_count) {
        p->ngrids = ks_laplace_opts_get(opt)->grid_count;
        memcpy(p->grids, ks_laplace_opts_get(opt)->grids, sizeof p->grids);
    } else {
        static const int cuda3[] = {256, 512, 1024}, cuda2[] = {4096, 8192, 16384};
        static const int cpu3[] = {64, 128}, cpu2[] = {1024, 2048};
        const int *sizes = use_cuda ? (p->dims == 3 ? cuda3 : cuda2) : (p->dims == 3 ? cpu3 : cpu2);
        p->ngrids = use_cuda ? 3 : 2;
        for (int i = 0; i < p->ngrids; ++i) {
            p->grids[i][0] = p->grids[i][1] = sizes[i];
            p->grids[i][2] = p->dims == 3 ? sizes[i] : 1;
        }
    }
    p->nvariants = 0;
    if (opt->kernel_count) {
        for (int k = 0; k < opt->kernel_count; ++k)
            p->variants[p->nvariants++] = ks_lvariant_find(p->dims, opt->kernels[k]);
    } else {
        for (int id = 0; id < ks_lvariant_count() && p->nvariants < KS_MAX_LIST; ++id)
            if (ks_lvariant_get(id)->dims == p->dims) p->variants[p->nvariants++] = id;
    }
}

/* Blocks to time for a variant: the user's list (each must be accepted), or
 * the sweep for its rank (those the device refuses are skipped). */
static int blocks_for(const ks_options *opt, const ks_lsolver *probe, int variant,
                      int out[][3], ks_status *err)
{
    const ks_lvariant_info *info = ks_lvariant_get(variant);
    int n = 0;
    *err = KS_OK;
    if (opt->block_count) {
        for (int b = 0; b < opt->block_count; ++b) {
            const int *blk = opt->blocks[b];
            ks_status st = ks_lvariant_check_shape(variant, blk);
            if (st == KS_OK) st = ks_lsolver_check_block(probe, variant, blk);
            if (st != KS_OK) {
                ks_error_prefix("--block %dx%dx%d for %s", blk[0], blk[1], blk[2], info->name);
                *err = st;
                return 0;
            }
            memcpy(out[n++], blk, 3 * sizeof(int));
        }
        return n;
    }
    const int(*sweep)[3] = info->block_rank == 3 ? ks_sweep_rank3 : ks_sweep_rank2;
    const int count = info->block_rank == 3 ? (int)(sizeof ks_sweep_rank3 / sizeof ks_sweep_rank3[0])
                                            : (int)(sizeof ks_sweep_rank2 / sizeof ks_sweep_rank2[0]);
    for (int b = 0; b < count; ++b)
        if (ks_lsolver_check_block(probe, variant, sweep[b]) == KS_OK) memcpy(out[n++], sweep[b], 3 * sizeof(int));
    if (n == 0) memcpy(out[n++], info->default_block, 3 * sizeof(int));
    ks_error_clear();
    return n;
}

/* The --kernel-file files built once, on the first grid at their block (--block, else the
 * contract's default, their rows'); the code stays loaded in their variants' rows. */
static ks_status load_files(const ks_options *opt, const ks_device_info *dev, const bench_plan *p)
{
    const char *file = ks_laplace_kernel_file(opt, 0);
    const int row = file ? ks_lvariant_find(p->dims, ks_path_base_name(file)) : -1;
    if (row < 0) return KS_OK;
    ks_variant_set_desc d = {.contract = &ks_laplace_contract, .opt = opt, .use_cuda = 1, .device = dev,
                             .grid = {p->grids[0][0], p->grids[0][1], p->dims == 3 ? p->grids[0][2] : 1}};
    memcpy(d.block, ks_lvariant_get(row)->default_block, sizeof d.block);
    if (opt->block_count) memcpy(d.block, opt->blocks[0], sizeof d.block);
    ks_variant_set *files = NULL;
    KS_TRY(ks_variant_set_create(&d, &files));
    ks_variant_set_destroy(files);
    return KS_OK;
}

static ks_status bench_cuda(const ks_options *opt, const ks_device_info *dev, bench_plan *p,
                            ks_bench_row *rows, int *nrows, ks_bench_counters *bc)
{
    /* Users' kernels (--kernel-file): compiled and checked in the checker
     * process on the first grid, then loaded here like ours. */
    KS_TRY(load_files(opt, dev, p));
    /* Correctness first: every (variant, block) on a small grid against the gold. */
    int blocks[KS_MAX_LIST][KS_MAX_LIST > 16 ? KS_MAX_LIST : 16][3];
    int nblocks[KS_MAX_LIST];
    ks_status st = KS_OK;
    for (int v = 0; v < p->nvariants && st == KS_OK; ++v) {
        /* the probe that accepts blocks: the small grid, rounded for a kernel that assumes multiples */
        const int *first = opt->block_count ? opt->blocks[0] : ks_lvariant_get(p->variants[v])->default_block;
        const ks_grid small = small_grid(p->dims, p->variants[v], first, 37, 29, 23);
        ks_lsolver *probe = NULL;
        st = ks_lsolver_create(&small, &probe);
        if (st == KS_OK) nblocks[v] = blocks_for(opt, probe, p->variants[v], blocks[v], &st);
        for (int b = 0; st == KS_OK && b < nblocks[v]; ++b)
            st = check_against_gold(p->dims, p->variants[v], blocks[v][b]);
        ks_lsolver_destroy(probe);
    }
    KS_TRY(st);
    printf("checked %d kernel %s against the CPU gold: all agree\n", p->nvariants,
           ks_plural(p->nvariants, "variant", "variants"));

    /* the first row always: a bench stopped early still has a row to write */
    for (int gi = 0; gi < p->ngrids && (*nrows == 0 || !ks_signals_stop_requested()); ++gi) {
        ks_grid g = {p->dims, p->grids[gi][0], p->grids[gi][1], p->dims == 3 ? p->grids[gi][2] : 1};
        ks_lsolver *s = NULL;
        st = ks_lsolver_create(&g, &s);
        if (st == KS_ERR_OUT_OF_MEMORY && !ks_laplace_opts_get(opt)->grid_count) {
            printf("skipping grid %dx%dx%d: %s\n", g.nx, g.ny, g.nz, ks_error_message());
            continue; /* default sweep: "where memory allows" */
        }
        KS_TRY(st);
        const size_t bytes = ks_grid_bytes(&g);
        char what[96];
        snprintf(what, sizeof what, "grid %dx%dx%d (initial field)", g.nx, g.ny, g.nz);
        st = ks_host_memory_check((double)bytes, what);
        float *init = st == KS_OK ? malloc(bytes) : NULL;
        double t_peak = 0.0;
        if (st == KS_OK && !init) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
        if (st == KS_OK) {
            ks_bench_laplace_fill_random(&g, init, 11);
            st = ks_lsolver_upload(s, init);
        }
        free(init);
        /* The ceiling, in this run, on a copy of the field's size. */
        if (st == KS_OK) st = ks_cuda_measure_copy_gbs(bytes, 20, &t_peak);
        for (int v = 0; v < p->nvariants && st == KS_OK; ++v) {
            const ks_lvariant_info *info = ks_lvariant_get(p->variants[v]);
            for (int b = 0; b < nblocks[v] && st == KS_OK; ++b) {
                if (*nrows == KS_BENCH_MAX_ROWS || (*nrows > 0 && ks_signals_stop_requested())) break;
                ks_bench_row *r = &rows[(*nrows)++];
                memset(r, 0, sizeof *r);
                snprintf(r->device, sizeof r->device, "%s", dev->name);
                snprintf(r->cc, sizeof r->cc, "%d.%d", dev->cc_major, dev->cc_minor);
                snprintf(r->variant, sizeof r->variant, "%s", info->name);
                memcpy(r->grid, p->grids[gi], sizeof r->grid);
                r->grid[2] = g.nz;
                memcpy(r->block, blocks[v][b], sizeof r->block);
                const int iters = info->steps_per_launch * 4;
                const ks_timing_opts o = ks_bench_timing_opts(opt);
                st = ks_lsolver_time(s, p->variants[v], r->block, iters, &o, &r->timing);
                if (st != KS_OK) break;
                r->ms_per_iter = r->timing.median_ms / iters;
                ks_kernel_attrs attrs;
                if (ks_lsolver_kernel_attrs(s, p->variants[v], r->block, &attrs) == KS_OK) {
                    r->registers = attrs.registers;
                    r->occupancy = attrs.occupancy;
                }
                r->t_peak_gbs = t_peak;
                r->t_eff_gbs = 2.0 * (double)bytes / (r->ms_per_iter * 1e-3) / 1e9;
                r->ratio = r->t_eff_gbs / t_peak;
                if (bc) st = ks_laplace_counters_row(bc, *nrows - 1, s, p->variants[v], r); /* after the timing */
            }
        }
        ks_lsolver_destroy(s);
        KS_TRY(st);
    }
    return KS_OK;
}

typedef struct charts_ctx {
    const ks_options *opt;
    const ks_bench_row *rows;
    int n;
    double fma_gflops;
    const ks_bench_counters *bc;
} charts_ctx;

static ks_status charts(const void *ctx, const char *dir)
{
    (void)dir; /* opt->out_dir */
    const charts_ctx *c = ctx;
    KS_TRY(ks_bench_laplace_chart(c->opt, c->rows, c->n));
    return ks_bench_laplace_roofline(c->opt, c->rows, c->n, c->fma_gflops, c->bc);
}

ks_status ks_bench_laplace(const ks_options *opt, const ks_device_info *dev, int use_cuda,
                           ks_best_store *best, const char *best_path)
{
    bench_plan plan;
    plan_defaults(opt, use_cuda, &plan);
    ks_bench_row *rows = calloc(KS_BENCH_MAX_ROWS, sizeof *rows);
    if (!rows) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    int n = 0;
    printf("kernelscope bench %s on %s (%s backend)\n", opt->scene->name,
           use_cuda ? dev->name : "host CPU", use_cuda ? "cuda" : "cpu");
    ks_bench_counters *bc = NULL; /* --counters, --counters-ncu */
    ks_status st = ks_bench_counters_begin(opt, use_cuda, &bc);
    double fma_gflops = 0.0; /* the roofline's flat ceiling, measured in this run */
    if (st != KS_OK) {
        /* nothing measured */
    } else if (use_cuda) {
        st = ks_cuda_measure_fma_gflops(5, &fma_gflops);
        if (st == KS_OK) st = bench_cuda(opt, dev, &plan, rows, &n, bc);
    } else {
        /* T_peak once, before the grids: every thread, repeated, the best (base/host_peak.h) */
        ks_host_peak peak;
        st = ks_host_peak_measure(NULL, &peak);
        if (st == KS_OK)
            printf("T_peak %.1f GB/s: a host copy by %d %s, best of %d repetitions, spread %.0f %%%s\n", peak.gbs,
                   peak.threads, ks_plural(peak.threads, "thread", "threads"), peak.reps, 100.0 * peak.spread,
                   peak.reliable ? "" : " (unreliable: busy CPU)");
        for (int gi = 0; gi < plan.ngrids && st == KS_OK && (n == 0 || !ks_signals_stop_requested()); ++gi) {
            /* the CPU gold: no GPU kernel, so its counter columns stay empty */
            ks_grid g = {plan.dims, plan.grids[gi][0], plan.grids[gi][1],
                         plan.dims == 3 ? plan.grids[gi][2] : 1};
            ks_bench_row *r = &rows[n++];
            snprintf(r->device, sizeof r->device, "host CPU");
            snprintf(r->cc, sizeof r->cc, "-");
            snprintf(r->variant, sizeof r->variant, "gold");
            memcpy(r->grid, plan.grids[gi], sizeof r->grid);
            r->grid[2] = g.nz;
            st = bench_cpu_grid(&g, opt->reps, r);
            r->t_eff_gbs = 2.0 * (double)ks_grid_bytes(&g) / (r->ms_per_iter * 1e-3) / 1e9;
            r->host_peak = 1;
            r->t_peak_gbs = peak.gbs;
            r->t_peak_spread = peak.spread;
            r->verdict = (int)ks_host_peak_ratio(&peak, r->t_eff_gbs, &r->ratio);
        }
    }
    if (st == KS_OK && n == 0 && !ks_signals_stop_requested())
        st = ks_fail(KS_ERR_OUT_OF_MEMORY, "no grid fits in device memory");
    if (st == KS_OK && n == 0) printf("kernelscope: stopped before the first row; nothing to write\n");
    if (st == KS_OK && n > 0) {
        ks_bench_mark_best(rows, n);
        char csv_name[256];
        snprintf(csv_name, sizeof csv_name, "bench_%s.csv", opt->scene->name);
        const charts_ctx cc = {opt, rows, n, fma_gflops, bc};
        const ks_bench_counted counted = {rows, bc, ks_bench_laplace_table_text, ks_bench_laplace_csv_text};
        const ks_bench_output_desc out = {.dir = opt->out_dir, .rows = &counted, .n = n,
                                          .table = ks_bench_counted_table, .files = {{csv_name, ks_bench_counted_csv}},
                                          .charts = charts, .ctx = &cc};
        st = ks_bench_output_write(&out, KS_OK);
        if (st == KS_OK) st = ks_bench_counters_write(bc, opt->out_dir, opt->scene->name);
    }
    ks_bench_counters_destroy(bc);
    if (st == KS_OK && use_cuda && best && best_path) {
        for (int i = 0; i < n; ++i) {
            if (!rows[i].best) continue;
            /* a user's file changes from run to run: its best block is no lasting fact */
            if (ks_lvariant_is_user(ks_lvariant_find(ks_laplace_dims(opt), rows[i].variant))) continue;
            ks_best_entry e;
            memset(&e, 0, sizeof e);
            snprintf(e.device, sizeof e.device, "%s", rows[i].device);
            snprintf(e.scene, sizeof e.scene, "%s", opt->scene->name);
            snprintf(e.variant, sizeof e.variant, "%s", rows[i].variant);
            memcpy(e.grid, rows[i].grid, sizeof e.grid);
            memcpy(e.block, rows[i].block, sizeof e.block);
            e.ms_per_iter = rows[i].ms_per_iter;
            e.t_eff_gbs = rows[i].t_eff_gbs;
            ks_best_put(best, &e);
        }
        if (ks_best_save(best_path, best) == KS_OK) ks_note_wrote(best_path);
        else fprintf(stderr, "kernelscope: could not record best blocks: %s\n", ks_error_message());
    }
    free(rows);
    return st;
}
