/* Perf harness for the Laplace variants (not a ctest test): measures T_peak
 * (event-timed device-to-device cudaMemcpyAsync of the field size, read +
 * write bytes), then for each grid x variant x block the median ms per
 * iteration (ks_lsolver_time), T_eff = 2 x field bytes / time and T_eff/T_peak.
 * tblock runs 40 iterations = 10 pure launches of 4 steps (ks_lsolver_time).
 * Usage: perf_laplace [--quick] [--only 2d|3d] [--variants a,b,...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernels/laplace/laplace.h"

typedef struct perf_set {
    const char *variant;
    int blocks[8][3];
    int nblocks;
    int iters;
} perf_set;

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* GB/s (1e9 B), counting bytes read + written; -1 on failure */
static double copy_gbs(size_t bytes, int reps)
{
    void *a = NULL, *b = NULL;
    cudaEvent_t e0, e1;
    float ms[64];
    if (reps > 64) reps = 64;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return -1.0;
    cudaMemset(a, 1, bytes);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int w = 0; w < 3; ++w) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0);
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms[r], e0, e1);
    }
    qsort(ms, (size_t)reps, sizeof(float), cmp_float);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    if (cudaGetLastError() != cudaSuccess) return -1.0;
    return 2.0 * (double)bytes / (ms[reps / 2] * 1e-3) / 1e9;
}

static void fill_random(const ks_grid *g, float *u)
{
    unsigned st = 12345u;
    const size_t n = ks_grid_points(g);
    for (size_t p = 0; p < n; ++p) {
        st = st * 1664525u + 1013904223u;
        u[p] = 0.5f + (float)(st >> 8) / 16777216.0f;
    }
}

int main(int argc, char **argv)
{
    int quick = 0;
    const char *only = NULL, *pick = NULL;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--quick") == 0) quick = 1;
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) only = argv[++a];
        else if (strcmp(argv[a], "--variants") == 0 && a + 1 < argc) pick = argv[++a];
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "perf_laplace: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20);

    const ks_grid grids[] = {{3, 512, 512, 512}, {3, 1024, 1024, 1024}, {2, 8192, 8192, 1},
                             {2, 16384, 16384, 1}};
    const perf_set sets3[] = {
        {"kmarch", {{32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {128, 2, 1}}, 4, 10},
        {"block3d", {{32, 4, 4}, {32, 8, 2}, {64, 4, 2}, {128, 2, 2}}, 4, 10},
        {"regq", {{32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {128, 2, 1}, {32, 16, 1}, {64, 8, 1},
                  {128, 4, 1}, {256, 1, 1}}, 8, 10},
        {"tblock", {{32, 4, 1}, {32, 6, 1}, {32, 8, 1}, {32, 10, 1}, {32, 12, 1}, {32, 16, 1}}, 6, 40},
    };
    const perf_set sets2[] = {
        {"block2d", {{32, 8, 1}, {64, 4, 1}, {128, 2, 1}, {32, 32, 1}}, 4, 10},
        {"smem2d", {{32, 8, 1}, {64, 4, 1}, {128, 2, 1}, {32, 32, 1}}, 4, 10},
        {"vec2d", {{32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {128, 1, 1}, {128, 2, 1}, {256, 1, 1},
                   {64, 8, 1}, {512, 1, 1}}, 8, 10},
    };
    printf("%-14s %-8s %-8s %9s %9s %9s %7s %5s %5s\n", "grid", "variant", "block", "ms/iter",
           "T_eff", "T_peak", "ratio", "regs", "occ");
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; ++gi) {
        const ks_grid *g = &grids[gi];
        if (only && ((g->dims == 3) != (strcmp(only, "3d") == 0))) continue;
        if (quick && (gi == 1 || gi == 3)) continue;
        const size_t bytes = ks_grid_bytes(g);
        const double peak = copy_gbs(bytes, 21);
        float *u = malloc(bytes);
        if (!u) return 1;
        fill_random(g, u);
        ks_lsolver *s = NULL;
        if (ks_lsolver_create(g, &s) != KS_OK || ks_lsolver_upload(s, u) != KS_OK) {
            fprintf(stderr, "perf_laplace: %s\n", ks_error_message());
            return 1;
        }
        char gname[32];
        if (g->dims == 3)
            snprintf(gname, sizeof gname, "%dx%dx%d", g->nx, g->ny, g->nz);
        else
            snprintf(gname, sizeof gname, "%dx%d", g->nx, g->ny);
        printf("# %s: field %.1f MiB, T_peak %.1f GB/s (D2D memcpy of the field size)\n", gname,
               bytes / 1048576.0, peak);
        const perf_set *sets = g->dims == 3 ? sets3 : sets2;
        const int nsets = g->dims == 3 ? 4 : 3;
        for (int si = 0; si < nsets; ++si) {
            if (pick && !strstr(pick, sets[si].variant)) continue;
            const int id = ks_lvariant_find(g->dims, sets[si].variant);
            double best = 0.0;
            int best_b = -1;
            for (int b = 0; b < sets[si].nblocks; ++b) {
                const int *blk = sets[si].blocks[b];
                char bname[32];
                snprintf(bname, sizeof bname, blk[2] > 1 ? "%dx%dx%d" : "%dx%d", blk[0], blk[1], blk[2]);
                ks_kernel_attrs at;
                memset(&at, 0, sizeof at);
                const ks_timing_opts o = {.cache = KS_CACHE_WARM, .reps = quick ? 3 : 7};
                ks_timing t;
                if (ks_lsolver_kernel_attrs(s, id, blk, &at) != KS_OK ||
                    ks_lsolver_time(s, id, blk, sets[si].iters, &o, &t) != KS_OK) {
                    printf("%-14s %-8s %-8s   refused: %s\n", gname, sets[si].variant, bname,
                           ks_error_message());
                    continue;
                }
                const double ms = t.median_ms / sets[si].iters;
                const double teff = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
                printf("%-14s %-8s %-8s %9.4f %9.1f %9.1f %7.3f %5d %5.2f\n", gname,
                       sets[si].variant, bname, ms, teff, peak, teff / peak, at.registers,
                       at.occupancy);
                if (teff > best) best = teff, best_b = b;
            }
            if (best_b >= 0)
                printf("BEST %-9s %-8s %dx%dx%d ratio %.3f (T_eff %.1f GB/s, T_peak %.1f)\n", gname,
                       sets[si].variant, sets[si].blocks[best_b][0], sets[si].blocks[best_b][1],
                       sets[si].blocks[best_b][2], best / peak, best, peak);
        }
        fflush(stdout);
        ks_lsolver_destroy(s);
        free(u);
    }
    return 0;
}
