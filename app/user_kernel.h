/* A user's own kernel (--kernel-file FILE): the file read (a regular file,
 * at most 64 KiB) and compiled with NVRTC for the device's architecture, or
 * sm_90 without one. Running, checking and reloading it: app/kernel/ (the
 * variant set) and each scene's contract (app/scenes/<scene>/check.c). */
#ifndef KS_USER_KERNEL_H
#define KS_USER_KERNEL_H

#include "base/cuda_device.h"
#include "app/kernel/nvrtc_compile.h"

/* Reads path into *source (malloc'd, NUL-terminated): KS_ERR_INVALID with one
 * line for a missing file, a folder or anything not a regular file, more than
 * KS_NVRTC_SOURCE_MAX bytes or a NUL byte in it; KS_ERR_IO when reading fails. */
ks_status ks_user_kernel_read(const char *path, char **source);
/* Finds the file's one-line declaration (kernels/user/kernel_decl.h, "//
 * kernelscope: NAME(ARGS) ...") in *source and appends what kernelscope reads
 * back from the loaded code (the line and its launch values; the file's own
 * lines keep their numbers). KS_OK and *source as it was without one;
 * KS_ERR_PARSE "PATH:LINE: kernelscope: ..." for a malformed one. */
ks_status ks_user_kernel_declare(const char *path, char **source);
/* Reads, declares and compiles path for device (present == 0: the default sm_90) into
 * *out (free with ks_nvrtc_result_free): as ks_nvrtc_compile, KS_ERR_PARSE
 * with out->lines when it does not compile. */
ks_status ks_user_kernel_compile(const char *path, const ks_device_info *device, ks_nvrtc_result *out);

#endif
