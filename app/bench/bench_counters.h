/* `kernelscope bench SCENE --counters`: after each row's timing (never inside
 * its timed loop), the row's kernel launched once more under the hardware
 * counters' kernel replay (counters/counters.h); the bench's CSV gets the
 * counter columns (ks_counters_csv_header, the same for every scene), its
 * table a second table of them, the roofline its points by measured bytes,
 * and counters_<scene>.csv every measured kernel's metrics by their CUPTI
 * names (what scripts/ncu-compare.py compares with Nsight Compute). On the
 * CPU backend or without counters: one line says why, and the columns are
 * there, empty, so scripts can rely on them.
 *
 * `--counters-ncu`: the same launch, at the same place in the run, made
 * between cudaProfilerStart and Stop without any counters, for
 * `ncu --profile-from-start off` to profile exactly the launches --counters
 * measures (like with like: the same L2 state before each). */
#ifndef KS_BENCH_COUNTERS_H
#define KS_BENCH_COUNTERS_H

#include <stddef.h>

#include "app/bench/bench_output.h"
#include "app/options.h"
#include "counters/counters.h"
#include "base/bench_hook.h" /* ks_bench_launch_fn */

typedef struct ks_bench_counters ks_bench_counters;

/* *out NULL when neither --counters nor --counters-ncu was given (every call
 * below then does nothing and the CSV keeps its columns). */
ks_status ks_bench_counters_begin(const ks_options *opt, int use_cuda, ks_bench_counters **out);
void ks_bench_counters_destroy(ks_bench_counters *bc);

/* After row `row`'s timing (row: its index in the bench's rows, which is its
 * CSV line): --counters measures one launch (model_bytes: the scene's byte
 * model of it, <= 0 none; launch may be NULL: what the launch knows);
 * --counters-ncu makes the launch between the profiler's start and stop. A
 * failure of the counters leaves the row's columns empty (its line is printed
 * once); the launch's own failure is returned. */
ks_status ks_bench_counters_row(ks_bench_counters *bc, int row, const char *label, ks_bench_launch_fn launch,
                                void *user, void *stream, double model_bytes, const ks_counter_launch *cl);
/* A bench that times its rows several times and keeps one of each (bench
 * reduce's block sweep) measures every time under its own row numbers and
 * then says which measured row each of its table's rows is: map[i] for row
 * i (n rows; copied). Values, bytes and the table follow the map. */
ks_status ks_bench_counters_map(ks_bench_counters *bc, const int *map, int n);
/* A row's DRAM bytes read and written as measured; NaN when not measured. */
double ks_bench_counters_dram_bytes(const ks_bench_counters *bc, int row);

/* The bench's CSV (a header line, then one line a row in row order) with the
 * counter columns added to every line: malloc'd, NULL when out of memory.
 * With bc NULL the CSV comes back as it was. */
char *ks_bench_counters_csv(const ks_bench_counters *bc, const char *csv);
/* The counters' table: one line a measured row (label, DRAM read and written,
 * bytes/model, L2 hit, sectors per request, bank conflicts, occupancy, clock,
 * top stall), or the line saying why there are none. snprintf style. */
size_t ks_bench_counters_table(const ks_bench_counters *bc, char *buf, size_t cap);
/* --counters: writes DIR/counters_<scene>.csv (launch, kernel, grid, block,
 * key, metric, value, row: every kernel measured, every metric it has) and
 * names it on stdout; nothing for --counters-ncu or when nothing was measured. */
ks_status ks_bench_counters_write(const ks_bench_counters *bc, const char *dir, const char *scene);

/* A bench's rows with the counters, for ks_bench_output_desc: its .rows
 * points at one, .table is ks_bench_counted_table (the bench's table, then the
 * counters' table) and the CSV's text function ks_bench_counted_csv (the
 * bench's CSV with the columns added); bc NULL: the bench's own text. */
typedef struct ks_bench_counted {
    const void *rows;                 /* the bench's rows, as its text functions take them */
    const ks_bench_counters *bc;
    ks_bench_text_fn table, csv;      /* the bench's own */
} ks_bench_counted;
size_t ks_bench_counted_table(const void *counted, int n, char *buf, size_t cap);
size_t ks_bench_counted_csv(const void *counted, int n, char *buf, size_t cap);

/* The CSV columns' text added to a line: ",v1,...,v9" of a row (blank values
 * when it has none), for benches that write their CSV themselves. */
const char *ks_bench_counters_values(const ks_bench_counters *bc, int row);
/* ",dram_read_bytes,...,stall_top" */
const char *ks_bench_counters_header(void);

#endif
