/* counters_probe: what CUPTI offers on this machine's GPU, for one run that
 * tells everything. Prints the build, the library, each logical metric with
 * the names tried and the one CUPTI accepted (or absent), the replay passes,
 * CUPTI's own lists of the related base metrics (range profiler and PM
 * sampler), one measured copy kernel as the panel shows it, and a short
 * timeline. Every CUPTI call is traced with its status.
 *
 *   counters_probe [--device N] [--all] [--contains TEXT] [--quiet]
 *   counters_probe --kernels-only [--device N]
 *
 * --all lists every base metric of the chip; --contains lists those whose
 * name contains TEXT; --quiet leaves out the trace of CUPTI calls.
 * --kernels-only runs test_counters_gpu's kernels (same sizes) without
 * touching CUPTI, for Nsight Compute to measure the same launches
 * (docs/counters.md gives the ncu line). Exit 0 when every step worked, 1
 * when one failed (its line says why), 2 for bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "counters/counters.h"
#include "counters/timeline.h"
#include "counters_test_kernels.h"
#include "kernels/common/ks_util.h"

static int quiet;

static void trace(void *user, const char *line)
{
    (void)user;
    if (!quiet) printf("    | %s\n", line);
}

static void emit(void *user, const char *name, const char *description)
{
    int *count = user;
    ++*count;
    printf("    %-80s %s\n", name, description);
}

static int step_failed(const char *what)
{
    printf("FAILED %s: %s [%s]\n", what, ks_error_message(), ks_counters_why_short(ks_counters_last_why()));
    return 1;
}

typedef struct copy_job {
    float *in, *out;
    size_t n;
} copy_job;

static ks_status launch_copy(void *user, void *stream)
{
    const copy_job *j = user;
    return kst_copy(j->in, j->out, j->n, stream);
}

/* test_counters_gpu's kernels at its sizes, without CUPTI: what ncu measures to compare. */
static int kernels_only(void)
{
    const size_t n = (size_t)1 << 28, nr = (size_t)1 << 20;
    float *in = NULL, *out = NULL, *oc = NULL, *os = NULL, *sf = NULL, *sc = NULL;
    if (cudaMalloc((void **)&in, n * 4) != cudaSuccess || cudaMalloc((void **)&out, n * 4) != cudaSuccess ||
        cudaMalloc((void **)&oc, nr * 4) != cudaSuccess || cudaMalloc((void **)&os, nr * 4) != cudaSuccess ||
        cudaMalloc((void **)&sf, 264 * 128 * 4) != cudaSuccess || cudaMalloc((void **)&sc, 264 * 128 * 4) != cudaSuccess) {
        printf("FAILED allocating the kernels' buffers\n");
        return 1;
    }
    ks_status st = kst_fill(in, n, NULL);
    if (st == KS_OK) st = kst_copy(in, out, n, NULL);
    if (st == KS_OK) st = kst_read_coalesced(in, oc, nr, NULL);
    if (st == KS_OK) st = kst_read_strided(in, os, nr, NULL);
    if (st == KS_OK) st = kst_shared(sf, 264, 1, 16, NULL);
    if (st == KS_OK) st = kst_shared(sc, 264, 32, 16, NULL);
    if (st == KS_OK && cudaDeviceSynchronize() != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "the kernels failed");
    printf("kernels: %s\n", st == KS_OK ? "ran (copy, read_coalesced, read_strided, shared stride 1 and 32)"
                                         : ks_error_message());
    cudaFree(in);
    cudaFree(out);
    cudaFree(oc);
    cudaFree(os);
    cudaFree(sf);
    cudaFree(sc);
    return st != KS_OK;
}

static void list(int device, int pm, const char *contains)
{
    int count = 0;
    printf("  %s base metrics%s%s%s:\n", pm ? "PM sampler" : "range profiler", contains ? " containing \"" : "",
           contains ? contains : "", contains ? "\"" : "");
    if (ks_counters_list_metrics(device, pm, contains, emit, &count) != KS_OK)
        printf("    (cannot list: %s)\n", ks_error_message());
    else
        printf("    (%d)\n", count);
}

int main(int argc, char **argv)
{
    int device = 0, all = 0, only_kernels = 0;
    const char *contains = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--all") == 0) {
            all = 1;
        } else if (strcmp(argv[i], "--contains") == 0 && i + 1 < argc) {
            contains = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--kernels-only") == 0) {
            only_kernels = 1;
        } else {
            fprintf(stderr, "usage: counters_probe [--device N] [--all] [--contains TEXT] [--quiet] | "
                            "--kernels-only [--device N]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (only_kernels) {
        if (cudaSetDevice(device) != cudaSuccess) {
            printf("no device %d\n", device);
            return 1;
        }
        return kernels_only();
    }
    int failed = 0;
    printf("build: counters %s (KS_HAVE_CUPTI=%d, KS_HAVE_CUDA=%d)\n", ks_counters_built() ? "built" : "not built",
           KS_HAVE_CUPTI, KS_HAVE_CUDA);
    char path[512] = "";
    if (ks_counters_library(path, sizeof path) == KS_OK)
        printf("libcupti: %s\n", path);
    else
        failed |= step_failed("loading libcupti");
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("no CUDA device\n");
        return 1;
    }
    for (int d = 0; d < n; ++d) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) == cudaSuccess)
            printf("device %d: %s, cc %d.%d (%s), %d SMs, L2 %d MiB, memory %.1f GiB, bus %d bits\n", d, p.name,
                   p.major, p.minor, ks_counters_gen_name(ks_counters_generation(10 * p.major + p.minor)),
                   p.multiProcessorCount, p.l2CacheSize >> 20, p.totalGlobalMem / 1073741824.0, p.memoryBusWidth);
    }
    if (cudaSetDevice(device) != cudaSuccess) {
        printf("no device %d\n", device);
        return 2;
    }

    printf("\n== create (metric resolution, config image)\n");
    ks_counters_desc cd = {0};
    cd.device = device;
    cd.trace = trace;
    ks_counters *c = NULL;
    const double t0 = ks_now_seconds();
    if (ks_counters_create(&cd, &c) != KS_OK) {
        failed |= step_failed("create");
    } else {
        printf("  create: %.1f ms\n", (ks_now_seconds() - t0) * 1e3);
        ks_counter_set s;
        ks_counters_describe(c, &s);
        printf("  %s, chip %s, table %s, %d replay passes for all metrics\n", s.device, s.chip,
               ks_counters_gen_name(s.gen), s.passes);
        for (int id = 0; id < KS_CTR_NUM; ++id) {
            const char *cand[KS_CTR_CANDIDATES];
            const int k = ks_counters_candidates(s.gen, (ks_counter_id)id, cand, KS_CTR_CANDIDATES);
            printf("  %-28s %-72s %s", ks_counters_info((ks_counter_id)id)->key,
                   s.metric[id][0] ? s.metric[id] : "ABSENT", s.metric[id][0] ? "accepted" : "tried:");
            if (!s.metric[id][0])
                for (int j = 0; j < k; ++j) printf(" %s", cand[j]);
            printf("\n");
        }
        /* the same metrics from Nsight Compute, for the kernels of --kernels-only */
        printf("  to compare: ncu --cache-control none --clock-control none --metrics ");
        for (int id = 0, first = 1; id < KS_CTR_NUM; ++id)
            if (s.metric[id][0]) {
                printf("%s%s", first ? "" : ",", s.metric[id]);
                first = 0;
            }
        printf(" %s --kernels-only\n", argv[0]);
    }

    printf("\n== CUPTI's lists\n");
    if (all || contains) {
        list(device, 0, all ? NULL : contains);
        list(device, 1, all ? NULL : contains);
    } else {
        const char *range_keys[] = {"dram__bytes", "dram__throughput", "gpu__dram", "lts__t_sector_hit",
                                    "l1tex__t_sector_hit", "l1tex__data_bank_conflicts", "warps_issue_stalled",
                                    "warp_latency", "warps_active", "maximum_warps", "cycles_elapsed", "gpu__time"};
        for (size_t i = 0; i < sizeof range_keys / sizeof range_keys[0]; ++i) list(device, 0, range_keys[i]);
        const char *pm_keys[] = {"dram", "sm__cycles_active", "sm__throughput", "gr__cycles"};
        for (size_t i = 0; i < sizeof pm_keys / sizeof pm_keys[0]; ++i) list(device, 1, pm_keys[i]);
    }

    if (c != NULL) {
        printf("\n== one copy of 2^26 floats, measured\n");
        copy_job j = {NULL, NULL, (size_t)1 << 26};
        if (cudaMalloc((void **)&j.in, j.n * 4) != cudaSuccess || cudaMalloc((void **)&j.out, j.n * 4) != cudaSuccess ||
            kst_fill(j.in, j.n, NULL) != KS_OK) {
            printf("FAILED allocating the copy\n");
            failed = 1;
        } else {
            ks_counter_set s;
            const double m0 = ks_now_seconds();
            if (ks_counters_measure(c, launch_copy, &j, NULL, &s) != KS_OK) {
                failed |= step_failed("measure");
            } else {
                printf("  measure: %.1f ms with replays; %d kernel(s), %d dropped\n", (ks_now_seconds() - m0) * 1e3,
                       s.nkernels, s.dropped);
                const double model = 2.0 * 4.0 * (double)j.n;
                for (int k = 0; k < s.nkernels; ++k) {
                    printf("  kernel %d: %s\n", k, s.kernels[k].name);
                    for (int id = 0; id < KS_CTR_NUM; ++id)
                        if (s.kernels[k].present[id])
                            printf("    %-28s %.6g\n", ks_counters_info((ks_counter_id)id)->key, s.kernels[k].values[id]);
                    ks_counter_row rows[KS_COUNTER_ROWS];
                    const int nr = ks_counters_rows(&s, k, model, rows, KS_COUNTER_ROWS);
                    for (int i = 0; i < nr; ++i)
                        printf("    %-56.56s %14s %-11s | %s | %s\n", rows[i].label, rows[i].value, rows[i].unit,
                               rows[i].words, rows[i].hover);
                    char csv[512];
                    ks_counters_csv_values(&s, k, model, csv, sizeof csv);
                    printf("    %s\n    %s\n", ks_counters_csv_header(), csv);
                }
            }
        }
        cudaFree(j.in);
        cudaFree(j.out);
        ks_counters_destroy(c);
    }

    printf("\n== timeline: 50 ms of spins and copies, sampled every 50 us\n");
    ks_timeline_desc td = {0};
    td.device = device;
    td.trace = trace;
    ks_timeline *tl = NULL;
    if (ks_timeline_create(&td, &tl) != KS_OK) {
        failed |= step_failed("timeline create");
    } else {
        float *a = NULL, *b = NULL;
        const size_t nf = (size_t)1 << 26;
        int sms = 0;
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (ks_timeline_start(tl) != KS_OK) failed |= step_failed("timeline start");
        if (cudaMalloc((void **)&a, nf * 4) == cudaSuccess && cudaMalloc((void **)&b, nf * 4) == cudaSuccess) {
            const double w0 = ks_now_seconds();
            while (ks_now_seconds() - w0 < 0.05) {
                kst_spin(500000, 4 * sms, NULL);
                kst_copy(a, b, nf, NULL);
                cudaDeviceSynchronize();
            }
        }
        if (ks_timeline_flush(tl) != KS_OK) failed |= step_failed("timeline flush");
        if (ks_timeline_stop(tl) != KS_OK) failed |= step_failed("timeline stop");
        ks_timeline_info info;
        ks_timeline_get_info(tl, &info);
        printf("  DRAM from %s%s%s, SM from %s; %s trigger; gpu - cpu %lld ns; PM clock %s\n", info.dram_metric[0],
               info.dram_metric[1][0] ? " + " : "", info.dram_metric[1], info.sm_metric,
               info.time_trigger ? "time" : "system-clock", (long long)info.gpu_minus_cpu_ns,
               !info.domain_known ? "unknown" : info.domain == KS_TL_DOMAIN_GPU ? "GPU" : "CPU");
        printf("  %llu samples, %llu spans, %llu decodes, %llu overflows, %llu errors%s%s, %llu records dropped\n",
               (unsigned long long)info.samples, (unsigned long long)info.spans,
               (unsigned long long)info.decode_passes, (unsigned long long)info.overflows,
               (unsigned long long)info.decode_errors, info.last_error[0] ? ": " : "", info.last_error,
               (unsigned long long)info.records_dropped);
        static ks_tl_sample s[65536];
        static ks_tl_span sp[8192];
        int ns = 0, nsp = 0;
        ks_timeline_read(tl, s, 65536, &ns, sp, 8192, &nsp);
        double dsum = 0, ssum = 0;
        int dn = 0, sn = 0;
        for (int i = 0; i < ns; ++i) {
            if (!isnan(s[i].dram_pct)) dsum += s[i].dram_pct, ++dn;
            if (!isnan(s[i].sm_pct)) ssum += s[i].sm_pct, ++sn;
        }
        printf("  mean DRAM %.1f %% over %d samples, SM %.1f %% over %d; lag of spans against samples %+lld ns\n",
               dn ? dsum / dn : NAN, dn, sn ? ssum / sn : NAN, sn,
               (long long)ks_tl_best_lag(s, ns, sp, nsp, 2000000, 10000));
        for (int i = 0; i < nsp && i < 6; ++i)
            printf("  span %s %.4f ms\n", sp[i].name, (sp[i].end_ns - sp[i].start_ns) * 1e-6);
        cudaFree(a);
        cudaFree(b);
        ks_timeline_destroy(tl);
        if (info.samples == 0 || info.decode_errors > 0) failed = 1;
    }
    printf("\nprobe %s\n", failed ? "FAILED (see the lines above)" : "ok");
    return failed;
}
