#include "app/scenes/spheres/options.h"
#include "app/scenes/spheres/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_device.h"
#include "base/fma_peak.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_bench.h"
#include "render/chart.h"
#include "app/bench/bench_counters.h"
#include "app/bench/bench_roofline.h"
#include "render/image_io.h"
#include "app/bench/bench_output.h"
#include "app/run_outputs.h"
#include "app/signals.h"
#include "app/kernel/variant_set.h"
#include "app/scenes.h"
#include "app/scenes/spheres/check.h"

enum { KS_BENCH_CHART_W = 1000, KS_BENCH_CHART_H = 640 };

/* The log-log chart: one line per variant, "n/a" cells left out. */
static ks_status chart(const ks_spheres_bench_result *r, const char *dir)
{
    double x[KS_SPHERES_BENCH_MAX_COUNTS], y[KS_SPHERES_BENCH_MAX_COLS][KS_SPHERES_BENCH_MAX_COUNTS];
    ks_chart_series series[KS_SPHERES_BENCH_MAX_COLS];
    for (int k = 0; k < r->count_n; ++k) x[k] = r->counts[k];
    for (int c = 0; c < r->col_n; ++c) {
        for (int k = 0; k < r->count_n; ++k) y[c][k] = r->cell[k][c].available ? r->cell[k][c].ms : NAN;
        series[c] = (ks_chart_series){ks_spheres_bench_col_name(r, c), x, y[c], r->count_n};
    }
    char title[400];
    snprintf(title, sizeof title, "Sphere ray casting %dx%d on %s", r->width, r->height, r->device);
    const ks_chart_desc d = {.width = KS_BENCH_CHART_W, .height = KS_BENCH_CHART_H, .title = title,
                             .x_label = "spheres", .y_label = "median time per frame (ms)",
                             .log_x = 1, .log_y = 1, .series = series, .series_count = r->col_n};
    return ks_bench_chart_write(&d, dir, "bench_spheres.png", NULL, 0);
}

/* Roofline chart: every variant at every sphere count, one render: 6 model
 * FLOPs per pixel per sphere (each pixel tests each sphere), model bytes the
 * picture written once and the packed spheres read once; ceilings measured
 * here (device copy and FMA peak; the CPU backend: memcpy, no FMA). */
static ks_status roofline(const ks_spheres_bench_result *r, const ks_bench_counters *bc, const char *dir)
{
    ks_roof_chart *c = calloc(1, sizeof *c);
    if (!c) return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench spheres: out of host memory");
    ks_status st = KS_OK;
    if (r->use_cuda) {
        st = ks_cuda_measure_copy_gbs((size_t)256 << 20, 10, &c->peak_gbs);
        if (st == KS_OK) st = ks_cuda_measure_fma_gflops(5, &c->peak_gflops);
    } else {
        c->peak_gbs = ks_roof_host_copy_gbs((size_t)64 << 20);
    }
    const double pix = (double)r->width * r->height;
    for (int k = 0; k < r->count_n && st == KS_OK; ++k)
        for (int col = 0; col < r->col_n; ++col)
            if (r->cell[k][col].available)
                ks_roof_chart_add_measured(c, ks_spheres_bench_col_name(r, col), 6.0 * pix * r->counts[k],
                                           4.0 * pix + (double)r->counts[k] * sizeof(ks_sphere_packed),
                                           ks_bench_counters_dram_bytes(bc, k * r->col_n + col), r->cell[k][col].ms);
    if (st == KS_OK) st = ks_roof_chart_write(c, dir, "spheres", r->device, NULL, 0);
    free(c);
    return st;
}

typedef struct sph_bench {
    const ks_spheres_bench_result *r;
    ks_bench_counters *bc; /* --counters, --counters-ncu; NULL: neither */
} sph_bench;

/* The chart and the roofline; none when no sphere count was timed. */
static ks_status charts(const void *ctx, const char *dir)
{
    const sph_bench *b = ctx;
    if (b->r->count_n <= 0) return KS_OK;
    KS_TRY(chart(b->r, dir));
    return roofline(b->r, b->bc, dir);
}

/* --counters: the cell just timed (row: its CSV line), one render more (bench_counters.h). */
static ks_status counters_row(void *user, int row, ks_bench_launch_fn launch, void *self, void *stream,
                              const ks_kernel_attrs *attrs)
{
    const sph_bench *b = user;
    const ks_spheres_bench_result *r = b->r;
    const int k = row / r->col_n, c = row % r->col_n;
    const double pix = (double)r->width * r->height;
    const ks_counter_launch cl = {attrs ? attrs->occupancy : 0.0, 0, 4}; /* a pixel's RGBA8 store */
    char label[96];
    snprintf(label, sizeof label, "%s %d spheres", ks_spheres_bench_col_name(r, c), r->counts[k]);
    return ks_bench_counters_row(b->bc, row, label, launch, self, stream,
                                 4.0 * pix + (double)r->counts[k] * sizeof(ks_sphere_packed), &cl);
}

static size_t table_text(const void *r, int n, char *buf, size_t cap)
{
    (void)n;
    return ks_spheres_bench_table(r, buf, cap);
}

static size_t csv_text(const void *r, int n, char *buf, size_t cap)
{
    (void)n;
    return ks_spheres_bench_csv(r, buf, cap);
}

/* Users' kernels (--kernel-file): compiled and checked in the checker process at the picture's size
 * and the first sphere count (built once), then loaded here and timed like ours, a column each. */
static ks_status build_files(const ks_options *opt, const ks_device_info *dev, const ks_spheres_bench_desc *d,
                             ks_variant_set **out)
{
    const int w = d->width > 0 ? d->width : 2048, h = d->height > 0 ? d->height : 2048;
    const int n = d->scene ? d->scene_n : d->count_n > 0 ? d->counts[0] : 16;
    const ks_variant_set_desc vd = {
        .contract = &ks_spheres_contract, .opt = opt, .use_cuda = 1, .device = dev, .grid = {w, h, n},
        .block = {d->block[0] > 0 ? d->block[0] : 16, d->block[1] > 0 ? d->block[1] : 16, 1},
    };
    return ks_variant_set_create(&vd, out);
}

ks_status ks_bench_spheres(const ks_options *opt, const ks_device_info *dev, int use_cuda)
{
    ks_spheres_bench_desc d;
    memset(&d, 0, sizeof d);
    d.use_cuda = use_cuda;
    if (opt->size_set) {
        d.width = opt->width;
        d.height = opt->height;
    }
    if (KS_SPHERES_OPTS(opt)->count_n > 0) {
        d.counts = KS_SPHERES_OPTS(opt)->counts;
        d.count_n = KS_SPHERES_OPTS(opt)->count_n;
    }
    if (KS_SPHERES_OPTS(opt)->mem && ks_spheres_mem_parse(KS_SPHERES_OPTS(opt)->mem, &d.only) != 0) {
        char list[128];
        ks_spheres_mem_list(list, sizeof list);
        return ks_fail(KS_ERR_INVALID, "bench spheres: unknown --mem '%s' (one of: %s)", KS_QUOTED(KS_SPHERES_OPTS(opt)->mem), list);
    }
    if (opt->block_count > 0) {
        d.block[0] = opt->blocks[0][0];
        d.block[1] = opt->blocks[0][1];
    }
    d.timing = ks_bench_timing_opts(opt);
    d.seed = opt->seed;
    ks_sphere *scene = NULL;
    if (KS_SPHERES_OPTS(opt)->file) { /* read and checked before anything is timed */
        KS_TRY(ks_spheres_load(KS_SPHERES_OPTS(opt)->file, &scene, &d.scene_n));
        d.scene = scene;
    }
    d.stop = ks_signals_stop_requested;
    const char *dir = opt->out_dir ? opt->out_dir : ".";
    ks_status dir_st = ks_output_dir_check(dir); /* before minutes of timing, not after */
    ks_variant_set *files = NULL;
    const ks_spheres_user *users[KS_SPHERES_BENCH_MAX_USERS] = {NULL};
    const char *user_names[KS_SPHERES_BENCH_MAX_USERS] = {NULL};
    if (dir_st == KS_OK && use_cuda && opt->scene->kernel_file && opt->scene->kernel_file(opt, 0)) {
        dir_st = build_files(opt, dev, &d, &files);
        d.user_n = dir_st == KS_OK ? ks_variant_set_files(files) : 0;
        if (d.user_n > KS_SPHERES_BENCH_MAX_USERS) d.user_n = KS_SPHERES_BENCH_MAX_USERS;
        for (int i = 0; i < d.user_n; ++i) {
            users[i] = ks_variant_set_code_at(files, i);
            user_names[i] = ks_variant_set_file_name(files, i);
        }
        d.users = users;
        d.user_names = user_names;
    }
    ks_spheres_bench_result *r = dir_st == KS_OK ? malloc(sizeof *r) : NULL;
    if (!r) {
        free(scene);
        ks_variant_set_destroy(files);
        return dir_st != KS_OK ? dir_st : ks_fail(KS_ERR_OUT_OF_MEMORY, "bench spheres: out of host memory");
    }
    sph_bench b = {r, NULL};
    ks_status st = ks_bench_counters_begin(opt, use_cuda, &b.bc);
    if (b.bc) d.after_row = (ks_bench_hook){counters_row, &b};
    if (st == KS_OK) st = ks_spheres_bench_run(&d, r);
    if (st == KS_ERR_NO_DEVICE) { /* the flag that helps is the app's to name */
        char why[512];
        snprintf(why, sizeof why, "%s", ks_error_message());
        st = ks_fail(st, "%s (use --backend cpu)", why);
    }
    if (st == KS_OK && use_cuda && dev && dev->present && dev->name[0]) {
        snprintf(r->device, sizeof r->device, "%s", dev->name);
        snprintf(r->cc, sizeof r->cc, "%d.%d", dev->cc_major, dev->cc_minor);
    }

    const ks_bench_counted counted = {r, b.bc, table_text, csv_text};
    const ks_bench_output_desc out = {.dir = dir, .rows = &counted, .table = ks_bench_counted_table,
                                      .files = {{"bench_spheres.csv", ks_bench_counted_csv}}, .charts = charts,
                                      .ctx = &b};
    if (st == KS_OK) st = ks_bench_output_write(&out, KS_OK);
    if (st == KS_OK) st = ks_bench_counters_write(b.bc, dir, "spheres");
    ks_bench_counters_destroy(b.bc);
    free(r);
    free(scene);
    ks_variant_set_destroy(files);
    return st;
}
