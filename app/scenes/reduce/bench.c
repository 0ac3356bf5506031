#include "app/scenes/reduce/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_counters.h"
#include "app/bench/bench_output.h"
#include "app/kernel/variant_set.h"
#include "app/scenes/reduce/check.h"
#include "app/run_outputs.h"
#include "app/scenes.h"
#include "app/scenes/reduce/options.h"
#include "app/signals.h"
#include "base/ks_util.h"
#include "kernels/reduce/reduce_bench.h"
#include "kernels/reduce/reduce_user.h"
#include "render/chart.h"

/* Without --block the variants that take a block size run at each of these and
 * keep their fastest, as bench laplace3d sweeps its blocks. */
static const int ks_sweep_blocks[] = {128, 256, 512, 1024};
enum { KS_SWEEP_N = (int)(sizeof ks_sweep_blocks / sizeof ks_sweep_blocks[0]) };

typedef struct reduce_bench {
    ks_reduce_bench_result r;
    int block[KS_REDUCE_BENCH_MAX_ROWS]; /* the block of each row's fastest run; 0: the variant's own */
    /* --counters: every run of the block sweep measures its rows, numbered run * KS_REDUCE_BENCH_MAX_ROWS + row;
     * measured[i] is the one of row i's fastest run */
    ks_bench_counters *bc;
    int run;                              /* the sweep's run in progress */
    const ks_reduce_bench_result *timing; /* its result, filled as it goes */
    int measured[KS_REDUCE_BENCH_MAX_ROWS];
} reduce_bench;

/* --counters: row `row` of the run in progress just timed, its run once more (bench_counters.h). */
static ks_status counters_row(void *user, int row, ks_bench_launch_fn launch, void *self, void *stream,
                              const ks_kernel_attrs *attrs)
{
    (void)attrs;
    const reduce_bench *b = user;
    const ks_reduce_bench_row *w = &b->timing->rows[row];
    ks_reduce_variant v;
    const int ours = ks_reduce_variant_parse(w->variant, &v) == 0;
    /* ours: the variant's model; a kernel file sums: the input read once */
    const double model = ours ? ks_reduce_model_bytes(v, w->n) : 4.0 * (double)w->n;
    char label[96];
    snprintf(label, sizeof label, "%s %s %lld%s", w->op, w->variant, w->n, b->run ? " (block sweep)" : "");
    return ks_bench_counters_row(b->bc, b->run * KS_REDUCE_BENCH_MAX_ROWS + row, label, launch, self, stream, model,
                                 NULL);
}

/* Users' kernels (--kernel-file): compiled and checked in the checker process at the first size
 * (built once; the bench sums random input), then loaded here, checked against the gold and timed
 * like ours. */
static ks_status build_files(const ks_options *opt, const ks_device_info *dev, long long first, int block,
                             ks_variant_set **out)
{
    ks_variant_set_desc d = {.contract = &ks_reduce_contract, .opt = opt, .use_cuda = 1, .device = dev,
                             .block = {block, 1, 1}};
    ks_reduce_check_grid(first, 0, d.grid);
    return ks_variant_set_create(&d, out);
}

/* 1 when row w is a kernel file's (its name is none of ours). */
static int user_row(const ks_reduce_bench_row *w)
{
    ks_reduce_variant v;
    return strcmp(w->variant, "cpu") != 0 && ks_reduce_variant_parse(w->variant, &v) != 0;
}

static size_t table_text(const void *b_, int n, char *buf, size_t cap)
{
    (void)n;
    const reduce_bench *b = b_;
    const ks_reduce_bench_result *r = &b->r;
    size_t used = 0;
    ks_text_measure(buf, cap, &used, "%-5s %-14s %12s %6s %10s %10s %10s %7s %7s %5s %5s %6s\n", "op", "variant", "n",
                    "block", "ms", "t_eff_gbs", "t_peak_gbs", "ratio", "vs_cub", "cache", "reps", "se%");
    for (int i = 0; i < r->row_n; ++i) {
        const ks_reduce_bench_row *w = &r->rows[i];
        /* n/a where the CSV leaves the field empty (the CPU backend: no device copy, no CUB) */
        char block[16] = "-", peak[32] = "n/a", ratio[32] = "n/a", vs[32] = "n/a", se[16] = "-";
        if (b->block[i]) snprintf(block, sizeof block, "%d", b->block[i]);
        if (w->t_peak_gbs > 0) snprintf(peak, sizeof peak, "%.1f", w->t_peak_gbs);
        /* a ratio above 1 from data that fit in the L2 is the cache's rate: said beside it */
        const char *l2 = ks_timing_l2_note(w->timing.working_set_bytes, w->timing.l2_bytes, w->t_eff_gbs, w->t_peak_gbs);
        if (w->ratio >= 0) snprintf(ratio, sizeof ratio, "%.3f%s", w->ratio, strcmp(l2, "in L2") == 0 ? " in L2" : "");
        if (w->vs_cub >= 0) snprintf(vs, sizeof vs, "%.3f", w->vs_cub);
        if (w->timing.se_pct >= 0) snprintf(se, sizeof se, "%.2f", w->timing.se_pct);
        ks_text_measure(buf, cap, &used, "%-5s %-14s %12lld %6s %10.4f %10.1f %10s %7s %7s %5s %5d %6s\n", w->op,
                        w->variant, w->n, block, w->ms, w->t_eff_gbs, peak, ratio, vs,
                        w->timing.reps ? ks_cache_policy_name(w->timing.cache) : "-", w->timing.reps, se);
    }
    return used;
}

/* device, op, variant, n, ms, t_eff_gbs, t_peak_gbs, ratio, vs_cub, cc (t_peak_gbs, ratio and vs_cub empty: n/a),
 * then min_ms, launches and the timing's columns (cache, reps, se_pct, in_l2) */
static size_t csv_text(const void *b_, int n, char *buf, size_t cap)
{
    (void)n;
    const ks_reduce_bench_result *r = &((const reduce_bench *)b_)->r;
    char device[600];
    ks_csv_quote(r->device, device, sizeof device);
    size_t used = 0;
    ks_text_measure(buf, cap, &used,
                    "device,op,variant,n,ms,t_eff_gbs,t_peak_gbs,ratio,vs_cub,cc,min_ms,launches," KS_TIMING_CSV_HEADER "\n");
    for (int i = 0; i < r->row_n; ++i) {
        const ks_reduce_bench_row *w = &r->rows[i];
        char peak[32] = "", ratio[32] = "", vs[32] = "";
        if (w->t_peak_gbs > 0) snprintf(peak, sizeof peak, "%.2f", w->t_peak_gbs);
        if (w->ratio >= 0) snprintf(ratio, sizeof ratio, "%.4f", w->ratio);
        if (w->vs_cub >= 0) snprintf(vs, sizeof vs, "%.4f", w->vs_cub);
        char timing[96];
        ks_timing_csv(&w->timing, timing, sizeof timing);
        ks_text_measure(buf, cap, &used, "%s,%s,%s,%lld,%.6f,%.2f,%s,%s,%s,%s,%.6f,%d,%s\n", device, w->op, w->variant, w->n,
                        w->ms, w->t_eff_gbs, peak, ratio, vs, r->cc, w->min_ms, w->launches, timing);
    }
    return used;
}

/* The variants along x (in the table's order, named without their op), one series
 * per op and N: T_eff / T_peak (CPU: GB/s), so the variants of one size read side
 * by side and a sum's line never runs into a scan's. The CPU backend has one
 * routine per op: the ops along x ("sum", "scan"), one series per N. */
static ks_status write_chart(const void *b_, const char *dir)
{
    const ks_reduce_bench_result *r = &((const reduce_bench *)b_)->r;
    enum { NS = KS_CHART_MAX_SERIES, NV = KS_REDUCE_NUM + 2 };
    char vnames[NV][80], labels[NV][80], snames[NS][48]; /* a kernel file's name has up to 63 bytes */
    const char *tick_labels[NV];
    double ticks[NV], xs[NS][NV], ys[NS][NV];
    ks_chart_series series[NS];
    int nv = 0, ns = 0;
    for (int i = 0; i < r->row_n; ++i) {
        const ks_reduce_bench_row *w = &r->rows[i];
        char full[80], label[80]; /* "sum_tree" -> "tree"; the CPU's rows are "cpu" for both ops: named by op */
        snprintf(full, sizeof full, "%s %s", w->op, w->variant);
        const size_t op_len = strlen(w->op);
        const int cpu = strcmp(w->variant, "cpu") == 0;
        snprintf(label, sizeof label, "%s",
                 cpu ? w->op
                     : strncmp(w->variant, w->op, op_len) == 0 && w->variant[op_len] == '_' ? w->variant + op_len + 1
                                                                                           : w->variant);
        int v = 0, k = 0;
        while (v < nv && strcmp(vnames[v], full) != 0) ++v;
        if (v == nv) {
            if (nv == NV) continue;
            snprintf(vnames[v], sizeof vnames[v], "%s", full);
            ticks[v] = v + 1; /* category slots 1, 2, ...: half a slot of room either side */
            ++nv;
        }
        snprintf(labels[v], sizeof labels[v], "%s", label);
        tick_labels[v] = labels[v];
        char sname[48];
        if (cpu) snprintf(sname, sizeof sname, "cpu, N = %lld", w->n);
        else snprintf(sname, sizeof sname, "%s, N = %lld", w->op, w->n);
        while (k < ns && strcmp(snames[k], sname) != 0) ++k;
        if (k == ns) {
            if (ns == NS) continue;
            snprintf(snames[k], sizeof snames[k], "%s", sname);
            series[k] = (ks_chart_series){snames[k], xs[k], ys[k], 0};
            ++ns;
        }
        xs[k][series[k].n] = v + 1;
        ys[k][series[k].n++] = r->use_cuda ? w->ratio : w->t_eff_gbs;
    }
    if (!ns) return KS_OK;
    char title[400];
    if (r->use_cuda) snprintf(title, sizeof title, "bench reduce, %s: T_eff / T_peak (device copy) per variant", r->device);
    else snprintf(title, sizeof title, "bench reduce, %s: T_eff (GB/s) of the sum and the scan per N", r->device);
    const ks_chart_desc d = {.width = 1280, .height = 640, .title = title,
                             .x_label = r->use_cuda ? "variant (sum: 4N bytes read; scan: 4N read + 4N written)"
                                                    : "op (sum: 4N bytes read; scan: 4N read + 4N written)",
                             .y_label = r->use_cuda ? "T_eff / T_peak" : "T_eff, GB/s", .series = series,
                             .series_count = ns, .x_ticks = ticks, .x_tick_labels = tick_labels, .x_tick_count = nv,
                             .x_categories = 1};
    return ks_bench_chart_write(&d, dir, "bench_reduce.png", NULL, 0);
}

/* Folds run t (at block) into b: each row keeps its fastest time (a CUB row too,
 * which only makes vs_cub stricter), and T_peak the highest of the runs; T_eff,
 * the ratio and vs_cub are worked out again from the kept times. */
static void keep_fastest(reduce_bench *b, const ks_reduce_bench_result *t, int block, int run)
{
    ks_reduce_bench_result *r = &b->r;
    if (t->t_peak_gbs > r->t_peak_gbs) r->t_peak_gbs = t->t_peak_gbs;
    for (int j = 0; j < t->row_n; ++j) {
        const ks_reduce_bench_row *w = &t->rows[j];
        for (int i = 0; i < r->row_n; ++i) {
            ks_reduce_bench_row *k = &r->rows[i];
            if (strcmp(k->variant, w->variant) != 0 || strcmp(k->op, w->op) != 0 || k->n != w->n) continue;
            if (w->ms < k->ms) {
                *k = *w;
                b->measured[i] = run * KS_REDUCE_BENCH_MAX_ROWS + j;
                ks_reduce_variant v;
                b->block[i] = ks_reduce_variant_parse(w->variant, &v) == 0 && ks_reduce_variant_get(v)->uses_block
                                  ? block : 0;
            }
        }
    }
    for (int i = 0; i < r->row_n; ++i) {
        ks_reduce_bench_row *k = &r->rows[i];
        ks_reduce_variant v;
        if (user_row(k)) v = KS_REDUCE_SUM_CUB; /* a user's kernel sums: the model and the reference of a sum */
        else if (ks_reduce_variant_parse(k->variant, &v) != 0) continue;
        if (k->ms <= 0) continue;
        k->t_peak_gbs = r->t_peak_gbs;
        k->t_eff_gbs = ks_reduce_model_bytes(v, k->n) / (k->ms * 1e6);
        k->ratio = k->t_eff_gbs / r->t_peak_gbs;
        const char *cub = ks_reduce_variant_get(ks_reduce_cub_variant(ks_reduce_variant_get(v)->op))->name;
        for (int c = 0; c < r->row_n; ++c) /* the CUB row of the same op and N */
            if (r->rows[c].n == k->n && strcmp(r->rows[c].variant, cub) == 0)
                k->vs_cub = r->rows[c].ms / k->ms;
    }
}

ks_status ks_bench_reduce(const ks_bench_env *env)
{
    const ks_options *opt = env->opt;
    const ks_reduce_opts *ro = KS_REDUCE_OPTS(opt);
    ks_reduce_bench_desc d;
    memset(&d, 0, sizeof d);
    d.use_cuda = env->use_cuda;
    d.sizes = ro->size_n ? ro->sizes : NULL;
    d.size_n = ro->size_n;
    int ours = 0;
    for (int k = 0; k < opt->kernel_count; ++k) {
        ks_reduce_variant v;
        if (ks_reduce_variant_parse(opt->kernels[k], &v) == 0) d.variants[v] = ours = 1;
    }
    if (opt->kernel_count && !ours) d.variants[KS_REDUCE_SUM_CUB] = 1; /* only files named: with the reference */
    d.block = opt->block_count ? opt->blocks[0][0] : 0;
    d.seed = (unsigned)opt->seed;
    d.timing = ks_bench_timing_opts(opt);
    if (env->use_cuda) d.mem_bytes = (double)env->device->free_mem * 0.8;
    reduce_bench *b = calloc(1, sizeof *b);
    ks_reduce_bench_result *t = calloc(1, sizeof *t);
    if (!b || !t) {
        free(b);
        free(t);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench reduce: out of host memory");
    }
    ks_reduce_bench_result *r = &b->r;
    /* Users' kernels (--kernel-file): compiled and checked in the checker process at the
       first size, then loaded here, checked against the gold and timed like ours. */
    const int user_block = opt->block_count ? opt->blocks[0][0] : KS_REDUCE_DEFAULT_BLOCK;
    ks_variant_set *files = NULL;
    const ks_status bst = env->use_cuda ? build_files(opt, env->device, ro->size_n ? ro->sizes[0] : KS_REDUCE_BENCH_GPU_N,
                                                      user_block, &files)
                                        : KS_OK;
    if (bst != KS_OK) {
        free(b);
        free(t);
        return bst;
    }
    const ks_reduce_user *users[KS_USER_FILES_MAX];
    const char *names[KS_USER_FILES_MAX];
    d.user_n = ks_variant_set_files(files);
    for (int i = 0; i < d.user_n; ++i) {
        users[i] = ks_variant_set_code_at(files, i);
        names[i] = ks_variant_set_file_name(files, i); /* the row's name: the file's (the code's is its path) */
    }
    d.users = users;
    d.user_names = names;
    d.user_block = user_block;
    const int sweep = env->use_cuda && !opt->block_count;
    printf("kernelscope bench reduce on %s (%s backend)%s\n", env->use_cuda ? env->device->name : "host CPU",
           env->use_cuda ? "cuda" : "cpu", sweep ? ": blocks 128, 256, 512, 1024 for the variants that take one" : "");
    fflush(stdout);
    if (sweep) d.block = ks_sweep_blocks[0];
    ks_status st = ks_bench_counters_begin(opt, env->use_cuda, &b->bc);
    if (b->bc) d.after_row = (ks_bench_hook){counters_row, b};
    b->timing = r;
    for (int i = 0; i < KS_REDUCE_BENCH_MAX_ROWS; ++i) b->measured[i] = i;
    if (st == KS_OK) st = ks_reduce_bench_run(&d, r);
    for (int i = 0; i < r->row_n; ++i) {
        ks_reduce_variant v;
        b->block[i] = user_row(&r->rows[i]) ? user_block
                      : ks_reduce_variant_parse(r->rows[i].variant, &v) == 0 && ks_reduce_variant_get(v)->uses_block
                          ? d.block ? d.block : KS_REDUCE_DEFAULT_BLOCK : 0;
    }
    d.user_n = 0; /* the block sweep is ours: a user's kernel runs at its own block, timed once */
    for (int k = 1; sweep && k < KS_SWEEP_N && st == KS_OK && !ks_signals_stop_requested(); ++k) {
        d.block = ks_sweep_blocks[k];
        b->run = k;
        b->timing = t;
        st = ks_reduce_bench_run(&d, t);
        if (st == KS_OK) keep_fastest(b, t, d.block, k);
    }
    if (sweep && st == KS_OK) keep_fastest(b, r, 0, 0); /* recompute from the kept rows */
    if (st == KS_OK) st = ks_bench_counters_map(b->bc, b->measured, r->row_n);
    if (st == KS_OK) {
        printf("checked: %s\n", r->check);
        if (r->note[0]) printf("%s\n", r->note);
        if (r->use_cuda)
            printf("timing: cold, one run after each L2 flush; warm, spans of back-to-back runs (each >= %.0f ms); "
                   "samples until the median's standard error is under 1 %% (--reps N: N), median per run. "
                   "T_peak: device-to-device copy, read + written bytes: %.1f GB/s\n",
                   r->span_ms, r->t_peak_gbs);
        if (sweep) printf("each variant that takes a block at its fastest block (column block); T_peak the highest of "
                          "the %d runs\n", KS_SWEEP_N);
        const ks_bench_counted counted = {b, b->bc, table_text, csv_text};
        const ks_bench_output_desc out = {.dir = opt->out_dir, .rows = &counted, .table = ks_bench_counted_table,
                                          .files = {{"bench_reduce.csv", ks_bench_counted_csv}},
                                          .charts = write_chart, .ctx = b};
        st = ks_bench_output_write(&out, KS_OK);
        if (st == KS_OK) st = ks_bench_counters_write(b->bc, opt->out_dir, "reduce");
    }
    ks_bench_counters_destroy(b->bc);
    ks_variant_set_destroy(files);
    free(t);
    free(b);
    return st;
}
