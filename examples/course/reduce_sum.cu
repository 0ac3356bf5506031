// Lecture 4's local reduction, as the course writes it: each block copies one
// float a thread into shared memory sized at launch (extern __shared__), adds
// them in a tree that halves at every level, and its first thread writes the
// block's partial sum into d_sum[blockIdx.x]; the course then adds the
// partials on the host. The kernel has no size argument and no bound test, so
// it is right only at sizes that are multiples of its block (a power of two,
// for the tree): it declares `multiple`, and kernelscope checks and times it
// only at such sizes. kernelscope adds the partials into the sum itself, on
// the GPU, in a second launch timed with it. Only the line below is added:
//   kernelscope reduce --kernel-file reduce_sum.cu --size 16M --block 256x1
// kernelscope: sum(partials, x) grid=cover shared=4*threads multiple

__global__ void sum(float *d_sum, float *d_data)
{
    extern __shared__ float temp[];
    int tid = threadIdx.x;

    temp[tid] = d_data[tid+blockIdx.x*blockDim.x];

    for (int d=blockDim.x/2; d>0; d=d/2) {
        __syncthreads();
        if (tid<d) temp[tid] += temp[tid+d];
    }

    if (tid==0) d_sum[blockIdx.x] = temp[0];
}
