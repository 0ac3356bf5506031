/* The hardware counters' gpu test, its timeline part: the timeline's kernel
 * spans match CUDA-event times, its DRAM and SM samples line up with them,
 * and the range profiler still measures after (and while) it samples. Run by
 * test_counters_gpu's main after the counters' tests. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "counters/counters.h"
#include "counters/timeline.h"
#include "counters_gpu_test.h"
#include "counters_test_kernels.h"
#include "base/ks_util.h"

/* ---- the timeline ---- */

typedef struct timed_kernel {
    const char *name; /* in the span */
    double event_ms;
    int kind; /* 0 spin, 1 copy */
} timed_kernel;

static double mean_inside(const ks_tl_sample *s, int ns, uint64_t a, uint64_t b, int sm, int *count)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < ns; ++i) {
        const uint64_t mid = s[i].t0_ns / 2 + s[i].t1_ns / 2;
        const float v = sm ? s[i].sm_pct : s[i].dram_pct;
        if (mid < a || mid >= b || isnan(v)) continue;
        sum += v;
        ++n;
    }
    *count = n;
    return n ? sum / n : NAN;
}

void test_timeline(void **state)
{
    (void)state;
    if (!ks_counters_built()) skip();
    int sms = 0, dev = 0;
    cuda_ok(cudaGetDevice(&dev), "cudaGetDevice");
    cuda_ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "attribute");
    const size_t n = (size_t)1 << 28;
    float *in = NULL, *out = NULL;
    cuda_ok(cudaMalloc((void **)&in, n * sizeof(float)), "cudaMalloc");
    cuda_ok(cudaMalloc((void **)&out, n * sizeof(float)), "cudaMalloc");
    ok(kst_fill(in, n, stream), "fill");
    cuda_ok(cudaDeviceSynchronize(), "sync");

    ks_timeline_desc d = {0};
    d.device = -1;
    d.interval_us = 20;
    d.trace = trace;
    ks_timeline *tl = NULL;
    const double t0 = ks_now_seconds();
    ok(ks_timeline_create(&d, &tl), "timeline create");
    printf("  timeline create took %.1f ms\n", (ks_now_seconds() - t0) * 1e3);
    ok(ks_timeline_start(tl), "timeline start");

    /* spin 3 ms, copy, spin 1 ms, copy, spin 2 ms: each between events */
    timed_kernel k[5] = {{"kst_spin_kernel", 0, 0}, {"kst_copy_kernel", 0, 1}, {"kst_spin_kernel", 0, 0},
                         {"kst_copy_kernel", 0, 1}, {"kst_spin_kernel", 0, 0}};
    const unsigned long long spin_ns[5] = {3000000, 0, 1000000, 0, 2000000};
    cudaEvent_t ev[6];
    for (int i = 0; i < 6; ++i) cuda_ok(cudaEventCreate(&ev[i]), "event");
    cuda_ok(cudaEventRecord(ev[0], stream), "record");
    for (int i = 0; i < 5; ++i) {
        if (k[i].kind == 0)
            ok(kst_spin(spin_ns[i], 4 * sms, stream), "spin");
        else
            ok(kst_copy(in, out, n, stream), "copy");
        cuda_ok(cudaEventRecord(ev[i + 1], stream), "record");
    }
    cuda_ok(cudaStreamSynchronize(stream), "sync");
    for (int i = 0; i < 5; ++i) {
        float ms = 0;
        cuda_ok(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), "elapsed");
        k[i].event_ms = ms;
    }
    ok(ks_timeline_flush(tl), "timeline flush");
    ok(ks_timeline_stop(tl), "timeline stop");
    ok(ks_timeline_flush(tl), "timeline flush after stop");

    enum { MAX_S = 65536, MAX_K = 256 };
    ks_tl_sample *s = malloc(MAX_S * sizeof *s);
    ks_tl_span *sp = malloc(MAX_K * sizeof *sp);
    assert_non_null(s);
    assert_non_null(sp);
    int ns = 0, nsp = 0;
    ok(ks_timeline_read(tl, s, MAX_S, &ns, sp, MAX_K, &nsp), "timeline read");
    ks_timeline_info info;
    ks_timeline_get_info(tl, &info);
    printf("  timeline: DRAM from %s%s%s, SM from %s; every %.0f us (%s trigger); gpu - cpu %lld ns; "
           "PM clock %s%s (samples - cpu %lld ns; the marker's fit %+lld ns, SM step %.1f points); %llu samples, "
           "%llu spans, %llu decodes, %llu overflows, %llu errors (%s), %llu records dropped\n",
           info.dram_metric[0], info.dram_metric[1][0] ? " + " : "", info.dram_metric[1], info.sm_metric,
           info.interval_us, info.time_trigger ? "time" : "system-clock", (long long)info.gpu_minus_cpu_ns,
           info.domain == KS_TL_DOMAIN_GPU ? "GPU" : info.domain == KS_TL_DOMAIN_CPU ? "CPU" : "its own",
           info.domain_known ? ", measured" : ", NOT MEASURED", (long long)info.samples_minus_cpu_ns,
           (long long)info.clock_fit_ns, info.clock_contrast,
           (unsigned long long)info.samples, (unsigned long long)info.spans,
           (unsigned long long)info.decode_passes, (unsigned long long)info.overflows,
           (unsigned long long)info.decode_errors, info.last_error, (unsigned long long)info.records_dropped);
    printf("  read %d samples, %d spans\n", ns, nsp);
    for (int i = 0; i < nsp; ++i)
        printf("    span %d: %s stream %u, %llu..%llu (%.4f ms)\n", i, sp[i].name, sp[i].stream,
               (unsigned long long)sp[i].start_ns, (unsigned long long)sp[i].end_ns,
               (sp[i].end_ns - sp[i].start_ns) * 1e-6);
    if (ns > 0)
        printf("    samples: first %llu..%llu, last %llu..%llu\n", (unsigned long long)s[0].t0_ns,
               (unsigned long long)s[0].t1_ns, (unsigned long long)s[ns - 1].t0_ns,
               (unsigned long long)s[ns - 1].t1_ns);
    /* our five kernels: the last five spans named so (earlier ones belong to other tests) */
    int at[5], found = 0;
    for (int i = nsp - 1, want = 4; i >= 0 && want >= 0; --i)
        if (strcmp(sp[i].name, k[want].name) == 0) {
            at[want--] = i;
            ++found;
        }
    assert_int_equal(found, 5);
    int bad_time = 0;
    for (int i = 0; i < 5; ++i) {
        const ks_tl_span *x = &sp[at[i]];
        const double span_ms = (x->end_ns - x->start_ns) * 1e-6;
        int cd = 0, cs = 0;
        const double dram = mean_inside(s, ns, x->start_ns, x->end_ns, 0, &cd);
        const double smp = mean_inside(s, ns, x->start_ns, x->end_ns, 1, &cs);
        printf("  %s: span %.4f ms, events %.4f ms (%+.2f %%); DRAM %.1f %% (%d samples), SM %.1f %% (%d)\n",
               k[i].name, span_ms, k[i].event_ms, 100.0 * (span_ms / k[i].event_ms - 1.0), dram, cd, smp, cs);
        bad_time += fabs(span_ms / k[i].event_ms - 1.0) > 0.05;
    }
    /* the strip a window would draw over the five kernels */
    ks_tl_strip *strip = malloc(sizeof *strip);
    assert_non_null(strip);
    const uint64_t w0 = sp[at[0]].start_ns, w1 = sp[at[4]].end_ns;
    ok(ks_tl_strip_build(s, ns, sp, nsp, w1, w1 - w0, 100, 8, strip), "strip");
    printf("  strip over %.2f ms, 100 columns (DRAM, SM in tenths; kernels):\n    ", (w1 - w0) * 1e-6);
    for (int c = 0; c < 100; ++c) putchar(isnan(strip->dram_pct[c]) ? '.' : '0' + (int)fminf(9.0f, strip->dram_pct[c] / 10.0f));
    printf("\n    ");
    for (int c = 0; c < 100; ++c) putchar(isnan(strip->sm_pct[c]) ? '.' : '0' + (int)fminf(9.0f, strip->sm_pct[c] / 10.0f));
    printf("\n    ");
    for (int c = 0, m = 0; c < 100; ++c) {
        while (m < strip->nmarks && strip->marks[m].x1 <= c) ++m;
        putchar(m < strip->nmarks && strip->marks[m].x0 <= c ? (strip->marks[m].name[4] == 'c' ? 'C' : 'S') : ' ');
    }
    printf("\n");
    const int64_t lag = ks_tl_best_lag(s, ns, sp, nsp, 2000000, 10000);
    printf("  best lag of the spans against the samples: %+lld ns (0 when the clocks line up)\n", (long long)lag);
    free(strip);

    int cd = 0, cs = 0;
    const double copy_dram = mean_inside(s, ns, sp[at[1]].start_ns, sp[at[1]].end_ns, 0, &cd);
    const double spin_dram = mean_inside(s, ns, sp[at[0]].start_ns, sp[at[0]].end_ns, 0, &cs);
    int csm = 0;
    const double spin_sm = mean_inside(s, ns, sp[at[0]].start_ns, sp[at[0]].end_ns, 1, &csm);
    ks_timeline_destroy(tl);
    for (int i = 0; i < 6; ++i) cudaEventDestroy(ev[i]);
    cudaFree(in);
    cudaFree(out);
    free(s);
    free(sp);
    assert_int_equal(bad_time, 0);
    assert_true(info.samples > 0);
    assert_true(info.domain_known); /* the samples' clock measured at start, not assumed */
    assert_true(cd > 0 && copy_dram > 50.0);
    assert_true(cs > 0 && spin_dram < 10.0);
    assert_true(csm > 0 && spin_sm > 80.0);
    assert_true(llabs(lag) <= 50000); /* two and a half 20 us samples */
}

/* After the timeline's PM sampler is gone, the range profiler still measures. */
void test_counters_after_timeline(void **state)
{
    (void)state;
    if (counters == NULL) skip();
    float *buf = NULL;
    cuda_ok(cudaMalloc((void **)&buf, (size_t)2 << 22), "cudaMalloc");
    ks_counter_set s;
    ok(ks_counters_measure(counters, launch_small_copy, buf, stream, &s), "measure after the timeline");
    print_set(&s, "small copy after the timeline", 2.0 * 4.0 * (1 << 20));
    assert_int_equal(s.nkernels, 1);
    assert_true(s.kernels[0].present[KS_CTR_DRAM_READ_BYTES]);
    /* a measure while a timeline samples: either works or says why in one line */
    ks_timeline_desc d = {0};
    d.device = -1;
    ks_timeline *tl = NULL;
    ok(ks_timeline_create(&d, &tl), "timeline create");
    ok(ks_timeline_start(tl), "timeline start");
    const ks_status st = ks_counters_measure(counters, launch_small_copy, buf, stream, &s);
    printf("  measure while the timeline samples: %s\n", st == KS_OK ? "measured" : ks_error_message());
    if (st != KS_OK) {
        assert_true(strncmp(ks_error_message(), "hardware counters: ", 19) == 0);
        assert_int_not_equal(ks_counters_last_why(), KS_CTRS_OK);
    }
    ok(ks_timeline_stop(tl), "timeline stop");
    ks_timeline_destroy(tl);
    cudaFree(buf);
}
