/* A user's reduce kernel (--kernel-file, the contract in reduce_contract.h):
 * its compiled code loaded into the current CUDA context as a handle, run on
 * a reduce context's input into its sum (reduce.h) by the contract's launch
 * rule, or on the check's own buffers; and the check's comparison, which
 * needs no GPU (reduce_compare.c). Code in, handle out; C types only.
 * Without CUDA every GPU call says so. */
#ifndef KS_REDUCE_USER_H
#define KS_REDUCE_USER_H

#include <stddef.h>

#include "reduce.h"
#include "kernels/user/user_code.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The loaded code (user_code.h: ks_user_code_destroy, _name, _get_attrs; its
 * per_thread[0] is kernelscope_items_per_thread). */
typedef struct ks_user_code ks_reduce_user;

/* Loads CUBIN or PTX (name: the file, for messages) and looks up `reduce` and
 * the optional kernelscope_items_per_thread. KS_ERR_CUDA when the code does
 * not load or has no such kernel (the context goes on); KS_ERR_INVALID for a
 * count out of range. */
ks_status ks_reduce_user_load(const char *name, const void *code, size_t size, ks_reduce_user **out);
enum { KS_REDUCE_USER_ITEMS_MAX = 65536 }; /* the most floats a thread */

/* KS_OK when block bx can launch u over n floats: a power of two in
 * KS_REDUCE_MIN_BLOCK..KS_REDUCE_MAX_BLOCK, at most the function's threads a
 * block, a grid of at most 2^31 - 1 blocks; else KS_ERR_INVALID saying why. */
ks_status ks_reduce_user_check_block(const ks_reduce_user *u, long long n, int bx);

/* One run of u on g's input into g's sum (zeroed, then u), asynchronous on the
 * context's stream, as ks_reduce_gpu_run runs ours; ks_reduce_gpu_sum_result reads it. */
ks_status ks_reduce_gpu_run_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx);
/* u timed as ks_reduce_gpu_time times ours (a sum: the input its working set). */
ks_status ks_reduce_gpu_time_user(ks_reduce_gpu *g, const ks_reduce_user *u, int bx, double span_ms,
                                  const ks_timing_opts *o, ks_reduce_timing *out);

/* The check's run on its own buffers: x (host, n floats) uploaded and followed
 * by KS_REDUCE_PROBE_GUARD NaN floats, u launched on x[0..split) and then on
 * x[split..n) (split 0: one launch; a multiple of 4, so each launch's x stays
 * 16-byte aligned) into one zeroed float with NaN words on either side.
 * Synchronises. *sum: the result; *flank_ok: 0 when a word beside it changed.
 * A declared kernel that writes partials writes them into a buffer of its
 * launch's grid with NaN words on either side (its *partials_ok). */
enum { KS_REDUCE_PROBE_GUARD = 61, KS_REDUCE_PROBE_FLANK = 3 };
typedef struct ks_reduce_probe {
    float sum;
    int flank_ok;
    int partials_ok; /* a declared kernel's partials: 0 when it wrote outside partials[0..grid) */
} ks_reduce_probe;
ks_status ks_reduce_user_probe(const ks_reduce_user *u, int bx, const float *x, long long n, long long split,
                               ks_reduce_probe *out);

/* ---- a kernel file's declaration (kernel_decl.h; reduce_compare.c, no GPU needed) ---- */
/* The roles a reduce kernel's kernelscope: line may name, the ones it must, its grids. */
#define KS_REDUCE_DECL_ROLES "x n out partials"
#define KS_REDUCE_DECL_NEED "x"
#define KS_REDUCE_DECL_GRIDS (1u << KS_KDECL_GRID_COVER | 1u << KS_KDECL_GRID_SM)
/* KS_OK when d can run as a reduce kernel: its roles and grid those above, and
 * exactly one of out (it adds into *out) or partials (it writes one float a
 * block, partials[blockIdx.x], which kernelscope then adds into *out on the
 * GPU); else KS_ERR_INVALID "NAME: ..." in the user's words. */
ks_status ks_reduce_decl_check(const ks_kdecl *d, const char *name);
/* n rounded up to a multiple of the block the kernel runs with (bx, or its
 * line's block=) where its line says multiple; else n. */
long long ks_reduce_decl_round(const ks_kdecl *d, int bx, long long n);

/* ---- the check of a user's kernel (reduce_compare.c, no GPU needed) ---- */
/* The checker request carries the live size and input in its grid (positive
 * ints): {1 + n % 2^30, 1 + n / 2^30, 1 + integer}. */
void ks_reduce_check_grid(long long n, int integer, int grid[3]);
long long ks_reduce_check_n(const int grid[3]);
int ks_reduce_check_integer(const int grid[3]);
/* A user's sum against an expected one: exact (want is exact, integer input),
 * else within tol. */
typedef struct ks_reduce_verdict {
    int ok;
    double got, want, err, tol; /* err = |got - want| (inf for NaN or inf) */
} ks_reduce_verdict;
ks_reduce_verdict ks_reduce_user_verdict(double got, double want, double tol);
/* "differs from AGAINST on N floats (WHAT): GOT where WANT is expected (error E, tolerance T)". */
void ks_reduce_verdict_text(const ks_reduce_verdict *v, long long n, const char *what, const char *against, char *buf,
                            size_t cap);

#ifdef __cplusplus
}
#endif
#endif
