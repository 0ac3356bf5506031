/* Reduce perf harness (an executable, not a test): the bench core at N for each
 * block size given, printed as the bench table's columns
 *   op variant n ms t_eff_gbs t_peak_gbs ratio vs_cub
 * Usage: perf_reduce [N (default 2^28)] [block ...]
 * Environment: KS_PERF_VARIANTS=a,b (only these, and their op's CUB),
 * KS_PERF_SPAN_MS, KS_PERF_REPS, KS_PERF_WARMUP (the bench's timing; e.g. 0.001, 3, 1
 * under Nsight Compute so that each timed span is one run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/reduce/reduce_bench.h"

int main(int argc, char **argv)
{
    const long long n = argc > 1 ? atoll(argv[1]) : (1LL << 28);
    int blocks[8] = {256}, nb = 1;
    if (argc > 2) {
        nb = 0;
        for (int a = 2; a < argc && nb < 8; ++a) blocks[nb++] = atoi(argv[a]);
    }
    ks_reduce_bench_result *r = calloc(1, sizeof *r);
    if (!r) return 1;
    for (int b = 0; b < nb; ++b) {
        ks_reduce_bench_desc d;
        memset(&d, 0, sizeof d);
        d.use_cuda = 1;
        d.sizes = &n;
        d.size_n = 1;
        d.block = blocks[b];
        const char *vs = getenv("KS_PERF_VARIANTS");
        for (int v = 0; vs && v < KS_REDUCE_NUM; ++v) {
            const char *name = ks_reduce_variant_get((ks_reduce_variant)v)->name, *p = strstr(vs, name);
            const size_t len = strlen(name);
            d.variants[v] = p && (p == vs || p[-1] == ',') && (p[len] == '\0' || p[len] == ',');
        }
        if (getenv("KS_PERF_SPAN_MS")) d.span_ms = atof(getenv("KS_PERF_SPAN_MS"));
        if (getenv("KS_PERF_REPS")) d.timing.reps = atoi(getenv("KS_PERF_REPS"));
        if (getenv("KS_PERF_WARMUP")) d.timing.warmup = atoi(getenv("KS_PERF_WARMUP"));
        d.timing.cache = getenv("KS_PERF_COLD") ? KS_CACHE_COLD : KS_CACHE_WARM; /* back to back unless asked */
        if (ks_reduce_bench_run(&d, r) != KS_OK) {
            fprintf(stderr, "perf_reduce: %s\n", ks_error_message());
            free(r);
            return 1;
        }
        printf("device: %s (cc %s), block %d, T_peak %.1f GB/s, median of spans of >= %.0f ms (%s)\n", r->device, r->cc,
               r->block, r->t_peak_gbs, r->span_ms, d.timing.cache == KS_CACHE_COLD ? "cold: one run a span" : "warm");
        printf("%-5s %-14s %11s %9s %9s %10s %6s %6s %6s\n", "op", "variant", "n", "ms", "t_eff_gbs", "t_peak_gbs",
               "ratio", "vs_cub", "K");
        for (int k = 0; k < r->row_n; ++k) {
            const ks_reduce_bench_row *w = &r->rows[k];
            printf("%-5s %-14s %11lld %9.4f %9.1f %10.1f %6.3f %6.3f %6d\n", w->op, w->variant, w->n, w->ms,
                   w->t_eff_gbs, w->t_peak_gbs, w->ratio, w->vs_cub, w->launches);
        }
        if (r->note[0]) printf("note: %s\n", r->note);
        printf("check: %s\n\n", r->check);
        fflush(stdout);
    }
    free(r);
    return 0;
}
