/* The kernel contract of the histogram scene, in one place: what a user's
 * kernel (kernelscope histogram --kernel-file FILE, kernelscope new-kernel
 * histogram) receives, how its grid is derived from the block, and what it
 * must write; and the starter kernel that new-kernel writes (the course's
 * simple version: one byte a thread, one global atomic each). C strings,
 * because --help, new-kernel and the tests all read them; the registry row
 * points at them (app/scenes.h). Users' kernels count bytes (256 bins); the
 * pair and word modes (--bins, --words) are for our variants. */
#ifndef KS_HISTOGRAM_CONTRACT_H
#define KS_HISTOGRAM_CONTRACT_H

/* The entry point's name (the loader looks it up; the contract's first line). */
#define KS_HIST_USER_ENTRY "histogram"
/* Optional: bytes a thread counts. */
#define KS_HIST_USER_BYTES "kernelscope_bytes_per_thread"

/* Lines of plain text, each ending in '\n'; new-kernel writes them as // comments. */
#define KS_HIST_CONTRACT                                                                           \
    "extern \"C\" __global__ void histogram(const unsigned char *data, unsigned long long n,\n"  \
    "                                     unsigned int *bins)\n"                                  \
    "Count the n bytes data[0..n) into bins[256]: bins[b] += how many bytes equal b.\n"          \
    "  n is any count from 1 up (odd ones too); data starts 16-byte aligned.\n"                 \
    "  Add, never set: bins start at zero, and the live view counts the input a\n"             \
    "  chunk a launch into the same bins (bench: the whole input in one launch).\n"            \
    "Launch: your block (bx) (--block BXx1, default 256x1); the grid covers the\n"             \
    "  bytes, ceil(n/bx) blocks, so thread t of the launch is data[t]; no dynamic\n"           \
    "  shared memory (static __shared__ arrays are fine).\n"                                   \
    "More bytes a thread (optional): declare\n"                                                \
    "  extern \"C\" __constant__ int kernelscope_bytes_per_thread = p;\n"                     \
    "  (1 to 65536) and the grid shrinks to ceil(n/(bx*p)); which bytes a thread\n"            \
    "  takes is up to the kernel (new-kernel histogram --from shared: p = 128,\n"              \
    "  a block's bins in shared memory).\n"                                                     \
    "Read nothing outside data[0..n), write nothing outside bins[0..256); counts\n"           \
    "  are exact (unsigned int).\n"

#define KS_HIST_STARTER                                                                            \
    "extern \"C\" __global__ void histogram(const unsigned char *data, unsigned long long n,\n"  \
    "                                     unsigned int *bins)\n"                                  \
    "{\n"                                                                                          \
    "    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n" \
    "    if (i < n) atomicAdd(&bins[data[i]], 1u); /* one global atomic a byte */\n"            \
    "}\n"

#endif
