/* counters_probe: what CUPTI offers on this machine's GPU, for one run that
 * tells everything. Prints the build, the library, each logical metric with
 * the names tried and the one CUPTI accepted (or absent), the replay passes,
 * CUPTI's own lists of the related base metrics (range profiler and PM
 * sampler), one measured copy kernel as the panel shows it, and a short
 * timeline. Every CUPTI call is traced with its status.
 *
 *   counters_probe [--device N] [--size N] [--all] [--contains TEXT] [--quiet] [--csv PATH]
 *   counters_probe --kernels-only [--device N] [--size N]
 *
 * --all lists every base metric of the chip; --contains lists those whose
 * name contains TEXT; --quiet leaves out the trace of CUPTI calls. The
 * measured kernels are a set with known counters (fill, a float4 copy of
 * --size floats, default 2^28, coalesced and 32-float-strided reads,
 * shared memory without and with a 32-way conflict); --csv writes each
 * kernel's values there, one row a metric: launch,kernel,grid,block,key,
 * metric,value (CUPTI's metric name and raw value). --kernels-only runs the
 * same set, same sizes, without touching CUPTI, for Nsight Compute to
 * measure the same launches; scripts/ncu-compare.py counters runs both and
 * prints the table. Exit 0 when every step worked, 1 when one failed (its
 * line says why), 2 for bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "counters/counters.h"
#include "counters/timeline.h"
#include "counters_test_kernels.h"
#include "base/ks_util.h"
#include "base/out_file.h"

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

static ks_status launch_set(void *user, void *stream) { return kst_set_run(user, stream); }

/* The set alone, without CUPTI: what ncu measures to compare. */
static int kernels_only(size_t n)
{
    kst_set set;
    ks_status st = kst_set_alloc(&set, n);
    if (st == KS_OK) st = kst_set_run(&set, NULL);
    if (st == KS_OK && cudaDeviceSynchronize() != cudaSuccess) st = ks_fail(KS_ERR_CUDA, "the kernels failed");
    if (st == KS_OK) {
        printf("kernels (copy of %zu floats):", n);
        for (int i = 0; i < KST_SET_KERNELS; ++i) {
            kst_launch_info li;
            if (kst_set_info(&set, i, &li) == KS_OK) printf(" %s grid %u block %u;", li.name, li.grid, li.block);
        }
        printf("\n");
    } else {
        printf("FAILED kernels: %s\n", ks_error_message());
    }
    kst_set_free(&set);
    return st != KS_OK;
}

/* A CSV field: quoted (quotes doubled) when it holds a comma or a quote ("k<1, 2>"). */
static void csv_field(const char *text, char *out, size_t cap)
{
    if (strpbrk(text, ",\"") == NULL) {
        snprintf(out, cap, "%s", text);
        return;
    }
    size_t n = 0;
    if (cap < 3) return;
    out[n++] = '"';
    for (const char *p = text; *p && n + 3 < cap; ++p) {
        if (*p == '"') out[n++] = '"';
        out[n++] = *p;
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* One row a metric of each measured kernel, as CUPTI named and gave it. */
static ks_status write_csv(const char *path, const ks_counter_set *s, const kst_set *set)
{
    ks_out_file_desc od = {path, 0, 0};
    ks_out_file *f = NULL;
    KS_TRY(ks_out_file_open(&od, &f));
    char line[512];
    int n = snprintf(line, sizeof line, "launch,kernel,grid,block,key,metric,value\n");
    ks_out_file_write(f, line, (size_t)n);
    for (int k = 0; k < s->nkernels; ++k) {
        kst_launch_info li;
        const int known = k < KST_SET_KERNELS && kst_set_info(set, k, &li) == KS_OK;
        char name[KS_TL_NAME], field[2 * KS_TL_NAME + 3];
        ks_tl_short_name(s->kernels[k].name, name, sizeof name);
        csv_field(name, field, sizeof field);
        for (int id = 0; id < KS_CTR_NUM; ++id) {
            if (!s->kernels[k].present[id] || !s->metric[id][0]) continue;
            n = snprintf(line, sizeof line, "%d,%s,%u,%u,%s,%s,%.17g\n", k, field, known ? li.grid : 0,
                         known ? li.block : 0, ks_counters_info((ks_counter_id)id)->key, s->metric[id],
                         s->kernels[k].values[id]);
            ks_out_file_write(f, line, (size_t)n);
        }
    }
    return ks_out_file_commit(f);
}

static int measure_set(ks_counters *c, size_t n, const char *csv)
{
    printf("\n== the kernels of --kernels-only, measured (copy of %zu floats)\n", n);
    kst_set set;
    if (kst_set_alloc(&set, n) != KS_OK) return step_failed("allocating the kernels");
    int failed = 0;
    static ks_counter_set s;
    const double m0 = ks_now_seconds();
    if (ks_counters_measure(c, launch_set, &set, NULL, &s) != KS_OK) {
        failed = step_failed("measure");
    } else {
        printf("  measure: %.1f ms with replays; %d kernel(s), %d dropped\n", (ks_now_seconds() - m0) * 1e3,
               s.nkernels, s.dropped);
        if (s.nkernels != KST_SET_KERNELS) {
            printf("FAILED: %d kernels measured, the set has %d\n", s.nkernels, KST_SET_KERNELS);
            failed = 1;
        }
        for (int k = 0; k < s.nkernels; ++k) {
            kst_launch_info li;
            memset(&li, 0, sizeof li);
            if (k < KST_SET_KERNELS && kst_set_info(&set, k, &li) == KS_OK) {
                /* what the launch knows: theoretical occupancy, access widths */
                const ks_counter_launch l = {li.occupancy, li.load_bytes, li.store_bytes};
                ks_counters_set_launch(&s, k, &l);
            }
            printf("  kernel %d: %s (grid %u, block %u)\n", k, s.kernels[k].name, li.grid, li.block);
            for (int id = 0; id < KS_CTR_NUM; ++id)
                if (s.kernels[k].present[id])
                    printf("    %-28s %.6g\n", ks_counters_info((ks_counter_id)id)->key, s.kernels[k].values[id]);
            ks_counter_row rows[KS_COUNTER_ROWS];
            const int nr = ks_counters_rows(&s, k, li.model_bytes, rows, KS_COUNTER_ROWS);
            for (int i = 0; i < nr; ++i)
                printf("    %-63.63s %14s %-11s | %s | %s\n", rows[i].label, rows[i].value, rows[i].unit,
                       rows[i].words, rows[i].hover);
            char line[512];
            ks_counters_csv_values(&s, k, li.model_bytes, line, sizeof line);
            printf("    %s\n    %s\n", ks_counters_csv_header(), line);
        }
        if (csv != NULL) {
            if (write_csv(csv, &s, &set) == KS_OK)
                printf("  values: %s\n", csv);
            else
                failed = step_failed("writing the values");
        }
    }
    kst_set_free(&set);
    return failed;
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
    size_t size = (size_t)1 << 28;
    const char *contains = NULL, *csv = NULL;
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
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            char *end = NULL;
            const unsigned long long v = strtoull(argv[++i], &end, 0);
            if (end == argv[i] || *end != '\0' || v % 4 != 0 || v < ((unsigned long long)32 << 20) ||
                v > ((unsigned long long)1 << 32)) {
                fprintf(stderr, "counters_probe: --size %s: a multiple of 4 from 33554432 to 2^32 floats\n", argv[i]);
                return 2;
            }
            size = (size_t)v;
        } else {
            fprintf(stderr, "usage: counters_probe [--device N] [--size N] [--all] [--contains TEXT] [--quiet] "
                            "[--csv PATH] | --kernels-only [--device N] [--size N]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (only_kernels) {
        if (cudaSetDevice(device) != cudaSuccess) {
            printf("no device %d\n", device);
            return 1;
        }
        return kernels_only(size);
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
        printf(" %s --kernels-only --size %zu\n", argv[0], size);
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
        failed |= measure_set(c, size, csv);
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
        printf("  DRAM from %s%s%s, SM from %s; %s trigger; gpu - cpu %lld ns; PM clock %s%s (samples - cpu %lld "
               "ns; the marker's fit %+lld ns, SM step %.1f points)\n",
               info.dram_metric[0], info.dram_metric[1][0] ? " + " : "", info.dram_metric[1], info.sm_metric,
               info.time_trigger ? "time" : "system-clock", (long long)info.gpu_minus_cpu_ns,
               info.domain == KS_TL_DOMAIN_GPU ? "GPU" : info.domain == KS_TL_DOMAIN_CPU ? "CPU" : "its own",
               info.domain_known ? ", measured" : ", NOT MEASURED", (long long)info.samples_minus_cpu_ns,
               (long long)info.clock_fit_ns, info.clock_contrast);
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
        if (info.samples == 0 || info.decode_errors > 0 || !info.domain_known) failed = 1;
    }
    printf("\nprobe %s\n", failed ? "FAILED (see the lines above)" : "ok");
    return failed;
}
