/* The Laplace benches' charts (bench_charts.h). */
#include "app/scenes/laplace/bench_charts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_output.h"
#include "app/bench/bench_roofline.h"
#include "app/scenes.h"
#include "app/scenes/laplace/options.h"
#include "base/host_peak.h"
#include "kernels/laplace/laplace.h"
#include "render/chart.h"

/* PNG chart: T_eff / T_peak of each variant's best block against grid points
 * (log x), with T_peak itself as the line y = 1. On the CPU backend T_eff in
 * GB/s under T_peak's line: a ratio there may not be given (host_peak.h). */
ks_status ks_bench_laplace_chart(const ks_options *opt, const ks_bench_row *rows, int n)
{
    const int host = n > 0 && rows[0].host_peak;
    enum { KS_MAX_VARIANTS = KS_CHART_MAX_SERIES - 1 };
    char names[KS_MAX_VARIANTS][32];
    double xs[KS_MAX_VARIANTS][KS_MAX_LIST], ys[KS_MAX_VARIANTS][KS_MAX_LIST];
    double peak_x[KS_MAX_LIST], peak_y[KS_MAX_LIST];
    ks_chart_series series[KS_CHART_MAX_SERIES];
    int nseries = 0, npeak = 0;
    for (int i = 0; i < n; ++i) {
        if (!rows[i].best) continue;
        const double points = (double)rows[i].grid[0] * rows[i].grid[1] * rows[i].grid[2];
        int k = 0;
        while (k < nseries && strcmp(names[k], rows[i].variant) != 0) ++k;
        if (k == nseries) {
            if (nseries == KS_MAX_VARIANTS) continue;
            snprintf(names[k], sizeof names[k], "%s", rows[i].variant);
            series[k].name = names[k];
            series[k].x = xs[k];
            series[k].y = ys[k];
            series[k].n = 0;
            ++nseries;
        }
        if (series[k].n == KS_MAX_LIST) continue;
        xs[k][series[k].n] = points;
        ys[k][series[k].n] = host ? rows[i].t_eff_gbs : rows[i].ratio;
        ++series[k].n;
        int seen = 0;
        for (int p = 0; p < npeak; ++p) seen |= peak_x[p] == points;
        if (!seen && npeak < KS_MAX_LIST) {
            peak_x[npeak] = points;
            peak_y[npeak++] = host ? rows[i].t_peak_gbs : 1.0;
        }
    }
    if (nseries == 0) return KS_OK;
    /* points in increasing x for every line */
    for (int k = 0; k < nseries; ++k)
        for (int a = 1; a < series[k].n; ++a)
            for (int b = a; b > 0 && xs[k][b] < xs[k][b - 1]; --b) {
                double t = xs[k][b]; xs[k][b] = xs[k][b - 1]; xs[k][b - 1] = t;
                t = ys[k][b]; ys[k][b] = ys[k][b - 1]; ys[k][b - 1] = t;
            }
    for (int a = 1; a < npeak; ++a)
        for (int b = a; b > 0 && peak_x[b] < peak_x[b - 1]; --b) {
            double t = peak_x[b]; peak_x[b] = peak_x[b - 1]; peak_x[b - 1] = t;
        }
    series[nseries].name = !host ? "T_peak (copy)"
                           : rows[0].verdict == KS_PEAK_UNRELIABLE ? "T_peak (host copy; unreliable: busy CPU)"
                                                                   : "T_peak (host copy)";
    series[nseries].x = peak_x;
    series[nseries].y = peak_y;
    series[nseries].n = npeak;
    ++nseries;

    char title[384];
    snprintf(title, sizeof title, "kernelscope bench %s on %s: best block per variant",
             opt->scene->name, rows[0].device);
    ks_chart_desc d = {.title = title, .x_label = "grid (log scale of points)",
                       .y_label = host ? "T_eff (GB/s)" : "T_eff / T_peak",
                       .log_x = 1, .series = series, .series_count = nseries};
    /* grid sizes, not point counts, under the x axis: "512^3", "8192^2", or "64x32x16" */
    char tick_text[KS_MAX_LIST][48];
    const char *tick_labels[KS_MAX_LIST];
    for (int p = 0; p < npeak; ++p) {
        tick_labels[p] = tick_text[p];
        snprintf(tick_text[p], sizeof tick_text[p], "%.0f points", peak_x[p]);
        for (int i = 0; i < n; ++i) {
            const int *g = rows[i].grid;
            if ((double)g[0] * g[1] * g[2] != peak_x[p]) continue;
            ks_bench_grid_text(g, tick_text[p], sizeof tick_text[p]);
            break;
        }
    }
    d.x_ticks = peak_x;
    d.x_tick_labels = tick_labels;
    d.x_tick_count = npeak;
    char name[256];
    snprintf(name, sizeof name, "bench_%s.png", opt->scene->name);
    return ks_bench_chart_write(&d, opt->out_dir, name, NULL, 0);
}

/* Roofline chart: each variant's best block per grid, one Jacobi iteration:
 * 6 (3D) or 4 (2D) adds and a multiply per point (model FLOPs), the field
 * read and written once per launch (model bytes; a temporally blocked launch
 * does steps_per_launch iterations). The bandwidth ceiling is the copy rate
 * measured on the largest grid of the run. */
ks_status ks_bench_laplace_roofline(const ks_options *opt, const ks_bench_row *rows, int n, double fma_gflops,
                                const ks_bench_counters *bc)
{
    const int dims = ks_laplace_dims(opt);
    ks_roof_chart *c = calloc(1, sizeof *c);
    if (!c) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    double largest = -1.0;
    for (int i = 0; i < n; ++i) {
        const double points = (double)rows[i].grid[0] * rows[i].grid[1] * rows[i].grid[2];
        if (points >= largest && rows[i].t_peak_gbs > 0.0) {
            largest = points;
            c->peak_gbs = rows[i].t_peak_gbs;
        }
        if (!rows[i].best) continue;
        const int id = ks_lvariant_find(dims, rows[i].variant);
        const ks_lvariant_info *info = id >= 0 ? ks_lvariant_get(id) : NULL;
        const int steps = info && info->steps_per_launch > 1 ? info->steps_per_launch : 1;
        /* measured: the bytes of one launch, per iteration like the model's */
        ks_roof_chart_add_measured(c, rows[i].variant, (dims == 3 ? 7.0 : 5.0) * points,
                                   2.0 * points * sizeof(float) / steps, ks_bench_counters_dram_bytes(bc, i) / steps,
                                   rows[i].ms_per_iter);
    }
    c->peak_gflops = fma_gflops;
    const ks_status st = ks_roof_chart_write(c, opt->out_dir, opt->scene->name, rows[0].device, NULL, 0);
    free(c);
    return st;
}
