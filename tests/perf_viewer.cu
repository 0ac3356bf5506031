// The library's cost to a solver (issue targets in docs/library.md): a 2D Jacobi solver on its own
// stream, N x N float32, timed with CUDA events over ITERS iterations without the viewer and with
// ks_viewer_show of the device field after every iteration (the page served, 60 pictures a second
// at most), alternating ROUNDS times; prints the medians, the loss of throughput, and the host time
// of each show (median, p99, max).
//
//   perf_viewer [N] [ITERS] [ROUNDS]        default 16384 2000 5
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <kernelscope.h>
#include <time.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "perf_viewer: %s: %s\n", #call, cudaGetErrorString(e_));         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

__global__ void jacobi(const float *u, float *v, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > n - 2 || j > n - 2) return;
    const size_t p = (size_t)j * n + i;
    v[p] = 0.25f * (u[p - 1] + u[p + 1] + u[p - n] + u[p + n]);
}

static double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 16384, iters = argc > 2 ? std::atoi(argv[2]) : 2000,
              rounds = argc > 3 ? std::atoi(argv[3]) : 5;
    if (n < 3 || iters < 1 || rounds < 1) {
        std::fprintf(stderr, "usage: perf_viewer [N >= 3] [ITERS >= 1] [ROUNDS >= 1]\n");
        return 2;
    }
    float *u = nullptr, *v = nullptr;
    const size_t bytes = (size_t)n * n * sizeof(float);
    CHECK(cudaMalloc(&u, bytes));
    CHECK(cudaMalloc(&v, bytes));
    CHECK(cudaMemset(u, 0, bytes));
    CHECK(cudaMemset(v, 0, bytes));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    ks_viewer *viewer = nullptr;
    ks_viewer_desc d = {};
    d.serve = "127.0.0.1:0";
    d.title = "perf_viewer";
    if (ks_viewer_create(&d, &viewer) != KS_VIEWER_OK) {
        std::fprintf(stderr, "perf_viewer: %s\n", ks_viewer_last_error());
        return 1;
    }
    const dim3 block(32, 8), grid((n - 2 + 31) / 32, (n - 2 + 7) / 8);
    std::vector<double> plain, shown, show_us;
    for (int r = -1; r < rounds; ++r) { // round -1: warm-up of both
        for (int with = 0; with < 2; ++with) {
            CHECK(cudaEventRecord(t0, stream));
            for (int it = 0; it < iters; ++it) {
                jacobi<<<grid, block, 0, stream>>>(u, v, n);
                std::swap(u, v);
                if (!with) continue;
                ks_viewer_field f = {};
                f.data = u;
                f.memory = KS_VIEWER_DEVICE;
                f.stream = stream;
                f.dims = 2;
                f.size[0] = n;
                f.size[1] = n;
                const double a = now_us();
                if (ks_viewer_show(viewer, &f) != KS_VIEWER_OK) {
                    std::fprintf(stderr, "perf_viewer: %s\n", ks_viewer_last_error());
                    return 1;
                }
                if (r >= 0) show_us.push_back(now_us() - a);
            }
            CHECK(cudaPeekAtLastError());
            CHECK(cudaEventRecord(t1, stream));
            CHECK(cudaEventSynchronize(t1));
            float ms = 0.0f;
            CHECK(cudaEventElapsedTime(&ms, t0, t1));
            if (r >= 0) (with ? shown : plain).push_back(ms / iters);
        }
    }
    std::vector<double> sorted = show_us;
    std::sort(sorted.begin(), sorted.end());
    const double mp = median(plain), ms = median(shown);
    std::printf("perf_viewer: %dx%d float32, %d iterations x %d rounds on its own stream\n", n, n, iters, rounds);
    std::printf("  solver alone      %.4f ms/iteration (median of rounds)\n", mp);
    std::printf("  with show each    %.4f ms/iteration: %+.2f %% throughput lost\n", ms, 100.0 * (ms - mp) / mp);
    std::printf("  show host time    median %.2f us, p99 %.2f us, max %.2f us over %zu calls\n", median(show_us),
                sorted[sorted.size() * 99 / 100], sorted.back(), sorted.size());
    const int st = ks_viewer_close(viewer);
    cudaFree(u);
    cudaFree(v);
    return st == KS_VIEWER_OK ? 0 : 1;
}
