// Where the bins sit decides how fast one global atomic a byte goes: the memory-model slides'
// first histogram (examples/course/histo_global.cu, a thread a byte, atomicAdd on 256 global
// bins) timed with its 1 KB of bins at each offset in a larger allocation, on the same uniform
// random bytes. On a GPU whose L2 is split in partitions (Hopper: two), the lines of the bins
// live in L2 slices chosen by a hash of their address; the atomics all go to those slices.
//   nvcc -O3 -arch=native -o placement scripts/histogram-bins-placement.cu && ./placement [N] [OFFSETS] [STEP]
// prints "offset_bytes median_ms" for OFFSETS offsets STEP bytes apart (default 64 x 1024).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../examples/course/histo_global.cu"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const long long n = argc > 1 ? atoll(argv[1]) : 104857600;
    const int offsets = argc > 2 ? atoi(argv[2]) : 64;
    const long long step = argc > 3 ? atoll(argv[3]) : 1024;
    if (n <= 0 || offsets <= 0 || step < 4 || step % 4) {
        std::fprintf(stderr, "usage: placement [BYTES] [OFFSETS] [STEP (a multiple of 4)]\n");
        return 2;
    }
    std::vector<unsigned char> host(n);
    unsigned long long s = 0x9E3779B97F4A7C15ull; // uniform random bytes (xorshift64), as course-timing.sh
    for (long long i = 0; i < n; ++i) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        host[i] = (unsigned char)(s >> 56);
    }
    unsigned char *data;
    unsigned int *pool;
    const size_t pool_bytes = (size_t)offsets * step + 256 * sizeof(unsigned);
    CHECK(cudaMalloc(&data, n));
    CHECK(cudaMalloc(&pool, pool_bytes));
    CHECK(cudaMemcpy(data, host.data(), n, cudaMemcpyHostToDevice));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    const unsigned block = 256, grid = (unsigned)((n + block - 1) / block);
    std::vector<unsigned> got(256);
    for (int o = 0; o < offsets; ++o) {
        unsigned *bins = pool + o * (step / 4);
        std::vector<float> ms;
        for (int r = -2; r < 7; ++r) {
            CHECK(cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned)));
            CHECK(cudaEventRecord(t0));
            histoNoSharedMem<<<grid, block>>>(data, n, bins);
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float m = 0;
            CHECK(cudaEventElapsedTime(&m, t0, t1));
            if (r >= 0) ms.push_back(m);
        }
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
        long long total = 0;
        for (unsigned c : got) total += c;
        if (total != n) {
            std::fprintf(stderr, "offset %lld: the bins hold %lld bytes, not %lld\n", o * step, total, n);
            return 1;
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%lld %.4f %p\n", o * step, ms[ms.size() / 2], (void *)bins);
    }
    return 0;
}
