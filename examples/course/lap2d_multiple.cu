// Lecture 3's first 2D Laplace kernel: one point a thread over the whole grid,
// with no test that a thread is inside it, so it assumes the sizes are
// multiples of its block; `multiple` says so, and kernelscope runs it only at
// such sizes. Only the line below is added for kernelscope:
//   kernelscope laplace2d --kernel-file lap2d_multiple.cu --grid 1024x1024 --block 32x8
// kernelscope: lap(int nx, int ny, u, v) grid=domain multiple

__global__ void lap(int I, int J, const float *__restrict__ u1, float *__restrict__ u2)
{
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    const int j = threadIdx.y + blockIdx.y * blockDim.y;
    const int id = i + j * I;
    if (i == 0 || i == I - 1 || j == 0 || j == J - 1) {
        u2[id] = u1[id]; // the boundary keeps its values
    } else {
        u2[id] = 0.25f * (u1[id - 1] + u1[id + 1] + u1[id - I] + u1[id + I]);
    }
}
