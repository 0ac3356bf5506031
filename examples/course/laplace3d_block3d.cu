// Practical 3's second style, as the course launches it: 3D thread blocks,
// one point a thread, the grid over the whole domain; boundary points are
// copied. Only the line below is added for kernelscope:
//   kernelscope laplace3d --kernel-file laplace3d_block3d.cu
// kernelscope: GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=domain block=BLOCK_X,BLOCK_Y,BLOCK_Z

#define BLOCK_X 16
#define BLOCK_Y 4
#define BLOCK_Z 4

__global__ void GPU_laplace3d(long long NX, long long NY, long long NZ, const float *__restrict__ d_u1,
                              float *__restrict__ d_u2)
{
    const long long i = threadIdx.x + blockIdx.x * BLOCK_X;
    const long long j = threadIdx.y + blockIdx.y * BLOCK_Y;
    const long long k = threadIdx.z + blockIdx.z * BLOCK_Z;
    if (i >= NX || j >= NY || k >= NZ) return;
    const long long indg = i + j * NX + k * NX * NY;
    if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1 || k == 0 || k == NZ - 1) {
        d_u2[indg] = d_u1[indg]; // a boundary point keeps its value
        return;
    }
    const long long KOFF = NX * NY;
    d_u2[indg] = (d_u1[indg - 1] + d_u1[indg + 1] + d_u1[indg - NX] + d_u1[indg + NX] + d_u1[indg - KOFF] +
                  d_u1[indg + KOFF]) *
                 (1.0f / 6.0f);
}
