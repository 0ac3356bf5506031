/* `kernelscope bench reduce`: every sum and scan variant at each N, checked
 * against the CPU gold first, then timed back to back (kernels/reduce/
 * reduce_bench.h says how); a table on stdout, bench_reduce.csv and
 * bench_reduce.png (T_eff / T_peak per variant) in --out. Users' kernels
 * (--kernel-file) are sum rows after ours, named after their files: checked in
 * the checker process first, then against the gold and timed like ours. */
#ifndef KS_BENCH_REDUCE_H
#define KS_BENCH_REDUCE_H

#include "app/scenes.h"

ks_status ks_bench_reduce(const ks_bench_env *env);

#endif
