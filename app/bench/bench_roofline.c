/* The benches' roofline chart (bench_roofline.h). */
#include "app/bench/bench_roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "render/chart.h"
#include "base/host_peak.h"
#include "render/image_io.h"
#include "app/bench/bench_output.h"

double ks_roof_host_copy_gbs(size_t bytes)
{
    const ks_host_peak_desc d = {.bytes = bytes};
    ks_host_peak p;
    if (ks_host_peak_measure(&d, &p) != KS_OK) {
        ks_error_clear(); /* out of memory: no ceiling */
        return 0.0;
    }
    return p.gbs;
}

void ks_roof_chart_add(ks_roof_chart *c, const char *variant, double flops, double bytes, double ms)
{
    if (c == NULL || c->n >= KS_ROOF_MAX_POINTS || !(flops >= 0.0) || !(bytes > 0.0) || !(ms > 0.0)) return;
    ks_roof_pt *p = &c->pts[c->n++];
    snprintf(p->variant, sizeof p->variant, "%s", variant ? variant : "");
    p->flops = flops;
    p->bytes = bytes;
    p->ms = ms;
    p->measured_bytes = 0.0;
}

void ks_roof_chart_add_measured(ks_roof_chart *c, const char *variant, double flops, double model_bytes,
                                double measured_bytes, double ms)
{
    const int n = c ? c->n : 0;
    ks_roof_chart_add(c, variant, flops, model_bytes, ms);
    if (c && c->n > n && measured_bytes > 0.0 && isfinite(measured_bytes)) c->pts[c->n - 1].measured_bytes = measured_bytes;
}

ks_status ks_roof_chart_write(const ks_roof_chart *c, const char *out_dir, const char *scene,
                              const char *device, char *path, size_t path_cap)
{
    if (path && path_cap) path[0] = '\0';
    if (c == NULL || c->n == 0) return KS_OK;
    enum { KS_MAX_VARIANTS = KS_CHART_MAX_SERIES - 1 };
    char names[KS_MAX_VARIANTS][32];
    double xs[KS_MAX_VARIANTS][KS_ROOF_MAX_POINTS], ys[KS_MAX_VARIANTS][KS_ROOF_MAX_POINTS];
    ks_chart_hollow hollow[KS_ROOF_MAX_POINTS]; /* the model's places of measured points */
    int nhollow = 0;
    int measured = 0;
    ks_chart_series series[KS_CHART_MAX_SERIES];
    int nseries = 0;
    double xlo = INFINITY, xhi = 0.0;
    /* the left edge: a decade below the smallest intensity with flops (1/64
     * flop/B when no point has any) */
    double left = INFINITY;
    for (int i = 0; i < c->n; ++i)
        if (c->pts[i].flops > 0.0) {
            left = fmin(left, c->pts[i].flops / c->pts[i].bytes / 10.0);
            if (c->pts[i].measured_bytes > 0.0) left = fmin(left, c->pts[i].flops / c->pts[i].measured_bytes / 10.0);
        }
    if (!isfinite(left)) left = 1.0 / 64.0;
    int zero_flop_points = 0;
    for (int i = 0; i < c->n; ++i) zero_flop_points += !(c->pts[i].flops > 0.0);
    for (int i = 0; i < c->n; ++i) {
        const ks_roof_pt *p = &c->pts[i];
        int k = 0;
        while (k < nseries && strcmp(names[k], p->variant) != 0) ++k;
        if (k == nseries) {
            if (nseries == KS_MAX_VARIANTS) continue;
            snprintf(names[k], sizeof names[k], "%s", p->variant);
            series[k].name = names[k];
            series[k].x = xs[k];
            series[k].y = ys[k];
            series[k].n = 0;
            ++nseries;
        }
        /* no flops (histogram): at the left edge, on the bandwidth line it
         * reaches, as in the live panel (see "Roofline" in docs/benchmarks.md). With
         * measured bytes the point is placed by them, the model's place hollow. */
        const double model_x = p->flops > 0.0 ? p->flops / p->bytes : left;
        const double model_y = p->flops > 0.0 ? p->flops / (p->ms * 1e6) : p->bytes / (p->ms * 1e6) * left;
        const int has = p->measured_bytes > 0.0;
        measured |= has;
        const double x = !has ? model_x : p->flops > 0.0 ? p->flops / p->measured_bytes : left;
        const double y = !has || p->flops > 0.0 ? model_y : p->measured_bytes / (p->ms * 1e6) * left;
        int j = series[k].n++;
        for (; j > 0 && xs[k][j - 1] > x; --j) { /* in increasing x */
            xs[k][j] = xs[k][j - 1];
            ys[k][j] = ys[k][j - 1];
        }
        xs[k][j] = x;
        ys[k][j] = y;
        if (has && nhollow < KS_ROOF_MAX_POINTS) hollow[nhollow++] = (ks_chart_hollow){k, model_x, model_y, x, y};
        xlo = fmin(xlo, fmin(x, has ? model_x : x));
        xhi = fmax(xhi, fmax(x, has ? model_x : x));
    }
    /* the roof: bandwidth slope up to the ridge, then the FMA line */
    const double bw = c->peak_gbs > 0.0 ? c->peak_gbs : 1.0, fl = c->peak_gflops;
    double roof_x[3], roof_y[3];
    int nroof = 0;
    if (fl > 0.0) {
        const double ridge = fl / bw;
        xlo = fmin(xlo, ridge);
        xhi = fmax(xhi, ridge);
    }
    if (!zero_flop_points) xlo /= 4.0; /* else the zero-flop points sit on the edge itself */
    xhi *= 4.0;
    roof_x[nroof] = xlo;
    roof_y[nroof++] = fl > 0.0 ? fmin(bw * xlo, fl) : bw * xlo;
    if (fl > 0.0 && fl / bw > xlo && fl / bw < xhi) {
        roof_x[nroof] = fl / bw;
        roof_y[nroof++] = fl;
    }
    roof_x[nroof] = xhi;
    roof_y[nroof++] = fl > 0.0 ? fmin(bw * xhi, fl) : bw * xhi;
    char roof_name[128];
    if (fl > 0.0)
        snprintf(roof_name, sizeof roof_name, "roof: %.0f GB/s copy, %.0f GFLOP/s FMA (measured)", bw, fl);
    else
        snprintf(roof_name, sizeof roof_name, "roof: %.1f GB/s copy (no FMA ceiling on the CPU)", bw);
    series[nseries].name = roof_name;
    series[nseries].x = roof_x;
    series[nseries].y = roof_y;
    series[nseries].n = nroof;
    ++nseries;

    char title[384];
    snprintf(title, sizeof title, "kernelscope bench %s on %s: roofline (%s)%s", scene, device,
             measured ? "DRAM bytes measured by the counters; hollow: the model's bytes" : "model counts",
             zero_flop_points ? "; no-flop points at the left edge, on the bandwidth line they reach" : "");
    const ks_chart_desc d = {.title = title,
                             .x_label = measured ? "model FLOPs / measured DRAM bytes (flop/B; hollow: model bytes)"
                                                 : "model FLOPs / model DRAM bytes (flop/B)",
                             .y_label = "GFLOP/s (model FLOPs / measured time)", .log_x = 1, .log_y = 1,
                             .series = series, .series_count = nseries, .hollow = hollow, .hollow_count = nhollow};
    char name[256];
    snprintf(name, sizeof name, "roofline_%s.png", scene);
    return ks_bench_chart_write(&d, out_dir, name, path, path_cap);
}
