/* A user's histogram kernel (--kernel-file, the contract in
 * histogram_contract.h): its compiled code loaded into the current CUDA
 * context as a handle, and run on a histogram context's input and counts
 * (histogram.h) by the contract's launch rule. Code in, handle out; C types
 * only. Without CUDA every call says so. */
#ifndef KS_HISTOGRAM_USER_H
#define KS_HISTOGRAM_USER_H

#include <stddef.h>

#include "histogram.h"
#include "kernels/user/user_code.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_HIST_USER_BYTES_MAX = 65536 }; /* bytes a thread */

/* The loaded code (user_code.h: ks_user_code_destroy, _name, _get_attrs; its
 * per_thread[0] is kernelscope_bytes_per_thread). */
typedef struct ks_user_code ks_hist_user;

/* Loads CUBIN or PTX (name: the file, for messages) and looks up `histogram`
 * and the optional kernelscope_bytes_per_thread. KS_ERR_CUDA when the code
 * does not load or has no such kernel (the context goes on); KS_ERR_INVALID
 * for a count out of range. */
ks_status ks_hist_user_load(const char *name, const void *code, size_t size, ks_hist_user **out);
/* KS_OK when block (bx, by, bz) can launch u over n bytes: by and bz 1, at
 * most the function's threads a block, a grid of at most 2^31 - 1 blocks;
 * else KS_ERR_INVALID saying why. */
ks_status ks_hist_user_check_block(const ks_hist_user *u, size_t n, const int block[3]);
/* Adds the counts of [begin, end) of g's input into g's counts with u (the
 * live view's chunk; bytes mode only); *ms: its GPU time (events), NULL: not
 * timed, not waited for. */
ks_status ks_hist_gpu_chunk_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], size_t begin, size_t end,
                                 double *ms);
/* The whole input into cleared counts, as the bench times it: memset + u. */
ks_status ks_hist_gpu_whole_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3]);
/* ks_hist_gpu_whole_user timed as ks_hist_gpu_time times ours. */
ks_status ks_hist_gpu_time_user(ks_hist_gpu *g, const ks_hist_user *u, const int block[3], const ks_timing_opts *o,
                                ks_timing *out);

/* ---- a kernel file's declaration (kernel_decl.h; histogram_compare.c, no GPU needed) ---- */
/* The roles a histogram kernel's kernelscope: line names (all three), its grids. */
#define KS_HIST_DECL_ROLES "data n bins"
#define KS_HIST_DECL_GRIDS (1u << KS_KDECL_GRID_COVER | 1u << KS_KDECL_GRID_SM)
/* KS_OK when d can run as a histogram kernel: those roles and grids, a 1D
 * block, and not `multiple` (the live view counts chunks of any size); else
 * KS_ERR_INVALID "NAME: ..." in the user's words. */
ks_status ks_hist_decl_check(const ks_kdecl *d, const char *name);

/* ---- the check of a user's kernel (histogram_compare.c, no GPU needed) ---- */
/* The checker request carries the live input's size in its grid (positive
 * ints): grid = {1 + n % 2^30, 1 + n / 2^30, 1}. */
void ks_hist_check_grid(size_t n, int grid[3]);
size_t ks_hist_check_bytes(const int grid[3]);
/* Where counts differ from the expected ones (exact: counts are integers). */
typedef struct ks_hist_mismatch {
    long long first;   /* the first such bin, -1: none */
    long long bad;     /* how many bins */
    uint64_t got, want; /* at first */
    uint64_t max_err;  /* the largest |got - want| of all bins */
} ks_hist_mismatch;
/* got against want (bins each): KS_OK when equal, else KS_ERR_INVALID (no error text: *out says where). */
ks_status ks_hist_compare(const uint64_t *got, const uint64_t *want, unsigned bins, ks_hist_mismatch *out);
/* "differs from AGAINST on N bytes (WHAT) at bin B ('e'): GOT where WANT is expected; k bins differ, max error E". */
void ks_hist_mismatch_text(const ks_hist_mismatch *m, size_t n, const char *what, const char *against, char *buf,
                           size_t cap);

#ifdef __cplusplus
}
#endif
#endif
