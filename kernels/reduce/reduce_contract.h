/* The kernel contract of the reduce scene, in one place: what a user's kernel
 * (kernelscope reduce --kernel-file FILE, kernelscope new-kernel reduce)
 * receives, how its grid is derived from the block, what it must write and
 * how closely; and the starter kernel that new-kernel writes (the course's
 * shared-memory tree per block, then one atomicAdd). C strings, because
 * --help, new-kernel and the tests all read them; the registry row points at
 * them (app/scenes.h). Users' kernels sum; the scan stays with our variants:
 * a device-wide scan in one launch needs blocks that wait for each other
 * (scratch, a tile counter, forward progress), no clean one-kernel contract. */
#ifndef KS_REDUCE_CONTRACT_H
#define KS_REDUCE_CONTRACT_H

/* The entry point's name (the loader looks it up; the contract's first line). */
#define KS_REDUCE_USER_ENTRY "reduce"
/* Optional: floats a thread adds. */
#define KS_REDUCE_USER_ITEMS "kernelscope_items_per_thread"

/* Lines of plain text, each ending in '\n'; new-kernel writes them as // comments. */
#define KS_REDUCE_CONTRACT                                                                         \
    "extern \"C\" __global__ void reduce(const float *x, long long n, float *out)\n"             \
    "Add the sum of the n floats x[0..n) to *out: *out += x[0] + ... + x[n-1].\n"               \
    "  n is any count from 1 up (odd ones too); x starts 16-byte aligned.\n"                    \
    "  Add, never set: *out is zeroed before each run and blocks finish in any\n"              \
    "  order (atomicAdd(out, v)); the check also sums in two launches into one *out.\n"        \
    "Launch: your block (bx) (--block BXx1, a power of two in 32..1024, default\n"             \
    "  256x1; [ ] change it live); the grid covers the floats, ceil(n/bx) blocks,\n"           \
    "  so thread t of the launch is x[t]; no dynamic shared memory (static\n"                  \
    "  __shared__ arrays are fine).\n"                                                          \
    "More floats a thread (optional): declare\n"                                                \
    "  extern \"C\" __constant__ int kernelscope_items_per_thread = p;\n"                     \
    "  (1 to 65536) and the grid shrinks to ceil(n/(bx*p)); which floats a thread\n"           \
    "  takes is up to the kernel (new-kernel reduce --from sum_shuffle: p = 32,\n"             \
    "  float4 loads, warp shuffles, one atomicAdd a block).\n"                                  \
    "Precision: add in float, as ours and CUB do; the result must lie within\n"               \
    "  2^-24 * (2 sqrt(n) + log2(n) + 2) * sum|x[i]| of the sum in double (float\n"           \
    "  rounding errors of random sign grow as the square root of a chain of adds,\n"          \
    "  a tree adds log2(n) levels), and equal it on the integer input (--values\n"            \
    "  integer, n <= 2097152: every partial sum is exact in float).\n"                         \
    "Read nothing outside x[0..n), write nothing but *out. The scan variants\n"               \
    "  (scan_*) stay kernelscope's: your kernels sum.\n"

#define KS_REDUCE_STARTER                                                                          \
    "extern \"C\" __global__ void reduce(const float *x, long long n, float *out)\n"             \
    "{\n"                                                                                          \
    "    __shared__ float partial[1024]; /* one float a thread: a block has at most 1024 */\n"   \
    "    const unsigned t = threadIdx.x;\n"                                                        \
    "    const long long i = (long long)blockIdx.x * blockDim.x + t;\n"                           \
    "    partial[t] = i < n ? x[i] : 0.0f; /* the last block's extra threads add nothing */\n"    \
    "    __syncthreads();\n"                                                                       \
    "    for (unsigned d = blockDim.x / 2; d > 0; d /= 2) { /* the tree: each level halves it */\n" \
    "        if (t < d) partial[t] += partial[t + d];\n"                                          \
    "        __syncthreads();\n"                                                                   \
    "    }\n"                                                                                      \
    "    if (t == 0) atomicAdd(out, partial[0]); /* one atomic a block */\n"                     \
    "}\n"

#endif
