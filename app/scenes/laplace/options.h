/* The Laplace scenes' own options (laplace3d and laplace2d share them; bench
 * live and bench serve borrow --grid and --iters), stored in ks_options
 * through the option group below. */
#ifndef KS_LAPLACE_OPTIONS_H
#define KS_LAPLACE_OPTIONS_H

#include "app/kernel/kernel_files.h"
#include "app/options.h"
#include "kernels/laplace/laplace.h"

typedef struct ks_laplace_opts {
    int grid_count;
    int grids[KS_MAX_LIST][3];   /* nx, ny, nz (nz = 1 in 2D); resolved by the finish */
    int grid_parts[KS_MAX_LIST]; /* components given: 1 (N), 2 or 3 */
    ks_bc bc;                    /* default hot-top */
    int iters;                   /* Jacobi iterations per frame; default: automatic on the CUDA
                                    backend (starting at 20), 64 (3D) / 256 (2D) on the CPU backend; tblock runs
                                    the nearest multiple of its time block */
    int iters_set;               /* --iters given (a count or auto) */
    int iters_auto;              /* --iters auto (the CUDA default): sized for fps_target
                                    (app/scenes/laplace/iters_auto.h) */
    int fps_target;              /* --fps-target N: frames a second --iters auto aims at (default
                                    60, filled by the backend defaults); 0: the fastest sizing
                                    (the solver >= 97 % of a frame) */
    int fps_target_set;          /* --fps-target given */
    int residual_every;          /* --residual-every K: residual every K frames; 0 = automatic */
    int no_graph;                /* --no-graph: direct launches instead of a CUDA graph */
    ks_kernel_files kernel_files; /* --kernel-file FILE (repeatable): users' kernels (the contract in
                                     kernels/laplace/laplace_contract.h), each one more variant named after
                                     the file (KS_LUSER_MAX) */
    int gpus[16];                /* --gpus: one value N (N GPUs, ids 0..N-1), or a list: device ids
                                    in the live view, GPU counts to sweep in bench */
    int gpus_count;              /* values given (0: no --gpus) */
    int weak;                    /* bench --weak: the grid is each GPU's share (weak scaling) */
} ks_laplace_opts;

/* The GPUs a live run uses: their count (1 without --gpus) and ids into devices. */
int ks_laplace_live_gpus(const ks_options *o, int devices[16]);

struct ks_option_group;
extern const struct ks_option_group ks_laplace_options;

ks_laplace_opts *ks_laplace_opts_of(ks_options *o);
const ks_laplace_opts *ks_laplace_opts_get(const ks_options *o);
/* 3 or 2: the rank of the scene o runs (laplace3d / laplace2d). */
int ks_laplace_dims(const ks_options *o);
/* The grid of grids[idx] as a ks_grid for the scene. */
ks_grid ks_laplace_grid(const ks_options *o, int idx);
/* The scene's checks and defaults (also run for the options bench live builds). */
ks_status ks_laplace_finish_options(ks_options *o);
void ks_laplace_backend_defaults(ks_options *o, int use_cuda);
/* --grid as bench live and bench serve read it (N is both N^3 and N^2; the row's runner_finish). */
ks_status ks_laplace_runner_finish(ks_options *o);
/* The i-th --kernel-file (0, 1, ...), NULL past the last (the row's kernel_file). */
const char *ks_laplace_kernel_file(const ks_options *o, int i);
/* --gpus against the machine (the row's backend_check). */
ks_status ks_laplace_backend_check(const ks_options *o, int use_cuda, int device_count);

#endif
