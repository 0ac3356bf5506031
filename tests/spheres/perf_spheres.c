/* Standalone sphere timing (not a ctest test): the bench's measuring code
 * (kernels/spheres_bench.c) without the app, for the GPU machine.
 *   perf_spheres [--cpu] [--size WxH] [--counts a,b,...] [--block BXxBY]
 *                [--reps N] [--seed S] [--only VARIANT] [--csv FILE] [--runs K]
 * --runs K repeats the whole table K times (run-to-run spread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_device.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_bench.h"

static int usage(const char *why)
{
    fprintf(stderr, "perf_spheres: %s\n", why);
    return 2;
}

int main(int argc, char **argv)
{
    ks_spheres_bench_desc d;
    memset(&d, 0, sizeof d);
    d.use_cuda = 1;
    d.seed = 1;
    int counts[KS_SPHERES_BENCH_MAX_COUNTS];
    const char *csv = NULL;
    int runs = 1;
    for (int a = 1; a < argc; ++a) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(argv[a], "--cpu") == 0) d.use_cuda = 0;
        else if (strcmp(argv[a], "--size") == 0 && v && sscanf(v, "%dx%d", &d.width, &d.height) == 2) ++a;
        else if (strcmp(argv[a], "--block") == 0 && v && sscanf(v, "%dx%d", &d.block[0], &d.block[1]) == 2) ++a;
        else if (strcmp(argv[a], "--reps") == 0 && v) d.timing.reps = atoi(argv[++a]);
        else if (strcmp(argv[a], "--runs") == 0 && v) runs = atoi(argv[++a]);
        else if (strcmp(argv[a], "--seed") == 0 && v) d.seed = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--csv") == 0 && v) csv = argv[++a];
        else if (strcmp(argv[a], "--only") == 0 && v) {
            if (ks_spheres_mem_parse(argv[++a], &d.only) != 0) return usage("unknown variant");
        } else if (strcmp(argv[a], "--counts") == 0 && v) {
            char *p = argv[++a];
            while (*p && d.count_n < KS_SPHERES_BENCH_MAX_COUNTS) {
                counts[d.count_n++] = (int)strtol(p, &p, 10);
                if (*p == ',') ++p;
            }
            d.counts = counts;
        } else
            return usage("bad argument (see the comment at the top of tests/spheres/perf_spheres.c)");
    }
    ks_device_info dev;
    if (d.use_cuda && (ks_cuda_probe(&dev) != KS_OK || !dev.present)) {
        fprintf(stderr, "perf_spheres: no CUDA device\n");
        return 77;
    }
    static ks_spheres_bench_result r;
    static char text[1 << 16];
    for (int run = 0; run < runs; ++run) {
        if (ks_spheres_bench_run(&d, &r) != KS_OK) {
            fprintf(stderr, "perf_spheres: %s\n", ks_error_message());
            return 1;
        }
        ks_spheres_bench_table(&r, text, sizeof text);
        printf("%s", text);
    }
    if (d.use_cuda) {
        ks_spheres_gpu *g = NULL;
        if (ks_spheres_gpu_create(&g) == KS_OK) {
            for (int m = KS_SPHERES_MEM_GLOBAL; m < KS_SPHERES_MEM_NUM; ++m) {
                ks_kernel_attrs at;
                if (ks_spheres_gpu_kernel_attrs(g, (ks_spheres_mem)m, r.block, &at) != KS_OK) continue;
                printf("%-9s %-28s %3d regs, smem %d static + %d dynamic B, %d blocks/SM, occupancy %.0f%%\n",
                       ks_spheres_mem_name((ks_spheres_mem)m), ks_spheres_mem_kernel((ks_spheres_mem)m),
                       at.registers, at.static_smem, at.dynamic_smem, at.blocks_per_sm, 100.0 * at.occupancy);
            }
            ks_spheres_gpu_destroy(g);
        }
    }
    if (csv) {
        static char body[1 << 18];
        const size_t n = ks_spheres_bench_csv(&r, body, sizeof body);
        FILE *f = fopen(csv, "w");
        if (!f || fwrite(body, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "perf_spheres: cannot write %s\n", csv);
            return 1;
        }
    }
    return 0;
}
