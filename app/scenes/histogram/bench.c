#include "base/ks_util.h"
#include "app/scenes/histogram/options.h"
#include "app/scenes/histogram/bench.h"
#include "app/run_outputs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/kernel/variant_set.h"
#include "app/scenes/histogram/check.h"
#include "app/scenes.h"
#include "app/bench/bench_counters.h"
#include "app/bench/bench_output.h"
#include "app/bench/bench_roofline.h"
#include "base/fma_peak.h"
#include "kernels/histogram/histogram.h"
#include "kernels/histogram/histogram_user.h"
#include "base/host_peak.h"
#include "render/chart.h"
#include "render/image_io.h"

enum { KS_HB_CHART_W = 1000, KS_HB_CHART_H = 640, KS_HB_INPUTS = 3 };

size_t ks_hbench_csv(const ks_hbench_row *rows, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (buf && len) buf[0] = '\0';
    ks_text_measure(buf, len, &used,
                    "device,variant,input,mode,bytes,bins,ms,min_ms,gbs,t_peak_gbs,pct_tpeak,pct_cub,cc,kernel,"
                    KS_TIMING_CSV_HEADER "\n");
    for (int i = 0; i < n; ++i) {
        const ks_hbench_row *r = &rows[i];
        char pct[24] = "", timing[96], kernel[2 * sizeof r->kernel + 3] = "";
        if (r->verdict == KS_PEAK_RATIO)
            snprintf(pct, sizeof pct, "%.2f", r->t_peak_gbs > 0 ? 100.0 * r->gbs / r->t_peak_gbs : 0.0);
        if (r->kernel[0]) ks_csv_quote(r->kernel, kernel, sizeof kernel);
        ks_timing_csv(&r->timing, timing, sizeof timing);
        ks_text_measure(buf, len, &used, "\"%s\",%s,%s,%s,%llu,%u,%.6f,%.6f,%.3f,%.3f,%s,", r->device, r->variant,
                        r->input, r->mode, r->bytes, r->bins, r->ms, r->min_ms, r->gbs, r->t_peak_gbs, pct);
        if (r->pct_cub >= 0) ks_text_measure(buf, len, &used, "%.1f,", r->pct_cub);
        else ks_text_measure(buf, len, &used, ",");
        ks_text_measure(buf, len, &used, "%s,%s,%s\n", r->cc[0] ? r->cc : "-", kernel, timing);
    }
    return used;
}

size_t ks_hbench_table(const ks_hbench_row *rows, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (buf && len) buf[0] = '\0';
    ks_text_measure(buf, len, &used, "%-8s %-8s %-6s %12s %6s %10s %9s %14s %8s %5s %5s %6s\n", "variant", "input",
                    "mode", "bytes", "bins", "ms", "GB/s", "%T_peak", "%cub", "cache", "reps", "se%");
    for (int i = 0; i < n; ++i) {
        const ks_hbench_row *r = &rows[i];
        char cub[16] = "-", pct[32] = "n/a", se[16] = "-";
        if (r->pct_cub >= 0) snprintf(cub, sizeof cub, "%.1f", r->pct_cub);
        if (r->verdict == KS_PEAK_RATIO) {
            const char *note = ks_timing_l2_note(r->timing.working_set_bytes, r->timing.l2_bytes, r->gbs, r->t_peak_gbs);
            snprintf(pct, sizeof pct, "%.1f%s%s", r->t_peak_gbs > 0 ? 100.0 * r->gbs / r->t_peak_gbs : 0.0,
                     strcmp(note, "in L2") == 0 ? " " : "", strcmp(note, "in L2") == 0 ? note : "");
        }
        if (r->timing.se_pct >= 0) snprintf(se, sizeof se, "%.2f", r->timing.se_pct);
        ks_text_measure(buf, len, &used, "%-8s %-8s %-6s %12llu %6u %10.4f %9.1f %14s %8s %5s %5d %6s\n", r->variant,
                        r->input, r->mode, r->bytes, r->bins, r->ms, r->gbs, pct, cub,
                        r->timing.reps ? ks_cache_policy_name(r->timing.cache) : "-", r->timing.reps, se);
    }
    for (int i = 0; i < n; ++i) /* which byte kernel warp ran on each input, and why */
        if (rows[i].kernel[0])
            ks_text_measure(buf, len, &used, "%s on %s (%llu bytes): %s\n", rows[i].variant, rows[i].input, rows[i].bytes,
                            rows[i].kernel);
    for (int v = KS_PEAK_NONE; v <= KS_PEAK_EXCEEDED; ++v) /* why a %T_peak is not given, once per reason */
        for (int i = 0; i < n; ++i)
            if (rows[i].verdict == v) {
                ks_text_measure(buf, len, &used, "%%T_peak n/a: %s\n", ks_peak_verdict_text((ks_peak_verdict)v));
                break;
            }
    return used;
}

/* Users' kernels (--kernel-file): compiled and checked in the checker process on the first size
 * (built once), then loaded here, checked against the gold and timed like ours. */
static ks_status build_files(const ks_options *opt, const ks_device_info *dev, size_t first, const int block[3],
                             ks_variant_set **out)
{
    ks_variant_set_desc d = {.contract = &ks_hist_contract, .opt = opt, .use_cuda = 1, .device = dev,
                             .block = {block[0], block[1], block[2]}};
    ks_hist_check_grid(first, d.grid);
    return ks_variant_set_create(&d, out);
}

/* The counts of the run just made (into got) against the gold: equal in every bin, or a
 * one-line refusal naming row r's variant, input and the first bin that differs. */
static ks_status counted_as_gold(ks_hist_gpu *g, uint64_t *got, const uint64_t *gold, const ks_hbench_row *r)
{
    KS_TRY(ks_hist_gpu_counts(g, got));
    for (unsigned b = 0; b < r->bins; ++b)
        if (got[b] != gold[b])
            return ks_fail(KS_ERR_INVALID, "bench histogram: %s differs from the gold on %s (%llu bytes, %s): bin %u has "
                           "%llu, not %llu", r->variant, r->input, r->bytes, r->mode, b, (unsigned long long)got[b],
                           (unsigned long long)gold[b]);
    return KS_OK;
}

/* --counters: one count of the whole input by a row's variant (ours, or a kernel file at its block). */
typedef struct row_launch {
    ks_hist_gpu *g;
    int variant;             /* ours; -1: the file */
    const ks_hist_user *user;
    const int *block;
} row_launch;

static ks_status launch_row(void *self, void *stream)
{
    (void)stream; /* the context's own */
    const row_launch *l = self;
    return l->user ? ks_hist_gpu_whole_user(l->g, l->user, l->block) : ks_hist_gpu_whole(l->g, l->variant);
}

/* After row `row`'s timing: its launch once more, against the model (the input read once). */
static ks_status counters_row(ks_bench_counters *bc, int row, const ks_hbench_row *r, const row_launch *l,
                              ks_hist_mode mode)
{
    /* global and strided read a byte a thread, warp 16 bytes at a time; the others their own way */
    const char *name = r->variant;
    const int width = l->user || mode != KS_HIST_BYTES ? 0
                      : strcmp(name, "warp") == 0 ? 16
                      : strcmp(name, "global") == 0 || strcmp(name, "strided") == 0 ? 1 : 0;
    const ks_counter_launch cl = {0.0, width, 0};
    char label[96];
    snprintf(label, sizeof label, "%s %s %llu", name, r->input, r->bytes);
    return ks_bench_counters_row(bc, row, label, launch_row, (void *)l, ks_hist_gpu_stream(l->g), (double)r->bytes, &cl);
}

/* One input at one size: check each variant (ours, then the kernel files), then time it. */
/* The CPU gold once (the timing loop's sample, host clock). */
typedef struct cpu_run {
    const unsigned char *data;
    size_t bytes;
    ks_hist_mode mode;
    unsigned bins;
    uint64_t *got;
} cpu_run;

static ks_status cpu_sample(void *ctx, double *ms)
{
    const cpu_run *c = ctx;
    memset(c->got, 0, sizeof(uint64_t) * c->bins);
    const double t0 = ks_now_seconds();
    ks_hist_gold(c->data, c->bytes, 0, c->bytes, c->mode, c->bins, c->got);
    *ms = (ks_now_seconds() - t0) * 1e3;
    return KS_OK;
}

static ks_status bench_one(const ks_options *opt, const char *device, int use_cuda, const ks_host_peak *host,
                           const int *variants, int nv, const ks_variant_set *files, const int user_block[3],
                           ks_hist_input_kind kind, unsigned long long bytes,
                           ks_hist_mode mode, unsigned bins, ks_hbench_row *rows, int *nrows, ks_bench_counters *bc)
{
    unsigned char *data = malloc((size_t)bytes);
    uint64_t *gold = calloc(bins, sizeof(uint64_t)), *got = calloc(bins, sizeof(uint64_t));
    ks_status st = (data && gold && got) ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "bench histogram: no host memory");
    ks_hist_gpu *g = NULL;
    double t_peak = 0.0;
    if (st == KS_OK) {
        ks_hist_generate(kind, opt->seed, data, (size_t)bytes);
        ks_hist_gold(data, (size_t)bytes, 0, (size_t)bytes, mode, bins, gold);
    }
    const ks_hist_gpu_desc gd = {.data = data, .n = (size_t)bytes, .mode = mode, .bins = bins};
    if (st == KS_OK && use_cuda) st = ks_hist_gpu_create(&gd, &g);
    /* The ceiling, in this run, on a copy of at least 256 MiB. */
    if (st == KS_OK && use_cuda)
        st = ks_cuda_measure_copy_gbs(bytes > (256ull << 20) ? (size_t)bytes : (size_t)256 << 20, 20, &t_peak);
    /* the CPU's ceiling: the host copy rate measured once for the run, the roof the roofline chart draws too */
    if (!use_cuda) t_peak = host->gbs;
    const int first = *nrows;
    const ks_timing_opts timing = ks_bench_timing_opts(opt);
    double cub_ms = -1.0;
    const int nu = use_cuda ? ks_variant_set_files(files) : 0;
    for (int k = 0; k < (use_cuda ? nv + nu : 1) && st == KS_OK && *nrows < KS_HBENCH_MAX_ROWS; ++k) {
        ks_hbench_row *r = &rows[*nrows];
        memset(r, 0, sizeof *r);
        snprintf(r->device, sizeof r->device, "%s", device);
        snprintf(r->input, sizeof r->input, "%s", ks_hist_input_name(kind));
        snprintf(r->mode, sizeof r->mode, "%s", ks_hist_mode_name(mode));
        r->bytes = bytes;
        r->bins = bins;
        r->t_peak_gbs = t_peak;
        r->pct_cub = -1.0;
        if (use_cuda && k >= nv) {
            const ks_hist_user *u = ks_variant_set_code_at(files, k - nv);
            snprintf(r->variant, sizeof r->variant, "%s", ks_variant_set_file_name(files, k - nv));
            /* no poison here: the contract adds into bins the run zeroes (its check poisons the input's tail) */
            st = ks_hist_gpu_whole_user(g, u, user_block);
            if (st == KS_OK) st = counted_as_gold(g, got, gold, r);
            if (st == KS_OK) st = ks_hist_gpu_time_user(g, u, user_block, &timing, &r->timing);
        } else if (use_cuda) {
            const ks_hist_variant *v = ks_hist_variant_get(variants[k]);
            snprintf(r->variant, sizeof r->variant, "%s", v->name);
            if (mode == KS_HIST_WORDS && !v->words) continue; /* cub: no word mode */
            st = ks_hist_gpu_fill(g, 0xdeadbeefu);
            if (st == KS_OK) st = ks_hist_gpu_whole(g, variants[k]);
            if (st == KS_OK) st = counted_as_gold(g, got, gold, r);
            if (st == KS_OK) st = ks_hist_gpu_time(g, variants[k], &timing, &r->timing);
            if (st == KS_OK && strcmp(v->name, "warp") == 0 && mode == KS_HIST_BYTES)
                ks_hist_choice_text(ks_hist_gpu_ctx(g), r->kernel, sizeof r->kernel);
            if (st == KS_OK && strcmp(v->name, "cub") == 0) cub_ms = r->timing.median_ms;
        } else {
            snprintf(r->variant, sizeof r->variant, "cpu");
            /* at most 5 runs (--reps N: at most N), no warm-up: the gold is slow */
            const ks_timing_opts once = {.reps = opt->reps < 5 ? opt->reps : 5, .warmup = -1};
            cpu_run c = {data, (size_t)bytes, mode, bins, got};
            const ks_timing_run run = {cpu_sample, NULL, &c, (double)bytes, 0.0};
            st = ks_timing_measure(&run, &once, &r->timing);
        }
        if (st == KS_OK) {
            r->ms = r->timing.median_ms;
            r->min_ms = r->timing.min_ms;
            r->gbs = r->ms > 0 ? (double)bytes / (r->ms * 1e6) : 0.0;
            double ratio;
            if (!use_cuda) r->verdict = (int)ks_host_peak_ratio(host, r->gbs, &ratio);
            ++*nrows;
            if (bc && use_cuda) { /* after the timing, outside it */
                const int file = k >= nv;
                const row_launch l = {g, file ? -1 : variants[k], file ? ks_variant_set_code_at(files, k - nv) : NULL,
                                      user_block};
                st = counters_row(bc, *nrows - 1, r, &l, mode);
            }
        }
    }
    for (int i = first; i < *nrows && cub_ms > 0; ++i) rows[i].pct_cub = 100.0 * cub_ms / rows[i].ms;
    ks_hist_gpu_destroy(g);
    free(data);
    free(gold);
    free(got);
    return st;
}

/* GB/s per input (a category axis: one tick per input measured) at the largest size and the first bin
 * count, one line per variant. */
static ks_status chart(const ks_hbench_row *rows, int n, const char *dir)
{
    unsigned long long big = 0;
    for (int i = 0; i < n; ++i)
        if (rows[i].bytes > big) big = rows[i].bytes;
    const char *names[KS_CHART_MAX_SERIES];
    double x[KS_HB_INPUTS] = {1, 2, 3}, y[KS_CHART_MAX_SERIES][KS_HB_INPUTS];
    ks_chart_series series[KS_CHART_MAX_SERIES];
    int ns = 0;
    for (int i = 0; i < n; ++i) {
        if (rows[i].bytes != big || rows[i].bins != rows[0].bins) continue;
        int s = 0;
        while (s < ns && strcmp(names[s], rows[i].variant) != 0) ++s;
        if (s == ns) {
            if (ns == KS_CHART_MAX_SERIES) continue;
            names[ns] = rows[i].variant;
            for (int k = 0; k < KS_HB_INPUTS; ++k) y[ns][k] = NAN;
            ++ns;
        }
        for (int k = 0; k < KS_HB_INPUTS; ++k)
            if (strcmp(rows[i].input, ks_hist_input_name((ks_hist_input_kind)k)) == 0) y[s][k] = rows[i].gbs;
    }
    if (!ns) return KS_OK;
    /* the inputs measured, side by side at 1, 2, ... (an input not run leaves no empty slot) */
    static const char *const input_labels[KS_HB_INPUTS] = {"text", "uniform bytes", "all bytes equal"};
    double ticks[KS_HB_INPUTS];
    const char *tick_labels[KS_HB_INPUTS];
    int nt = 0;
    for (int k = 0; k < KS_HB_INPUTS; ++k) {
        int seen = 0;
        for (int s = 0; s < ns; ++s) seen |= !isnan(y[s][k]);
        x[k] = seen ? nt + 1 : NAN;
        if (seen) {
            ticks[nt] = nt + 1;
            tick_labels[nt++] = input_labels[k];
        }
    }
    for (int s = 0; s < ns; ++s) series[s] = (ks_chart_series){names[s], x, y[s], KS_HB_INPUTS};
    char title[400];
    snprintf(title, sizeof title, "Histogram, %llu bytes (%s, %u bins), on %s", big, rows[0].mode, rows[0].bins,
             rows[0].device);
    const ks_chart_desc d = {.width = KS_HB_CHART_W, .height = KS_HB_CHART_H, .title = title,
                             .x_label = "input", .y_label = "GB/s read (median)", .log_y = 1,
                             .series = series, .series_count = ns, .x_ticks = ticks,
                             .x_tick_labels = tick_labels, .x_tick_count = nt, .x_categories = 1};
    return ks_bench_chart_write(&d, dir, "bench_histogram.png", NULL, 0);
}

/* DIR/roofline_histogram.png: a histogram does no floating-point work, so
 * every row is a zero-flop point at the chart's left edge, at the height of
 * its read rate (model bytes: the input once), under the copy bandwidth and
 * the FMA peak measured in this run. */
static ks_status roofline(const ks_hbench_row *rows, int n, int use_cuda, const char *dir, const char *device,
                          const ks_bench_counters *bc)
{
    ks_roof_chart *c = calloc(1, sizeof *c);
    if (!c) return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench histogram: out of host memory");
    ks_status st = KS_OK;
    for (int i = 0; i < n; ++i) c->peak_gbs = fmax(c->peak_gbs, rows[i].t_peak_gbs);
    if (!(c->peak_gbs > 0.0)) c->peak_gbs = ks_roof_host_copy_gbs((size_t)64 << 20); /* CPU backend */
    if (use_cuda) st = ks_cuda_measure_fma_gflops(5, &c->peak_gflops);
    for (int i = 0; i < n && st == KS_OK; ++i)
        ks_roof_chart_add_measured(c, rows[i].variant, 0.0, (double)rows[i].bytes, ks_bench_counters_dram_bytes(bc, i),
                                   rows[i].ms);
    if (st == KS_OK) st = ks_roof_chart_write(c, dir, "histogram", device, NULL, 0);
    free(c);
    return st;
}

typedef struct charts_ctx {
    const ks_hbench_row *rows;
    int n, use_cuda;
    const char *device;
    const ks_bench_counters *bc;
} charts_ctx;

static ks_status charts(const void *ctx, const char *dir)
{
    const charts_ctx *c = ctx;
    KS_TRY(chart(c->rows, c->n, dir));
    return roofline(c->rows, c->n, c->use_cuda, dir, c->device, c->bc);
}

static size_t table_text(const void *rows, int n, char *buf, size_t cap) { return ks_hbench_table(rows, n, buf, cap); }
static size_t csv_text(const void *rows, int n, char *buf, size_t cap) { return ks_hbench_csv(rows, n, buf, cap); }

ks_status ks_bench_histogram(const ks_options *opt, const ks_device_info *dev, int use_cuda)
{
    const char *dir = opt->out_dir ? opt->out_dir : ".";
    KS_TRY(ks_output_dir_check(dir));
    const ks_hist_mode mode = KS_HIST_OPTS(opt)->words ? KS_HIST_WORDS : KS_HIST_OPTS(opt)->bins ? KS_HIST_PAIRS : KS_HIST_BYTES;
    unsigned bins_list[KS_MAX_LIST];
    int nbins = 0;
    if (mode == KS_HIST_BYTES) bins_list[nbins++] = 256u;
    else if (!KS_HIST_OPTS(opt)->bins_n) bins_list[nbins++] = KS_HIST_WORD_BINS_DEFAULT;
    for (int b = 0; mode != KS_HIST_BYTES && b < KS_HIST_OPTS(opt)->bins_n; ++b) bins_list[nbins++] = (unsigned)KS_HIST_OPTS(opt)->bins_list[b];
    int variants[KS_HIST_VARIANT_NUM], nv = 0;
    if (opt->kernel_count) {
        for (int k = 0; k < opt->kernel_count; ++k) {
            const int v = ks_hist_variant_find(opt->kernels[k]);
            if (v < 0 && ks_hist_kernel_file_named(opt, opt->kernels[k])) continue; /* the files always run */
            if (v < 0)
                return ks_fail(KS_ERR_INVALID, "--kernel: unknown histogram variant '%s' (global, strided, shared, "
                               "warp, cub)", opt->kernels[k]);
            if (nv < KS_HIST_VARIANT_NUM) variants[nv++] = v;
        }
    } else {
        for (int v = 0; v < KS_HIST_VARIANT_NUM; ++v) variants[nv++] = v;
    }
    const int nfiles = KS_HIST_OPTS(opt)->kernel_files.count;
    if ((long)nbins * KS_HIST_OPTS(opt)->size_n * KS_HB_INPUTS * (use_cuda ? nv + nfiles : 1) > KS_HBENCH_MAX_ROWS)
        return ks_fail(KS_ERR_INVALID, "bench histogram: %d bin counts x %d sizes x %d inputs x %d variants and files is more "
                       "than %d rows", nbins, KS_HIST_OPTS(opt)->size_n, KS_HB_INPUTS, use_cuda ? nv + nfiles : 1, KS_HBENCH_MAX_ROWS);
    const char *device = use_cuda && dev && dev->present ? dev->name : "cpu";
    const int user_block[3] = {opt->block_count ? opt->blocks[0][0] : KS_HIST_USER_BLOCK, 1, 1};
    ks_variant_set *files = NULL;
    if (use_cuda && nfiles) KS_TRY(build_files(opt, dev, (size_t)KS_HIST_OPTS(opt)->sizes[0], user_block, &files));
    ks_hbench_row *rows = calloc(KS_HBENCH_MAX_ROWS, sizeof *rows);
    if (!rows) {
        ks_variant_set_destroy(files);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench histogram: no host memory");
    }
    int n = 0;
    ks_host_peak host;
    memset(&host, 0, sizeof host);
    ks_bench_counters *bc = NULL; /* --counters, --counters-ncu */
    ks_status st = ks_bench_counters_begin(opt, use_cuda, &bc);
    if (st == KS_OK && !use_cuda) st = ks_host_peak_measure(NULL, &host); /* the CPU's T_peak, once */
    for (int bi = 0; bi < nbins && st == KS_OK; ++bi)
        for (int si = 0; si < KS_HIST_OPTS(opt)->size_n && st == KS_OK; ++si)
            for (int k = 0; k < KS_HB_INPUTS && st == KS_OK; ++k)
                st = bench_one(opt, device, use_cuda, &host, variants, nv, files, user_block, (ks_hist_input_kind)k,
                               KS_HIST_OPTS(opt)->sizes[si], mode, bins_list[bi], rows, &n, bc);
    if (st == KS_OK) printf("checked every configuration against the CPU gold: all agree\n");
    for (int i = 0; i < n; ++i) {
        if (use_cuda && dev && dev->present) snprintf(rows[i].cc, sizeof rows[i].cc, "%d.%d", dev->cc_major, dev->cc_minor);
        else snprintf(rows[i].cc, sizeof rows[i].cc, "-");
    }
    const charts_ctx cc = {rows, n, use_cuda, device, bc};
    const ks_bench_counted counted = {rows, bc, table_text, csv_text};
    const ks_bench_output_desc out = {.dir = dir, .rows = &counted, .n = n, .table = ks_bench_counted_table,
                                      .files = {{"bench_histogram.csv", ks_bench_counted_csv}}, .charts = charts,
                                      .ctx = &cc};
    if (st == KS_OK) st = ks_bench_output_write(&out, KS_OK);
    if (st == KS_OK) st = ks_bench_counters_write(bc, dir, "histogram");
    ks_bench_counters_destroy(bc);
    free(rows);
    ks_variant_set_destroy(files);
    return st;
}
