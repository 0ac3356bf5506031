// Practical 3's first style, as the course launches it: 2D thread blocks
// over every (i, j) column of the whole grid, each thread marching in k over
// all NZ planes and copying the boundary points it meets. Only the line below
// is added for kernelscope:
//   kernelscope laplace3d --kernel-file laplace3d_kmarch.cu
// kernelscope: GPU_laplace3d(long long nx, long long ny, long long nz, u, v) grid=columns block=BLOCK_X,BLOCK_Y

#define BLOCK_X 32
#define BLOCK_Y 4

__global__ void GPU_laplace3d(long long NX, long long NY, long long NZ, const float *__restrict__ d_u1,
                              float *__restrict__ d_u2)
{
    const long long i = threadIdx.x + blockIdx.x * BLOCK_X;
    const long long j = threadIdx.y + blockIdx.y * BLOCK_Y;
    if (i >= NX || j >= NY) return;
    const long long KOFF = NX * NY;
    long long indg = i + j * NX;
    const float sixth = 1.0f / 6.0f;
    for (long long k = 0; k < NZ; k++) {
        float u2;
        if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1 || k == 0 || k == NZ - 1) {
            u2 = d_u1[indg]; // a boundary point keeps its value
        } else {
            u2 = (d_u1[indg - 1] + d_u1[indg + 1] + d_u1[indg - NX] + d_u1[indg + NX] + d_u1[indg - KOFF] +
                  d_u1[indg + KOFF]) *
                 sixth;
        }
        d_u2[indg] = u2;
        indg += KOFF;
    }
}
