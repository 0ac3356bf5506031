/* The scaling bench (bench_scaling.h). Under mpirun every rank runs the same
 * loop (one GPU each) and rank 0 alone prints and writes. */
#include "app/scenes/laplace/bench_scaling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_output.h"
#include "app/run_outputs.h"
#include "app/scenes.h"
#include "app/scenes/laplace/bench.h"
#include "app/scenes/laplace/options.h"
#include "app/signals.h"
#include "base/ks_util.h"
#include "kernels/laplace/mpi_job.h"
#include "kernels/laplace/laplace.h"
#include "kernels/laplace/laplace_multi.h"
#include "render/chart.h"

enum { KS_SCALING_MAX_ROWS = 512, KS_SCALING_CHECK_ITERS = 11 };

/* ---- derived figures and writers ---- */

void ks_scaling_derive(ks_scaling_row *rows, int n)
{
    for (int i = 0; i < n; ++i) {
        ks_scaling_row *r = &rows[i];
        r->speedup = r->efficiency = 0.0;
        for (int j = 0; j < n; ++j) {
            const ks_scaling_row *one = &rows[j];
            if (one->gpus != 1 || one->weak != r->weak || strcmp(one->variant, r->variant) != 0 ||
                memcmp(one->share, r->share, sizeof r->share) != 0 || !(one->ms_per_iter > 0.0) ||
                !(r->ms_per_iter > 0.0))
                continue;
            const double ratio = one->ms_per_iter / r->ms_per_iter;
            r->speedup = r->weak ? ratio * r->gpus : ratio;
            r->efficiency = r->speedup / r->gpus;
            break;
        }
    }
}

static void grid_text(const int g[3], char *buf, size_t len)
{
    if (g[2] > 1) snprintf(buf, len, "%dx%dx%d", g[0], g[1], g[2]);
    else snprintf(buf, len, "%dx%d", g[0], g[1]);
}

static size_t table_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_scaling_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used, "%5s %5s %-8s %-16s %-9s %10s %10s %8s %6s %9s %7s\n", "gpus", "ranks", "variant",
                    "grid", "block", "ms/iter", "T_eff GB/s", "speedup", "eff", "halo ms", "hidden");
    for (int i = 0; i < n; ++i) {
        const ks_scaling_row *r = &rows[i];
        char grid[48], block[32], speed[16], eff[16], halo[16], hidden[16];
        grid_text(r->grid, grid, sizeof grid);
        snprintf(block, sizeof block, "%dx%dx%d", r->block[0], r->block[1], r->block[2]);
        if (r->speedup > 0.0) {
            snprintf(speed, sizeof speed, "%.3f", r->speedup);
            snprintf(eff, sizeof eff, "%.3f", r->efficiency);
        } else {
            snprintf(speed, sizeof speed, "-");
            snprintf(eff, sizeof eff, "-");
        }
        if (r->gpus > 1) {
            snprintf(halo, sizeof halo, "%.4f", r->halo_ms);
            snprintf(hidden, sizeof hidden, "%.0f%%", 100.0 * r->hidden_share);
        } else {
            snprintf(halo, sizeof halo, "-");
            snprintf(hidden, sizeof hidden, "-");
        }
        ks_text_measure(buf, cap, &used, "%5d %5d %-8s %-16s %-9s %10.4f %10.1f %8s %6s %9s %7s\n", r->gpus, r->ranks,
                        r->variant, grid, block, r->ms_per_iter, r->t_eff_gbs, speed, eff, halo, hidden);
    }
    return used;
}

static size_t csv_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_scaling_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used,
                    "device,gpus,ranks,variant,grid,block,ms_per_iter,t_eff_gbs,speedup,efficiency,halo_ms,"
                    "hidden_share,cc\n");
    for (int i = 0; i < n; ++i) {
        const ks_scaling_row *r = &rows[i];
        ks_text_measure(buf, cap, &used, "\"%s\",%d,%d,%s,%dx%dx%d,%dx%dx%d,%.6f,%.2f,%.4f,%.4f,%.6f,%.4f,%s\n",
                        r->device, r->gpus, r->ranks, r->variant, r->grid[0], r->grid[1], r->grid[2], r->block[0],
                        r->block[1], r->block[2], r->ms_per_iter, r->t_eff_gbs, r->speedup, r->efficiency, r->halo_ms,
                        r->hidden_share, r->cc);
    }
    return used;
}

char *ks_scaling_table(const ks_scaling_row *rows, int n) { return ks_bench_text(table_text, rows, n); }
char *ks_scaling_csv(const ks_scaling_row *rows, int n) { return ks_bench_text(csv_text, rows, n); }

ks_status ks_scaling_chart(const ks_scaling_row *rows, int n, const char *scene, const char *dir)
{
    enum { KS_LINES = KS_CHART_MAX_SERIES - 1, KS_POINTS = 32 };
    char names[KS_LINES][96];
    double xs[KS_LINES][KS_POINTS], ys[KS_LINES][KS_POINTS], ideal_x[KS_POINTS], ideal_y[KS_POINTS];
    ks_chart_series series[KS_CHART_MAX_SERIES];
    int nseries = 0, nideal = 0, weak = 0;
    for (int i = 0; i < n; ++i) {
        const ks_scaling_row *r = &rows[i];
        if (!(r->speedup > 0.0)) continue;
        weak = r->weak;
        char name[96], share[48];
        grid_text(r->share, share, sizeof share);
        snprintf(name, sizeof name, "%s %s%s", r->variant, share, r->weak ? " a GPU" : "");
        int k = 0;
        while (k < nseries && strcmp(names[k], name) != 0) ++k;
        if (k == nseries) {
            if (nseries == KS_LINES) continue;
            snprintf(names[k], sizeof names[k], "%s", name);
            series[k] = (ks_chart_series){names[k], xs[k], ys[k], 0};
            ++nseries;
        }
        if (series[k].n == KS_POINTS) continue;
        xs[k][series[k].n] = r->gpus;
        ys[k][series[k].n++] = r->weak ? r->efficiency : r->speedup;
        int seen = 0;
        for (int p = 0; p < nideal; ++p) seen |= ideal_x[p] == r->gpus;
        if (!seen && nideal < KS_POINTS) {
            ideal_x[nideal] = r->gpus;
            ideal_y[nideal++] = weak ? 1.0 : r->gpus;
        }
    }
    if (nseries == 0) return KS_OK;
    for (int k = 0; k <= nseries; ++k) { /* x in increasing order, the ideal line last */
        double *x = k < nseries ? xs[k] : ideal_x, *y = k < nseries ? ys[k] : ideal_y;
        const int m = k < nseries ? series[k].n : nideal;
        for (int a = 1; a < m; ++a)
            for (int b = a; b > 0 && x[b] < x[b - 1]; --b) {
                double t = x[b]; x[b] = x[b - 1]; x[b - 1] = t;
                t = y[b]; y[b] = y[b - 1]; y[b - 1] = t;
            }
    }
    series[nseries++] = (ks_chart_series){weak ? "ideal (efficiency 1)" : "ideal (speed-up = GPUs)", ideal_x, ideal_y,
                                          nideal};
    char title[384];
    snprintf(title, sizeof title, "kernelscope bench %s --gpus on %s: %s scaling", scene, rows[0].device,
             weak ? "weak" : "strong");
    char tick_text[KS_POINTS][16];
    const char *tick_labels[KS_POINTS];
    for (int p = 0; p < nideal; ++p) {
        snprintf(tick_text[p], sizeof tick_text[p], "%.0f", ideal_x[p]);
        tick_labels[p] = tick_text[p];
    }
    ks_chart_desc d = {.title = title,
                       .x_label = "GPUs",
                       .y_label = weak ? "efficiency: t(1 GPU) / t(N GPUs), each GPU its share" : "speed-up over one GPU",
                       .series = series,
                       .series_count = nseries,
                       .x_ticks = ideal_x,
                       .x_tick_labels = tick_labels,
                       .x_tick_count = nideal};
    char name[256];
    snprintf(name, sizeof name, "bench_%s_scaling.png", scene);
    return ks_bench_chart_write(&d, dir, name, NULL, 0);
}

/* ---- measuring ---- */

typedef struct scaling_plan {
    int dims, weak, ranks, mpi;
    int ncounts, counts[16];
    int ngrids, grids[KS_MAX_LIST][3];
    int nvariants, variants[KS_MAX_LIST];
} scaling_plan;

static ks_status plan_make(const ks_options *opt, const ks_device_info *dev, scaling_plan *p)
{
    const ks_laplace_opts *lp = ks_laplace_opts_get(opt);
    memset(p, 0, sizeof *p);
    p->dims = ks_laplace_dims(opt);
    p->weak = lp->weak;
    p->mpi = ks_mpi_active();
    p->ranks = ks_mpi_size();
    /* the counts, with 1 first (every speed-up is over one GPU), each once */
    p->counts[p->ncounts++] = 1;
    if (lp->gpus_count == 0 && p->mpi && p->ranks > 1) p->counts[p->ncounts++] = p->ranks;
    for (int i = 0; i < lp->gpus_count; ++i) {
        int seen = 0;
        for (int k = 0; k < p->ncounts; ++k) seen |= p->counts[k] == lp->gpus[i];
        if (!seen && p->ncounts < 16) p->counts[p->ncounts++] = lp->gpus[i];
    }
    for (int i = 0; i < p->ncounts; ++i) {
        if (p->mpi && p->counts[i] != 1 && p->counts[i] != p->ranks)
            return ks_fail(KS_ERR_INVALID, "--gpus %d under mpirun -np %d: each rank drives one GPU, so a count is 1 or %d",
                           p->counts[i], p->ranks, p->ranks);
        if (!p->mpi) {
            const int have = dev->device_count;
            if (p->counts[i] > have)
                return ks_fail(KS_ERR_NO_DEVICE, "--gpus %d: this machine has %d CUDA device%s", p->counts[i], have,
                               have == 1 ? "" : "s");
        }
    }
    if (lp->grid_count) {
        p->ngrids = lp->grid_count;
        memcpy(p->grids, lp->grids, sizeof p->grids);
    } else { /* the grids the targets name: 1024^3 (512^3 a GPU, weak) and 16384^2 */
        p->ngrids = 1;
        const int n = p->dims == 3 ? (p->weak ? 512 : 1024) : 16384;
        p->grids[0][0] = p->grids[0][1] = n;
        p->grids[0][2] = p->dims == 3 ? n : 1;
    }
    if (opt->kernel_count) {
        for (int k = 0; k < opt->kernel_count; ++k) p->variants[p->nvariants++] = ks_lvariant_find(p->dims, opt->kernels[k]);
    } else {
        for (int id = 0; id < ks_lvariant_builtin_count() && p->nvariants < KS_MAX_LIST; ++id)
            if (ks_lvariant_get(id)->dims == p->dims) p->variants[p->nvariants++] = id;
    }
    return KS_OK;
}

static const int *block_of(const ks_options *opt, int variant)
{
    return opt->block_count ? opt->blocks[0] : ks_lvariant_get(variant)->default_block;
}

/* The grid of a run: the asked one (strong), or count shares of it along the slow axis (weak). */
static ks_grid run_grid(const scaling_plan *p, const int share[3], int count)
{
    ks_grid g = {p->dims, share[0], share[1], p->dims == 3 ? share[2] : 1};
    if (!p->weak) return g;
    if (p->dims == 3) g.nz = (g.nz - 2) * count + 2;
    else g.ny = (g.ny - 2) * count + 2;
    return g;
}

/* The solver of count GPUs: threads in one process, or every rank of the MPI
 * job; a 1-GPU run under MPI is rank 0's alone (NULL on the others). */
static ks_status make_solver(const scaling_plan *p, const ks_grid *g, int count, ks_lmulti **out)
{
    *out = NULL;
    ks_lmulti_desc d = {*g, count, NULL, 0};
    if (p->mpi && count > 1) {
        d.gpus = 1;
        d.mpi = 1;
    } else if (p->mpi && ks_mpi_rank() != 0) {
        return KS_OK;
    }
    const int local_device = ks_mpi_local_rank(); /* create copies the ids */
    if (p->mpi && count == 1) d.devices = &local_device;
    return ks_lmulti_create(&d, out);
}

/* Under MPI with count > 1 every rank takes part: a failure on one ends the others' loops too. */
static ks_status agree(const scaling_plan *p, int count, ks_status st)
{
    return p->mpi && count > 1 ? ks_mpi_agree(st) : st;
}

/* Every variant on count GPUs against the CPU gold, bit for bit, on a small
 * odd grid with an uneven split and random data (KS_LPREV_EXACT, so a
 * temporally blocked variant also runs its short last block). */
static ks_status check_variants(const ks_options *opt, const scaling_plan *p, int count)
{
    const int planes = 2 * KS_LMULTI_DEPTH * count + 3;
    ks_grid g = {p->dims, p->dims == 3 ? 36 : 100, p->dims == 3 ? 29 : planes + 2, p->dims == 3 ? planes + 2 : 1};
    const size_t n = ks_grid_points(&g);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got);
    ks_lmulti *m = NULL;
    ks_status st = a && b && got ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    if (st == KS_OK) st = make_solver(p, &g, count, &m);
    for (int v = 0; v < p->nvariants && st == KS_OK && m; ++v) {
        const int id = p->variants[v];
        ks_bench_laplace_fill_random(&g, a, 5 + (unsigned)v);
        st = ks_lmulti_upload(m, a);
        if (st == KS_OK) st = ks_lmulti_check_block(m, id, block_of(opt, id));
        if (st == KS_OK) st = ks_lmulti_run(m, id, block_of(opt, id), KS_SCALING_CHECK_ITERS, KS_LPREV_EXACT);
        if (st == KS_OK) st = ks_lmulti_download(m, got);
        if (st != KS_OK) break;
        if (ks_lmulti_first_domain(m) != 0) { /* rank 0 compares; every rank learns the verdict */
            st = agree(p, count, KS_OK);
            continue;
        }
        for (int it = 0; it < KS_SCALING_CHECK_ITERS; ++it) {
            ks_laplace_gold_step(&g, a, b);
            float *t = a;
            a = b;
            b = t;
        }
        for (size_t i = 0; i < n && st == KS_OK; ++i)
            if (memcmp(&got[i], &a[i], sizeof(float)) != 0)
                st = ks_fail(KS_ERR_UNSUPPORTED,
                             "%s on %d GPUs differs from the CPU gold at point %zu of %dx%dx%d (%.9g, want %.9g): "
                             "not timing a wrong result",
                             ks_lvariant_get(id)->name, count, i, g.nx, g.ny, g.nz, (double)got[i], (double)a[i]);
        st = agree(p, count, st);
    }
    ks_lmulti_destroy(m);
    free(a);
    free(b);
    free(got);
    return st;
}

/* Iterations a timed repetition runs: about 2e10 points of work (tens of ms
 * on one GPU), a multiple of 4 so a temporally blocked variant runs whole blocks. */
static int timed_iters(const ks_grid *g)
{
    const double points = (double)ks_grid_points(g);
    int iters = (int)(2e10 / points);
    iters = (iters + 3) / 4 * 4;
    return iters < 4 ? 4 : iters > 400 ? 400 : iters;
}

static ks_status measure(const ks_options *opt, const ks_device_info *dev, const scaling_plan *p,
                         ks_scaling_row *rows, int *nrows)
{
    for (int gi = 0; gi < p->ngrids; ++gi) {
        /* the same iterations for every count, so a row's time covers the same work */
        const ks_grid first = run_grid(p, p->grids[gi], 1);
        const int iters = timed_iters(&first);
        for (int ci = 0; ci < p->ncounts && !ks_signals_stop_requested(); ++ci) {
            const int count = p->counts[ci];
            const ks_grid g = run_grid(p, p->grids[gi], count);
            const size_t bytes = ks_grid_bytes(&g);
            char what[96];
            snprintf(what, sizeof what, "grid %dx%dx%d (initial field)", g.nx, g.ny, g.nz);
            KS_TRY(ks_host_memory_check((double)bytes, what));
            float *init = malloc(bytes);
            if (!init) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for %s", what);
            ks_laplace_fill_initial(&g, KS_BC_HOT_TOP, init);
            ks_lmulti *m = NULL;
            ks_status st = make_solver(p, &g, count, &m);
            if (st == KS_OK && m) st = ks_lmulti_upload(m, init);
            free(init);
            for (int v = 0; v < p->nvariants && st == KS_OK && m && !ks_signals_stop_requested(); ++v) {
                const int id = p->variants[v];
                ks_lmulti_timing t;
                st = ks_lmulti_check_block(m, id, block_of(opt, id));
                if (st == KS_OK) st = ks_lmulti_time(m, id, block_of(opt, id), iters, opt->reps, &t);
                if (st != KS_OK || *nrows == KS_SCALING_MAX_ROWS) break;
                ks_scaling_row *r = &rows[(*nrows)++];
                memset(r, 0, sizeof *r);
                snprintf(r->device, sizeof r->device, "%s", dev->name);
                snprintf(r->cc, sizeof r->cc, "%d.%d", dev->cc_major, dev->cc_minor);
                r->gpus = count;
                r->ranks = p->mpi && count > 1 ? p->ranks : 1;
                snprintf(r->variant, sizeof r->variant, "%s", ks_lvariant_get(id)->name);
                r->grid[0] = g.nx;
                r->grid[1] = g.ny;
                r->grid[2] = g.nz;
                memcpy(r->share, p->grids[gi], sizeof r->share);
                r->weak = p->weak;
                memcpy(r->block, block_of(opt, id), sizeof r->block);
                r->ms_per_iter = t.ms_per_iter;
                r->t_eff_gbs = 2.0 * (double)bytes / (t.ms_per_iter * 1e-3) / 1e9;
                r->halo_ms = t.halo_ms;
                r->hidden_share = count > 1 ? t.hidden_share : 0.0;
                if (ks_mpi_rank() == 0) {
                    printf("  %d GPU%s %-7s %dx%dx%d: %.4f ms/iter", count, count == 1 ? " " : "s", r->variant, g.nx,
                           g.ny, g.nz, r->ms_per_iter);
                    if (count > 1) printf(", halo %.4f ms, %.0f%% hidden", r->halo_ms, 100.0 * r->hidden_share);
                    /* each GPU's own update (its kernels, not the waits between them): where
                     * the time goes when the speed-up falls short */
                    const ks_lvariant_info *vi = ks_lvariant_get(id);
                    const int T = vi->steps_per_launch > 1 ? vi->steps_per_launch : 1;
                    const int local = p->mpi ? 1 : count;
                    printf(", update");
                    for (int i = 0; i < local && i < KS_LMULTI_MAX_GPUS; ++i) printf(" %.4f", t.jacobi_ms[i] / T);
                    printf(" ms/iter%s", local > 1 ? " by GPU" : p->mpi && count > 1 ? " on rank 0" : "");
                    printf("\n");
                    fflush(stdout);
                }
            }
            ks_lmulti_destroy(m);
            KS_TRY(ks_mpi_agree(st)); /* under MPI a 1-GPU run is rank 0's; the others wait for it */
        }
    }
    return KS_OK;
}

static ks_status charts(const void *ctx, const char *dir)
{
    const ks_options *opt = ((const void *const *)ctx)[0];
    const ks_scaling_row *rows = ((const void *const *)ctx)[1];
    const int n = *(const int *)((const void *const *)ctx)[2];
    return ks_scaling_chart(rows, n, opt->scene->name, dir);
}

ks_status ks_bench_laplace_scaling(const ks_options *opt, const ks_device_info *dev)
{
    scaling_plan p;
    KS_TRY(plan_make(opt, dev, &p));
    const int root = ks_mpi_rank() == 0;
    if (root) {
        printf("kernelscope bench %s on %s: %s scaling over", opt->scene->name, dev->name, p.weak ? "weak" : "strong");
        for (int i = 0; i < p.ncounts; ++i) printf("%s%d", i ? ", " : " ", p.counts[i]);
        printf(" GPU%s (%s)\n", p.ncounts == 1 && p.counts[0] == 1 ? "" : "s",
               p.mpi ? "one MPI rank a GPU" : "one host thread a GPU");
    }
    /* Correct first: every variant on the most GPUs against the CPU gold. */
    int most = 1;
    for (int i = 0; i < p.ncounts; ++i) most = p.counts[i] > most ? p.counts[i] : most;
    KS_TRY(check_variants(opt, &p, most));
    if (root)
        printf("checked %d kernel %s on %d GPU%s against the CPU gold: bit for bit equal\n", p.nvariants,
               ks_plural(p.nvariants, "variant", "variants"), most, most == 1 ? "" : "s");
    ks_scaling_row *rows = calloc(KS_SCALING_MAX_ROWS, sizeof *rows);
    if (!rows) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    int n = 0;
    ks_status st = measure(opt, dev, &p, rows, &n);
    ks_scaling_derive(rows, n);
    if (root && n > 0) {
        char csv_name[256];
        snprintf(csv_name, sizeof csv_name, "bench_%s_scaling.csv", opt->scene->name);
        const void *ctx[3] = {opt, rows, &n};
        const ks_bench_output_desc out = {.dir = opt->out_dir, .rows = rows, .n = n, .table = table_text,
                                          .files = {{csv_name, csv_text}}, .charts = charts, .ctx = ctx};
        st = ks_bench_output_write(&out, st);
    }
    free(rows);
    return st;
}
