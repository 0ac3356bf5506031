/* The kernel contract of the Laplace scenes, in one place: what a user's
 * kernel (kernelscope --kernel-file FILE, kernelscope new-kernel SCENE)
 * receives, how its grid is derived from the block, and what it must write;
 * and the starter kernel that new-kernel writes (the course's simple version:
 * one interior point per thread). The texts are C strings because --help,
 * new-kernel and the tests all read them; registry rows point at them
 * (app/scenes.h, kernel_contract / kernel_starter). */
#ifndef KS_LAPLACE_CONTRACT_H
#define KS_LAPLACE_CONTRACT_H

/* Lines of plain text, each ending in '\n'; new-kernel writes them as // comments. */
#define KS_LAPLACE3D_CONTRACT                                                                      \
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n"   \
    "u: the field now, v: the next one; nx*ny*nz floats each, point (i,j,k) at\n"              \
    "  i + j*nx + k*nx*ny (i fastest).\n"                                                       \
    "Launch: your block (bx,by,bz) (--block, default 32x4x4); the grid covers the\n"           \
    "  interior, ceil((nx-2)/bx) x ceil((ny-2)/by) x ceil((nz-2)/bz) blocks, so\n"             \
    "  thread (x,y,z) of the launch is point (x+1, y+1, z+1); no dynamic shared memory.\n"    \
    "More points a thread (optional): declare\n"                                               \
    "  extern \"C\" __constant__ int kernelscope_points_per_thread[3] = {px, py, pz};\n"       \
    "  (1 to 256 each) and the grid shrinks to ceil((nx-2)/(bx*px)) x\n"                      \
    "  ceil((ny-2)/(by*py)) x ceil((nz-2)/(bz*pz)); which points a thread takes is\n"         \
    "  up to the kernel (new-kernel laplace3d --from regq: {4, 1, 4}).\n"                      \
    "Write: v at every interior point (1 <= i <= nx-2, 1 <= j <= ny-2,\n"                    \
    "  1 <= k <= nz-2): the mean of its 6 neighbours in u. Leave the boundary\n"              \
    "  alone (kernelscope sets it in both fields) and read nothing outside u.\n"

#define KS_LAPLACE3D_STARTER                                                                       \
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n"   \
    "{\n"                                                                                          \
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"                             \
    "    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;\n"                             \
    "    const int k = blockIdx.z * blockDim.z + threadIdx.z + 1;\n"                             \
    "    if (i > nx - 2 || j > ny - 2 || k > nz - 2) return; /* past the interior */\n"         \
    "    const size_t sy = nx, sz = (size_t)nx * ny;\n"                                          \
    "    const size_t p = i + j * sy + k * sz;\n"                                                \
    "    v[p] = (u[p - 1] + u[p + 1] + u[p - sy] + u[p + sy] + u[p - sz] + u[p + sz]) *\n"      \
    "           (1.0f / 6.0f);\n"                                                                \
    "}\n"

#define KS_LAPLACE2D_CONTRACT                                                                      \
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny)\n"           \
    "u: the field now, v: the next one; nx*ny floats each, point (i,j) at i + j*nx\n"         \
    "  (i fastest).\n"                                                                          \
    "Launch: your block (bx,by) (--block, default 32x8); the grid covers the\n"                \
    "  interior, ceil((nx-2)/bx) x ceil((ny-2)/by) blocks, so thread (x,y) of the\n"          \
    "  launch is point (x+1, y+1); no dynamic shared memory.\n"                                \
    "More points a thread (optional): declare\n"                                               \
    "  extern \"C\" __constant__ int kernelscope_points_per_thread[3] = {px, py, 1};\n"       \
    "  (1 to 256) and the grid shrinks to ceil((nx-2)/(bx*px)) x ceil((ny-2)/(by*py));\n"     \
    "  which points a thread takes is up to the kernel.\n"                                     \
    "Write: v at every interior point (1 <= i <= nx-2, 1 <= j <= ny-2): the mean\n"          \
    "  of its 4 neighbours in u. Leave the boundary alone (kernelscope sets it in\n"          \
    "  both fields) and read nothing outside u.\n"

#define KS_LAPLACE2D_STARTER                                                                       \
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny)\n"           \
    "{\n"                                                                                          \
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"                             \
    "    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;\n"                             \
    "    if (i > nx - 2 || j > ny - 2) return; /* past the interior */\n"                        \
    "    const size_t p = i + (size_t)j * nx;\n"                                                 \
    "    v[p] = (u[p - 1] + u[p + 1] + u[p - nx] + u[p + nx]) * 0.25f;\n"                        \
    "}\n"

#endif
