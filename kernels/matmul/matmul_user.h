/* A user's matmul kernel (--kernel-file, the contract in matmul_contract.h):
 * its compiled code loaded into the current CUDA context as a handle, and run
 * on a matmul context's A, B and C (matmul.h) by the contract's launch rule.
 * Code in, handle out; C types only. Without CUDA every call says so. */
#ifndef KS_MATMUL_USER_H
#define KS_MATMUL_USER_H

#include <stddef.h>

#include "matmul.h"
#include "kernels/user/user_code.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_MATMUL_USER_POINTS_MAX = 256 }; /* elements a thread along one axis */

/* The loaded code (user_code.h: ks_user_code_destroy, _name, _get_attrs; its
 * per_thread is kernelscope_points_per_thread, elements of C a thread {x, y, 1}). */
typedef struct ks_user_code ks_matmul_user;

/* Loads CUBIN or PTX (name: the file, for messages) and looks up
 * `matmul` and the optional kernelscope_points_per_thread. KS_ERR_CUDA when
 * the code does not load or has no such kernel (the context goes on);
 * KS_ERR_INVALID for points out of range. */
ks_status ks_matmul_user_load(const char *name, const void *code, size_t size, ks_matmul_user **out);
/* KS_OK when block (bx, by, bz) can launch u over C of size s: bz 1, at most the
 * function's threads a block, and a grid within the device's limits; else
 * KS_ERR_INVALID saying why. */
ks_status ks_matmul_user_check_block(const ks_matmul_user *u, const ks_matmul_size *s, const int block[3]);
/* One launch of u on g's A, B, C (asynchronous on g's stream; no tile records:
 * the last run then has none). */
ks_status ks_matmul_gpu_run_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3]);
/* The same, timed with events around it: ms. */
ks_status ks_matmul_gpu_run_user_timed(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3], double *ms);
/* Timed launches as ks_matmul_gpu_time times ours. */
ks_status ks_matmul_gpu_time_user(ks_matmul_gpu *g, const ks_matmul_user *u, const int block[3],
                                  const ks_timing_opts *o, ks_timing *out);

#ifdef __cplusplus
}
#endif
#endif
