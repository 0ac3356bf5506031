/* A user's sphere ray-casting kernel (--kernel-file, the contract in
 * spheres_contract.h): its compiled code loaded into the current CUDA context
 * as a handle, and run on a sphere renderer's spheres (spheres.h) by the
 * contract's launch; with the file's __constant__ kernelscope_spheres, the
 * spheres copied into it first. The check's comparison with the CPU gold
 * needs no GPU (spheres_compare.c). Code in, handle out; C types only.
 * Without CUDA every call says so. */
#ifndef KS_SPHERES_USER_H
#define KS_SPHERES_USER_H

#include <stddef.h>

#include "base/cuda_device.h"
#include "kernels/user/user_code.h"
#include "spheres.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The loaded code (user_code.h: ks_user_code_destroy, _name, _get_attrs). */
typedef struct ks_user_code ks_spheres_user;

/* Loads CUBIN or PTX (name: the file, for messages) and looks up `spheres`.
 * KS_ERR_CUDA when the code does not load or has no such kernel (the context
 * goes on); KS_ERR_INVALID for a kernelscope_spheres that holds no whole
 * sphere (32 bytes each) or more than 64 KiB. */
ks_status ks_spheres_user_load(const char *name, const void *code, size_t size, ks_spheres_user **out);
/* The spheres u can render: its kernelscope_spheres' (bytes / 32), or
 * KS_SPHERES_MAX when it reads them through the pointer alone. */
int ks_spheres_user_capacity(const ks_spheres_user *u);
/* 1 when u reads the spheres from its own __constant__ array. */
int ks_spheres_user_constant(const ks_spheres_user *u);
/* KS_OK when u can render count spheres at block (bx, by): bx*by threads, at
 * most the function's; count at most its capacity. Else KS_ERR_INVALID
 * (KS_ERR_UNSUPPORTED for the count) saying why. */
ks_status ks_spheres_user_check(const ks_spheres_user *u, int count, const int block[2]);
/* Renders the spheres g last uploaded for the pointer variants (global)
 * with u into dst (device, w*h*4 bytes; NULL: g's own image), its spheres
 * copied into u's kernelscope_spheres first when it has one and they are
 * not there yet. tag >= 0: the render is a live timing sample filed under
 * that column (ks_spheres_sample.mem), -1: not timed. */
ks_status ks_spheres_gpu_render_user(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], int w, int h,
                                     void *dst, int tag);
/* u's renders timed by the benches' loop, as ks_spheres_gpu_time times ours. Synchronous. */
ks_status ks_spheres_gpu_time_user(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], int w, int h,
                                   const ks_timing_opts *o, ks_timing *out);
/* Registers, shared memory and occupancy of u at block. */
ks_status ks_spheres_user_attrs(ks_spheres_gpu *g, const ks_spheres_user *u, const int block[2], ks_kernel_attrs *out);

/* ---- the check's comparison with the CPU gold (spheres_compare.c, no GPU) ---- */
/* A pixel is off when a channel of it differs from the gold's by more than
 * KS_SPHERES_USER_TOL; a picture passes with at most KS_SPHERES_USER_OFF_PPM
 * such pixels a million (rounding at an edge, two spheres at one depth). */
enum { KS_SPHERES_USER_TOL = 1, KS_SPHERES_USER_OFF_PPM = 1000 };
typedef struct ks_spheres_mismatch {
    long long off;          /* pixels off */
    long long allowed;      /* how many may be */
    int first_i, first_j;   /* the first pixel off (rows from the bottom), -1: none */
    unsigned char got[4], want[4];
    int max_abs;            /* the largest channel difference of all pixels */
} ks_spheres_mismatch;
/* got against want (w x h RGBA each): 1 when within the tolerance. */
int ks_spheres_user_compare(const unsigned char *got, const unsigned char *want, int w, int h, ks_spheres_mismatch *m);
/* "differs from the CPU gold on the WxH check picture (N spheres) at pixel (i,j): R G B A where R G B A is
 * expected; K pixels are off by more than 1 (at most A may be), max difference D". */
void ks_spheres_mismatch_text(const ks_spheres_mismatch *m, int w, int h, int count, char *buf, size_t cap);
/* The difference view's values: for each pixel the largest |got - want| of its channels. */
void ks_spheres_user_diff(const unsigned char *got, const unsigned char *want, int w, int h, float *diff);

#ifdef __cplusplus
}
#endif
#endif
