// The memory-model slides' first GPU histogram: a thread a byte, one atomicAdd
// on the global bins each. The slides' bins are the histogram scene's bytes
// mode as it is (256 unsigned ints, one a byte value), its buffer the input's
// bytes, its `long size` the byte count: nothing changes but the line below,
// which names the arguments in the function's order and types the size as a
// long (8 bytes). The grid covers the bytes, ceil(n / block) blocks, at your
// --block. Its index is an int, so it is right for inputs below 2^31 bytes.
//   kernelscope histogram --kernel-file histo_global.cu --size 100M --block 256x1
// kernelscope: histoNoSharedMem(data, long n, bins) grid=cover

__global__ void histoNoSharedMem( unsigned char *buffer,
                                   long size,
                                   unsigned int *histo ) {
    // calculate the starting index and the offset to the next
    // block that each thread will be processing
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < size)
        atomicAdd( &histo[buffer[i]], 1 );
}
