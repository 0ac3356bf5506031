/* regq perf harness (an executable, not a test): the candidates of
 * kernels/laplace/regq_fast.h (and "ref", regq's own body with the chunk as a
 * parameter) over block shapes and k chunks, against T_peak, at 512^3 and
 * 1024^3; the library's regq (ks_lsolver_time, default block) in the same run.
 * Every candidate is first checked bit for bit against a CPU step of its own
 * (the gold's order: ((((xm + xp) + ym) + yp) + zm) + zp, times 1/6) on small
 * grids with random interior and boundary values, at several blocks and
 * chunks, out's interior poisoned with NaN; then at full size against "ref".
 * T_peak: cudaMemcpyAsync device to device of the field, (read + write bytes) /
 * median time. T_eff = 2 x field bytes / time (docs/laplace-perf.md's model:
 * the field read once and written once). Times: median of --reps (default 15)
 * back-to-back launches between CUDA events after 2 warm-ups.
 * Usage: perf_regq [--sizes 512,1024] [--reps N] [--quick]
 *        perf_regq --profile SIZE NAME BXxBY CHUNK   (Nsight Compute: 3 launches of one
 *        candidate, or NAME lib: 3 iterations of the library's regq at that block)
 * Prints BEST SIZE NAME BLOCK CHUNK lines. Exit 77: no GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "base/ks_error.h"
#include "kernels/laplace/laplace.h"
#include "kernels/laplace/regq_fast.h"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "perf_regq: %s: %s\n", #x, cudaGetErrorString(e_));                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define KS(x)                                                                                      \
    do {                                                                                           \
        if ((x) != KS_OK) {                                                                        \
            fprintf(stderr, "perf_regq: %s\n", ks_error_message());                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { MAX_REPS = 101 };

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* values in [0.5, 1.5): a hash of the index (the same on host and device) */
__host__ __device__ static inline float field_value(size_t i, unsigned seed)
{
    unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return 0.5f + (float)(z >> 40) * (1.0f / 16777216.0f);
}

__global__ void fill_kernel(float *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = field_value(i, seed);
}

/* interior points of a and b that differ bitwise */
__global__ void diff_kernel(const float *a, const float *b, int nx, int ny, int nz, unsigned long long *bad)
{
    const size_t n = (size_t)nx * ny * nz;
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const int x = (int)(i % nx), y = (int)(i / nx % ny), z = (int)(i / ((size_t)nx * ny));
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) continue;
        mine += __float_as_uint(a[i]) != __float_as_uint(b[i]);
    }
    if (mine) atomicAdd(bad, mine);
}

/* interior to NaN, boundary from src */
__global__ void poison_kernel(float *dst, const float *src, int nx, int ny, int nz)
{
    const size_t n = (size_t)nx * ny * nz;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const int x = (int)(i % nx), y = (int)(i / nx % ny), z = (int)(i / ((size_t)nx * ny));
        const bool edge = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
        dst[i] = edge ? src[i] : __int_as_float(0x7fffffff);
    }
}

/* The CPU step, in the gold's order (no contraction: each operation rounds). */
static void cpu_step(const float *u, float *o, int nx, int ny, int nz)
{
    const size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    memcpy(o, u, sz * nz * sizeof(float));
    for (int k = 1; k < nz - 1; ++k)
        for (int j = 1; j < ny - 1; ++j)
            for (int i = 1; i < nx - 1; ++i) {
                const size_t p = (size_t)i + j * sy + k * sz;
                volatile float s = u[p - 1] + u[p + 1];
                s = s + u[p - sy];
                s = s + u[p + sy];
                s = s + u[p - sz];
                s = s + u[p + sz];
                o[p] = s * (1.0f / 6.0f);
            }
}

typedef struct fields {
    int n;
    size_t elems, bytes;
    float *in, *out, *ref;
    unsigned long long *bad;
    cudaStream_t stream;
    cudaEvent_t ev[MAX_REPS + 1];
} fields;

static double time_cfg(fields *f, int v, int bx, int by, int chunk, int reps)
{
    for (int w = 0; w < 2; ++w) KS(ks_lrq_run(v, f->in, f->out, f->n, f->n, f->n, bx, by, chunk, f->stream));
    CK(cudaEventRecord(f->ev[0], f->stream));
    for (int r = 0; r < reps; ++r) {
        KS(ks_lrq_run(v, f->in, f->out, f->n, f->n, f->n, bx, by, chunk, f->stream));
        CK(cudaEventRecord(f->ev[r + 1], f->stream));
    }
    CK(cudaEventSynchronize(f->ev[reps]));
    CK(cudaGetLastError());
    float ms[MAX_REPS];
    for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], f->ev[r], f->ev[r + 1]));
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    return ms[reps / 2];
}

static double copy_gbs(fields *f)
{
    float ms[21];
    for (int w = 0; w < 3; ++w) CK(cudaMemcpyAsync(f->out, f->in, f->bytes, cudaMemcpyDeviceToDevice, f->stream));
    for (int r = 0; r < 21; ++r) {
        CK(cudaEventRecord(f->ev[0], f->stream));
        CK(cudaMemcpyAsync(f->out, f->in, f->bytes, cudaMemcpyDeviceToDevice, f->stream));
        CK(cudaEventRecord(f->ev[1], f->stream));
        CK(cudaEventSynchronize(f->ev[1]));
        CK(cudaEventElapsedTime(&ms[r], f->ev[0], f->ev[1]));
    }
    qsort(ms, 21, sizeof ms[0], cmp_float);
    return 2.0 * (double)f->bytes / (ms[10] * 1e-3) / 1e9;
}

/* bitwise against the CPU step on small grids; returns the failures */
static int gold_checks(void)
{
    const int grids[][3] = {{64, 40, 36}, {128, 19, 23}, {36, 7, 9}, {1024, 5, 6}};
    const int blocks[][2] = {{32, 8}, {32, 4}, {64, 4}, {128, 2}, {24, 6}, {7, 5}, {256, 1}};
    const int chunks[] = {1, 3, 4, 16};
    int fails = 0, runs = 0;
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; ++g) {
        const int nx = grids[g][0], ny = grids[g][1], nz = grids[g][2];
        const size_t n = (size_t)nx * ny * nz;
        float *u = (float *)malloc(n * 4), *want = (float *)malloc(n * 4), *got = (float *)malloc(n * 4);
        if (!u || !want || !got) exit(1);
        for (size_t i = 0; i < n; ++i) u[i] = field_value(i, 4242u + (unsigned)g) * 2.0f - 2.0f; /* boundary too */
        cpu_step(u, want, nx, ny, nz);
        float *din, *dout;
        CK(cudaMalloc((void **)&din, n * 4));
        CK(cudaMalloc((void **)&dout, n * 4));
        CK(cudaMemcpy(din, u, n * 4, cudaMemcpyHostToDevice));
        for (int v = 0; v < ks_lrq_count(); ++v)
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b)
                for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; ++c) {
                    if (blocks[b][0] * blocks[b][1] > ks_lrq_get(v)->max_threads) continue;
                    poison_kernel<<<64, 256, 0, st>>>(dout, din, nx, ny, nz);
                    KS(ks_lrq_run(v, din, dout, nx, ny, nz, blocks[b][0], blocks[b][1], chunks[c], st));
                    CK(cudaMemcpyAsync(got, dout, n * 4, cudaMemcpyDeviceToHost, st));
                    CK(cudaStreamSynchronize(st));
                    ++runs;
                    if (memcmp(got, want, n * 4) != 0) {
                        ++fails;
                        printf("WRONG %s on %dx%dx%d, block %dx%d, chunk %d\n", ks_lrq_get(v)->name, nx, ny, nz,
                               blocks[b][0], blocks[b][1], chunks[c]);
                    }
                }
        CK(cudaFree(din));
        CK(cudaFree(dout));
        free(u);
        free(want);
        free(got);
    }
    CK(cudaStreamDestroy(st));
    printf("gold check: %d runs (every candidate x 4 grids x blocks x chunks 1, 3, 4, 16): %s\n", runs,
           fails ? "SOME WRONG" : "all bit for bit");
    return fails;
}

static void alloc_fields(fields *f, int n)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->elems = (size_t)n * n * n;
    f->bytes = f->elems * sizeof(float);
    CK(cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking));
    for (int r = 0; r <= MAX_REPS; ++r) CK(cudaEventCreate(&f->ev[r]));
    CK(cudaMalloc((void **)&f->in, f->bytes));
    CK(cudaMalloc((void **)&f->out, f->bytes));
    CK(cudaMalloc((void **)&f->bad, sizeof *f->bad));
    fill_kernel<<<4096, 256, 0, f->stream>>>(f->in, f->elems, 99u + (unsigned)n);
    CK(cudaMemcpyAsync(f->out, f->in, f->bytes, cudaMemcpyDeviceToDevice, f->stream));
    CK(cudaStreamSynchronize(f->stream));
}

static void free_fields(fields *f)
{
    cudaFree(f->in);
    cudaFree(f->out);
    cudaFree(f->ref);
    cudaFree(f->bad);
    for (int r = 0; r <= MAX_REPS; ++r) cudaEventDestroy(f->ev[r]);
    cudaStreamDestroy(f->stream);
}

/* The library's regq: ks_lsolver_time (its own timing: 7 reps of 10 iterations) on the
 * values of the device field `values` (profile_iters > 0: that many iterations, untimed). */
static double lib_ms(int n, const int blk[3], int profile_iters, const float *values)
{
    const ks_grid g = {3, n, n, n};
    const size_t elems = (size_t)n * n * n;
    float *host = (float *)malloc(elems * sizeof(float));
    if (!host) return -1.0;
    CK(cudaMemcpy(host, values, elems * sizeof(float), cudaMemcpyDeviceToHost));
    ks_lsolver *s = NULL;
    double ms = -1.0;
    const int id = ks_lvariant_find(3, "regq");
    if (ks_lsolver_create(&g, &s) == KS_OK && ks_lsolver_upload(s, host) == KS_OK) {
        if (profile_iters > 0) {
            if (ks_lsolver_iterate(s, id, blk, profile_iters) == KS_OK && ks_lsolver_wait(s) == KS_OK) ms = 0.0;
        } else {
            ks_timing_opts seven = {}; /* back to back, as the candidates */
            seven.cache = KS_CACHE_WARM;
            seven.reps = 7;
            ks_timing t;
            ms = ks_lsolver_time(s, id, blk, 10, &seven, &t) == KS_OK ? t.median_ms / 10 : -1.0;
        }
    }
    if (ms < 0.0) fprintf(stderr, "perf_regq: library regq: %s\n", ks_error_message());
    ks_lsolver_destroy(s);
    free(host);
    return ms;
}

int main(int argc, char **argv)
{
    int sizes[4] = {512, 1024}, nsizes = 2, reps = 15, quick = 0;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--profile") == 0 && a + 4 < argc) {
            const int n = atoi(argv[a + 1]), chunk = atoi(argv[a + 4]);
            const char *name = argv[a + 2];
            int bx = 0, by = 0;
            if (n < 16 || n % 4 != 0 || sscanf(argv[a + 3], "%dx%d", &bx, &by) != 2 || chunk < 1) {
                fprintf(stderr, "perf_regq: --profile SIZE NAME BXxBY CHUNK\n");
                return 2;
            }
            int count = 0;
            if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
            if (strcmp(name, "lib") == 0) {
                const int blk[3] = {bx, by, 1};
                fields f;
                alloc_fields(&f, n);
                const double r = lib_ms(n, blk, 3, f.in);
                free_fields(&f);
                return r < 0.0 ? 1 : 0;
            }
            const int v = ks_lrq_find(name);
            if (v < 0) {
                fprintf(stderr, "perf_regq: no candidate %s\n", name);
                return 2;
            }
            fields f;
            alloc_fields(&f, n);
            for (int r = 0; r < 3; ++r) KS(ks_lrq_run(v, f.in, f.out, n, n, n, bx, by, chunk, f.stream));
            CK(cudaStreamSynchronize(f.stream));
            free_fields(&f);
            return 0;
        }
        if (strcmp(argv[a], "--sizes") == 0 && a + 1 < argc) {
            nsizes = 0;
            for (char *tok = strtok(argv[++a], ","); tok && nsizes < 4; tok = strtok(NULL, ",")) sizes[nsizes++] = atoi(tok);
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: perf_regq [--sizes 512,1024] [--reps N] [--quick] | --profile SIZE NAME BXxBY CHUNK\n");
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || nsizes < 1) {
        fprintf(stderr, "perf_regq: --reps 1..%d\n", MAX_REPS);
        return 2;
    }
    for (int s = 0; s < nsizes; ++s)
        if (sizes[s] < 16 || sizes[s] % 4 != 0 || sizes[s] > 1536) {
            fprintf(stderr, "perf_regq: size %d (a multiple of 4, 16..1536)\n", sizes[s]);
            return 2;
        }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "perf_regq: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    printf("%-10s %5s %6s %9s  %s\n", "candidate", "regs", "local", "blocks/SM", "(32x8 block)");
    for (int v = 0; v < ks_lrq_count(); ++v) {
        int regs = 0, local = 0, bps = 0;
        KS(ks_lrq_attrs(v, 32, 8, &regs, &local, &bps));
        printf("%-10s %5d %6d %9d  %s\n", ks_lrq_get(v)->name, regs, local, bps, ks_lrq_get(v)->summary);
    }
    int fails = gold_checks();

    const int sweep_blocks[][2] = {{32, 4}, {32, 8}, {32, 16}, {64, 4}, {64, 8}, {128, 2}, {128, 4}};
    const int sweep_chunks[] = {2, 4, 8, 16};
    const int cand_blocks[][2] = {{32, 8}, {32, 4}, {64, 4}};
    const int cand_chunks[] = {4, 8};
    for (int s = 0; s < nsizes; ++s) {
        const int n = sizes[s];
        fields f;
        alloc_fields(&f, n);
        const double peak = copy_gbs(&f);
        const int lib_blk[3] = {32, 8, 1};
        const double lib = lib_ms(n, lib_blk, 0, f.in);
        const double model = 2.0 * (double)f.bytes;
        printf("\n# %d^3: T_peak %.1f GB/s (D2D copy of %.0f MiB); library regq 32x8: %.4f ms %.1f GB/s ratio %.3f\n", n,
               peak, f.bytes / 1048576.0, lib, model / (lib * 1e-3) / 1e9, model / (lib * 1e-3) / 1e9 / peak);
        /* the reference output at full size: ref, 32x8, chunk 4 */
        CK(cudaMalloc((void **)&f.ref, f.bytes));
        CK(cudaMemcpyAsync(f.ref, f.in, f.bytes, cudaMemcpyDeviceToDevice, f.stream));
        KS(ks_lrq_run(ks_lrq_find("ref"), f.in, f.ref, n, n, n, 32, 8, 4, f.stream));
        printf("%-6s %-10s %-7s %5s %9s %9s %7s %s\n", "size", "candidate", "block", "chunk", "ms", "GB/s", "ratio",
               "blocks/SM");
        double best_ms = 0.0;
        int best_v = -1, best_b[2] = {0, 0}, best_c = 0;
        for (int v = 0; v < ks_lrq_count(); ++v) {
            const int is_ref = strcmp(ks_lrq_get(v)->name, "ref") == 0;
            if (quick && !is_ref && v > 1) continue;
            /* at full size, bit for bit against ref */
            CK(cudaMemcpyAsync(f.out, f.in, f.bytes, cudaMemcpyDeviceToDevice, f.stream));
            KS(ks_lrq_run(v, f.in, f.out, n, n, n, 32, 8, 4, f.stream));
            CK(cudaMemsetAsync(f.bad, 0, sizeof *f.bad, f.stream));
            diff_kernel<<<4096, 256, 0, f.stream>>>(f.out, f.ref, n, n, n, f.bad);
            unsigned long long bad = 0;
            CK(cudaMemcpyAsync(&bad, f.bad, sizeof bad, cudaMemcpyDeviceToHost, f.stream));
            CK(cudaStreamSynchronize(f.stream));
            if (bad) { /* still timed: the table marks it */
                printf("WRONG %s at %d^3: %llu points differ from ref\n", ks_lrq_get(v)->name, n, bad);
                ++fails;
            }
            const int nb = is_ref ? (int)(sizeof sweep_blocks / sizeof sweep_blocks[0])
                                  : (int)(sizeof cand_blocks / sizeof cand_blocks[0]);
            const int nc = is_ref ? (int)(sizeof sweep_chunks / sizeof sweep_chunks[0])
                                  : (int)(sizeof cand_chunks / sizeof cand_chunks[0]);
            for (int b = 0; b < nb; ++b)
                for (int c = 0; c < nc; ++c) {
                    const int bx = is_ref ? sweep_blocks[b][0] : cand_blocks[b][0];
                    const int by = is_ref ? sweep_blocks[b][1] : cand_blocks[b][1];
                    const int chunk = is_ref ? sweep_chunks[c] : cand_chunks[c];
                    if (bx * by > ks_lrq_get(v)->max_threads) continue;
                    if (quick && (c > 1 || b > 2)) continue;
                    int regs = 0, local = 0, bps = 0;
                    KS(ks_lrq_attrs(v, bx, by, &regs, &local, &bps));
                    const double t = time_cfg(&f, v, bx, by, chunk, reps);
                    const double gbs = model / (t * 1e-3) / 1e9;
                    printf("%-6d %-10s %3dx%-3d %5d %9.4f %9.1f %7.3f %d%s\n", n, ks_lrq_get(v)->name, bx, by, chunk,
                           t, gbs, gbs / peak, bps, bad ? "  WRONG" : "");
                    if (!bad && (best_v < 0 || t < best_ms)) {
                        best_ms = t;
                        best_v = v;
                        best_b[0] = bx;
                        best_b[1] = by;
                        best_c = chunk;
                    }
                }
            fflush(stdout);
        }
        if (best_v >= 0)
            printf("BEST %d %s %dx%d %d %.4f ms ratio %.3f (library regq 32x8: %.3f)\n", n, ks_lrq_get(best_v)->name,
                   best_b[0], best_b[1], best_c, best_ms, model / (best_ms * 1e-3) / 1e9 / peak,
                   model / (lib * 1e-3) / 1e9 / peak);
        free_fields(&f);
    }
    printf("\ncheck: %s\n", fails ? "SOME CANDIDATES WRONG" : "every candidate bit for bit (gold and ref)");
    return fails ? 1 : 0;
}
