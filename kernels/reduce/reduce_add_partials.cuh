/* The second pass of a declared reduce kernel that writes one partial a block
 * (kernel_decl.h's `partials`): the partials added into *out by a grid-stride
 * loop, a tree a block and one atomicAdd a block, in KS_RD_ADD_THREADS-thread
 * blocks of about four partials a thread. reduce_user.cu launches it after the
 * user's kernel, and scripts/course-timing.sh's reduce program includes this
 * file, so both time the same addition. Device code and a host helper only,
 * no kernelscope types. */
#ifndef KS_REDUCE_ADD_PARTIALS_CUH
#define KS_REDUCE_ADD_PARTIALS_CUH

enum { KS_RD_ADD_THREADS = 1024, KS_RD_ADD_MAX_BLOCKS = 1024 };

/* The blocks of the addition of n partials. */
static inline unsigned ks_rd_add_grid(long long n)
{
    const long long per_block = 4LL * KS_RD_ADD_THREADS, most = KS_RD_ADD_MAX_BLOCKS;
    const long long blocks = (n + per_block - 1) / per_block;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

static __global__ void ks_rd_add_partials(const float *partials, long long n, float *out)
{
    __shared__ float part[KS_RD_ADD_THREADS];
    float v = 0.0f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        v += partials[i];
    part[threadIdx.x] = v;
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d /= 2) {
        if (threadIdx.x < d) part[threadIdx.x] += part[threadIdx.x + d];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

#endif
