/* The kernel contract of the matmul scene, in one place: what a user's kernel
 * (kernelscope matmul --kernel-file FILE, kernelscope new-kernel matmul)
 * receives, how its grid is derived from the block, and what it must write;
 * and the starter kernel that new-kernel writes (the course's simple version:
 * one element of C per thread). C strings, because --help, new-kernel and the
 * tests all read them; the registry row points at them (app/scenes.h). */
#ifndef KS_MATMUL_CONTRACT_H
#define KS_MATMUL_CONTRACT_H

/* The entry point's name (the loader looks it up; the contract's first line). */
#define KS_MATMUL_USER_ENTRY "matmul"
/* Optional: elements of C a thread computes, {along a row (x), down a column (y), 1}. */
#define KS_MATMUL_USER_POINTS "kernelscope_points_per_thread"

/* Lines of plain text, each ending in '\n'; new-kernel writes them as // comments. */
#define KS_MATMUL_CONTRACT                                                                         \
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"           \
    "                                  int M, int N, int K)\n"                                    \
    "C = A*B, row-major float32: A is MxK (A[i][k] at i*K + k), B is KxN (B[k][j] at\n"       \
    "  k*N + j), C is MxN (C[i][j] at i*N + j). Any M, N, K from 1 up (odd ones too).\n"      \
    "Launch: your block (bx,by) (--block, default 16x16); the grid covers C,\n"                \
    "  ceil(N/bx) x ceil(M/by) blocks, so thread (x,y) of the launch is C[y][x]\n"            \
    "  (x: the column j, y: the row i); no dynamic shared memory (static\n"                     \
    "  __shared__ arrays are fine).\n"                                                          \
    "More elements a thread (optional): declare\n"                                             \
    "  extern \"C\" __constant__ int kernelscope_points_per_thread[3] = {px, py, 1};\n"       \
    "  (1 to 256 each) and the grid shrinks to ceil(N/(bx*px)) x ceil(M/(by*py));\n"           \
    "  which elements a thread takes is up to the kernel (new-kernel matmul\n"                 \
    "  --from regtile: {8, 8, 1} with a 16x16 block, 128x128 of C a block).\n"                 \
    "Write: every C[i][j] = sum over k of A[i][k]*B[k][j]; read nothing outside A\n"          \
    "  and B, write nothing outside C. kernelscope's A and B make every sum exact\n"          \
    "  in float32, so any order of the sum gives the same C.\n"

#define KS_MATMUL_STARTER                                                                          \
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C,\n"           \
    "                                  int M, int N, int K)\n"                                    \
    "{\n"                                                                                          \
    "    const int j = blockIdx.x * blockDim.x + threadIdx.x; /* column of C */\n"              \
    "    const int i = blockIdx.y * blockDim.y + threadIdx.y; /* row of C */\n"                 \
    "    if (i >= M || j >= N) return; /* past the edge of C */\n"                               \
    "    float acc = 0.0f;\n"                                                                      \
    "    for (int k = 0; k < K; ++k) acc += A[(size_t)i * K + k] * B[(size_t)k * N + j];\n"      \
    "    C[(size_t)i * N + j] = acc;\n"                                                            \
    "}\n"

#endif
