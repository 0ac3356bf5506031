/* `kernelscope bench spheres`: the Sheffield CUDA lab exercise 2 timing table filled in one run
 * (sphere counts x memory variants), checked against the CPU gold first;
 * prints the table and writes spheres_bench.csv and spheres_bench.png
 * (log-log chart) into opt->out_dir. */
#ifndef KS_BENCH_SPHERES_H
#define KS_BENCH_SPHERES_H

#include "base/cuda_device.h"
#include "base/ks_error.h"
#include "app/options.h"

/* Options used: size_set/width/height (default 2048x2048), sphere_counts
 * (default 16..16384, CPU 16..256), mem (one variant plus global; NULL all),
 * blocks[0] (default 16x16), reps, seed, out_dir. use_cuda 0: the CPU gold. */
ks_status ks_bench_spheres(const ks_options *opt, const ks_device_info *dev, int use_cuda);

#endif
