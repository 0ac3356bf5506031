/* SGEMM perf harness (an executable, not a test): regtile in every tile shape
 * (kernels/matmul/matmul_tiles.h, matmul_regtile.cu) against cuBLAS SGEMM in
 * plain FP32, and the scene's regtile (the shape its context chose), at each
 * size (M = N = K).
 * Each configuration is first checked against cuBLAS on random non-zero data
 * (C poisoned with NaN first): ||C - C_cublas|| / ||C_cublas|| < 1e-5. Times:
 * CUDA events between back-to-back launches after 3 warm-ups, the median of
 * --reps (default 21) launches; the same for cuBLAS in the same run.
 * Usage: perf_sgemm [--sizes 1024,2048,4096,8192] [--reps N] [--configs a,b]
 * Prints: device; each config's registers, local memory, shared memory and
 * occupancy; per size a table (config, ms, TFLOP/s, ratio to cuBLAS, error);
 * BEST lines; the shape the scene chose and how (its table, else a tune). Exit 77: no GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "base/ks_error.h"
#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_launch.h"
#include "kernels/matmul/matmul_tiles.h"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "perf_sgemm: %s: %s\n", #x, cudaGetErrorString(e_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CB(x)                                                                                      \
    do {                                                                                           \
        cublasStatus_t s_ = (x);                                                                   \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "perf_sgemm: %s: %s\n", #x, cublasGetStatusString(s_));                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define KS(x)                                                                                      \
    do {                                                                                           \
        if ((x) != KS_OK) {                                                                        \
            fprintf(stderr, "perf_sgemm: %s\n", ks_error_message());                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { MAX_REPS = 401, MAX_CFG = 32 };

/* Uniform in [-1, 1), never 0: (k + 1/2) 2^-23 - 1 with k < 2^24. */
__global__ void fill_kernel(float *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        p[i] = ((float)(z >> 40) + 0.5f) * (1.0f / 8388608.0f) - 1.0f;
    }
}

/* sums of (c - r)^2 and r^2 in double; NaN in c makes the first NaN */
__global__ void diff_kernel(const float *c, const float *r, size_t n, double *out)
{
    double d = 0.0, s = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const double e = (double)c[i] - (double)r[i];
        d += e * e;
        s += (double)r[i] * (double)r[i];
    }
    for (int o = 16; o > 0; o >>= 1) {
        d += __shfl_down_sync(0xffffffffu, d, o);
        s += __shfl_down_sync(0xffffffffu, s, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(out, d);
        atomicAdd(out + 1, s);
    }
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct ctx {
    cublasHandle_t blas;
    cudaStream_t stream;
    float *a, *b, *c, *ref;
    double *diff;
    int m, n, k; /* C is m x n, the inner dimension k */
    cudaEvent_t ev[MAX_REPS + 1];
} ctx;

static void run_one(ctx *x, int cfg) /* cfg < 0: cuBLAS */
{
    if (cfg < 0) {
        /* row-major C = A B is column-major C^T = B^T A^T */
        const float one = 1.0f, zero = 0.0f;
        CB(cublasSgemm(x->blas, CUBLAS_OP_N, CUBLAS_OP_N, x->n, x->m, x->k, &one, x->b, x->n, x->a, x->k, &zero, x->c,
                       x->n));
    } else {
        const ks_matmul_size s = {x->m, x->n, x->k};
        KS(ks_matmul_rt_run(cfg, x->a, x->b, x->c, &s, NULL, x->stream));
    }
}

/* median ms of reps back-to-back launches, after 3 warm-ups */
static double time_one(ctx *x, int cfg, int reps)
{
    for (int w = 0; w < 3; ++w) run_one(x, cfg);
    CK(cudaEventRecord(x->ev[0], x->stream));
    for (int r = 0; r < reps; ++r) {
        run_one(x, cfg);
        CK(cudaEventRecord(x->ev[r + 1], x->stream));
    }
    CK(cudaEventSynchronize(x->ev[reps]));
    CK(cudaGetLastError());
    float ms[MAX_REPS];
    for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], x->ev[r], x->ev[r + 1]));
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    return ms[reps / 2];
}

static double check_one(ctx *x, int cfg)
{
    const size_t nn = (size_t)x->m * x->n;
    CK(cudaMemsetAsync(x->c, 0xff, nn * sizeof(float), x->stream)); /* NaN */
    run_one(x, cfg);
    CK(cudaMemsetAsync(x->diff, 0, 2 * sizeof(double), x->stream));
    diff_kernel<<<1024, 256, 0, x->stream>>>(x->c, x->ref, nn, x->diff);
    CK(cudaGetLastError());
    double h[2];
    CK(cudaMemcpyAsync(h, x->diff, sizeof h, cudaMemcpyDeviceToHost, x->stream));
    CK(cudaStreamSynchronize(x->stream));
    return sqrt(h[0]) / sqrt(h[1]);
}

int main(int argc, char **argv)
{
    int sizes[8] = {1024, 2048, 4096, 8192}, nsizes = 4, reps = 21;
    char only[512] = "";
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--sizes") == 0 && a + 1 < argc) {
            nsizes = 0;
            for (char *tok = strtok(argv[++a], ","); tok && nsizes < 8; tok = strtok(NULL, ","))
                sizes[nsizes++] = atoi(tok);
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--configs") == 0 && a + 1 < argc) {
            snprintf(only, sizeof only, ",%s,", argv[++a]);
        } else {
            fprintf(stderr, "usage: perf_sgemm [--sizes a,b,..] [--reps N] [--configs name,..]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || nsizes < 1) {
        fprintf(stderr, "perf_sgemm: --reps 1..%d and at least one size\n", MAX_REPS);
        return 2;
    }
    for (int s = 0; s < nsizes; ++s)
        if (sizes[s] < 4 || sizes[s] % 4 != 0 || sizes[s] > 16384) {
            fprintf(stderr, "perf_sgemm: size %d (a multiple of 4, 4..16384)\n", sizes[s]);
            return 2;
        }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "perf_sgemm: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("device: %s, cc %d.%d, %d SMs, max SM clock %d MHz; FP32 FMA peak %.1f TFLOP/s (128 lanes/SM)\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
           2.0 * 128 * prop.multiProcessorCount * clock_khz * 1e3 / 1e12);

    ctx x;
    memset(&x, 0, sizeof x);
    CK(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking));
    CB(cublasCreate(&x.blas));
    CB(cublasSetStream(x.blas, x.stream));
    /* plain FP32: no tensor cores, no TF32, no reduced-precision reductions */
    CB(cublasSetMathMode(x.blas, CUBLAS_PEDANTIC_MATH));
    cublasMath_t mode;
    CB(cublasGetMathMode(x.blas, &mode));
    int ver = 0;
    CB(cublasGetVersion(x.blas, &ver));
    printf("cuBLAS %d: cublasSgemm, math mode %s (plain FP32, no TF32)\n", ver,
           mode == CUBLAS_PEDANTIC_MATH ? "CUBLAS_PEDANTIC_MATH" : "NOT PEDANTIC");
    for (int r = 0; r <= MAX_REPS; ++r) CK(cudaEventCreate(&x.ev[r]));
    KS(ks_matmul_rt_prepare());

    const int ncfg = ks_matmul_rt_count();
    int use[MAX_CFG];
    printf("%-28s %5s %6s %7s %9s %9s\n", "config", "regs", "local", "smem", "blocks/SM", "warps/SM");
    for (int i = 0; i < ncfg && i < MAX_CFG; ++i) {
        const ks_matmul_rt_config *cf = ks_matmul_rt_get(i);
        char key[96];
        snprintf(key, sizeof key, ",%s,", cf->name);
        use[i] = only[0] == '\0' || strstr(only, key) != NULL;
        ks_matmul_rt_attrs at;
        KS(ks_matmul_rt_attrs_get(i, &at));
        printf("%-28s %5d %6d %7d %9d %9d\n", cf->name, at.regs, at.local_bytes, at.smem_bytes, at.blocks_per_sm,
               at.warps_per_sm);
    }

    int maxn = 0;
    for (int s = 0; s < nsizes; ++s) maxn = sizes[s] > maxn ? sizes[s] : maxn;
    const size_t cap = (size_t)maxn * maxn;
    CK(cudaMalloc((void **)&x.a, cap * sizeof(float)));
    CK(cudaMalloc((void **)&x.b, cap * sizeof(float)));
    CK(cudaMalloc((void **)&x.c, cap * sizeof(float)));
    CK(cudaMalloc((void **)&x.ref, cap * sizeof(float)));
    CK(cudaMalloc((void **)&x.diff, 2 * sizeof(double)));
    ks_matmul_gpu *scene = NULL;
    KS(ks_matmul_gpu_create(&scene));

    int fails = 0;
    { /* shapes that are no multiple of any tile: the zero-filled edges and masked stores */
        const int shapes[][3] = {{300, 260, 68}, {129, 132, 36}, {64, 8, 4}, {1, 4, 1028}};
        int edge_fails = 0;
        for (size_t e = 0; e < sizeof shapes / sizeof shapes[0]; ++e) {
            x.m = shapes[e][0];
            x.n = shapes[e][1];
            x.k = shapes[e][2];
            fill_kernel<<<256, 256, 0, x.stream>>>(x.a, (size_t)x.m * x.k, 11u + (unsigned)e);
            fill_kernel<<<256, 256, 0, x.stream>>>(x.b, (size_t)x.k * x.n, 22u + (unsigned)e);
            run_one(&x, -1);
            CK(cudaMemcpyAsync(x.ref, x.c, (size_t)x.m * x.n * sizeof(float), cudaMemcpyDeviceToDevice, x.stream));
            for (int i = 0; i < ncfg; ++i) {
                const double err = check_one(&x, i);
                if (!(err < 1e-5)) {
                    printf("WRONG %s at %dx%dx%d: rel err %.2e\n", ks_matmul_rt_get(i)->name, x.m, x.n, x.k, err);
                    ++edge_fails;
                }
            }
        }
        printf("edge shapes (300x260x68, 129x132x36, 64x8x4, 1x4x1028): %s\n",
               edge_fails ? "SOME CONFIGS WRONG" : "every config agrees with cuBLAS");
        fails += edge_fails;
    }
    for (int s = 0; s < nsizes; ++s) {
        const int n = sizes[s];
        x.m = x.n = x.k = n;
        const size_t nn = (size_t)n * n;
        fill_kernel<<<2048, 256, 0, x.stream>>>(x.a, nn, 1234u + (unsigned)n);
        fill_kernel<<<2048, 256, 0, x.stream>>>(x.b, nn, 98765u + (unsigned)n);
        CK(cudaGetLastError());
        run_one(&x, -1);
        CK(cudaMemcpyAsync(x.ref, x.c, nn * sizeof(float), cudaMemcpyDeviceToDevice, x.stream));
        CK(cudaStreamSynchronize(x.stream));
        const double flop = 2.0 * n * (double)n * n;
        const double cublas_ms = time_one(&x, -1, reps);
        printf("\n# %d^3: cuBLAS %.4f ms %.2f TFLOP/s (median of %d back-to-back launches)\n", n, cublas_ms,
               flop / cublas_ms / 1e9, reps);
        printf("%-6s %-28s %9s %8s %7s %9s\n", "size", "config", "ms", "TFLOP/s", "x_cublas", "rel_err");
        /* the scene's regtile on its own (exact, formula) inputs, timed by its own API */
        ks_matmul_size ms = {n, n, n};
        ks_timing_opts warm = {};
        warm.cache = KS_CACHE_WARM;
        warm.reps = reps;
        warm.warmup = 3;
        ks_timing rt;
        ks_matmul_rt_choice chosen;
        char how[128] = "";
        if (ks_matmul_gpu_setup(scene, &ms) == KS_OK && ks_matmul_gpu_regtile(scene, &chosen) == KS_OK &&
            ks_matmul_gpu_time(scene, KS_MATMUL_REGTILE, 0, &warm, &rt) == KS_OK) {
            ks_matmul_rt_choice_text(&chosen, how, sizeof how);
            printf("%-6d %-28s %9.4f %8.2f %7.3f %9s  %s\n", n, "regtile (scene)", rt.median_ms, flop / rt.median_ms / 1e9,
                   cublas_ms / rt.median_ms, "-", how);
        } else {
            printf("%-6d %-28s failed: %s\n", n, "regtile (scene)", ks_error_message());
        }
        int best = -1;
        double best_ms = 0.0;
        for (int i = 0; i < ncfg; ++i) {
            if (!use[i]) continue;
            const ks_matmul_rt_config *cf = ks_matmul_rt_get(i);
            if (!cf->vec) continue; /* the any-shape instance: checked on the edge shapes above */
            const double err = check_one(&x, i);
            const int ok = err < 1e-5; /* NaN fails */
            const double t = time_one(&x, i, reps); /* timed even when wrong: the table marks it */
            printf("%-6d %-28s %9.4f %8.2f %7.3f %9.2e%s\n", n, cf->name, t, flop / t / 1e9, cublas_ms / t, err,
                   ok ? "" : "  WRONG");
            if (!ok) ++fails;
            if (ok && (best < 0 || t < best_ms)) {
                best = i;
                best_ms = t;
            }
        }
        ks_matmul_rt_choice tuned;
        KS(ks_matmul_rt_tune(x.a, x.b, x.c, &ms, x.stream, &tuned));
        if (best >= 0)
            printf("BEST %d %s %.4f ms %.2f TFLOP/s %.3f x cuBLAS (%.4f ms); scene: %s; tune: %s\n", n,
                   ks_matmul_rt_get(best)->name, best_ms, flop / best_ms / 1e9, cublas_ms / best_ms, cublas_ms, how,
                   ks_matmul_rt_get(tuned.config)->name);
        fflush(stdout);
    }
    ks_matmul_gpu_destroy(scene);
    cublasDestroy(x.blas);
    printf("\ncheck: %s\n", fails ? "SOME CONFIGS WRONG" : "every config agrees with cuBLAS (rel err < 1e-5)");
    return fails ? 1 : 0;
}
