#include "app/scenes/matmul/options.h"
#include "app/scenes/matmul/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kernel/variant_set.h"
#include "app/scenes/matmul/check.h"
#include "app/scenes.h"
#include "base/cuda_device.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_bench.h"
#include "kernels/matmul/matmul_user.h"
#include "render/chart.h"
#include "render/image_io.h"
#include "app/bench/bench_counters.h"
#include "app/bench/bench_roofline.h"
#include "app/bench/bench_output.h"
#include "app/run_outputs.h"

enum { KS_BENCH_CHART_W = 1000, KS_BENCH_CHART_H = 640 };

/* GFLOP/s against the cube root of M*N*K (the side for square sizes), log-log: one
 * line per variant and tile. */
static ks_status chart(const ks_matmul_bench_result *r, const char *dir)
{
    enum { MAXS = KS_CHART_MAX_SERIES };
    char names[MAXS][80]; /* a kernel file's name has up to 63 bytes */
    double x[MAXS][KS_MATMUL_BENCH_MAX_ROWS], y[MAXS][KS_MATMUL_BENCH_MAX_ROWS];
    int n[MAXS] = {0}, series_n = 0;
    for (int k = 0; k < r->row_n; ++k) {
        const ks_matmul_bench_row *w = &r->rows[k];
        char name[80];
        if (strcmp(w->variant, "tiled") == 0) snprintf(name, sizeof name, "tiled %d", w->tile);
        else snprintf(name, sizeof name, "%s", w->variant);
        int s = 0;
        while (s < series_n && strcmp(names[s], name) != 0) ++s;
        if (s == series_n) {
            if (series_n == MAXS) continue;
            snprintf(names[series_n++], sizeof names[0], "%s", name);
        }
        x[s][n[s]] = cbrt((double)w->size.m * w->size.n * w->size.k);
        y[s][n[s]++] = w->gflops;
    }
    if (series_n == 0) return KS_OK;
    for (int q = 0; q < series_n; ++q) /* points in x order, whatever order --size listed */
        for (int i = 1; i < n[q]; ++i)
            for (int j = i; j > 0 && x[q][j] < x[q][j - 1]; --j) {
                const double tx = x[q][j], ty = y[q][j];
                x[q][j] = x[q][j - 1];
                y[q][j] = y[q][j - 1];
                x[q][j - 1] = tx;
                y[q][j - 1] = ty;
            }
    ks_chart_series series[MAXS];
    for (int s = 0; s < series_n; ++s) series[s] = (ks_chart_series){names[s], x[s], y[s], n[s]};
    char title[400];
    snprintf(title, sizeof title, "Matrix multiply (float32) on %s", r->device);
    const ks_chart_desc d = {.width = KS_BENCH_CHART_W, .height = KS_BENCH_CHART_H, .title = title,
                             .x_label = "size (cube root of M*N*K)", .y_label = "GFLOP/s (median)",
                             .log_x = 1, .log_y = 1, .series = series, .series_count = series_n};
    return ks_bench_chart_write(&d, dir, "bench_matmul.png", NULL, 0);
}

/* Roofline chart: each variant's best configuration (tiled: its best tile) per
 * size; model FLOPs 2MNK, model DRAM bytes from ks_matmul_model_bytes (the CPU
 * gold: A, B and C once each). Ceilings: the FMA peak the bench measured and
 * a copy measured here. */
static ks_status roofline(const ks_matmul_bench_result *r, const ks_bench_counters *bc, const char *dir)
{
    ks_roof_chart *c = calloc(1, sizeof *c);
    if (!c) return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench matmul: out of host memory");
    ks_status st = KS_OK;
    if (r->use_cuda) st = ks_cuda_measure_copy_gbs((size_t)256 << 20, 10, &c->peak_gbs);
    else c->peak_gbs = ks_roof_host_copy_gbs((size_t)64 << 20);
    c->peak_gflops = r->use_cuda ? r->peak_gflops : 0.0;
    for (int k = 0; k < r->row_n && st == KS_OK; ++k) {
        const ks_matmul_bench_row *w = &r->rows[k];
        if (!(w->ms > 0.0)) continue;
        int best = 1; /* the fastest row of this variant and size */
        for (int j = 0; j < r->row_n; ++j) {
            const ks_matmul_bench_row *o = &r->rows[j];
            if (j != k && strcmp(o->variant, w->variant) == 0 && o->size.m == w->size.m && o->size.n == w->size.n &&
                o->size.k == w->size.k && o->ms > 0.0 && (o->ms < w->ms || (o->ms == w->ms && j < k)))
                best = 0;
        }
        if (!best) continue;
        ks_matmul_variant v;
        const double bytes = ks_matmul_variant_parse(w->variant, &v) == 0
                                 ? ks_matmul_model_bytes(v, w->block_tile, &w->size)
                                 : 4.0 * ((double)w->size.m * w->size.k + (double)w->size.k * w->size.n +
                                          (double)w->size.m * w->size.n);
        ks_roof_chart_add_measured(c, w->variant, ks_matmul_flops(&w->size), bytes, ks_bench_counters_dram_bytes(bc, k),
                                   w->ms);
    }
    if (st == KS_OK) st = ks_roof_chart_write(c, dir, "matmul", r->device, NULL, 0);
    free(c);
    return st;
}

typedef struct mm_bench {
    const ks_matmul_bench_result *r;
    ks_bench_counters *bc; /* --counters, --counters-ncu; NULL: neither */
} mm_bench;

static ks_status charts(const void *ctx, const char *dir)
{
    const mm_bench *b = ctx;
    KS_TRY(chart(b->r, dir));
    return roofline(b->r, b->bc, dir);
}

/* --counters: row `row` just timed, its kernel once more (bench_counters.h). */
static ks_status counters_row(void *user, int row, ks_bench_launch_fn launch, void *self, void *stream,
                              const ks_kernel_attrs *attrs)
{
    const mm_bench *b = user;
    const ks_matmul_bench_row *w = &b->r->rows[row];
    ks_matmul_variant v;
    const int ours = ks_matmul_variant_parse(w->variant, &v) == 0;
    /* ours: the variant's model; a kernel file: the least any kernel moves (A, B and C once) */
    const double model = ours ? ks_matmul_model_bytes(v, w->block_tile, &w->size)
                              : 4.0 * ((double)w->size.m * w->size.k + (double)w->size.k * w->size.n +
                                       (double)w->size.m * w->size.n);
    const int known = ours && v != KS_MATMUL_CUBLAS; /* cuBLAS's accesses are its own */
    const int vec = ours && v == KS_MATMUL_REGTILE && w->size.k % 4 == 0 && w->size.n % 4 == 0;
    const ks_counter_launch cl = {attrs ? attrs->occupancy : 0.0, known ? (vec ? 16 : 4) : 0, known ? 4 : 0};
    char label[96];
    if (ours && v == KS_MATMUL_TILED)
        snprintf(label, sizeof label, "%s %d %dx%dx%d", w->variant, w->tile, w->size.m, w->size.n, w->size.k);
    else
        snprintf(label, sizeof label, "%s %dx%dx%d", w->variant, w->size.m, w->size.n, w->size.k);
    return ks_bench_counters_row(b->bc, row, label, launch, self, stream, model, &cl);
}

static size_t table_text(const void *r, int n, char *buf, size_t cap)
{
    (void)n;
    return ks_matmul_bench_table(r, buf, cap);
}

static size_t csv_text(const void *r, int n, char *buf, size_t cap)
{
    (void)n;
    return ks_matmul_bench_csv(r, buf, cap);
}

/* Users' kernels (--kernel-file): compiled and checked in the checker process at the first size
 * (built once), then loaded here and timed like ours. */
static ks_status build_files(const ks_options *opt, const ks_device_info *dev, const ks_matmul_size *first,
                             const int block[3], ks_variant_set **out)
{
    const ks_variant_set_desc d = {
        .contract = &ks_matmul_contract, .opt = opt, .use_cuda = 1, .device = dev,
        .grid = {first->m, first->n, first->k}, .block = {block[0], block[1], block[2]},
    };
    return ks_variant_set_create(&d, out);
}

ks_status ks_bench_matmul(const ks_options *opt, const ks_device_info *dev, int use_cuda)
{
    ks_matmul_bench_desc d;
    memset(&d, 0, sizeof d);
    d.use_cuda = use_cuda;
    ks_matmul_size sizes[KS_MAX_LIST];
    for (int q = 0; q < KS_MATMUL_OPTS(opt)->size_n; ++q)
        sizes[q] = (ks_matmul_size){KS_MATMUL_OPTS(opt)->sizes[q][0], KS_MATMUL_OPTS(opt)->sizes[q][1], KS_MATMUL_OPTS(opt)->sizes[q][2]};
    if (KS_MATMUL_OPTS(opt)->size_n > 0) {
        d.sizes = sizes;
        d.size_n = KS_MATMUL_OPTS(opt)->size_n;
    }
    for (int k = 0; k < opt->kernel_count; ++k) {
        ks_matmul_variant v;
        if (ks_matmul_variant_parse(opt->kernels[k], &v) == 0) d.variants[v] = 1;
        else if (!ks_matmul_kernel_known(opt, opt->kernels[k])) /* a --kernel-file's name: the files always run */
            return ks_fail(KS_ERR_INVALID, "bench matmul: unknown --kernel '%s'", KS_QUOTED(opt->kernels[k]));
    }
    if (KS_MATMUL_OPTS(opt)->tile_n > 0) {
        d.tiles = KS_MATMUL_OPTS(opt)->tiles;
        d.tile_n = KS_MATMUL_OPTS(opt)->tile_n;
    }
    d.timing = ks_bench_timing_opts(opt);
    /* Users' kernels (--kernel-file): compiled and checked in the checker process
       at the first size, then loaded here and timed like ours. */
    ks_variant_set *files = NULL;
    ks_matmul_user *users[KS_MATMUL_BENCH_MAX_USERS] = {NULL};
    d.user_block[0] = opt->block_count ? opt->blocks[0][0] : KS_MATMUL_USER_BLOCK_X;
    d.user_block[1] = opt->block_count ? opt->blocks[0][1] : KS_MATMUL_USER_BLOCK_Y;
    d.user_block[2] = 1;
    if (use_cuda && opt->scene->kernel_file && opt->scene->kernel_file(opt, 0)) {
        const ks_matmul_size first = d.size_n ? d.sizes[0] : (ks_matmul_size){1024, 1024, 1024};
        KS_TRY(build_files(opt, dev, &first, d.user_block, &files));
        d.user_n = ks_variant_set_files(files) < KS_MATMUL_BENCH_MAX_USERS ? ks_variant_set_files(files)
                                                                          : KS_MATMUL_BENCH_MAX_USERS;
        for (int i = 0; i < d.user_n; ++i) users[i] = ks_variant_set_code_at(files, i);
        d.users = users;
    }
    if (use_cuda && dev && dev->present) d.mem_bytes = (double)dev->free_mem;
    const char *dir = opt->out_dir ? opt->out_dir : ".";
    ks_matmul_bench_result *r = NULL;
    ks_status st = ks_output_dir_check(dir); /* before minutes of timing, not after */
    if (st == KS_OK && !(r = malloc(sizeof *r))) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "bench matmul: out of host memory");
    mm_bench b = {r, NULL};
    if (st == KS_OK) st = ks_bench_counters_begin(opt, use_cuda, &b.bc);
    if (st != KS_OK) {
        free(r);
        ks_variant_set_destroy(files);
        return st;
    }
    if (b.bc) d.after_row = (ks_bench_hook){counters_row, &b};
    st = ks_matmul_bench_run(&d, r);
    if (st == KS_OK && use_cuda && dev && dev->present)
        snprintf(r->cc, sizeof r->cc, "%d.%d", dev->cc_major, dev->cc_minor);
    const ks_bench_counted counted = {r, b.bc, table_text, csv_text};
    const ks_bench_output_desc out = {.dir = dir, .rows = &counted, .table = ks_bench_counted_table,
                                      .files = {{"bench_matmul.csv", ks_bench_counted_csv}}, .charts = charts,
                                      .ctx = &b};
    if (st == KS_OK) st = ks_bench_output_write(&out, KS_OK);
    if (st == KS_OK) st = ks_bench_counters_write(b.bc, dir, "matmul");
    ks_bench_counters_destroy(b.bc);
    free(r);
    ks_variant_set_destroy(files);
    return st;
}
