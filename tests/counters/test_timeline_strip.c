/* The timeline's pure parts with recorded data: the rings (a reader beside a
 * writer that laps it gets whole, consecutive items), the clock domain, the
 * lag check, the strip chart's columns and kernel marks, names and samples. */
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

static void test_domain(void **state)
{
    (void)state;
    const uint64_t cpu_now = 1700000000000000000ull;
    const int64_t skew = 50000000;
    /* clocks that agree cannot be told apart: the GPU's needs no conversion */
    assert_int_equal(ks_tl_pick_domain(cpu_now - 5000000, cpu_now, 3000, skew), KS_TL_DOMAIN_GPU);
    /* the GPU timer 10 s ahead: a sample near it is on the GPU clock, near the host's on the host's */
    const int64_t off = 10000000000ll;
    assert_int_equal(ks_tl_pick_domain(cpu_now + (uint64_t)off - 20000000, cpu_now, off, skew), KS_TL_DOMAIN_GPU);
    assert_int_equal(ks_tl_pick_domain(cpu_now - 20000000, cpu_now, off, skew), KS_TL_DOMAIN_CPU);
    /* and 10 s behind */
    assert_int_equal(ks_tl_pick_domain(cpu_now - (uint64_t)off - 1000, cpu_now, -off, skew), KS_TL_DOMAIN_GPU);
    assert_int_equal(ks_tl_pick_domain(cpu_now - 1000, cpu_now, -off, skew), KS_TL_DOMAIN_CPU);
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
    /* marks: jacobi with the residual that starts in its last column joined; colormap 1 column; jacobi clipped */
    assert_int_equal(st->nmarks, 3);
    assert_int_equal(st->marks[0].x0, 0);
    assert_int_equal(st->marks[0].x1, 21);
    assert_int_equal(st->marks[0].count, 2);
    assert_string_equal(st->marks[0].name, "jacobi");
    assert_true(st->marks[0].label);
    assert_int_equal(st->marks[1].x0, 50);
    assert_int_equal(st->marks[1].x1, 51); /* 1 us: at least a column */
    assert_false(st->marks[1].label);
    assert_string_equal(st->marks[1].name, "colormap");
    assert_int_equal(st->marks[2].x0, 80);
    assert_int_equal(st->marks[2].x1, 100);
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
        cmocka_unit_test(test_domain),      cmocka_unit_test(test_best_lag),
        cmocka_unit_test(test_strip),       cmocka_unit_test(test_names_and_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
