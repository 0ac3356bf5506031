/* Matmul bench measuring (matmul_bench.h). Plain C over the matmul API. */
#include "base/ks_util.h"
#include "matmul_bench.h"
#include "base/cuda_device.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/fma_peak.h"
#include "matmul_tiles.h"

static const ks_matmul_size ks_mm_gpu_sizes[] = {{1024, 1024, 1024}, {2048, 2048, 2048},
                                                 {4096, 4096, 4096}, {8192, 8192, 8192}};
static const ks_matmul_size ks_mm_cpu_sizes[] = {{256, 256, 256}, {512, 512, 512}};
/* Odd sizes every variant is checked on before any timing. */
static const ks_matmul_size ks_mm_check_sizes[] = {{17, 33, 9}, {65, 129, 31}};
static const int ks_mm_all_tiles[] = {8, 16, 32};

ks_status ks_matmul_check_variant(ks_matmul_gpu *g, const ks_matmul_size *s, ks_matmul_variant v, int tile,
                                  const float *gold, float *scratch)
{
    KS_TRY(ks_matmul_gpu_poison(g));
    KS_TRY(ks_matmul_gpu_run(g, v, tile));
    KS_TRY(ks_matmul_gpu_download(g, scratch));
    const long long e = ks_matmul_first_diff(gold, scratch, (size_t)s->m * s->n);
    if (e >= 0)
        return ks_fail(KS_ERR_INVALID, "matmul %s (tile %d) differs at %dx%dx%d: C[%lld][%lld] = %.9g, want %.9g",
                       ks_matmul_variant_get(v)->name, tile, s->m, s->n, s->k, e / s->n, e % s->n,
                       (double)scratch[e], (double)gold[e]);
    return KS_OK;
}

/* The configurations of one size: (variant, tile) pairs, cublas first. */
typedef struct config {
    ks_matmul_variant v;
    int tile;
    const ks_matmul_user *user; /* a kernel file's (v, tile unused), NULL: ours */
} config;

/* One launch of a row's configuration, for the bench's after_row hook. */
typedef struct row_launch {
    ks_matmul_gpu *g;
    const config *k;
    const int *user_block;
} row_launch;

static ks_status launch_row(void *self, void *stream)
{
    (void)stream; /* the context's own */
    const row_launch *l = self;
    return l->k->user ? ks_matmul_gpu_run_user(l->g, l->k->user, l->user_block) : ks_matmul_gpu_run(l->g, l->k->v, l->k->tile);
}

static int configs(const ks_matmul_bench_desc *d, config *out)
{
    int any = 0, n = 0;
    for (int v = 0; v < KS_MATMUL_NUM; ++v) any |= d->variants[v];
    const int *tiles = d->tiles && d->tile_n > 0 ? d->tiles : ks_mm_all_tiles;
    const int tile_n = d->tiles && d->tile_n > 0 ? d->tile_n : 3;
    out[n++] = (config){KS_MATMUL_CUBLAS, 0};
    for (int v = 0; v < KS_MATMUL_CUBLAS; ++v) {
        if (any && !d->variants[v]) continue;
        if (v == KS_MATMUL_TILED)
            for (int t = 0; t < tile_n; ++t) out[n++] = (config){(ks_matmul_variant)v, tiles[t]};
        else
            out[n++] = (config){(ks_matmul_variant)v, 0};
    }
    for (int u = 0; u < d->user_n; ++u) out[n++] = (config){KS_MATMUL_NUM, 0, d->users[u]};
    return n;
}

/* One configuration at size s against want: ours bit for bit, a kernel
 * file's within the tolerance (C poisoned first either way). */
static ks_status check_config(ks_matmul_gpu *g, const ks_matmul_size *s, const config *c, const int block[3],
                              const float *want, float *got, const char *against)
{
    if (!c->user) return ks_matmul_check_variant(g, s, c->v, c->tile, want, got);
    KS_TRY(ks_matmul_gpu_poison(g));
    KS_TRY(ks_matmul_gpu_run_user(g, c->user, block));
    KS_TRY(ks_matmul_gpu_download(g, got));
    ks_matmul_mismatch m;
    if (ks_matmul_compare(got, want, s, &m) == KS_OK) return KS_OK;
    char text[400];
    ks_matmul_mismatch_text(&m, s, against, text, sizeof text);
    return ks_fail(KS_ERR_INVALID, "bench matmul: %s %s", ks_user_code_name(c->user), text);
}

/* Every configuration on the odd check sizes against the gold. */
static ks_status check_odd(ks_matmul_gpu *g, const config *cfg, int cfg_n, const int block[3])
{
    for (size_t q = 0; q < sizeof ks_mm_check_sizes / sizeof *ks_mm_check_sizes; ++q) {
        const ks_matmul_size *s = &ks_mm_check_sizes[q];
        const size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
        float *a = malloc(na * 4), *b = malloc(nb * 4), *gold = malloc(nc * 4), *got = malloc(nc * 4);
        ks_status st = (a && b && gold && got) ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "bench matmul: out of host memory");
        if (st == KS_OK) {
            ks_matmul_fill(s, a, b);
            ks_matmul_gold(s, a, b, gold);
            st = ks_matmul_gpu_setup(g, s);
        }
        for (int c = 0; st == KS_OK && c < cfg_n; ++c) st = check_config(g, s, &cfg[c], block, gold, got, "the CPU gold");
        free(a);
        free(b);
        free(gold);
        free(got);
        KS_TRY(st);
    }
    return KS_OK;
}

static ks_matmul_bench_row *add_row(ks_matmul_bench_result *r, const char *name, const ks_matmul_size *s, int tile,
                                    const ks_timing *t, double cublas_ms)
{
    ks_matmul_bench_row *row = &r->rows[r->row_n++];
    memset(row, 0, sizeof *row);
    snprintf(row->variant, sizeof row->variant, "%s", name);
    row->size = *s;
    row->tile = tile;
    row->timing = *t;
    const double ms = t->median_ms;
    row->ms = ms;
    row->gflops = ms > 0 ? ks_matmul_flops(s) / (ms * 1e6) : 0.0;
    row->pct_cublas = cublas_ms > 0 && ms > 0 ? 100.0 * cublas_ms / ms : -1.0;
    row->pct_peak = r->peak_gflops > 0 ? 100.0 * row->gflops / r->peak_gflops : -1.0;
    return row;
}

/* One CPU gold run on the host clock (the timing loop's sample). */
typedef struct cpu_run {
    const ks_matmul_size *s;
    const float *a, *b;
    float *c;
} cpu_run;

static ks_status cpu_sample(void *ctx, double *ms)
{
    const cpu_run *c = ctx;
    const double t0 = ks_now_seconds();
    ks_matmul_gold(c->s, c->a, c->b, c->c);
    *ms = (ks_now_seconds() - t0) * 1e3;
    return KS_OK;
}

/* The CPU gold: at most 5 runs after one warm-up (--reps N: at most N), on the host clock. */
static ks_status bench_cpu(const ks_matmul_size *sizes, int size_n, const ks_timing_opts *timing,
                           ks_matmul_bench_result *r)
{
    ks_timing_opts o = *timing;
    o.reps = o.reps > 0 && o.reps < 5 ? o.reps : 5;
    o.warmup = 1;
    for (int q = 0; q < size_n; ++q) {
        const ks_matmul_size *s = &sizes[q];
        const size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
        float *a = malloc(na * 4), *b = malloc(nb * 4), *c = malloc(nc * 4);
        ks_status st = (a && b && c) ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "bench matmul: no host memory for %dx%dx%d", s->m, s->n, s->k);
        ks_timing t;
        if (st == KS_OK) {
            ks_matmul_fill(s, a, b);
            cpu_run c_run = {s, a, b, c};
            const ks_timing_run run = {cpu_sample, NULL, &c_run, 4.0 * (double)(na + nb + nc), 0.0};
            st = ks_timing_measure(&run, &o, &t);
        }
        if (st == KS_OK && r->row_n < KS_MATMUL_BENCH_MAX_ROWS) add_row(r, "gold", s, 0, &t, 0.0);
        free(a);
        free(b);
        free(c);
        KS_TRY(st);
    }
    return KS_OK;
}

ks_status ks_matmul_bench_run(const ks_matmul_bench_desc *d, ks_matmul_bench_result *r)
{
    memset(r, 0, sizeof *r);
    /* defaults, in one place */
    r->use_cuda = d->use_cuda;
    const ks_matmul_size *sizes = d->sizes;
    int size_n = d->size_n;
    if (!sizes || size_n <= 0) {
        sizes = d->use_cuda ? ks_mm_gpu_sizes : ks_mm_cpu_sizes;
        size_n = d->use_cuda ? 4 : 2;
    }
    if (size_n > KS_MATMUL_BENCH_MAX_SIZES)
        return ks_fail(KS_ERR_INVALID, "bench matmul: at most %d sizes", KS_MATMUL_BENCH_MAX_SIZES);
    for (int q = 0; q < size_n; ++q) KS_TRY(ks_matmul_size_check(&sizes[q]));

    if (!d->use_cuda) {
        int threads = 1;
#ifdef _OPENMP
        threads = omp_get_max_threads();
#endif
        snprintf(r->device, sizeof r->device, "CPU gold (%d OpenMP thread%s)", threads, threads == 1 ? "" : "s");
        snprintf(r->note, sizeof r->note,
                 "cpu backend: only the CPU gold runs (no GPU variants, no cuBLAS or FP32 peak to compare with)");
        snprintf(r->check, sizeof r->check, "the gold is exact by construction (tests check it against the formula)");
        return bench_cpu(sizes, size_n, &d->timing, r);
    }

    config cfg[8 + KS_MATMUL_BENCH_MAX_USERS];
    if (d->user_n < 0 || d->user_n > KS_MATMUL_BENCH_MAX_USERS)
        return ks_fail(KS_ERR_INVALID, "bench matmul: at most %d kernel files", KS_MATMUL_BENCH_MAX_USERS);
    const int cfg_n = configs(d, cfg);
    if ((long long)size_n * cfg_n > KS_MATMUL_BENCH_MAX_ROWS)
        return ks_fail(KS_ERR_INVALID, "bench matmul: too many sizes x variants (at most %d rows)", KS_MATMUL_BENCH_MAX_ROWS);
    ks_matmul_gpu *g = NULL;
    KS_TRY(ks_matmul_gpu_create(&g));
    ks_device_info dev;
    ks_status st = ks_cuda_probe(&dev); /* the context exists: the device is there */
    if (st == KS_OK) snprintf(r->device, sizeof r->device, "%s", dev.name);
    if (st == KS_OK) st = ks_cuda_measure_fma_gflops(10, &r->peak_gflops);
    if (st == KS_OK) st = check_odd(g, cfg, cfg_n, d->user_block);
    snprintf(r->check, sizeof r->check,
             "checked bit for bit, C poisoned with NaN first: every variant on 17x33x9 and 65x129x31 and at sizes up to "
             "%d a side against the CPU gold, larger sizes against cuBLAS; FP32 peak %.0f GFLOP/s (FMA kernel, this run)",
             KS_MATMUL_GOLD_CHECK_MAX, r->peak_gflops);
    if (d->user_n > 0) /* theirs within the tolerance: any order of the sum is fine */
        ks_text_append(r->check, sizeof r->check, &(size_t){strlen(r->check)},
                       "; kernel files (block %dx%d) within K * 1.5 * 2^-24", d->user_block[0], d->user_block[1]);
    size_t used = 0;
    for (int q = 0; st == KS_OK && q < size_n; ++q) {
        const ks_matmul_size *s = &sizes[q];
        const double bytes = 4.0 * ((double)s->m * s->k + (double)s->k * s->n + (double)s->m * s->n);
        if (d->mem_bytes > 0 && bytes > 0.8 * d->mem_bytes) {
            const int n = snprintf(r->note + used, used < sizeof r->note ? sizeof r->note - used : 0,
                                   "%s%dx%dx%d skipped (%.1f GiB does not fit)", used ? "; " : "", s->m, s->n, s->k,
                                   bytes / 1073741824.0);
            if (n > 0) used += (size_t)n;
            continue;
        }
        const size_t nc = (size_t)s->m * s->n;
        const int small = s->m <= KS_MATMUL_GOLD_CHECK_MAX && s->n <= KS_MATMUL_GOLD_CHECK_MAX && s->k <= KS_MATMUL_GOLD_CHECK_MAX;
        float *want = malloc(nc * 4), *got = malloc(nc * 4);
        if (!want || !got) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "bench matmul: no host memory for %dx%dx%d", s->m, s->n, s->k);
        if (st == KS_OK) st = ks_matmul_gpu_setup(g, s);
        if (st == KS_OK && small) {
            const size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n;
            float *a = malloc(na * 4), *b = malloc(nb * 4);
            if (a && b) {
                ks_matmul_fill(s, a, b);
                ks_matmul_gold(s, a, b, want);
            } else {
                st = ks_fail(KS_ERR_OUT_OF_MEMORY, "bench matmul: out of host memory");
            }
            free(a);
            free(b);
        } else if (st == KS_OK) { /* cuBLAS is checked against the gold on the small sizes */
            st = ks_matmul_gpu_run(g, KS_MATMUL_CUBLAS, 0);
            if (st == KS_OK) st = ks_matmul_gpu_download(g, want);
        }
        double cublas_ms = 0.0;
        for (int c = 0; st == KS_OK && c < cfg_n; ++c) {
            const config *k = &cfg[c];
            const int *ub = d->user_block;
            st = check_config(g, s, k, ub, want, got, small ? "the CPU gold" : "cublas");
            double once = 0.0;
            if (st == KS_OK)
                st = k->user ? ks_matmul_gpu_run_user_timed(g, k->user, ub, &once)
                             : ks_matmul_gpu_run_timed(g, k->v, k->tile, &once);
            ks_timing_opts o = d->timing;
            if (once > 200.0) { /* seconds a cell otherwise: that run was the warm-up */
                o.warmup = -1;
                if (o.reps == 0 || o.reps > 3) o.reps = 3;
            }
            ks_timing t;
            if (st == KS_OK)
                st = k->user ? ks_matmul_gpu_time_user(g, k->user, ub, &o, &t) : ks_matmul_gpu_time(g, k->v, k->tile, &o, &t);
            if (st != KS_OK) break;
            if (k->v == KS_MATMUL_CUBLAS && !k->user) cublas_ms = t.median_ms;
            ks_matmul_bench_row *row = add_row(r, k->user ? ks_user_code_name(k->user) : ks_matmul_variant_get(k->v)->name,
                                               s, k->v == KS_MATMUL_TILED && !k->user ? k->tile : 0, &t, cublas_ms);
            if (!k->user) row->block_tile = ks_matmul_gpu_block_tile(g, k->v, k->tile);
            ks_matmul_rt_choice rt;
            if (!k->user && k->v == KS_MATMUL_REGTILE && (st = ks_matmul_gpu_regtile(g, &rt)) == KS_OK) {
                snprintf(row->config, sizeof row->config, "%s", ks_matmul_rt_get(rt.config)->name);
                ks_matmul_rt_choice_text(&rt, row->config_how, sizeof row->config_how);
            }
            if (st == KS_OK && d->after_row.row) {
                row_launch l = {g, k, ub};
                st = d->after_row.row(d->after_row.user, r->row_n - 1, launch_row, &l, ks_matmul_gpu_stream(g), NULL);
            }
        }
        free(want);
        free(got);
    }
    ks_matmul_gpu_destroy(g);
    return st;
}

/* "16x16", "128x256"; "-" for none. */
static void tile_text(const ks_matmul_bench_row *w, char *buf, size_t len)
{
    if (w->block_tile.m > 0) snprintf(buf, len, "%dx%d", w->block_tile.m, w->block_tile.n);
    else snprintf(buf, len, "-");
}

size_t ks_matmul_bench_table(const ks_matmul_bench_result *r, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    ks_text_measure(buf, len, &used, "Matrix multiply C = A*B (float32, exact inputs): median ms of timed launches "
                    "(reps: until the median's SE is under 1 %%, or --reps)\n");
    ks_text_measure(buf, len, &used, "device: %s", r->device);
    if (r->peak_gflops > 0) ks_text_measure(buf, len, &used, ", FP32 peak (measured FMA) %.0f GFLOP/s", r->peak_gflops);
    ks_text_measure(buf, len, &used, "\n%-8s %17s %8s %11s %10s %8s %7s %5s %5s %6s\n", "variant", "MxNxK", "tile", "ms",
                    "GFLOP/s", "%cublas", "%peak", "cache", "reps", "se%");
    for (int k = 0; k < r->row_n; ++k) {
        const ks_matmul_bench_row *w = &r->rows[k];
        char size[48], pc[16] = "-", pp[16] = "-", tile[24], se[16] = "-";
        snprintf(size, sizeof size, "%dx%dx%d", w->size.m, w->size.n, w->size.k);
        if (w->pct_cublas >= 0) snprintf(pc, sizeof pc, "%.1f", w->pct_cublas);
        if (w->pct_peak >= 0) snprintf(pp, sizeof pp, "%.1f", w->pct_peak);
        if (w->timing.se_pct >= 0) snprintf(se, sizeof se, "%.2f", w->timing.se_pct);
        tile_text(w, tile, sizeof tile);
        ks_text_measure(buf, len, &used, "%-8s %17s %8s %11.4f %10.1f %8s %7s %5s %5d %6s\n", w->variant, size, tile, w->ms,
                        w->gflops, pc, pp, ks_cache_policy_name(w->timing.cache), w->timing.reps, se);
    }
    for (int k = 0; k < r->row_n; ++k) /* which regtile shape ran, and why */
        if (r->rows[k].config_how[0])
            ks_text_measure(buf, len, &used, "regtile at %dx%dx%d: %s, %s\n", r->rows[k].size.m, r->rows[k].size.n,
                            r->rows[k].size.k, r->rows[k].config_how, r->rows[k].config);
    if (r->note[0]) ks_text_measure(buf, len, &used, "%s\n", r->note);
    ks_text_measure(buf, len, &used, "%s\n", r->check);
    return used;
}

size_t ks_matmul_bench_csv(const ks_matmul_bench_result *r, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    char dev[2 * sizeof r->device + 3];
    ks_csv_quote(r->device, dev, sizeof dev);
    ks_text_measure(buf, len, &used,
                    "device,variant,m,n,k,tile,block_tile,config,ms,gflops,pct_cublas,pct_peak,cc,min_ms," KS_TIMING_CSV_HEADER
                    "\n");
    for (int k = 0; k < r->row_n; ++k) {
        const ks_matmul_bench_row *w = &r->rows[k];
        char tile[24], timing[96];
        tile_text(w, tile, sizeof tile);
        ks_timing_csv(&w->timing, timing, sizeof timing);
        ks_text_measure(buf, len, &used, "%s,%s,%d,%d,%d,%d,%s,%s,%.6f,%.3f,", dev, w->variant, w->size.m, w->size.n, w->size.k,
                        w->tile, tile, w->config, w->ms, w->gflops);
        if (w->pct_cublas >= 0) ks_text_measure(buf, len, &used, "%.2f,", w->pct_cublas);
        else ks_text_measure(buf, len, &used, "n/a,");
        if (w->pct_peak >= 0) ks_text_measure(buf, len, &used, "%.2f,", w->pct_peak);
        else ks_text_measure(buf, len, &used, "n/a,");
        ks_text_measure(buf, len, &used, "%s,%.6f,%s\n", r->cc[0] ? r->cc : "-", w->timing.min_ms, timing);
    }
    return used;
}
