/* `kernelscope bench laplace3d|laplace2d --gpus 1,2,...`: the multi-GPU
 * solver (kernels/laplace/laplace_multi.h) against one GPU, strong scaling
 * (the grid fixed) or weak scaling (--weak: the grid is each GPU's share);
 * each variant first checked bit for bit against the CPU gold on several
 * GPUs. Table, CSV and a PNG chart of the speed-up. */
#ifndef KS_BENCH_SCALING_H
#define KS_BENCH_SCALING_H

#include <stddef.h>

#include "base/cuda_device.h"
#include "app/options.h"

typedef struct ks_scaling_row {
    char device[256];
    char cc[8];
    int gpus, ranks;       /* GPUs, and the processes driving them (1: threads; N: MPI ranks) */
    char variant[32];
    int grid[3];           /* the whole grid */
    int share[3];          /* the grid the run was asked for: the whole one (strong) or a GPU's share (weak) */
    int weak;
    int block[3];
    double ms_per_iter;
    double t_eff_gbs;      /* 2 x field bytes / time per iteration, the whole grid */
    double speedup;        /* strong: t(1 GPU) / t; weak: gpus x t(1 GPU) / t; 0: no 1-GPU row */
    double efficiency;     /* speedup / gpus */
    double halo_ms;        /* mean time of one halo exchange (0 on one GPU) */
    double hidden_share;   /* of the exchange time, the part the interior update overlapped */
} ks_scaling_row;

ks_status ks_bench_laplace_scaling(const ks_options *opt, const ks_device_info *dev);

/* Fills speedup and efficiency from the 1-GPU row of the same variant,
 * share and kind (tested on their own, with the writers). */
void ks_scaling_derive(ks_scaling_row *rows, int n);
/* The table and the CSV (columns: device, gpus, ranks, variant, grid,
 * block, ms_per_iter, t_eff_gbs, speedup, efficiency, halo_ms,
 * hidden_share, cc). malloc'd. */
char *ks_scaling_table(const ks_scaling_row *rows, int n);
char *ks_scaling_csv(const ks_scaling_row *rows, int n);
/* The chart of the speed-up (strong) or efficiency (weak) against GPUs. */
ks_status ks_scaling_chart(const ks_scaling_row *rows, int n, const char *scene, const char *dir);

#endif
