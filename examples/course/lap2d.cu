// Lecture 3's second 2D Laplace kernel: as the first, with a test that a
// thread is inside the grid. The test comes after the boundary's, though: a
// thread past the last column on row 0 or J-1 (or past the last row on column
// 0 or I-1) still takes the boundary branch and writes another point, or past
// the end of u2. So it too is right only at sizes that are multiples of its
// block, and declares `multiple`. Only the line below is added for kernelscope:
//   kernelscope laplace2d --kernel-file lap2d.cu --grid 1024x1024 --block 32x8
// kernelscope: lap(int nx, int ny, u, v) grid=domain multiple

__global__ void lap(int I, int J, const float *__restrict__ u1, float *__restrict__ u2)
{
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    const int j = threadIdx.y + blockIdx.y * blockDim.y;
    const int id = i + j * I;
    if (i == 0 || i == I - 1 || j == 0 || j == J - 1) {
        u2[id] = u1[id]; // the boundary keeps its values
    } else if (i < I && j < J) {
        u2[id] = 0.25f * (u1[id - 1] + u1[id + 1] + u1[id - I] + u1[id + I]);
    }
}
