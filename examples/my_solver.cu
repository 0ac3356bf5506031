// A user's own CUDA solver watched with kernelscope's library: 2D Jacobi on the GPU, the field
// shown every iteration from device memory on the solver's own stream (kernelscope samples it
// there and copies only the picture back, without waiting), and the page's
// Q key honoured.
//
//   nvcc -O2 examples/my_solver.cu $(pkg-config --cflags --libs kernelscope) -o my_solver
//   ./my_solver [N] [ITERATIONS]          prints the page's URL; open it in a browser
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <kernelscope.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "my_solver: %s: %s\n", #call, cudaGetErrorString(e_));           \
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

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048, iterations = argc > 2 ? std::atoi(argv[2]) : 100000;
    if (n < 3 || iterations < 1) {
        std::fprintf(stderr, "usage: my_solver [N >= 3] [ITERATIONS >= 1]\n");
        return 2;
    }
    std::vector<float> start((size_t)n * n, 0.0f);
    for (int i = 0; i < n; ++i) start[(size_t)(n - 1) * n + i] = 1.0f; // a hot top edge
    float *u = nullptr, *v = nullptr;
    CHECK(cudaMalloc(&u, start.size() * sizeof(float)));
    CHECK(cudaMalloc(&v, start.size() * sizeof(float)));
    CHECK(cudaMemcpy(u, start.data(), start.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(v, start.data(), start.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    ks_viewer *viewer = nullptr;
    ks_viewer_desc d = {};
    d.serve = "127.0.0.1:0";
    d.title = "my_solver";
    d.colormap = "inferno";
    d.range[1] = 1.0;
    if (ks_viewer_create(&d, &viewer) != KS_VIEWER_OK) {
        std::fprintf(stderr, "my_solver: %s\n", ks_viewer_last_error());
        return 1;
    }
    std::printf("my_solver: open %s\n", ks_viewer_url(viewer));
    std::fflush(stdout);

    const dim3 block(32, 8), grid((n - 2 + 31) / 32, (n - 2 + 7) / 8);
    for (int it = 0; it < iterations; ++it) {
        jacobi<<<grid, block, 0, stream>>>(u, v, n);
        CHECK(cudaPeekAtLastError());
        std::swap(u, v);
        ks_viewer_field f = {};
        f.data = u;
        f.memory = KS_VIEWER_DEVICE;
        f.stream = stream;
        f.dims = 2;
        f.size[0] = n;
        f.size[1] = n;
        if (ks_viewer_show(viewer, &f) != KS_VIEWER_OK) {
            std::fprintf(stderr, "my_solver: %s\n", ks_viewer_last_error());
            return 1;
        }
        ks_viewer_input in;
        ks_viewer_poll(viewer, &in);
        if (in.quit) break;
    }
    CHECK(cudaStreamSynchronize(stream));
    const int st = ks_viewer_close(viewer);
    if (st != KS_VIEWER_OK) std::fprintf(stderr, "my_solver: %s\n", ks_viewer_last_error());
    cudaFree(u);
    cudaFree(v);
    cudaStreamDestroy(stream);
    return st == KS_VIEWER_OK ? 0 : 1;
}
