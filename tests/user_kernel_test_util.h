/* Helpers shared by the tests of users' kernels (--kernel-file) in every
 * scene with a kernel contract: compiling a starter with NVRTC, the command
 * lines around a file without a device, a file with compile errors, and on a
 * GPU the checker process, new-kernel's file and a live run. Each asserts
 * (cmocka) in the calling test. */
#ifndef KS_USER_KERNEL_TEST_UTIL_H
#define KS_USER_KERNEL_TEST_UTIL_H

#include <stddef.h>

#include "app/kernel/kernel_checker.h"
#include "base/cuda_device.h"
#include "tests/test_util.h"

struct ks_scene_def;

/* source compiles with NVRTC (named name) to PTX with the entry unmangled
 * (extern "C") and not even a warning. The PTX when keep_ptx (malloc'd, for
 * more checks of it), else NULL. */
char *ks_test_user_compiles(const char *source, const char *name, const char *entry, int keep_ptx);

/* new-kernel's texts compile with NVRTC (the calling test skips without it;
 * each as ks_test_user_compiles): scene's starter as "<scene>_kernel.cu", our
 * variants froms (NULL-ended) each as "<from>.cu", the file new-kernel writes
 * of the starter as file (the contract as comments, its signature after
 * "//   ", then the kernel), and the one it writes of from as from_file
 * ("new-kernel SCENE --from FROM" in it), which is returned for the scene's
 * own checks (free it). */
char *ks_test_user_starters_compile(const char *scene, const char *entry, const char *const *froms, const char *file,
                                    const char *from, const char *from_file);

/* scene's registry row carries contract and starter (their text), a check and
 * a file kind; the starter begins with the contract's signature, and the
 * contract goes into comments (no star-slash). Returns the row. */
const struct ks_scene_def *ks_test_user_row(const char *scene, const char *contract, const char *starter);

/* SCENE --backend cpu --kernel-file path, then the same under bench (with
 * --block block when block is not NULL): each exit 2 in one line. Without
 * NVRTC that line says so and 0 is returned; with it the file (its base
 * name) compiles for sm_90 and running it needs a CUDA device: 1. */
int ks_test_user_no_device(const char *scene, const char *path, const char *block, ks_run_result *r);

/* The file's base name is a --kernel name with the file (NVRTC built), and
 * an unknown one without it. */
void ks_test_user_kernel_name(const char *scene, const char *path, ks_run_result *r);

/* A variant is named after its file: a file in dir named ours (one of our
 * variants) is refused, and so is path given twice. */
void ks_test_user_file_names(const char *scene, const char *dir, const char *ours, const char *path, ks_run_result *r);

/* A file of source with two compile errors (first and second: "LINE: error:
 * WHAT") in a fresh folder tagged tag: SCENE --backend cpu --kernel-file it
 * prints exactly those lines, each after the file's path, and exits 2; the
 * same under bench when bench. The calling test skips without NVRTC. */
void ks_test_user_compile_errors(const char *scene, const char *tag, const char *source, const char *first,
                                 const char *second, int bench, ks_run_result *r);

/* new-kernel SCENE [--from from] -o dir/name: dir a fresh folder tagged tag,
 * path (cap 512) the file. */
void ks_test_user_new_kernel(const char *scene, const char *from, const char *tag, const char *name, char dir[256],
                             char path[512]);
/* The starter's file (new-kernel as above, no --from): its text (free it),
 * which says how to run it (kernelscope SCENE --kernel-file). */
char *ks_test_user_starter_file(const char *scene, const char *tag, const char *name, char dir[256], char path[512]);

/* On a GPU. 1 when users' kernels can run here (CUDA, NVRTC and a device,
 * into dev), else 0: the test program exits 77 (skipped). */
int ks_test_user_device(ks_device_info *dev);
/* The checker process the app starts (this binary, 60 s a check). */
ks_kchecker *ks_test_user_checker(void);
/* Compiles source as "mine.cu" to CUBIN for dev and checks it in c with req
 * (the scene's fields: scene, grid, block, the difference's; file, code are
 * filled here); the message goes to stderr. */
void ks_test_user_check(ks_kchecker *c, const ks_device_info *dev, ks_kcheck_request *req, const char *source,
                        ks_kcheck_result *res);
/* A live run of argv (a --kernel-file, headless): skips the calling test
 * where headless GL cannot start; else exit 0 and "mine.cu: compiled in". */
void ks_test_user_live(const char *const *argv, ks_run_result *r);

#endif
