// The memory-model slides' second GPU histogram: the same global atomics in a
// grid-stride loop, so the grid no longer grows with the input. The slides do
// not give its launch; it runs here as the shared-memory version below is
// launched, two blocks of 256 threads a multiprocessor (grid=sm:2). Bins,
// input and size as in histo_global.cu; an int index, so inputs below 2^31
// bytes. Only the line below is added:
//   kernelscope histogram --kernel-file histo_stride.cu --size 100M
// kernelscope: histoNoSharedStride(data, long n, bins) grid=sm:2 block=256

__global__ void histoNoSharedStride( unsigned char *buffer,
                                     long size,
                                     unsigned int *histo ) {
    // calculate the starting index and the offset to the next
    // block that each thread will be processing
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = blockDim.x*gridDim.x;
    while (i < size){
        atomicAdd( &histo[buffer[i]], 1 );
        i+=stride;
    }
}
