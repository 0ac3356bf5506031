/* The timeline's pure parts with recorded data: the rings (a reader beside a
 * writer that laps it gets whole, consecutive items), the samples' clock
 * measured from a marker, the lag check (on the H200 run that found the
 * samples 0.27 ms off), the strip chart's columns and kernel marks, names and samples. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counters/timeline.h"

static void test_ring_basics(void **state)
{
    (void)state;
    ks_tl_ring r;
    assert_int_equal(ks_tl_ring_init(&r, sizeof(uint64_t), 1), KS_ERR_INVALID);
    assert_int_equal(ks_tl_ring_init(&r, 0, 8), KS_ERR_INVALID);
    assert_int_equal(ks_tl_ring_init(&r, sizeof(uint64_t), 8), KS_OK);
    uint64_t out[32], first = 99;
    assert_int_equal(ks_tl_ring_read(&r, out, 32, &first), 0);
    assert_int_equal(first, 0);
    for (uint64_t i = 0; i < 5; ++i) ks_tl_ring_push(&r, &i);
    assert_int_equal(ks_tl_ring_read(&r, out, 32, &first), 5);
    assert_int_equal(first, 0);
    for (int i = 0; i < 5; ++i) assert_int_equal(out[i], (uint64_t)i);
    for (uint64_t i = 5; i < 20; ++i) ks_tl_ring_push(&r, &i);
    assert_int_equal(ks_tl_ring_pushed(&r), 20);
    /* the newest capacity - 1, oldest first (the next slot to be written is never read) */
    assert_int_equal(ks_tl_ring_read(&r, out, 32, &first), 7);
    assert_int_equal(first, 13);
    for (int i = 0; i < 7; ++i) assert_int_equal(out[i], (uint64_t)(13 + i));
    assert_int_equal(ks_tl_ring_read(&r, out, 3, &first), 3);
    assert_int_equal(first, 17);
    assert_int_equal(out[0], 17);
    assert_int_equal(out[2], 19);
    assert_int_equal(ks_tl_ring_read(&r, out, 0, NULL), 0);
    ks_tl_ring_free(&r);
    assert_int_equal(ks_tl_ring_read(&r, out, 3, NULL), 0);
}

typedef struct item {
    uint64_t seq, check[6];
} item;

typedef struct writer_arg {
    ks_tl_ring *ring;
    uint64_t count;
} writer_arg;

static void *writer_main(void *p)
{
    writer_arg *a = p;
    for (uint64_t s = 0; s < a->count; ++s) {
        item it;
        it.seq = s;
        for (int k = 0; k < 6; ++k) it.check[k] = s * 3 + (uint64_t)k;
        ks_tl_ring_push(a->ring, &it);
    }
    return NULL;
}

/* A small ring that the writer laps many times while the reader copies. */
static void test_ring_reader_beside_writer(void **state)
{
    (void)state;
    ks_tl_ring r;
    assert_int_equal(ks_tl_ring_init(&r, sizeof(item), 16), KS_OK);
    writer_arg a = {&r, 2000000};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, writer_main, &a), 0);
    item out[16];
    long reads = 0, items = 0;
    uint64_t last_first = 0;
    while (ks_tl_ring_pushed(&r) < a.count) {
        uint64_t first = 0;
        const int n = ks_tl_ring_read(&r, out, 16, &first);
        for (int i = 0; i < n; ++i) {
            if (out[i].seq != first + (uint64_t)i) fail_msg("item %d: seq %llu, expected %llu", i,
                                                            (unsigned long long)out[i].seq,
                                                            (unsigned long long)(first + (uint64_t)i));
            for (int k = 0; k < 6; ++k)
                if (out[i].check[k] != out[i].seq * 3 + (uint64_t)k) fail_msg("a torn item at seq %llu",
                                                                             (unsigned long long)out[i].seq);
        }
        assert_true(n == 0 || first >= last_first); /* never older than a read before */
        if (n > 0) last_first = first;
        ++reads;
        items += n;
    }
    pthread_join(th, NULL);
    uint64_t first = 0;
    assert_int_equal(ks_tl_ring_read(&r, out, 16, &first), 15);
    assert_int_equal(first, a.count - 15);
    print_message("  %ld reads beside the writer, %ld whole items\n", reads, items);
    ks_tl_ring_free(&r);
}

/* 20 ms of samples every 50 us: DRAM 90 % inside the true kernels, 5 % outside. */
static int make_samples(ks_tl_sample *s, const uint64_t (*truth)[2], int ntruth)
{
    const uint64_t base = 5000000000ull;
    int n = 0;
    for (uint64_t t = 0; t < 20000000; t += 50000) {
        const uint64_t mid = base + t + 25000;
        int inside = 0;
        for (int k = 0; k < ntruth; ++k) inside |= mid >= base + truth[k][0] && mid < base + truth[k][1];
        s[n++] = ks_tl_decode_sample(base + t, base + t + 50000, inside ? 90.0 : 5.0, NAN, NAN, NAN);
    }
    return n;
}

static void test_best_lag(void **state)
{
    (void)state;
    static const uint64_t truth[3][2] = {{2000000, 5000000}, {8000000, 9000000}, {12000000, 16000000}};
    ks_tl_sample s[400];
    const int ns = make_samples(s, truth, 3);
    assert_int_equal(ns, 400);
    ks_tl_span spans[3];
    memset(spans, 0, sizeof spans);
    for (int shift_case = 0; shift_case < 3; ++shift_case) {
        const int64_t shift = shift_case == 0 ? 0 : shift_case == 1 ? -300000 : 450000; /* recorded minus true */
        for (int k = 0; k < 3; ++k) {
            spans[k].start_ns = 5000000000ull + truth[k][0] + (uint64_t)shift;
            spans[k].end_ns = 5000000000ull + truth[k][1] + (uint64_t)shift;
        }
        const int64_t lag = ks_tl_best_lag(s, ns, spans, 3, 1000000, 50000);
        print_message("  spans recorded %+lld ns off: best lag %+lld ns\n", (long long)shift, (long long)lag);
        assert_true(llabs(lag + shift) <= 50000);
    }
    assert_int_equal(ks_tl_best_lag(s, ns, spans, 0, 1000000, 50000), 0);
    assert_int_equal(ks_tl_best_lag(s, 0, spans, 3, 1000000, 50000), 0);
    assert_int_equal(ks_tl_best_lag(s, ns, spans, 3, 1000000, 0), 0);
}

/* ---- The H200 run that showed the clocks misaligned (a gpu test's log) ----
 * Five kernels back to back on one stream (spin 3 ms, copy 0.5 ms, spin 1 ms,
 * copy 0.5 ms, spin 2 ms), their spans moved onto the GPU's clock with the
 * measured gpu - cpu of 270660 ns; the PM samples every 20 us as CUPTI gave
 * them, which were on CUPTI's (host) clock: the first sample starting at
 * enable time, then one every 20 us. */
enum { H200_SAMPLES = 1422 };
static const int64_t h200_offset = 270660; /* gpu - cpu */
static const uint64_t h200_spans[5][2] = {
    {1795908697691013706ull, 1795908697694014711ull}, {1795908697694017174ull, 1795908697694518483ull},
    {1795908697694520915ull, 1795908697695521741ull}, {1795908697695524237ull, 1795908697696025450ull},
    {1795908697696028361ull, 1795908697698029180ull},
};

/* Fraction of [a, b) that [lo, hi) covers. */
static double cover(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    const uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
    return y > x ? (double)(y - x) / (double)(b - a) : 0.0;
}

/* The run's samples, their values what the kernels did, on the clock whose
 * timestamps are sample_clock_minus_cpu away from CUPTI's. */
static int h200_samples(ks_tl_sample *s, int64_t sample_clock_minus_cpu)
{
    const uint64_t first_end = 1795908697690668902ull;
    int n = 0;
    for (int i = 0; i < H200_SAMPLES; ++i) {
        const uint64_t t0 = i == 0 ? 1795908696634726393ull : first_end + 20000ull * (uint64_t)(i - 1);
        const uint64_t t1 = i == 0 ? first_end : t0 + 20000ull;
        double dram = 0.0, sm = 0.0;
        for (int k = 0; k < 5; ++k) { /* the kernels on CUPTI's clock */
            const double c = cover(t0, t1, h200_spans[k][0] - (uint64_t)h200_offset,
                                   h200_spans[k][1] - (uint64_t)h200_offset);
            sm += 99.5 * c;
            if (k == 1 || k == 3) dram += 88.0 * c;
        }
        s[n++] = ks_tl_decode_sample(t0 + (uint64_t)sample_clock_minus_cpu, t1 + (uint64_t)sample_clock_minus_cpu,
                                     dram, NAN, NAN, sm);
    }
    return n;
}

static void h200_span_list(ks_tl_span *sp)
{
    memset(sp, 0, 5 * sizeof *sp);
    for (int k = 0; k < 5; ++k) {
        sp[k].start_ns = h200_spans[k][0];
        sp[k].end_ns = h200_spans[k][1];
        snprintf(sp[k].name, sizeof sp[k].name, "%s", k % 2 ? "kst_copy_kernel" : "kst_spin_kernel");
    }
}

/* Kernels back to back: the lag check finds the shift between samples and
 * spans (the spans must move 270660 ns earlier), not the edge of its search. */
static void test_best_lag_back_to_back(void **state)
{
    (void)state;
    static ks_tl_sample s[H200_SAMPLES];
    const int ns = h200_samples(s, 0);
    ks_tl_span sp[5];
    h200_span_list(sp);
    const int64_t lag = ks_tl_best_lag(s, ns, sp, 5, 2000000, 10000);
    print_message("  H200 run: best lag %+lld ns, expected about %+lld\n", (long long)lag, (long long)-h200_offset);
    assert_true(llabs(lag + h200_offset) <= 20000);
    /* with the samples on the spans' clock, about 0 */
    const int ns2 = h200_samples(s, h200_offset);
    const int64_t lag2 = ks_tl_best_lag(s, ns2, sp, 5, 2000000, 10000);
    print_message("  aligned: best lag %+lld ns\n", (long long)lag2);
    assert_true(llabs(lag2) <= 20000);
}

/* What the PM sampler gives while the clock marker runs: a first sample from
 * enable time, then one every interval; SM % what the marker (every SM busy
 * from cpu_start to cpu_end on CUPTI's clock) and other work (busy_pct all
 * along) did; timestamps on a clock sample_clock_minus_cpu from CUPTI's. */
static int marker_samples(ks_tl_sample *s, uint64_t cpu_start, uint64_t cpu_end, int64_t interval,
                          int64_t sample_clock_minus_cpu, double busy_pct, int sm_sampled)
{
    const uint64_t first = cpu_start - 3 * (uint64_t)interval, last = cpu_end + 6 * (uint64_t)interval;
    int n = 0;
    for (uint64_t t0 = first - 1000000000ull, t1 = first; t0 < last; t0 = t1, t1 += (uint64_t)interval) {
        double sm = busy_pct + (100.0 - busy_pct) * cover(t0, t1, cpu_start, cpu_end);
        s[n++] = ks_tl_decode_sample(t0 + (uint64_t)sample_clock_minus_cpu, t1 + (uint64_t)sample_clock_minus_cpu,
                                     0.0, NAN, NAN, sm_sampled ? sm : NAN);
    }
    return n;
}

static void test_fit_clock(void **state)
{
    (void)state;
    static ks_tl_sample s[4096];
    const uint64_t c0 = 1795908697690000000ull, c1 = c0 + 500000; /* the marker on CUPTI's clock */
    const struct {
        const char *what;
        int64_t interval, gpu_minus_cpu, truth; /* truth: the samples' clock minus CUPTI's */
        ks_tl_domain domain;
    } cases[] = {
        {"H200, CUDA 13: samples on CUPTI's clock", 20000, 270660, 0, KS_TL_DOMAIN_CPU},
        {"samples on the GPU's timer", 20000, 270660, 270660, KS_TL_DOMAIN_GPU},
        {"GPU's timer 5 ms behind, samples on it", 50000, -5000000, -5000000, KS_TL_DOMAIN_GPU},
        {"GPU's timer 5 ms behind, samples on CUPTI's", 50000, -5000000, 0, KS_TL_DOMAIN_CPU},
        {"GPU's timer 10 s ahead, samples on it", 100000, 10000000000ll, 10000000000ll, KS_TL_DOMAIN_GPU},
        {"GPU's timer 10 s ahead, samples on CUPTI's", 100000, 10000000000ll, 0, KS_TL_DOMAIN_CPU},
        {"samples on a clock of their own, 1.2 ms ahead", 20000, 270660, 1200000, KS_TL_DOMAIN_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const int n = marker_samples(s, c0, c1, cases[i].interval, cases[i].truth, 0.0, 1);
        const ks_tl_clock_fit f = ks_tl_fit_clock(s, n, c0, c1, cases[i].gpu_minus_cpu, cases[i].interval);
        print_message("  %s: measured %d, domain %d, samples - cpu %+lld ns (fit %+lld, step %.1f points)\n",
                      cases[i].what, f.measured, (int)f.domain, (long long)f.samples_minus_cpu_ns,
                      (long long)f.fitted_ns, f.contrast);
        assert_true(f.measured);
        assert_true(f.distinct);
        assert_int_equal(f.domain, cases[i].domain);
        assert_true(llabs(f.fitted_ns - cases[i].truth) <= cases[i].interval);
        if (cases[i].domain == KS_TL_DOMAIN_OTHER)
            assert_true(llabs(f.samples_minus_cpu_ns - cases[i].truth) <= cases[i].interval);
        else
            assert_int_equal(f.samples_minus_cpu_ns, cases[i].truth); /* the marker's exact offset, not the fit's */
        assert_true(f.contrast > 90.0);
    }
    /* clocks 5 us apart: either is right to within a sample */
    int n = marker_samples(s, c0, c1, 20000, 5000, 0.0, 1);
    ks_tl_clock_fit f = ks_tl_fit_clock(s, n, c0, c1, 5000, 20000);
    assert_true(f.measured);
    assert_false(f.distinct);
    assert_true(f.domain == KS_TL_DOMAIN_CPU || f.domain == KS_TL_DOMAIN_GPU);
    /* no step, nothing decided: SM not sampled (DRAM flat), or other work kept the SMs busy */
    n = marker_samples(s, c0, c1, 20000, 0, 0.0, 0);
    f = ks_tl_fit_clock(s, n, c0, c1, 270660, 20000);
    assert_false(f.measured);
    assert_true(f.contrast < 1.0); /* DRAM stood in for SM: flat */
    n = marker_samples(s, c0, c1, 20000, 0, 95.0, 1);
    f = ks_tl_fit_clock(s, n, c0, c1, 270660, 20000);
    assert_false(f.measured);
    /* nothing to fit */
    f = ks_tl_fit_clock(s, 0, c0, c1, 270660, 20000);
    assert_false(f.measured);
    f = ks_tl_fit_clock(s, n, c1, c0, 270660, 20000);
    assert_false(f.measured);
}

static void test_strip(void **state)
{
    (void)state;
    ks_tl_sample s[20];
    for (int i = 0; i < 20; ++i) /* 0..1000 us, DRAM 5 * i %, SM not sampled */
        s[i] = ks_tl_decode_sample(1000000 + 50000 * (uint64_t)i, 1000000 + 50000 * (uint64_t)(i + 1), 5.0 * i,
                                   NAN, NAN, NAN);
    ks_tl_span sp[4];
    memset(sp, 0, sizeof sp);
    const uint64_t t[4][2] = {{1100000, 1295000}, {1298000, 1303000}, {1600000, 1601000}, {1900000, 2100000}};
    const char *names[4] = {"jacobi", "residual", "colormap", "jacobi"};
    for (int i = 0; i < 4; ++i) {
        sp[i].start_ns = t[i][0];
        sp[i].end_ns = t[i][1];
        snprintf(sp[i].name, sizeof sp[i].name, "%s", names[i]);
    }
    ks_tl_strip *st = malloc(sizeof *st);
    assert_non_null(st);
    /* spans given newest first: the strip orders them */
    ks_tl_span rev[4] = {sp[3], sp[2], sp[1], sp[0]};
    assert_int_equal(ks_tl_strip_build(s, 20, rev, 4, 0, 1000000, 100, 10, st), KS_OK);
    /* t1 = 0: the newest end (the last span's, 2.1 ms), window 1 ms back */
    assert_int_equal(st->t1_ns, 2100000);
    assert_int_equal(st->t0_ns, 1100000);
    /* 10 us columns: column 0 covers 1.100-1.110 ms, inside sample 2 (DRAM 10 %) */
    assert_true(fabsf(st->dram_pct[0] - 10.0f) < 1e-4f);
    assert_true(fabsf(st->dram_pct[4] - 10.0f) < 1e-4f);
    assert_true(fabsf(st->dram_pct[5] - 15.0f) < 1e-4f);
    assert_true(fabsf(st->dram_pct[89] - 95.0f) < 1e-4f);
    assert_true(isnan(st->dram_pct[90])); /* after the last sample */
    assert_true(isnan(st->sm_pct[0]));    /* SM never sampled */
    /* mean over 1.1-2.0 ms: samples 2..19, each 50 us */
    assert_true(fabs(st->dram_mean_pct - 5.0 * (2 + 19) / 2.0) < 1e-9);
    assert_true(isnan(st->sm_mean_pct));
    /* marks: the residual that starts in jacobi's last column is a kernel of another name, so it keeps a
     * mark of its own (jacobi gives up that column); colormap 1 column; jacobi clipped */
    assert_int_equal(st->nmarks, 4);
    assert_int_equal(st->marks[0].x0, 0);
    assert_int_equal(st->marks[0].x1, 19);
    assert_int_equal(st->marks[0].count, 1);
    assert_string_equal(st->marks[0].name, "jacobi");
    assert_true(st->marks[0].label);
    assert_int_equal(st->marks[1].x0, 19);
    assert_int_equal(st->marks[1].x1, 21);
    assert_string_equal(st->marks[1].name, "residual");
    assert_false(st->marks[1].label);
    assert_int_equal(st->marks[2].x0, 50);
    assert_int_equal(st->marks[2].x1, 51); /* 1 us: at least a column */
    assert_false(st->marks[2].label);
    assert_string_equal(st->marks[2].name, "colormap");
    assert_int_equal(st->marks[3].x0, 80);
    assert_int_equal(st->marks[3].x1, 100);
    assert_int_equal(st->marks_dropped, 0);

    /* a finer window: the residual gets its own mark */
    assert_int_equal(ks_tl_strip_build(s, 20, sp, 4, 1320000, 240000, 240, 10, st), KS_OK);
    assert_int_equal(st->nmarks, 2);
    assert_string_equal(st->marks[1].name, "residual");
    assert_int_equal(st->marks[0].x0, 20);
    assert_int_equal(st->marks[0].x1, 215);
    assert_int_equal(st->marks[1].x0, 218);
    assert_int_equal(st->marks[1].x1, 223);

    /* more kernels than marks: the newest kept */
    static ks_tl_span many[KS_TL_STRIP_MARKS + 10];
    memset(many, 0, sizeof many);
    for (int i = 0; i < KS_TL_STRIP_MARKS + 10; ++i) {
        many[i].start_ns = 1000000 + 4000 * (uint64_t)i;
        many[i].end_ns = many[i].start_ns + 1000;
        snprintf(many[i].name, sizeof many[i].name, "k%d", i);
    }
    assert_int_equal(ks_tl_strip_build(NULL, 0, many, KS_TL_STRIP_MARKS + 10, 0, 4000 * (KS_TL_STRIP_MARKS + 10),
                                       KS_TL_STRIP_COLUMNS, 10, st),
                     KS_OK);
    assert_int_equal(st->nmarks, KS_TL_STRIP_MARKS);
    assert_int_equal(st->marks_dropped, 10);
    assert_string_equal(st->marks[KS_TL_STRIP_MARKS - 1].name, "k265");
    assert_string_equal(st->marks[0].name, "k10");

    assert_int_equal(ks_tl_strip_build(s, 20, sp, 4, 0, 0, 100, 10, st), KS_ERR_INVALID);
    assert_int_equal(ks_tl_strip_build(s, 20, sp, 4, 0, 1000, KS_TL_STRIP_COLUMNS + 1, 10, st), KS_ERR_INVALID);
    assert_int_equal(ks_tl_strip_build(NULL, 3, sp, 4, 0, 1000, 100, 10, st), KS_ERR_INVALID);
    free(st);
}

/* A live Laplace frame as the strip sees it at a coarse window: a sweep of 20 Jacobi launches back to
 * back, then the small kernels between sweeps (a residual, a colormap, each a few microseconds), then the
 * next sweep. Launches of one kernel join into one mark; each of the others stays a mark of its own, in
 * order, none over another, however narrow (what a user must tell apart: the sweep filling the memory
 * bus and the small kernels between). */
static void test_strip_small_kernels_between(void **state)
{
    (void)state;
    ks_tl_span sp[40];
    memset(sp, 0, sizeof sp);
    int n = 0;
    for (int i = 0; i < 20; ++i, ++n) { /* jacobi: 0..790 us, launches of 39.5 us */
        sp[n].start_ns = (uint64_t)(39500 * i);
        sp[n].end_ns = sp[n].start_ns + 39500;
        snprintf(sp[n].name, sizeof sp[n].name, "jacobi_kmarch");
    }
    const uint64_t small[3][2] = {{792000, 797000}, {799000, 802000}, {803000, 805000}};
    const char *names[3] = {"residual_sumsq", "colormap_slice", "jacobi_kmarch"};
    for (int i = 0; i < 3; ++i, ++n) {
        sp[n].start_ns = small[i][0];
        sp[n].end_ns = small[i][1];
        snprintf(sp[n].name, sizeof sp[n].name, "%s", names[i]);
    }
    for (int i = 1; i < 10; ++i, ++n) { /* the next sweep, on from the jacobi just above */
        sp[n].start_ns = 805000 + (uint64_t)(39500 * (i - 1));
        sp[n].end_ns = sp[n].start_ns + 39500;
        snprintf(sp[n].name, sizeof sp[n].name, "jacobi_kmarch");
    }
    ks_tl_strip *st = malloc(sizeof *st);
    assert_non_null(st);
    /* 20 us columns over 0..1.2 ms */
    assert_int_equal(ks_tl_strip_build(NULL, 0, sp, n, 1200000, 1200000, 60, 10, st), KS_OK);
    assert_int_equal(st->nmarks, 4);
    assert_string_equal(st->marks[0].name, "jacobi_kmarch");
    assert_int_equal(st->marks[0].count, 20);
    assert_string_equal(st->marks[1].name, "residual_sumsq");
    assert_string_equal(st->marks[2].name, "colormap_slice");
    assert_string_equal(st->marks[3].name, "jacobi_kmarch");
    assert_int_equal(st->marks[3].count, 10);
    for (int i = 0; i < st->nmarks; ++i) {
        assert_true(st->marks[i].x1 > st->marks[i].x0);                  /* a column at least */
        if (i) assert_true(st->marks[i].x0 >= st->marks[i - 1].x1);       /* none over another */
    }
    assert_int_equal(st->marks[0].x0, 0);
    assert_int_equal(st->marks[1].x0, 39); /* where it started: the sweep gave up that column */
    assert_int_equal(st->marks[0].x1, 39);
    assert_int_equal(st->marks[2].x0, 40); /* started in the residual's only column: the next one */
    assert_int_equal(st->marks[3].x0, 41);
    assert_true(st->marks[0].label && st->marks[3].label);

    /* the last column: a kernel of another name with no column left joins the mark before it */
    ks_tl_span two[2];
    memset(two, 0, sizeof two);
    two[0].start_ns = 0;
    two[0].end_ns = 1000000;
    snprintf(two[0].name, sizeof two[0].name, "jacobi");
    two[1].start_ns = 999000;
    two[1].end_ns = 999500;
    snprintf(two[1].name, sizeof two[1].name, "residual");
    assert_int_equal(ks_tl_strip_build(NULL, 0, two, 2, 1000000, 1000000, 10, 3, st), KS_OK);
    assert_int_equal(st->nmarks, 2);
    assert_int_equal(st->marks[0].x1, 9);
    assert_int_equal(st->marks[1].x0, 9);
    assert_int_equal(st->marks[1].x1, 10);
    /* one column in all: no column left for the residual, so it joins the jacobi's mark */
    two[0].start_ns = 900000;
    two[0].end_ns = 950000;
    two[1].start_ns = 905000;
    assert_int_equal(ks_tl_strip_build(NULL, 0, two, 2, 1000000, 100000, 1, 3, st), KS_OK);
    assert_int_equal(st->nmarks, 1);
    assert_int_equal(st->marks[0].count, 2);
    free(st);
}

static void test_names_and_samples(void **state)
{
    (void)state;
    char out[KS_TL_NAME];
    ks_tl_short_name("copy_kernel(float const*, float*, unsigned long)", out, sizeof out);
    assert_string_equal(out, "copy_kernel");
    ks_tl_short_name("void tiled<16>(float const*, float*)", out, sizeof out);
    assert_string_equal(out, "tiled<16>");
    ks_tl_short_name("plain", out, sizeof out);
    assert_string_equal(out, "plain");
    ks_tl_short_name(NULL, out, sizeof out);
    assert_string_equal(out, "");
    char small[6];
    ks_tl_short_name("abcdefghij(int)", small, sizeof small);
    assert_string_equal(small, "abcde");

    ks_tl_sample x = ks_tl_decode_sample(10, 20, 42.0, 1.0, 2.0, 60.0);
    assert_int_equal(x.t0_ns, 10);
    assert_int_equal(x.t1_ns, 20);
    assert_true(x.dram_pct == 42.0f); /* a combined figure wins */
    assert_true(x.sm_pct == 60.0f);
    x = ks_tl_decode_sample(10, 20, NAN, 30.0, 25.5, NAN);
    assert_true(x.dram_pct == 55.5f); /* read + write of one peak */
    assert_true(isnan(x.sm_pct));
    x = ks_tl_decode_sample(10, 20, NAN, 30.0, NAN, 1.0);
    assert_true(isnan(x.dram_pct)); /* half a pair is no figure */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_basics), cmocka_unit_test(test_ring_reader_beside_writer),
        cmocka_unit_test(test_fit_clock),   cmocka_unit_test(test_best_lag),
        cmocka_unit_test(test_best_lag_back_to_back),
        cmocka_unit_test(test_strip),       cmocka_unit_test(test_strip_small_kernels_between),
        cmocka_unit_test(test_names_and_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
