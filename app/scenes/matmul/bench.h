/* `kernelscope bench matmul`: every variant (tiled at each tile size) at each
 * --size, checked bit for bit first, timed with events; prints the table and
 * writes bench_matmul.csv and bench_matmul.png (GFLOP/s chart) into opt->out_dir. */
#ifndef KS_BENCH_MATMUL_H
#define KS_BENCH_MATMUL_H

#include "base/cuda_device.h"
#include "base/ks_error.h"
#include "app/options.h"

/* Options used: mm_sizes (default 1024..8192, CPU 256, 512), kernels (default all;
 * cublas always), tiles (default 8, 16, 32), reps, out_dir. use_cuda 0: the CPU gold. */
ks_status ks_bench_matmul(const ks_options *opt, const ks_device_info *dev, int use_cuda);

#endif
