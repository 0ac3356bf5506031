// The memory-model slides' shared-memory histogram: each block counts its
// bytes of a grid-stride loop into 256 bins of (static) shared memory, then
// adds them to the global bins, thread t bin t. It needs exactly 256 threads
// a block, one a bin, and is meant for a few blocks a multiprocessor: the
// line fixes block=256 and two blocks a multiprocessor (grid=sm:2), whatever
// --block says. Bins, input and size as in histo_global.cu; an int index, so
// inputs below 2^31 bytes. Only the line below is added:
//   kernelscope histogram --kernel-file histo_shared.cu --size 100M
// kernelscope: histo_kernel(data, long n, bins) grid=sm:2 block=256

__global__ void histo_kernel( unsigned char *buffer,
                               long size, unsigned int *histo ) {

    // clear out the accumulation buffer temp
    __shared__ unsigned int temp[256];
    temp[threadIdx.x] = 0;
    __syncthreads();
    // calculate the starting index and the offset to the next
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &temp[buffer[i]], 1 );//atomic on shared mem
        i += stride;
    }
    // sync the data from the above writes to shared memory
    __syncthreads();
    //256 threads and 256 bins
    atomicAdd( &(histo[threadIdx.x]), temp[threadIdx.x] );
}
