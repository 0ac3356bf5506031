/* Reduce bench measuring (reduce_bench.h). Plain C over the reduce API. */
#include "reduce_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/cuda_device.h"
#include "base/ks_util.h"

ks_status ks_reduce_check_variant(ks_reduce_gpu *g, ks_reduce_variant v, const float *x, double gold_sum,
                                  double abs_sum, const float *gold_scan, int exact, float *scratch)
{
    const ks_reduce_variant_info *info = ks_reduce_variant_get(v);
    if (!info) return ks_fail(KS_ERR_INVALID, "reduce: unknown variant %d", (int)v);
    const ks_reduce_desc d = ks_reduce_gpu_desc(g);
    KS_TRY(ks_reduce_gpu_poison(g));
    KS_TRY(ks_reduce_gpu_run(g, v));
    if (info->op == KS_REDUCE_OP_SUM) {
        double got = 0.0;
        KS_TRY(ks_reduce_gpu_sum_result(g, &got));
        if (ks_reduce_sum_check(got, gold_sum, d.n, abs_sum, exact) != 0)
            return ks_fail(KS_ERR_INVALID, "reduce %s (block %d) wrong at N = %lld: %.9g, want %.9g (tolerance %.3g)",
                           info->name, d.block, d.n, got, gold_sum,
                           exact ? 0.0 : ks_reduce_sum_tolerance(d.n, abs_sum));
        return KS_OK;
    }
    KS_TRY(ks_reduce_gpu_scan_download(g, scratch));
    ks_reduce_mismatch m;
    if (ks_reduce_scan_mismatch(x, gold_scan, scratch, d.n, exact, &m) >= 0)
        return ks_fail(KS_ERR_INVALID,
                       "reduce %s (block %d) wrong at N = %lld: y[%lld] = %.9g, want %.9g (largest error %.3g at %lld)",
                       info->name, d.block, d.n, m.index, (double)m.got, (double)m.want, m.max_err, m.max_index);
    return KS_OK;
}

ks_status ks_reduce_check_user(ks_reduce_gpu *g, const ks_reduce_user *u, const char *name, int bx, double gold_sum,
                               double abs_sum, int exact)
{
    const ks_reduce_desc d = ks_reduce_gpu_desc(g);
    KS_TRY(ks_reduce_gpu_run_user(g, u, bx)); /* zeroes the sum, then adds into it */
    double got = 0.0;
    KS_TRY(ks_reduce_gpu_sum_result(g, &got));
    if (ks_reduce_sum_check(got, gold_sum, d.n, abs_sum, exact) != 0)
        return ks_fail(KS_ERR_INVALID, "reduce %s (block %d) wrong at N = %lld: %.9g, want %.9g (tolerance %.3g)", name,
                       bx, d.n, got, gold_sum, exact ? 0.0 : ks_reduce_sum_tolerance(d.n, abs_sum));
    return KS_OK;
}

/* A kernel file that assumes sizes multiples of its block (kernel_decl.h) is checked at the odd
 * size rounded up to one, on a context of its own (check_variant passes it by at the odd size). */
static ks_status check_rounded(const ks_reduce_bench_desc *bd, int user_block, unsigned long long seed, int block);

/* The variants to run: the chosen ones, each op's CUB variant first when any of that op runs. */
static int chosen_variants(const ks_reduce_bench_desc *d, ks_reduce_variant *out)
{
    int any = 0, k = 0;
    for (int v = 0; v < KS_REDUCE_NUM; ++v) any |= d->variants[v];
    for (int op = 0; op < KS_REDUCE_OP_NUM; ++op) {
        int used = 0;
        for (int v = 0; v < KS_REDUCE_NUM; ++v)
            if (ks_reduce_variant_get((ks_reduce_variant)v)->op == (ks_reduce_op)op && (!any || d->variants[v]))
                used = 1;
        if (!used) continue;
        const ks_reduce_variant cub = ks_reduce_cub_variant((ks_reduce_op)op);
        out[k++] = cub;
        for (int v = 0; v < KS_REDUCE_NUM; ++v)
            if (v != (int)cub && ks_reduce_variant_get((ks_reduce_variant)v)->op == (ks_reduce_op)op &&
                (!any || d->variants[v]))
                out[k++] = (ks_reduce_variant)v;
    }
    return k;
}

static void add_note(ks_reduce_bench_result *r, const char *text)
{
    const size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s%s", used ? "; " : "", text);
}

static void add_row(ks_reduce_bench_result *r, ks_reduce_op op, const char *variant, long long n,
                    const ks_reduce_timing *t, double cub_ms)
{
    if (r->row_n >= KS_REDUCE_BENCH_MAX_ROWS) return;
    const double ms = t->median_ms, min_ms = t->min_ms;
    const int launches = t->launches;
    ks_reduce_bench_row *w = &r->rows[r->row_n++];
    w->timing = t->timing;
    memcpy(w->device, r->device, sizeof w->device); /* same sizes, both terminated */
    memcpy(w->cc, r->cc, sizeof w->cc);
    snprintf(w->op, sizeof w->op, "%s", ks_reduce_op_name(op));
    snprintf(w->variant, sizeof w->variant, "%s", variant);
    w->n = n;
    w->ms = ms;
    w->min_ms = min_ms;
    w->launches = launches;
    const double bytes = op == KS_REDUCE_OP_SCAN ? 8.0 * (double)n : 4.0 * (double)n;
    w->t_eff_gbs = ms > 0 ? bytes / (ms * 1e6) : 0.0;
    w->t_peak_gbs = r->t_peak_gbs;
    w->ratio = r->t_peak_gbs > 0 ? w->t_eff_gbs / r->t_peak_gbs : -1.0;
    w->vs_cub = cub_ms > 0 && ms > 0 ? cub_ms / ms : -1.0;
}

/* Every variant of vs and every user's kernel of d on the context's input against the gold (host copies made here). */
static ks_status check_variant(ks_reduce_gpu *g, const ks_reduce_variant *vs, int vn, const ks_reduce_bench_desc *bd,
                               int user_block)
{
    const ks_reduce_desc d = ks_reduce_gpu_desc(g);
    KS_TRY(ks_host_memory_check(3.0 * 4.0 * (double)d.n, "the reduce bench's gold check"));
    float *x = malloc((size_t)d.n * 4), *gold = malloc((size_t)d.n * 4), *got = malloc((size_t)d.n * 4);
    ks_status st = x && gold && got ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "bench reduce: out of host memory");
    if (st == KS_OK) {
        ks_reduce_fill(d.input, d.seed, x, d.n);
        ks_reduce_gold_scan(x, gold, d.n);
        const double sum = ks_reduce_gold_sum(x, d.n), abs_sum = ks_reduce_abs_sum(x, d.n);
        for (int k = 0; st == KS_OK && k < vn; ++k) st = ks_reduce_check_variant(g, vs[k], x, sum, abs_sum, gold, 0, got);
        for (int k = 0; st == KS_OK && k < bd->user_n; ++k) /* one that assumes other sizes: check_rounded */
            if (ks_reduce_decl_round(ks_user_code_declaration(bd->users[k]), user_block, d.n) == d.n)
                st = ks_reduce_check_user(g, bd->users[k], bd->user_names[k], user_block, sum, abs_sum, 0);
    }
    free(x);
    free(gold);
    free(got);
    return st;
}

/* One CPU sum or scan on the host clock (the timing loop's sample). */
typedef struct cpu_run {
    ks_reduce_op op;
    const float *x;
    float *y;
    long long n;
    double sink;
} cpu_run;

static ks_status cpu_sample(void *ctx, double *ms)
{
    cpu_run *c = ctx;
    const double t0 = ks_now_seconds();
    if (c->op == KS_REDUCE_OP_SUM) c->sink += ks_reduce_cpu_sum(c->x, c->n);
    else ks_reduce_cpu_scan(c->x, c->y, c->n);
    *ms = (ks_now_seconds() - t0) * 1e3;
    return KS_OK;
}

/* The CPU: at most 5 runs of each op (--reps N: at most N) after one warm-up. */
static ks_status bench_cpu(const long long *sizes, int size_n, const ks_timing_opts *timing, ks_reduce_bench_result *r)
{
    const ks_timing_opts o = {.reps = timing->reps > 0 && timing->reps < 5 ? timing->reps : 5, .warmup = 1};
    for (int q = 0; q < size_n; ++q) {
        const long long n = sizes[q];
        KS_TRY(ks_host_memory_check(2.0 * 4.0 * (double)n, "the reduce bench"));
        float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
        ks_status st = x && y ? KS_OK : ks_fail(KS_ERR_OUT_OF_MEMORY, "bench reduce: no host memory for N = %lld", n);
        if (st == KS_OK) ks_reduce_fill(KS_REDUCE_INPUT_RANDOM, KS_REDUCE_DEFAULT_SEED, x, n);
        for (int op = 0; op < KS_REDUCE_OP_NUM && st == KS_OK; ++op) {
            cpu_run c = {(ks_reduce_op)op, x, y, n, 0.0};
            const ks_timing_run run = {cpu_sample, NULL, &c, (op == KS_REDUCE_OP_SUM ? 4.0 : 8.0) * (double)n, 0.0};
            ks_reduce_timing t = {0};
            st = ks_timing_measure(&run, &o, &t.timing);
            if (st != KS_OK) break;
            t.median_ms = t.timing.median_ms;
            t.min_ms = t.timing.min_ms;
            t.launches = 1;
            t.reps = t.timing.reps;
            add_row(r, (ks_reduce_op)op, "cpu", n, &t, -1.0);
        }
        free(x);
        free(y);
        KS_TRY(st);
    }
    return KS_OK;
}

/* One run of a row's variant (or a user's kernel at its block), for the bench's after_row hook. */
typedef struct run_launch {
    ks_reduce_gpu *g;
    ks_reduce_variant v;
    const ks_reduce_user *user; /* NULL: ours */
    int block;
} run_launch;

static ks_status launch_run(void *self, void *stream)
{
    (void)stream; /* the context's own */
    const run_launch *l = self;
    return l->user ? ks_reduce_gpu_run_user(l->g, l->user, l->block) : ks_reduce_gpu_run(l->g, l->v);
}

ks_status ks_reduce_bench_run(const ks_reduce_bench_desc *d, ks_reduce_bench_result *r)
{
    memset(r, 0, sizeof *r);
    /* defaults, in one place */
    r->use_cuda = d->use_cuda;
    r->block = d->block > 0 ? d->block : KS_REDUCE_DEFAULT_BLOCK;
    r->span_ms = d->span_ms > 0 ? d->span_ms : 20.0;
    const unsigned seed = d->seed ? d->seed : KS_REDUCE_DEFAULT_SEED;
    static const long long gpu_default = KS_REDUCE_BENCH_GPU_N, cpu_default = KS_REDUCE_BENCH_CPU_N;
    const long long *sizes = d->sizes;
    int size_n = d->size_n;
    if (!sizes || size_n <= 0) {
        sizes = d->use_cuda ? &gpu_default : &cpu_default;
        size_n = 1;
    }
    if (size_n > KS_REDUCE_BENCH_MAX_SIZES)
        return ks_fail(KS_ERR_INVALID, "bench reduce: at most %d sizes", KS_REDUCE_BENCH_MAX_SIZES);
    for (int q = 0; q < size_n; ++q) {
        const ks_reduce_desc probe = {sizes[q], seed, r->block, KS_REDUCE_INPUT_RANDOM};
        KS_TRY(ks_reduce_desc_check(&probe));
    }

    if (!d->use_cuda) {
        int threads = 1;
#ifdef _OPENMP
        threads = omp_get_max_threads();
#endif
        snprintf(r->device, sizeof r->device, "CPU (%d OpenMP thread%s)", threads, threads == 1 ? "" : "s");
        snprintf(r->cc, sizeof r->cc, "-");
        snprintf(r->note, sizeof r->note, "cpu backend: the CPU sum and scan only (no GPU variants, CUB or T_peak)");
        snprintf(r->check, sizeof r->check, "the CPU backend is checked against the gold by the tests");
        return bench_cpu(sizes, size_n, &d->timing, r);
    }

    ks_reduce_variant vs[KS_REDUCE_NUM];
    const int vn = chosen_variants(d, vs);
    if (d->user_n < 0 || d->user_n > KS_REDUCE_BENCH_MAX_USERS)
        return ks_fail(KS_ERR_INVALID, "bench reduce: at most %d kernel files", KS_REDUCE_BENCH_MAX_USERS);
    const int user_block = d->user_block > 0 ? d->user_block : KS_REDUCE_DEFAULT_BLOCK;
    if ((long long)size_n * (vn + d->user_n) > KS_REDUCE_BENCH_MAX_ROWS)
        return ks_fail(KS_ERR_INVALID, "bench reduce: too many sizes x variants (at most %d rows)",
                       KS_REDUCE_BENCH_MAX_ROWS);
    ks_device_info info;
    KS_TRY(ks_cuda_probe(&info));
    if (!info.present) return ks_fail(KS_ERR_NO_DEVICE, "bench reduce: no CUDA device");
    snprintf(r->device, sizeof r->device, "%s", info.name);
    snprintf(r->cc, sizeof r->cc, "%d.%d", info.cc_major, info.cc_minor);
    long long biggest = 0;
    for (int q = 0; q < size_n; ++q)
        if (sizes[q] > biggest) biggest = sizes[q];
    /* T_peak over the bench's own footprint (64 MiB .. 1 GiB each way), so caches do not flatter it */
    double copy_bytes = 4.0 * (double)biggest;
    if (copy_bytes < 64.0 * 1048576.0) copy_bytes = 64.0 * 1048576.0;
    if (copy_bytes > 1073741824.0) copy_bytes = 1073741824.0;
    KS_TRY(ks_cuda_measure_copy_gbs((size_t)copy_bytes, 10, &r->t_peak_gbs));
    snprintf(r->check, sizeof r->check,
             "every variant%s checked against the CPU gold (double) before timing: random non-zero input, outputs "
             "poisoned with NaN, at N = %lld and at each timed N (host memory permitting); sums within "
             "eps*(2 sqrt N + log2 N + 2)*sum|x|, scans element by element likewise",
             d->user_n ? " and kernel file" : "", KS_REDUCE_BENCH_CHECK_N);

    ks_status st = KS_OK;
    {   /* the odd size first */
        const ks_reduce_desc cd = {KS_REDUCE_BENCH_CHECK_N, seed, r->block, KS_REDUCE_INPUT_RANDOM};
        ks_reduce_gpu *g = NULL;
        st = ks_reduce_gpu_create(&cd, &g);
        if (st == KS_OK) st = check_variant(g, vs, vn, d, user_block);
        ks_reduce_gpu_destroy(g);
        KS_TRY(st);
        KS_TRY(check_rounded(d, user_block, seed, r->block));
    }
    for (int q = 0; st == KS_OK && q < size_n; ++q) {
        const long long n = sizes[q];
        /* input, output, and about as much again in scratch at most (levels are not made here) */
        if (d->mem_bytes > 0 && 8.5 * (double)n > 0.9 * d->mem_bytes) {
            char text[128];
            snprintf(text, sizeof text, "N = %lld skipped (%.1f GiB does not fit)", n, 8.5 * n / 1073741824.0);
            add_note(r, text);
            continue;
        }
        const ks_reduce_desc gd = {n, seed, r->block, KS_REDUCE_INPUT_RANDOM};
        ks_reduce_gpu *g = NULL;
        st = ks_reduce_gpu_create(&gd, &g);
        if (st == KS_OK) {
            st = check_variant(g, vs, vn, d, user_block);
            if (st == KS_ERR_OUT_OF_MEMORY) { /* the host cannot hold the gold: the odd size vouched for them */
                char text[128];
                snprintf(text, sizeof text, "N = %lld not checked against the gold (host memory)", n);
                add_note(r, text);
                ks_error_clear();
                st = KS_OK;
            }
        }
        double cub_ms[KS_REDUCE_OP_NUM] = {0.0, 0.0};
        for (int k = 0; st == KS_OK && k < vn; ++k) {
            const ks_reduce_variant_info *vi = ks_reduce_variant_get(vs[k]);
            ks_reduce_timing t;
            st = ks_reduce_gpu_time(g, vs[k], r->span_ms, &d->timing, &t);
            if (st != KS_OK) break;
            if (vs[k] == ks_reduce_cub_variant(vi->op)) cub_ms[vi->op] = t.median_ms;
            add_row(r, vi->op, vi->name, n, &t, cub_ms[vi->op]);
            if (d->after_row.row) {
                const run_launch l = {g, vs[k], NULL, 0};
                st = d->after_row.row(d->after_row.user, r->row_n - 1, launch_run, (void *)&l, ks_reduce_gpu_stream(g),
                                      NULL);
            }
        }
        for (int k = 0; st == KS_OK && k < d->user_n; ++k) { /* users' kernels: sums, after ours */
            ks_reduce_timing t;
            st = ks_reduce_gpu_time_user(g, d->users[k], user_block, r->span_ms, &d->timing, &t);
            if (st == KS_OK)
                add_row(r, KS_REDUCE_OP_SUM, d->user_names[k], n, &t, cub_ms[KS_REDUCE_OP_SUM]);
            if (st == KS_OK && d->after_row.row) {
                const run_launch l = {g, KS_REDUCE_NUM, d->users[k], user_block};
                st = d->after_row.row(d->after_row.user, r->row_n - 1, launch_run, (void *)&l, ks_reduce_gpu_stream(g),
                                      NULL);
            }
        }
        ks_reduce_gpu_destroy(g);
    }
    return st;
}

static ks_status check_rounded(const ks_reduce_bench_desc *bd, int user_block, unsigned long long seed, int block)
{
    for (int k = 0; k < bd->user_n; ++k) {
        const long long n = ks_reduce_decl_round(ks_user_code_declaration(bd->users[k]), user_block,
                                                 KS_REDUCE_BENCH_CHECK_N);
        if (n == KS_REDUCE_BENCH_CHECK_N) continue;
        ks_reduce_bench_desc one = *bd; /* this file alone */
        one.users = &bd->users[k];
        one.user_names = &bd->user_names[k];
        one.user_n = 1;
        const ks_reduce_desc cd = {n, seed, block, KS_REDUCE_INPUT_RANDOM};
        ks_reduce_gpu *g = NULL;
        ks_status st = ks_reduce_gpu_create(&cd, &g);
        if (st == KS_OK) st = check_variant(g, NULL, 0, &one, user_block);
        ks_reduce_gpu_destroy(g);
        KS_TRY(st);
    }
    return KS_OK;
}
