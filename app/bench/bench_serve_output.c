/* `kernelscope bench serve`'s output: the derived ratio column, the table,
 * the CSV and the chart (bench_serve.h). */
#include "app/bench/bench_serve_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"
#include "render/chart.h"
#include "app/bench/bench_output.h"

/* ---- Derived columns and writers ---- */


const char *const ks_case_names[KS_CASE_NUM] = {"none", "jpeg", "h264", "record", "browser-jpeg", "browser-h264"};
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

/* ---- Reading a CSV back (--replot) ---- */

#define KS_SERVE_CSV_HEADER                                                                              \
    "device,scene,variant,size,case,encoder,frames,solver_ms_per_iter,solver_ratio,loop_fps,viewer_fps," \
    "viewer_mbit_s,latency_ms,latency_samples,cc"
enum { KS_SERVE_CSV_FIELDS = 15 };

/* The fields of one line into field[] (each NUL-terminated in place): the first may be quoted
 * ("" a quote inside); the count, or -1 for a malformed quote. */
static int split_csv(char *line, char *field[], int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return max + 1;
        if (*p == '"') { /* quoted: up to the closing quote, "" kept as one */
            char *out = ++p;
            field[n++] = out;
            for (;;) {
                if (!*p) return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    ++p;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            *out = '\0';
            if (*p && *p != ',') return -1;
        } else {
            field[n++] = p;
            p += strcspn(p, ",");
        }
        if (!*p) return n;
        *p++ = '\0';
    }
}

/* A measured figure, or -1 for "-"; 0 and a nonzero return for anything else. */
static int csv_number(const char *f, double *v)
{
    if (strcmp(f, "-") == 0) {
        *v = -1.0;
        return 0;
    }
    char *end = NULL;
    *v = strtod(f, &end);
    return !*f || *end || !isfinite(*v);
}

static int copy_field(char *dst, size_t cap, const char *f)
{
    if (!*f || strlen(f) >= cap) return 1;
    snprintf(dst, cap, "%s", f);
    return 0;
}

ks_status ks_bench_serve_parse_csv(const char *text, ks_serve_row *rows, int max, int *n)
{
    *n = 0;
    const size_t hl = strlen(KS_SERVE_CSV_HEADER);
    if (strncmp(text, KS_SERVE_CSV_HEADER, hl) != 0 || (text[hl] != '\n' && text[hl] != '\r'))
        return ks_fail(KS_ERR_INVALID, "not a bench_serve.csv: its first line is not the header \"%.40s...\"",
                       KS_SERVE_CSV_HEADER);
    const char *p = strchr(text, '\n');
    for (int line_no = 2; p && p[1]; ++line_no) {
        const char *start = p + 1;
        p = strchr(start, '\n');
        size_t len = p ? (size_t)(p - start) : strlen(start);
        if (len && start[len - 1] == '\r') --len;
        if (len == 0) continue;
        if (len >= 1024) return ks_fail(KS_ERR_INVALID, "line %d: longer than 1023 bytes", line_no);
        if (*n == max) return ks_fail(KS_ERR_INVALID, "more than %d rows", max);
        char line[1024];
        memcpy(line, start, len);
        line[len] = '\0';
        char *f[KS_SERVE_CSV_FIELDS];
        const int nf = split_csv(line, f, KS_SERVE_CSV_FIELDS);
        if (nf != KS_SERVE_CSV_FIELDS)
            return ks_fail(KS_ERR_INVALID, "line %d: %s, not %d fields", line_no, nf < 0 ? "an unclosed quote" : "another count",
                           KS_SERVE_CSV_FIELDS);
        ks_serve_row *r = &rows[*n];
        memset(r, 0, sizeof *r);
        double num[8];
        const int idx[8] = {6, 7, 8, 9, 10, 11, 12, 13};
        int bad = copy_field(r->device, sizeof r->device, f[0]) || copy_field(r->scene, sizeof r->scene, f[1]) ||
                  copy_field(r->variant, sizeof r->variant, f[2]) || copy_field(r->size, sizeof r->size, f[3]) ||
                  copy_field(r->kase, sizeof r->kase, f[4]) || copy_field(r->encoder, sizeof r->encoder, f[5]) ||
                  copy_field(r->cc, sizeof r->cc, f[14]);
        for (int k = 0; k < 8 && !bad; ++k) bad = csv_number(f[idx[k]], &num[k]);
        int kase = 0;
        while (!bad && kase < KS_CASE_NUM && strcmp(ks_case_names[kase], r->kase) != 0) ++kase;
        if (bad || kase == KS_CASE_NUM || num[0] < 0 || num[1] < 0 || num[3] < 0 || num[7] < 0)
            return ks_fail(KS_ERR_INVALID, "line %d: a field that is not what bench serve writes", line_no);
        r->frames = (int)num[0];
        r->solver_ms_per_iter = num[1];
        r->solver_ratio = num[2] > 0.0 ? num[2] : 0.0;
        r->loop_fps = num[3];
        r->viewer_fps = num[4];
        r->viewer_mbit_s = num[5];
        r->latency_ms = num[6];
        r->latency_samples = (int)num[7];
        if (strcmp(r->cc, "-") == 0) r->cc[0] = '\0';
        ++*n;
    }
    if (*n == 0) return ks_fail(KS_ERR_INVALID, "no rows after the header");
    return KS_OK;
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
