/* A user's compiled kernel (--kernel-file) loaded into the current CUDA
 * context, as every scene's contract loads it: the entry function made
 * resident now, its attributes, and the contract's optional tuning constant
 * (an int or int[3] such as kernelscope_points_per_thread, each value in its
 * range, 1 without the declaration). Code in, handle out; plain C. Without
 * CUDA nothing loads (user_code_nocuda.c). */
#ifndef KS_USER_CODE_H
#define KS_USER_CODE_H

#include <stddef.h>

#include "kernel_decl.h"
#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a scene's contract loads. */
typedef struct ks_user_code_desc {
    const char *entry;     /* the __global__ function ("matmul"; extern "C", or the one C++ function of that name) */
    const char *symbol;    /* the optional tuning constant ("kernelscope_points_per_thread"), NULL: none */
    int count;             /* its ints: 1 or 3 */
    int max[3];            /* value i in 1 .. max[i] */
    const char *rule;      /* the ranges in words, one %d for max[0] ("1 to %d"), for the refusal */
    /* The scene launches a kernel as its declaration says (kernel_decl.h): its
       roles, space-separated ("nx ny nz u v"), or NULL where the scene takes
       none yet, so a file that declares one is refused rather than launched
       by the contract's rule. */
    const char *roles;
    unsigned grids;        /* the launches it makes for a declaration (1 << ks_kdecl_grid) */
    const char *need;      /* the roles a declaration must name; NULL: every one of roles */
    /* The scene's own rules for a declaration, once the code is loaded (which
       roles go together, what it launches); NULL: none beyond the roles. */
    ks_status (*decl_check)(const ks_kdecl *d, const char *name);
} ks_user_code_desc;

typedef struct ks_user_code ks_user_code;

/* What the loaded function needs (read from it, for the panel and the launch). */
typedef struct ks_user_code_attrs {
    int registers;        /* per thread */
    int static_smem;      /* bytes per block */
    int max_threads;      /* the most threads a block may have */
    int per_thread[3];    /* the tuning constant (1 1 1 without the declaration; unused ints 1) */
    int params;           /* the entry's parameters, -1 where the runtime cannot tell */
    int param_size[16];   /* their sizes in bytes */
} ks_user_code_attrs;

/* Loads CUBIN or PTX (name: the file, for messages) and looks up the entry and
 * the tuning constant. KS_ERR_CUDA when the code does not load or has no such
 * function (the context goes on); KS_ERR_INVALID for a constant of another
 * size or a value out of its range ("NAME: SYMBOL is V: RULE"). */
ks_status ks_user_code_load(const ks_user_code_desc *desc, const char *name, const void *code, size_t size,
                            ks_user_code **out);
/* Unloads it (the caller has drained every stream that used it). NULL is fine. */
void ks_user_code_destroy(ks_user_code *u);
const char *ks_user_code_name(const ks_user_code *u); /* "" for NULL */
void ks_user_code_get_attrs(const ks_user_code *u, ks_user_code_attrs *out);
/* The file's declaration, read back from its code with its launch values
 * evaluated; NULL when it has none (or for NULL). */
const ks_kdecl *ks_user_code_declaration(const ks_user_code *u);
/* The function to launch (a cudaKernel_t, for cudaLaunchKernel); NULL for NULL. */
const void *ks_user_code_function(const ks_user_code *u);
/* The device address and bytes of a global the file declares by that name
 * (a __constant__ array kernelscope fills, say): 1, or 0 when it has none. */
int ks_user_code_global(const ks_user_code *u, const char *symbol, void **dev, size_t *bytes);

/* A declared one-dimensional launch over n items (kernel_decl.h: grid=cover,
 * ceil(n / block) blocks, or grid=sm:N, N blocks a multiprocessor): its
 * block (the line's block=, else block[0]), dynamic shared memory and grid. */
typedef struct ks_user_launch_1d {
    int threads;
    size_t shared;
    unsigned long long grid;
} ks_user_launch_1d;
/* Checks and computes it for the current device: a block of one part that the
 * compiled kernel takes, the shared memory the GPU has, an int n that holds n,
 * a grid of 1 to 2^31 - 1 blocks; items names what n counts ("floats") in the
 * refusals. */
ks_status ks_user_code_launch_1d(const ks_user_code *u, const int block[3], long long n, const char *items,
                                 ks_user_launch_1d *out);
/* What a role of the declaration is given: the address of its value (a device
 * pointer's, usually); a role not listed is a size and gets n, as an int or a
 * long long as the line types it. */
typedef struct ks_user_arg {
    const char *role;
    const void *value;
} ks_user_arg;
/* Launches the declared kernel as l says on stream (a cudaStream_t), its
 * arguments in the line's order. */
ks_status ks_user_code_launch_declared(const ks_user_code *u, const ks_user_launch_1d *l, const ks_user_arg *args,
                                       int nargs, long long n, void *stream);

#ifdef __cplusplus
}
#endif
#endif
