/* `kernelscope bench serve`'s output: the derived ratio column, the table,
 * the CSV and the chart (bench_serve.h). */
#include "app/bench/bench_serve_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/common/ks_util.h"
#include "render/chart.h"
#include "app/bench/bench_output.h"

/* ---- Derived columns and writers ---- */

void ks_bench_serve_ratios(ks_serve_row *rows, int n)
{
    for (int i = 0; i < n; ++i) {
        rows[i].solver_ratio = 0.0;
        for (int k = 0; k < n; ++k)
            if (strcmp(rows[k].kase, "none") == 0 && strcmp(rows[k].scene, rows[i].scene) == 0 &&
                strcmp(rows[k].variant, rows[i].variant) == 0 && rows[k].solver_ms_per_iter > 0.0)
                rows[i].solver_ratio = rows[i].solver_ms_per_iter / rows[k].solver_ms_per_iter;
    }
}

/* A figure, or "-" where the row has none (negative: not measured). */
static void figure(char *out, size_t cap, const char *fmt, double v)
{
    if (v < 0.0 || !isfinite(v)) snprintf(out, cap, "-");
    else snprintf(out, cap, fmt, v);
}

size_t ks_serve_table_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_serve_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used, "%-9s %-8s %-10s %-12s %-14s %6s %11s %6s %8s %10s %10s %11s\n", "scene",
                    "variant", "size", "case", "encoder", "frames", "solver ms/it", "ratio", "loop fps",
                    "viewer fps", "viewer Mb/s", "latency ms");
    for (int i = 0; i < n; ++i) {
        const ks_serve_row *r = &rows[i];
        char ratio[24], vfps[24], mbit[24], lat[40];
        figure(ratio, sizeof ratio, "%.3f", r->solver_ratio > 0.0 ? r->solver_ratio : -1.0);
        figure(vfps, sizeof vfps, "%.1f", r->viewer_fps);
        figure(mbit, sizeof mbit, "%.1f", r->viewer_mbit_s);
        if (r->latency_ms >= 0.0) snprintf(lat, sizeof lat, "%.1f (n=%d)", r->latency_ms, r->latency_samples);
        else snprintf(lat, sizeof lat, "-");
        ks_text_measure(buf, cap, &used, "%-9s %-8s %-10s %-12s %-14s %6d %12.4f %6s %8.1f %10s %10s %11s\n",
                        r->scene, r->variant, r->size, r->kase, r->encoder, r->frames, r->solver_ms_per_iter, ratio,
                        r->loop_fps, vfps, mbit, lat);
    }
    return used;
}

size_t ks_serve_csv_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_serve_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used,
                    "device,scene,variant,size,case,encoder,frames,solver_ms_per_iter,solver_ratio,loop_fps,"
                    "viewer_fps,viewer_mbit_s,latency_ms,latency_samples,cc\n");
    for (int i = 0; i < n; ++i) {
        const ks_serve_row *r = &rows[i];
        char device[600], ratio[32], vfps[32], mbit[32], lat[32];
        ks_csv_quote(r->device, device, sizeof device);
        figure(ratio, sizeof ratio, "%.4f", r->solver_ratio > 0.0 ? r->solver_ratio : -1.0);
        figure(vfps, sizeof vfps, "%.2f", r->viewer_fps);
        figure(mbit, sizeof mbit, "%.3f", r->viewer_mbit_s);
        figure(lat, sizeof lat, "%.3f", r->latency_ms);
        ks_text_measure(buf, cap, &used, "%s,%s,%s,%s,%s,%s,%d,%.6f,%s,%.2f,%s,%s,%s,%d,%s\n", device, r->scene,
                        r->variant, r->size, r->kase, r->encoder, r->frames, r->solver_ms_per_iter, ratio,
                        r->loop_fps, vfps, mbit, lat, r->latency_samples, r->cc[0] ? r->cc : "-");
    }
    return used;
}

char *ks_bench_serve_table(const ks_serve_row *rows, int n) { return ks_bench_text(ks_serve_table_text, rows, n); }
char *ks_bench_serve_csv(const ks_serve_row *rows, int n) { return ks_bench_text(ks_serve_csv_text, rows, n); }

/* ---- Chart: loop and viewer fps of each scene across the cases ---- */

ks_status ks_serve_chart_write(const ks_serve_row *rows, int n, const char *dir)
{
    enum { KS_NS = KS_CHART_MAX_SERIES };
    char names[KS_NS][64];
    double xs[KS_NS][KS_CASE_NUM], ys[KS_NS][KS_CASE_NUM];
    ks_chart_series series[KS_NS];
    int nseries = 0;
    /* a category axis: the cases that ran, side by side at 1, 2, ..., each tick named; a case
     * that did not run has neither a slot nor a name */
    static const char *const case_labels[KS_CASE_NUM] = {"none",   "jpeg viewer",  "h264 viewer",
                                                         "record", "browser jpeg", "browser h264"};
    int slot[KS_CASE_NUM], nt = 0;
    double ticks[KS_CASE_NUM];
    const char *tick_labels[KS_CASE_NUM];
    for (int kase = 0; kase < KS_CASE_NUM; ++kase) {
        int ran = 0;
        for (int i = 0; i < n; ++i)
            ran |= strcmp(ks_case_names[kase], rows[i].kase) == 0 && (rows[i].loop_fps > 0.0 || rows[i].viewer_fps > 0.0);
        slot[kase] = ran ? nt : -1;
        if (ran) {
            ticks[nt] = nt + 1;
            tick_labels[nt++] = case_labels[kase];
        }
    }
    for (int i = 0; i < n; ++i) {
        const ks_serve_row *r = &rows[i];
        int kase = 0;
        while (kase < KS_CASE_NUM && strcmp(ks_case_names[kase], r->kase) != 0) ++kase;
        if (kase == KS_CASE_NUM || slot[kase] < 0) continue;
        for (int what = 0; what < 2; ++what) {
            const double y = what ? r->viewer_fps : r->loop_fps;
            if (!(y > 0.0)) continue;
            char name[64];
            snprintf(name, sizeof name, "%s %s %s fps", r->scene, r->variant, what ? "viewer" : "loop");
            int k = 0;
            while (k < nseries && strcmp(names[k], name) != 0) ++k;
            if (k == nseries) {
                if (nseries == KS_NS) continue;
                snprintf(names[k], sizeof names[k], "%s", name);
                series[k] = (ks_chart_series){names[k], xs[k], ys[k], 0};
                ++nseries;
            }
            if (series[k].n == KS_CASE_NUM) continue;
            xs[k][series[k].n] = slot[kase] + 1;
            ys[k][series[k].n++] = y;
        }
    }
    if (nseries == 0) return KS_OK;
    /* one size in the title only when every row has it (a scene's picture may be smaller, and a
       served picture is the view's, not the window's) */
    int one_size = 1;
    for (int i = 1; i < n; ++i) one_size &= strcmp(rows[i].size, rows[0].size) == 0;
    char title[400];
    snprintf(title, sizeof title, "kernelscope bench serve on %.200s%s%.24s: frames per second", rows[0].device,
             one_size ? ", " : "", one_size ? rows[0].size : "");
    const ks_chart_desc d = {.title = title,
                             .x_label = "case", .y_label = "frames per second", .series = series,
                             .series_count = nseries, .x_ticks = ticks, .x_tick_labels = tick_labels,
                             .x_tick_count = nt, .x_categories = 1};
    return ks_bench_chart_write(&d, dir, "bench_serve.png", NULL, 0);
}
