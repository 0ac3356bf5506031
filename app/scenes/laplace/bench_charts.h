/* The Laplace benches' charts: bench_<scene>.png (T_eff / T_peak of each
 * variant's best block against grid points) and roofline_<scene>.png (each
 * best row by its model bytes, or by the DRAM bytes its launch moved under
 * --counters, the model's place hollow). */
#ifndef KS_SCENES_LAPLACE_BENCH_CHARTS_H
#define KS_SCENES_LAPLACE_BENCH_CHARTS_H

#include "app/bench/bench_counters.h"
#include "app/options.h"
#include "app/scenes/laplace/bench.h"

ks_status ks_bench_laplace_chart(const ks_options *opt, const ks_bench_row *rows, int n);
/* bc: --counters' measurements (NULL: none); fma_gflops: the compute ceiling. */
ks_status ks_bench_laplace_roofline(const ks_options *opt, const ks_bench_row *rows, int n, double fma_gflops,
                                    const ks_bench_counters *bc);

#endif
