/* The one declaration a kernel file may carry so that kernelscope launches a
 * kernel as its author does (the course's kernels as written: their names,
 * argument order, launch shape, block, dynamic shared memory, per-block
 * partials), instead of by a scene's contract. One comment line anywhere in
 * the file:
 *
 *   // kernelscope: NAME(ARG, ARG, ...) [grid=SHAPE] [block=X[,Y[,Z]]] [shared=BYTES[*threads]] [multiple]
 *
 * NAME is the __global__ function (extern "C" or C++; its mangled name is
 * found); each ARG is one of the scene's roles in the function's order,
 * sizes with their type (`int` by default, `long`/`long long` for 8 bytes):
 *   laplace3d: nx ny nz u v      laplace2d: nx ny u v
 *   reduce:    x n out partials  histogram: data n bins
 * grid: interior (the contract's), domain (the whole grid, a point a thread),
 * columns (3D: a 2D grid over every (i, j), each thread marching over k),
 * cover (1D: ceil(n / bx) blocks), sm:N (N blocks a multiprocessor, for
 * grid-stride loops). block: the block the kernel is written for (numbers
 * or the file's macros, BLOCK_X); without it, the user's block. shared: the
 * dynamic shared memory a block gets, bytes, or bytes a thread (4*threads).
 * multiple: the kernel assumes its sizes are multiples of its block;
 * kernelscope checks and times only such sizes. A launch value may name the
 * file's macros: the compiler evaluates it, from text kernelscope appends
 * after the file (so no line of the file moves), KS_KDECL_VALUES, read back
 * from the loaded code with KS_KDECL_TEXT. Plain C, no CUDA. */
#ifndef KS_KERNEL_DECL_H
#define KS_KERNEL_DECL_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_KDECL_MARK "// kernelscope:"
#define KS_KDECL_TEXT "kernelscope_declaration"   /* the line as the file has it (a __constant__ char[]) */
#define KS_KDECL_VALUES "kernelscope_launch_values" /* its launch values, evaluated (__constant__ long long[]) */

enum {
    KS_KDECL_ARGS_MAX = 8,
    KS_KDECL_EXPR_MAX = 64,
    KS_KDECL_NAME_MAX = 128,
};

typedef enum ks_kdecl_grid {
    KS_KDECL_GRID_CONTRACT = 0, /* not given: the scene's own rule */
    KS_KDECL_GRID_INTERIOR,
    KS_KDECL_GRID_DOMAIN,
    KS_KDECL_GRID_COLUMNS,
    KS_KDECL_GRID_COVER,
    KS_KDECL_GRID_SM,
} ks_kdecl_grid;

typedef struct ks_kdecl_arg {
    char role[16];   /* "nx", "u", "partials" */
    int bytes;       /* 4 or 8 as the line types it; 0: the role's own (a pointer's 8, a size's int) */
} ks_kdecl_arg;

/* Which values slot holds what (ks_kdecl.value). */
enum { KS_KDECL_V_BX, KS_KDECL_V_BY, KS_KDECL_V_BZ, KS_KDECL_V_SHARED, KS_KDECL_V_SM, KS_KDECL_V_COUNT };

typedef struct ks_kdecl {
    int present;                     /* the file has the line */
    int line;                        /* its line number (1-based) */
    char entry[KS_KDECL_NAME_MAX];
    int nargs;
    ks_kdecl_arg args[KS_KDECL_ARGS_MAX];
    ks_kdecl_grid grid;
    int block_dims;                  /* 0: the user's block; else how many of X, Y, Z it gives */
    int shared_per_thread;           /* shared= is bytes a thread */
    int multiple;
    /* The launch values as the file writes them (numbers or macro expressions; "" unset),
       then their values: plain numbers at once, expressions once the code is loaded, as the
       compiler evaluated them (0 unset). */
    char expr[KS_KDECL_V_COUNT][KS_KDECL_EXPR_MAX];
    long long value[KS_KDECL_V_COUNT];
} ks_kdecl;

/* Finds and parses the declaration in source (name: the file, for messages).
 * KS_OK with out->present 0 when there is none; KS_ERR_PARSE with one line
 * "NAME:LINE: kernelscope: ..." for a malformed one, or a second one. The
 * roles are not checked here (they are the scene's: ks_kdecl_roles_check). */
ks_status ks_kdecl_parse(const char *source, const char *name, ks_kdecl *out);
/* Parses the declaration's text alone (the line after KS_KDECL_MARK). */
ks_status ks_kdecl_parse_line(const char *text, const char *name, int line, ks_kdecl *out);
/* The source text kernelscope appends after the file (malloc'd, NUL-ended;
 * NULL when out of memory): the line as a __constant__ char array and the
 * launch values as the compiler evaluates them. */
char *ks_kdecl_suffix(const ks_kdecl *d);
/* The declaration as one canonical line (what follows KS_KDECL_MARK): the
 * entry, the arguments with their types and every option it gives, so that
 * ks_kdecl_parse_line of it is d again (its values aside). Written into buf
 * (cap bytes, cut short when too small); returns its length. */
size_t ks_kdecl_format(const ks_kdecl *d, char *buf, size_t cap);
/* The declaration as a process reads it from the loaded code (any process:
 * the live view's, the bench's, the checker's): text, the line the suffix
 * holds, parsed, and values, the launch values the compiler evaluated. */
ks_status ks_kdecl_read_back(const char *text, const long long values[KS_KDECL_V_COUNT], const char *name,
                             ks_kdecl *out);
/* The grid (blocks along x, y, z) of a stencil scene's launch (laplace3d,
 * laplace2d) over sizes n (dims of them; unused 1) with block, the block the
 * kernel runs with: grid=domain covers every point, grid=columns every (i, j)
 * with one block along z, and the interior or the contract's rule (d NULL or
 * no grid=) every interior point, per_thread points a thread along each axis
 * (NULL: 1). Pure; the caller checks the limits of gridDim. */
void ks_kdecl_stencil_grid(const ks_kdecl *d, int dims, const long long n[3], const int block[3],
                           const int per_thread[3], long long grid[3]);
/* For a declaration that says multiple (d NULL or without it: nothing),
 * the first dims sizes of n rounded up to multiples of the block it runs
 * with (ks_kdecl_block of block). */
void ks_kdecl_round_sizes(const ks_kdecl *d, const int block[3], int dims, int n[3]);
/* KS_OK when every role of d is one of roles (space-separated, e.g. "nx ny nz
 * u v"), none twice, every one of need among them, and its grid one of grids
 * (a mask of 1 << ks_kdecl_grid); else KS_ERR_INVALID "NAME: ..." in the
 * user's words. */
ks_status ks_kdecl_roles_check(const ks_kdecl *d, const char *name, const char *roles, const char *need,
                               unsigned grids);
/* An argument's size in bytes: as the line types it, else a size role's
 * (nx ny nz n) int, a pointer's 8. */
int ks_kdecl_arg_bytes(const ks_kdecl_arg *a);
/* The index of role in d's arguments, -1 when absent. */
int ks_kdecl_arg_index(const ks_kdecl *d, const char *role);
/* The block the declaration fixes (its evaluated values; unset parts 1), or
 * block as given when it fixes none. */
void ks_kdecl_block(const ks_kdecl *d, const int block[3], int out[3]);
/* Dynamic shared memory bytes for a block of threads. */
size_t ks_kdecl_shared(const ks_kdecl *d, int threads);
/* The declaration in a few words for a panel or a line ("GPU_laplace3d(nx, ny, nz, u, v), columns, block
 * 16x16"). */
void ks_kdecl_describe(const ks_kdecl *d, char *buf, size_t cap);
const char *ks_kdecl_grid_name(ks_kdecl_grid g);

#ifdef __cplusplus
}
#endif
#endif
