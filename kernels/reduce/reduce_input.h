/* The input formula shared by the CPU (reduce_gold.c) and the GPU fill kernel
 * (reduce_gpu.cu): a splitmix64 hash of (seed, index), integer operations only,
 * so both sides produce the same floats bit for bit. Internal to kernels/reduce. */
#ifndef KS_REDUCE_INPUT_H
#define KS_REDUCE_INPUT_H

#include <stdint.h>

#if defined(__CUDACC__)
#define KS_REDUCE_HD __host__ __device__
#else
#define KS_REDUCE_HD
#endif

static inline KS_REDUCE_HD uint64_t ks_reduce_hash(unsigned seed, long long i)
{
    uint64_t z = ((uint64_t)seed << 32) ^ (uint64_t)i; /* i < 2^31: no two pairs collide */
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* integer != 0: +-1..8; otherwise (2m + 1 - 2^24) * 2^-24 for a 24-bit m: an odd
 * multiple of 2^-24 in (-1, 1), never 0, exact in float32 (|2m+1-2^24| < 2^24). */
static inline KS_REDUCE_HD float ks_reduce_value(int integer, unsigned seed, long long i)
{
    const uint64_t h = ks_reduce_hash(seed, i);
    if (integer) {
        const int k = (int)((h >> 32) & 15u);
        return (float)(k < 8 ? k - 8 : k - 7);
    }
    const int m = (int)(h >> 40); /* 24 bits */
    return (float)(2 * m + 1 - (1 << 24)) * (1.0f / 16777216.0f);
}

#endif
