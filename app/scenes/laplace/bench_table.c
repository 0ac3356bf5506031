/* The laplace benches' text table and CSV (bench.h), and the best block of each
 * variant and grid: plain formatting of the rows, tested on their own. */
#include "app/scenes/laplace/bench.h"

#include <stdio.h>
#include <string.h>

#include "app/bench/bench_output.h"
#include "app/run_outputs.h"
#include "base/host_peak.h"
#include "base/ks_util.h"

void ks_bench_grid_text(const int grid[3], char *buf, size_t len)
{
    const int dims = grid[2] > 1 ? 3 : 2;
    if (grid[0] == grid[1] && (dims == 2 || grid[1] == grid[2]))
        snprintf(buf, len, "%d^%d", grid[0], dims);
    else if (dims == 3)
        snprintf(buf, len, "%dx%dx%d", grid[0], grid[1], grid[2]);
    else
        snprintf(buf, len, "%dx%d", grid[0], grid[1]);
}

size_t ks_bench_laplace_table_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_bench_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used, "%-8s %-16s %-10s %10s %10s %10s %13s %5s %6s %5s %5s %6s\n", "variant", "grid",
                    "block", "ms/iter", "T_eff GB/s", "T_peak", "ratio", "regs", "occ", "cache", "reps", "se%");
    for (int i = 0; i < n; ++i) {
        const ks_bench_row *r = &rows[i];
        char grid[48], block[32], regs[16], occ[16];
        if (r->grid[2] > 1) snprintf(grid, sizeof grid, "%dx%dx%d", r->grid[0], r->grid[1], r->grid[2]);
        else snprintf(grid, sizeof grid, "%dx%d", r->grid[0], r->grid[1]);
        if (r->block[0]) snprintf(block, sizeof block, "%dx%dx%d", r->block[0], r->block[1], r->block[2]);
        else snprintf(block, sizeof block, "-");
        /* registers and occupancy belong to a kernel launch; the CPU gold has none */
        if (r->registers > 0) snprintf(regs, sizeof regs, "%d", r->registers);
        else snprintf(regs, sizeof regs, "-");
        if (r->occupancy > 0) snprintf(occ, sizeof occ, "%.0f%%", 100.0 * r->occupancy);
        else snprintf(occ, sizeof occ, "-");
        char ratio[24] = "n/a", se[16] = "-";
        /* a ratio above 1 from fields that fit in the L2 is the cache's rate: said beside it */
        const char *l2 = ks_timing_l2_note(r->timing.working_set_bytes, r->timing.l2_bytes, r->t_eff_gbs, r->t_peak_gbs);
        if (r->ratio >= 0.0) snprintf(ratio, sizeof ratio, "%.3f%s", r->ratio, strcmp(l2, "in L2") == 0 ? " in L2" : "");
        if (r->timing.se_pct >= 0.0) snprintf(se, sizeof se, "%.2f", r->timing.se_pct);
        ks_text_measure(buf, cap, &used, "%-8s %-16s %-10s %10.4f %10.2f %10.1f %13s %5s %6s %5s %5d %6s%s\n", r->variant,
                        grid, block, r->ms_per_iter, r->t_eff_gbs, r->t_peak_gbs, ratio, regs, occ,
                        r->timing.reps ? ks_cache_policy_name(r->timing.cache) : "-", r->timing.reps, se,
                        r->best ? "  <- best" : "");
    }
    /* why a ratio is not given, once per reason */
    for (int v = KS_PEAK_NONE; v <= KS_PEAK_EXCEEDED; ++v) {
        int rows_n = 0;
        double spread = 0.0;
        for (int i = 0; i < n; ++i)
            if (rows[i].ratio < 0.0 && rows[i].verdict == v) {
                ++rows_n;
                spread = rows[i].t_peak_spread;
            }
        if (!rows_n) continue;
        if (v == KS_PEAK_UNRELIABLE)
            ks_text_measure(buf, cap, &used, "ratio n/a: %s: T_peak's repetitions spread %.0f %% (more than %.0f %%)\n",
                            ks_peak_verdict_text(v), 100.0 * spread, 100.0 * KS_HOST_PEAK_MAX_SPREAD);
        else if (v == KS_PEAK_EXCEEDED)
            ks_text_measure(buf, cap, &used, "ratio n/a: %s in %d %s: no ratio above 1 is shown\n",
                            ks_peak_verdict_text(v), rows_n, ks_plural(rows_n, "row", "rows"));
        else
            ks_text_measure(buf, cap, &used, "ratio n/a: %s\n", ks_peak_verdict_text(v));
    }
    return used;
}

size_t ks_bench_laplace_csv_text(const void *rows_, int n, char *buf, size_t cap)
{
    const ks_bench_row *rows = rows_;
    size_t used = 0;
    ks_text_measure(buf, cap, &used, "device,variant,grid,block,ms_per_iter,t_eff_gbs,t_peak_gbs,ratio,registers,"
                    "occupancy,best,cc,t_peak_spread," KS_TIMING_CSV_HEADER "\n");
    for (int i = 0; i < n; ++i) {
        const ks_bench_row *r = &rows[i];
        /* empty: not given (docs/benchmarks.md, "T_eff and T_peak") */
        char ratio[24] = "", spread[24] = "", timing[96];
        if (r->ratio >= 0.0) snprintf(ratio, sizeof ratio, "%.4f", r->ratio);
        if (r->host_peak) snprintf(spread, sizeof spread, "%.3f", r->t_peak_spread);
        ks_timing_csv(&r->timing, timing, sizeof timing);
        /* Device names have no commas or quotes in practice; quote them anyway. */
        ks_text_measure(buf, cap, &used, "\"%s\",%s,%dx%dx%d,%dx%dx%d,%.6f,%.2f,%.2f,%s,%d,%.3f,%d,%s,%s,%s\n", r->device,
                        r->variant, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
                        r->block[2], r->ms_per_iter, r->t_eff_gbs, r->t_peak_gbs, ratio, r->registers,
                        r->occupancy, r->best, r->cc[0] ? r->cc : "-", spread, timing);
    }
    return used;
}

char *ks_bench_laplace_table(const ks_bench_row *rows, int n) { return ks_bench_text(ks_bench_laplace_table_text, rows, n); }
char *ks_bench_laplace_csv(const ks_bench_row *rows, int n) { return ks_bench_text(ks_bench_laplace_csv_text, rows, n); }

void ks_bench_mark_best(ks_bench_row *rows, int n)
{
    for (int i = 0; i < n; ++i) {
        rows[i].best = 1;
        for (int j = 0; j < n; ++j) {
            if (j == i || strcmp(rows[i].variant, rows[j].variant) ||
                memcmp(rows[i].grid, rows[j].grid, sizeof rows[i].grid))
                continue;
            if (rows[j].ms_per_iter < rows[i].ms_per_iter ||
                (rows[j].ms_per_iter == rows[i].ms_per_iter && j < i)) {
                rows[i].best = 0;
                break;
            }
        }
    }
}
