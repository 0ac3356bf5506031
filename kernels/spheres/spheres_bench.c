/* Sphere bench measuring (spheres_bench.h). Plain C over the spheres API. */
#include "base/ks_util.h"
#include "spheres_bench.h"
#include "base/cuda_device.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static const int ks_bench_gpu_counts[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
static const int ks_bench_cpu_counts[] = {16, 32, 64, 128, 256};

/* The correctness check: an odd size, a count that is no multiple of any tile. */
enum { KS_CHECK_W = 333, KS_CHECK_H = 199, KS_CHECK_N = 1001, KS_CPU_MAX_REPS = 5 };

const char *ks_spheres_bench_col_name(const ks_spheres_bench_result *r, int col)
{
    if (r->use_cuda && r->cols[col] >= KS_SPHERES_MEM_NUM) return r->user_names[r->cols[col] - KS_SPHERES_MEM_NUM];
    return r->use_cuda ? ks_spheres_mem_name((ks_spheres_mem)r->cols[col]) : "cpu";
}

/* The user's kernel of a column, NULL for ours. */
static const ks_spheres_user *user_of(const ks_spheres_bench_result *r, int col)
{
    return r->use_cuda && r->cols[col] >= KS_SPHERES_MEM_NUM ? r->users[r->cols[col] - KS_SPHERES_MEM_NUM] : NULL;
}

static ks_status fail_diff(const char *what, const ks_spheres_diff *d,
                           const unsigned char *gold, const unsigned char *got, int w)
{
    const unsigned char *a = gold + 4 * ((size_t)d->first_j * w + d->first_i);
    const unsigned char *b = got + 4 * ((size_t)d->first_j * w + d->first_i);
    return ks_fail(KS_ERR_INVALID,
                   "bench aborted: %s differs from the CPU gold on the %dx%d check (%d spheres): "
                   "max diff %d, %.3f%% exact, first at pixel (%d,%d): gold %d %d %d, got %d %d %d",
                   what, KS_CHECK_W, KS_CHECK_H, KS_CHECK_N, d->max_abs, 100.0 * d->exact_share,
                   d->first_i, d->first_j, a[0], a[1], a[2], b[0], b[1], b[2]);
}

/* Every column against the gold on the check image, output poisoned first. */
static ks_status check_variants(ks_spheres_gpu *g, const ks_spheres_bench_result *r,
                                unsigned long long seed)
{
    const size_t px = (size_t)KS_CHECK_W * KS_CHECK_H;
    ks_sphere *s = malloc(KS_CHECK_N * sizeof *s);
    ks_sphere_packed *p = malloc(KS_CHECK_N * sizeof *p);
    unsigned char *gold = malloc(4 * px), *got = malloc(4 * px);
    ks_status st = KS_OK;
    if (!s || !p || !gold || !got) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "bench: out of host memory");
    if (st == KS_OK) {
        ks_spheres_generate(seed, KS_CHECK_N, KS_CHECK_W, KS_CHECK_H, s);
        ks_spheres_pack(s, KS_CHECK_N, p);
        ks_spheres_gold_render(p, KS_CHECK_N, KS_CHECK_W, KS_CHECK_H, gold);
    }
    if (st == KS_OK && !g) { /* CPU: the row-culled gold against the plain per-pixel loop */
        for (int j = 0; j < KS_CHECK_H; ++j)
            for (int i = 0; i < KS_CHECK_W; ++i)
                ks_spheres_gold_pixel(p, KS_CHECK_N, KS_CHECK_W, KS_CHECK_H, i, j,
                                      got + 4 * ((size_t)j * KS_CHECK_W + i));
        ks_spheres_diff d;
        ks_spheres_compare(gold, got, KS_CHECK_W, KS_CHECK_H, &d);
        if (d.max_abs != 0) st = fail_diff("the row-culled gold", &d, gold, got, KS_CHECK_W);
    }
    for (int c = 0; g && st == KS_OK && c < r->col_n; ++c) {
        const ks_spheres_user *u = user_of(r, c);
        const ks_spheres_mem m = u ? KS_SPHERES_MEM_GLOBAL : (ks_spheres_mem)r->cols[c];
        const int n = u && ks_spheres_user_capacity(u) < KS_CHECK_N ? ks_spheres_user_capacity(u) : KS_CHECK_N;
        if (n != KS_CHECK_N) { /* a small __constant__ array: the check's first n spheres */
            ks_spheres_pack(s, n, p);
            ks_spheres_gold_render(p, n, KS_CHECK_W, KS_CHECK_H, gold);
        }
        st = ks_spheres_gpu_upload(g, m, p, n);
        if (st == KS_OK) st = ks_spheres_gpu_poison(g, KS_CHECK_W, KS_CHECK_H, 0xAB);
        if (st == KS_OK)
            st = u ? ks_spheres_gpu_render_user(g, u, r->block, KS_CHECK_W, KS_CHECK_H, NULL, -1)
                   : ks_spheres_gpu_render(g, m, r->block, KS_CHECK_W, KS_CHECK_H, NULL);
        if (st == KS_OK) st = ks_spheres_gpu_download(g, KS_CHECK_W, KS_CHECK_H, got);
        if (st != KS_OK) break;
        if (u) {
            ks_spheres_mismatch mm;
            if (!ks_spheres_user_compare(got, gold, KS_CHECK_W, KS_CHECK_H, &mm)) {
                char text[512];
                ks_spheres_mismatch_text(&mm, KS_CHECK_W, KS_CHECK_H, n, text, sizeof text);
                st = ks_fail(KS_ERR_INVALID, "bench aborted: %s %s", ks_spheres_bench_col_name(r, c), text);
            }
        } else {
            ks_spheres_diff d;
            ks_spheres_compare(gold, got, KS_CHECK_W, KS_CHECK_H, &d);
            if (!ks_spheres_diff_ok(&d)) st = fail_diff(ks_spheres_mem_name(m), &d, gold, got, KS_CHECK_W);
        }
        if (n != KS_CHECK_N) { /* the whole check scene again for the next column */
            ks_spheres_pack(s, KS_CHECK_N, p);
            ks_spheres_gold_render(p, KS_CHECK_N, KS_CHECK_W, KS_CHECK_H, gold);
        }
    }
    free(s);
    free(p);
    free(gold);
    free(got);
    return st;
}

/* One CPU render (the timing loop's sample, host clock). */
typedef struct cpu_render {
    const ks_sphere_packed *p;
    int n, w, h;
    unsigned char *img;
} cpu_render;

static ks_status cpu_sample(void *ctx, double *ms)
{
    const cpu_render *c = ctx;
    const double t0 = ks_now_seconds();
    ks_spheres_gold_render(c->p, c->n, c->w, c->h, c->img);
    *ms = (ks_now_seconds() - t0) * 1e3;
    return KS_OK;
}

static ks_status time_cpu(const ks_sphere_packed *p, int n, int w, int h, const ks_timing_opts *timing,
                          unsigned char *img, ks_spheres_bench_cell *cell)
{
    const ks_timing_opts o = {.reps = timing->reps > 0 && timing->reps < KS_CPU_MAX_REPS ? timing->reps : KS_CPU_MAX_REPS,
                              .warmup = 1};
    cpu_render c = {p, n, w, h, img};
    const ks_timing_run run = {cpu_sample, NULL, &c, 32.0 * n + 4.0 * (double)w * h, 0.0};
    KS_TRY(ks_timing_measure(&run, &o, &cell->timing));
    cell->available = 1;
    cell->ms = cell->timing.median_ms;
    cell->min_ms = cell->timing.min_ms;
    return KS_OK;
}

/* One render of a cell into the renderer's own picture, for the bench's after_row hook. */
typedef struct cell_launch {
    ks_spheres_gpu *g;
    ks_spheres_mem m;
    const int *block;
    int w, h;
} cell_launch;

static ks_status launch_cell(void *self, void *stream)
{
    (void)stream; /* the renderer's own */
    const cell_launch *l = self;
    return ks_spheres_gpu_render(l->g, l->m, l->block, l->w, l->h, NULL);
}

ks_status ks_spheres_bench_run(const ks_spheres_bench_desc *d, ks_spheres_bench_result *r)
{
    memset(r, 0, sizeof *r);
    /* defaults, in one place */
    r->use_cuda = d->use_cuda;
    r->width = d->width > 0 ? d->width : 2048;
    r->height = d->height > 0 ? d->height : 2048;
    r->block[0] = d->block[0] > 0 ? d->block[0] : 16;
    r->block[1] = d->block[1] > 0 ? d->block[1] : 16;
    const int *counts = d->counts;
    int count_n = d->count_n;
    if (d->scene) { /* a scene file: its spheres, one count */
        counts = &d->scene_n;
        count_n = 1;
    } else if (!counts || count_n <= 0) {
        counts = d->use_cuda ? ks_bench_gpu_counts : ks_bench_cpu_counts;
        count_n = d->use_cuda ? (int)(sizeof ks_bench_gpu_counts / sizeof *ks_bench_gpu_counts)
                              : (int)(sizeof ks_bench_cpu_counts / sizeof *ks_bench_cpu_counts);
    }
    if (count_n > KS_SPHERES_BENCH_MAX_COUNTS)
        return ks_fail(KS_ERR_INVALID, "bench spheres: at most %d sphere counts", KS_SPHERES_BENCH_MAX_COUNTS);
    int max_n = 0;
    for (int k = 0; k < count_n; ++k) {
        if (counts[k] < 1 || counts[k] > KS_SPHERES_MAX)
            return ks_fail(KS_ERR_INVALID, "bench spheres: sphere count %d is not in 1..%d", counts[k], KS_SPHERES_MAX);
        r->counts[k] = counts[k];
        if (counts[k] > max_n) max_n = counts[k];
    }
    r->count_n = count_n;
    KS_TRY(ks_spheres_block_check(r->block));
    if (r->width > 32768 || r->height > 32768)
        return ks_fail(KS_ERR_INVALID, "bench spheres: image %dx%d is larger than 32768 a side", r->width, r->height);
    if (d->use_cuda) {
        if (d->only != KS_SPHERES_MEM_DEFAULT && d->only != KS_SPHERES_MEM_GLOBAL) {
            r->cols[r->col_n++] = KS_SPHERES_MEM_GLOBAL;
            r->cols[r->col_n++] = ks_spheres_mem_resolve(d->only);
        } else if (d->only == KS_SPHERES_MEM_GLOBAL) {
            r->cols[r->col_n++] = KS_SPHERES_MEM_GLOBAL;
        } else {
            for (int m = KS_SPHERES_MEM_GLOBAL; m < KS_SPHERES_MEM_NUM; ++m) r->cols[r->col_n++] = m;
        }
        if (d->user_n < 0 || d->user_n > KS_SPHERES_BENCH_MAX_USERS)
            return ks_fail(KS_ERR_INVALID, "bench spheres: at most %d kernel files", KS_SPHERES_BENCH_MAX_USERS);
        for (int i = 0; i < d->user_n; ++i) {
            r->users[i] = d->users[i];
            snprintf(r->user_names[i], sizeof r->user_names[i], "%s", d->user_names[i]);
            r->cols[r->col_n++] = KS_SPHERES_MEM_NUM + i;
        }
    } else {
        r->cols[r->col_n++] = 0;
    }

    ks_spheres_gpu *g = NULL;
    if (d->use_cuda) {
        ks_device_info dev;
        KS_TRY(ks_cuda_probe(&dev));
        if (!dev.present) return ks_fail(KS_ERR_NO_DEVICE, "bench spheres: no CUDA device");
        snprintf(r->device, sizeof r->device, "%s", dev.name);
        KS_TRY(ks_spheres_gpu_create(&g));
    } else {
        int threads = 1;
#ifdef _OPENMP
        threads = omp_get_max_threads();
#endif
        snprintf(r->device, sizeof r->device, "CPU gold (%d OpenMP thread%s)", threads, threads == 1 ? "" : "s");
    }
    if (d->use_cuda)
        snprintf(r->check, sizeof r->check, "checked against the CPU gold: %dx%d, %d spheres, block %dx%d",
                 KS_CHECK_W, KS_CHECK_H, KS_CHECK_N, r->block[0], r->block[1]);
    else /* the CPU gold is the reference itself: nothing to check it against */
        r->check[0] = '\0';

    ks_status st = check_variants(g, r, d->seed);
    ks_sphere *s = NULL;
    ks_sphere_packed *p = NULL;
    unsigned char *img = NULL;
    if (st == KS_OK) { /* refuse before allocating: the CPU picture can be a GiB */
        char what[96];
        snprintf(what, sizeof what, "bench spheres (%d spheres, %dx%d)", max_n, r->width, r->height);
        const double need = (double)max_n * (sizeof *s + sizeof *p) +
                            (d->use_cuda ? 0.0 : 4.0 * r->width * (double)r->height);
        st = ks_host_memory_check(need, what);
    }
    if (st == KS_OK) {
        s = malloc((size_t)max_n * sizeof *s);
        p = malloc((size_t)max_n * sizeof *p);
        if (!d->use_cuda) img = malloc((size_t)r->width * r->height * 4);
        if (!s || !p || (!d->use_cuda && !img)) st = ks_fail(KS_ERR_OUT_OF_MEMORY, "bench: out of host memory");
    }
    if (st == KS_OK) { /* one stream of spheres: each count is a prefix of the largest */
        if (d->scene) memcpy(s, d->scene, (size_t)max_n * sizeof *s);
        else ks_spheres_generate(d->seed, max_n, r->width, r->height, s);
        ks_spheres_pack(s, max_n, p);
    }
    for (int k = 0; st == KS_OK && k < r->count_n; ++k) {
        if (k > 0 && d->stop && d->stop()) { /* the first row always: a stopped bench still has a row to write */
            r->count_n = k; /* the rows measured so far */
            break;
        }
        for (int c = 0; st == KS_OK && c < r->col_n; ++c) {
            ks_spheres_bench_cell *cell = &r->cell[k][c];
            const int n = r->counts[k];
            if (!d->use_cuda) {
                st = time_cpu(p, n, r->width, r->height, &d->timing, img, cell);
                continue;
            }
            const ks_spheres_user *u = user_of(r, c);
            const ks_spheres_mem m = u ? KS_SPHERES_MEM_GLOBAL : (ks_spheres_mem)r->cols[c];
            if (u ? n > ks_spheres_user_capacity(u) : ks_spheres_mem_check(m, n) == KS_ERR_UNSUPPORTED) {
                ks_error_clear();
                cell->available = 0; /* constant memory cannot hold n: "n/a", never truncated */
                continue;
            }
            st = ks_spheres_gpu_upload(g, m, p, n);
            if (st == KS_OK && u)
                st = ks_spheres_gpu_time_user(g, u, r->block, r->width, r->height, &d->timing, &cell->timing);
            else if (st == KS_OK)
                st = ks_spheres_gpu_time(g, m, r->block, r->width, r->height, &d->timing, &cell->timing);
            if (st == KS_OK) {
                cell->available = 1;
                cell->ms = cell->timing.median_ms;
                cell->min_ms = cell->timing.min_ms;
            }
            else ks_error_prefix("bench spheres: %s, %d spheres", ks_spheres_bench_col_name(r, c), n);
            if (st == KS_OK && !u && d->after_row.row) { /* a user's column is timed, not measured by counters */
                cell_launch l = {g, m, r->block, r->width, r->height};
                ks_kernel_attrs a;
                const int have = ks_spheres_gpu_kernel_attrs(g, m, r->block, &a) == KS_OK;
                ks_error_clear();
                st = d->after_row.row(d->after_row.user, k * r->col_n + c, launch_cell, &l, ks_spheres_gpu_stream(g),
                                      have ? &a : NULL);
            }
        }
    }
    free(s);
    free(p);
    free(img);
    ks_spheres_gpu_destroy(g);
    return st;
}

static int global_col(const ks_spheres_bench_result *r)
{
    for (int c = 0; c < r->col_n; ++c)
        if (r->use_cuda && r->cols[c] == KS_SPHERES_MEM_GLOBAL) return c;
    return -1;
}

size_t ks_spheres_bench_table(const ks_spheres_bench_result *r, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    if (r->use_cuda)
        ks_text_measure(buf, len, &used, "Sphere ray casting %dx%d, block %dx%d: median ms of timed renders (the CSV "
                        "has each cell's cache policy, repetitions and SE)\n", r->width, r->height, r->block[0], r->block[1]);
    else
        ks_text_measure(buf, len, &used, "Sphere ray casting %dx%d on the CPU: median ms of at most %d renders (after 1 "
                        "warm-up)\n", r->width, r->height, KS_CPU_MAX_REPS);
    ks_text_measure(buf, len, &used, "device: %s\n", r->device);
    ks_text_measure(buf, len, &used, "%8s", "spheres");
    for (int c = 0; c < r->col_n; ++c) ks_text_measure(buf, len, &used, " %11s", ks_spheres_bench_col_name(r, c));
    ks_text_measure(buf, len, &used, "\n");
    for (int k = 0; k < r->count_n; ++k) {
        ks_text_measure(buf, len, &used, "%8d", r->counts[k]);
        for (int c = 0; c < r->col_n; ++c) {
            if (r->cell[k][c].available) ks_text_measure(buf, len, &used, " %11.4f", r->cell[k][c].ms);
            else ks_text_measure(buf, len, &used, " %11s", "n/a");
        }
        ks_text_measure(buf, len, &used, "\n");
    }
    const int gc = global_col(r);
    if (gc >= 0 && r->col_n > 1) {
        /* speedups at the largest count every column has, else the largest count */
        int row = r->count_n - 1;
        for (int k = r->count_n - 1; k >= 0; --k)
            if (r->counts[k] <= 2048) {
                row = k;
                break;
            }
        ks_text_measure(buf, len, &used, "speedup vs global at %d spheres:", r->counts[row]);
        for (int c = 0; c < r->col_n; ++c) {
            if (c == gc) continue;
            if (r->cell[row][c].available && r->cell[row][gc].available && r->cell[row][c].ms > 0)
                ks_text_measure(buf, len, &used, " %s %.2fx", ks_spheres_bench_col_name(r, c),
                       r->cell[row][gc].ms / r->cell[row][c].ms);
            else
                ks_text_measure(buf, len, &used, " %s n/a", ks_spheres_bench_col_name(r, c));
        }
        ks_text_measure(buf, len, &used, "\n");
    }
    if (r->check[0]) ks_text_measure(buf, len, &used, "%s\n", r->check);
    return used;
}

size_t ks_spheres_bench_csv(const ks_spheres_bench_result *r, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    char dev[2 * sizeof r->device + 3];
    ks_csv_quote(r->device, dev, sizeof dev);
    const int gc = global_col(r);
    ks_text_measure(buf, len, &used, "device,spheres,variant,width,height,ms,speedup_vs_global,cc,min_ms," KS_TIMING_CSV_HEADER "\n");
    for (int k = 0; k < r->count_n; ++k)
        for (int c = 0; c < r->col_n; ++c) {
            const ks_spheres_bench_cell *cell = &r->cell[k][c];
            ks_text_measure(buf, len, &used, "%s,%d,%s,%d,%d,", dev, r->counts[k], ks_spheres_bench_col_name(r, c),
                   r->width, r->height);
            if (!cell->available) {
                ks_text_measure(buf, len, &used, "n/a,n/a,%s,,,,,\n", r->cc[0] ? r->cc : "-");
                continue;
            }
            ks_text_measure(buf, len, &used, "%.6f,", cell->ms);
            if (gc >= 0 && r->cell[k][gc].available && cell->ms > 0)
                ks_text_measure(buf, len, &used, "%.4f,", r->cell[k][gc].ms / cell->ms);
            else
                ks_text_measure(buf, len, &used, "n/a,");
            char timing[96];
            ks_timing_csv(&cell->timing, timing, sizeof timing);
            ks_text_measure(buf, len, &used, "%s,%.6f,%s\n", r->cc[0] ? r->cc : "-", cell->min_ms, timing);
        }
    return used;
}
