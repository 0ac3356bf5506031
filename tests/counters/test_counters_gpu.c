/* Known kernels give known counters (GPU). Every CUPTI call is traced to
 * stdout with its status, and every measurement printed as the panel's rows
 * and the CSV line, so one run tells what the GPU offers and what it measured:
 *  - a copy of N floats moves 2 * N * 4 bytes of DRAM, within 2 %;
 *  - a warp reading consecutive floats needs 4 sectors a request, one reading
 *    floats 128 bytes apart 32;
 *  - a 32-way shared-memory conflict shows 32 passes an instruction, a
 *    conflict-free one 1;
 *  - the timeline's kernel spans match CUDA-event times within 5 %, and its
 *    DRAM and SM samples line up with them;
 *  - another CUPTI subscriber (as Nsight would hold) and a refused permission
 *    (faked, KS_COUNTERS_FAKE) each give one line, and measuring works again after;
 *  - the kernels' results are right after CUPTI's replays (outputs poisoned first).
 * Exits 77 without a CUDA device. The timeline's tests are in
 * test_counters_gpu_timeline.c; what the two files share is in
 * counters_gpu_test.h. */
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
#if KS_HAVE_CUPTI
#include <cupti_callbacks.h>
#endif

void cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fail_msg("%s: %s", what, cudaGetErrorString(e));
}

void ok(ks_status st, const char *what)
{
    if (st != KS_OK) fail_msg("%s: %s (%s)", what, ks_error_message(), ks_counters_why_short(ks_counters_last_why()));
}

void trace(void *user, const char *line)
{
    (void)user;
    printf("    | %s\n", line);
    fflush(stdout);
}

ks_counters *counters; /* made by the first test, used by the next */
cudaStream_t stream;

void print_set(const ks_counter_set *s, const char *title, double model_bytes)
{
    printf("  == %s: %s (%s, cc %d, %s), %d kernel(s), %d dropped, %d passes\n", title, s->device, s->chip, s->cc,
           ks_counters_gen_name(s->gen), s->nkernels, s->dropped, s->passes);
    for (int k = 0; k < s->nkernels; ++k) {
        printf("  -- kernel %d: %s\n", k, s->kernels[k].name);
        for (int id = 0; id < KS_CTR_NUM; ++id)
            printf("     %-28s %-74s %s%.6g\n", ks_counters_info((ks_counter_id)id)->key,
                   s->metric[id][0] ? s->metric[id] : "(absent)", s->kernels[k].present[id] ? "" : "absent ",
                   s->kernels[k].values[id]);
        ks_counter_row rows[KS_COUNTER_ROWS];
        const int n = ks_counters_rows(s, k, model_bytes, rows, KS_COUNTER_ROWS);
        printf("     panel:\n");
        for (int i = 0; i < n; ++i)
            printf("       %-63.63s %14s %-11s | %s | %s\n", rows[i].label, rows[i].value, rows[i].unit, rows[i].words,
                   rows[i].hover);
        char csv[512];
        ks_counters_csv_values(s, k, model_bytes, csv, sizeof csv);
        printf("     csv: %s\n     csv: %s\n", ks_counters_csv_header(), csv);
    }
    fflush(stdout);
}

static double measure_timed(ks_status (*launch)(void *, void *), void *user, ks_counter_set *out)
{
    const double t0 = ks_now_seconds();
    ok(ks_counters_measure(counters, launch, user, stream, out), "measure");
    return (ks_now_seconds() - t0) * 1e3;
}

static void poison(float *d, size_t n) { cuda_ok(cudaMemset(d, 0xFF, n * sizeof(float)), "poison"); }

/* ---- create ---- */

static void test_create(void **state)
{
    (void)state;
    if (!ks_counters_built()) {
        ks_counters_desc d = {0};
        assert_int_equal(ks_counters_create(&d, &counters), KS_ERR_UNSUPPORTED);
        printf("  no counters in this build: %s\n", ks_error_message());
        skip();
    }
    char path[512];
    ok(ks_counters_library(path, sizeof path), "library");
    printf("  libcupti: %s\n", path);
    ks_counters_desc d = {0};
    d.device = -1;
    d.trace = trace;
    const double t0 = ks_now_seconds();
    ok(ks_counters_create(&d, &counters), "create");
    printf("  create took %.1f ms\n", (ks_now_seconds() - t0) * 1e3);
    ks_counter_set s;
    ks_counters_describe(counters, &s);
    printf("  %s, chip %s, cc %d, table %s, %d passes; metrics:\n", s.device, s.chip, s.cc,
           ks_counters_gen_name(s.gen), s.passes);
    int absent = 0;
    for (int id = 0; id < KS_CTR_NUM; ++id) {
        printf("    %-28s %s\n", ks_counters_info((ks_counter_id)id)->key, s.metric[id][0] ? s.metric[id] : "ABSENT");
        absent += !s.metric[id][0];
    }
    printf("  %d of %d metrics absent on this GPU\n", absent, KS_CTR_NUM);
    assert_true(s.passes >= 1);
    /* what every Turing-or-later GPU has, and the tests below need */
    const ks_counter_id needed[] = {KS_CTR_DURATION_NS,         KS_CTR_DRAM_READ_BYTES,     KS_CTR_DRAM_WRITE_BYTES,
                                    KS_CTR_GLD_SECTORS,         KS_CTR_GLD_REQUESTS,        KS_CTR_GST_SECTORS,
                                    KS_CTR_GST_REQUESTS,        KS_CTR_SHARED_LD_WAVEFRONTS, KS_CTR_SHARED_LD_INST,
                                    KS_CTR_SHARED_LD_CONFLICTS, KS_CTR_SM_CLOCK_HZ};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; ++i)
        if (!s.metric[needed[i]][0]) fail_msg("%s is absent", ks_counters_info(needed[i])->key);
}

/* ---- DRAM bytes of a copy ---- */

typedef struct copy_job {
    const float *in;
    float *out;
    size_t n;
} copy_job;

static ks_status launch_copy(void *user, void *st)
{
    const copy_job *j = user;
    return kst_copy(j->in, j->out, j->n, st);
}

static const ks_counter_row *row_of(const ks_counter_row *rows, int n, const char *key)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(rows[i].key, key) == 0) return &rows[i];
    fail_msg("no row %s", key);
    return &rows[0]; /* not reached */
}

/* Gives kernel k of s what kst_set_info knows of launch `launch` (a set of n floats). */
static void set_launch_from(ks_counter_set *s, int k, size_t n, int launch)
{
    const kst_set shape = {n, (size_t)1 << 20, 264, NULL, NULL, NULL, NULL, NULL, NULL};
    kst_launch_info li;
    ok(kst_set_info(&shape, launch, &li), "kernel info");
    const ks_counter_launch l = {li.occupancy, li.load_bytes, li.store_bytes};
    ks_counters_set_launch(s, k, &l);
    printf("  launch %s: theoretical occupancy %.3f (CUDA's calculator), %d-byte loads, %d-byte stores\n", li.name,
           li.occupancy, li.load_bytes, li.store_bytes);
}

static void check_copy(const float *d_out, size_t n)
{
    float *h = malloc(n * sizeof *h);
    assert_non_null(h);
    cuda_ok(cudaMemcpy(h, d_out, n * sizeof *h, cudaMemcpyDeviceToHost), "copy back");
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += h[i] != kst_expected(i);
    free(h);
    if (bad) fail_msg("%zu of %zu copied floats are wrong after the replays", bad, n);
}

static void test_copy_dram_bytes(void **state)
{
    (void)state;
    if (counters == NULL) skip();
    size_t free_b = 0, total_b = 0;
    cuda_ok(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    /* 2^29 floats (2 GiB each way), 40 times an H200's L2, so what L2 holds at either end of the
     * kernel is within 1.5 % of the bytes; smaller where memory is short (replay keeps copies) */
    size_t n = (size_t)1 << 29;
    while (n > ((size_t)1 << 22) && 4 * n * sizeof(float) > free_b / 2) n /= 2;
    printf("  copy of %zu floats (%.0f MiB each way), device memory free %.1f GiB\n", n,
           n * 4.0 / 1048576.0, free_b / 1073741824.0);
    float *in = NULL, *out = NULL;
    cuda_ok(cudaMalloc((void **)&in, n * sizeof(float)), "cudaMalloc in");
    cuda_ok(cudaMalloc((void **)&out, n * sizeof(float)), "cudaMalloc out");
    ok(kst_fill(in, n, stream), "fill");
    poison(out, n);
    cuda_ok(cudaDeviceSynchronize(), "sync");
    copy_job job = {in, out, n};
    const double model = 2.0 * (double)n * sizeof(float);
    double bytes[2];
    for (int rep = 0; rep < 2; ++rep) {
        ks_counter_set s;
        const double ms = measure_timed(launch_copy, &job, &s);
        char title[64];
        snprintf(title, sizeof title, "copy, measure %d (%.1f ms with replays)", rep + 1, ms);
        print_set(&s, title, model);
        assert_int_equal(s.nkernels, 1);
        ks_counter_derived d;
        ks_counters_derive(&s.kernels[0], model, &d);
        printf("  DRAM read %.0f (%.3f of N*4), written %.0f (%.3f), total / model %.4f, %.0f GB/s\n",
               d.dram_read_bytes, d.dram_read_bytes / (model / 2), d.dram_write_bytes, d.dram_write_bytes / (model / 2),
               d.bytes_vs_model, d.dram_gbs);
        assert_true(fabs(d.bytes_vs_model - 1.0) <= 0.02);
        assert_true(fabs(d.dram_read_bytes / (model / 2) - 1.0) <= 0.05);
        assert_true(fabs(d.dram_write_bytes / (model / 2) - 1.0) <= 0.05);
        printf("  float4 loads: %.3f sectors a request (16 expected: a warp's 512 bytes)\n", d.gld_sectors_per_request);
        bytes[rep] = d.dram_bytes;
        /* the panel with the launch's figures: achieved against theoretical, 16 sectors as the ideal */
        set_launch_from(&s, 0, n, 1);
        ks_counter_row rows[KS_COUNTER_ROWS];
        const int nr = ks_counters_rows(&s, 0, model, rows, KS_COUNTER_ROWS);
        const ks_counter_row *ach = row_of(rows, nr, "occupancy_achieved");
        const ks_counter_row *th = row_of(rows, nr, "occupancy_theoretical");
        const ks_counter_row *ld = row_of(rows, nr, "gld_sectors_per_request");
        printf("  panel: achieved %s %% (%s), theoretical %s %% (%s); loads %s (%s)\n", ach->value, ach->words,
               th->value, th->words, ld->value, ld->words);
        assert_true(th->present);
        assert_true(ach->number <= th->number + 2.0);
        assert_non_null(strstr(ld->words, "coalesced"));
        check_copy(out, n);
        poison(out, n);
        /* the name last: the figures above matter even where launch names fail */
        assert_non_null(strstr(s.kernels[0].name, "kst_copy_kernel"));
    }
    printf("  two measures agree within %.3f %%\n", 100.0 * fabs(bytes[1] / bytes[0] - 1.0));
    assert_true(fabs(bytes[1] / bytes[0] - 1.0) < 0.01);
    cudaFree(in);
    cudaFree(out);
}

/* ---- coalescing ---- */

typedef struct read_job {
    const float *in;
    float *out_c, *out_s;
    size_t n;
} read_job;

static ks_status launch_reads(void *user, void *st)
{
    const read_job *j = user;
    KS_TRY(kst_read_coalesced(j->in, j->out_c, j->n, st));
    return kst_read_strided(j->in, j->out_s, j->n, st);
}

static void test_sectors_per_request(void **state)
{
    (void)state;
    if (counters == NULL) skip();
    const size_t n = (size_t)1 << 20; /* outputs; the strided one reads 32 * n floats */
    float *in = NULL, *oc = NULL, *os = NULL;
    cuda_ok(cudaMalloc((void **)&in, 32 * n * sizeof(float)), "cudaMalloc");
    cuda_ok(cudaMalloc((void **)&oc, n * sizeof(float)), "cudaMalloc");
    cuda_ok(cudaMalloc((void **)&os, n * sizeof(float)), "cudaMalloc");
    ok(kst_fill(in, 32 * n, stream), "fill");
    poison(oc, n);
    poison(os, n);
    cuda_ok(cudaDeviceSynchronize(), "sync");
    read_job job = {in, oc, os, n};
    ks_counter_set s;
    const double ms = measure_timed(launch_reads, &job, &s);
    char title[64];
    snprintf(title, sizeof title, "coalesced and strided loads (%.1f ms)", ms);
    print_set(&s, title, 0.0);
    assert_int_equal(s.nkernels, 2); /* in launch order: coalesced, strided */
    ks_counter_derived c, st;
    ks_counters_derive(&s.kernels[0], 0.0, &c);
    ks_counters_derive(&s.kernels[1], 0.0, &st);
    printf("  load sectors / request: consecutive %.3f, strided %.3f; store: %.3f, %.3f\n", c.gld_sectors_per_request,
           st.gld_sectors_per_request, c.gst_sectors_per_request, st.gst_sectors_per_request);
    assert_true(fabs(c.gld_sectors_per_request - 4.0) < 0.1);
    assert_true(fabs(st.gld_sectors_per_request - 32.0) < 0.5);
    assert_true(fabs(c.gst_sectors_per_request - 4.0) < 0.1);
    assert_true(fabs(st.gst_sectors_per_request - 4.0) < 0.1);
    /* with the launches' 4-byte accesses the panel says which is coalesced */
    set_launch_from(&s, 0, 32 * n, 2);
    set_launch_from(&s, 1, 32 * n, 3);
    ks_counter_row rows[KS_COUNTER_ROWS];
    int nr = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    printf("  panel, consecutive: %s\n", row_of(rows, nr, "gld_sectors_per_request")->words);
    assert_non_null(strstr(row_of(rows, nr, "gld_sectors_per_request")->words, "ideal 4 for 4-byte loads"));
    nr = ks_counters_rows(&s, 1, 0.0, rows, KS_COUNTER_ROWS);
    printf("  panel, strided: %s\n", row_of(rows, nr, "gld_sectors_per_request")->words);
    assert_non_null(strstr(row_of(rows, nr, "gld_sectors_per_request")->words, "8.0x the 4"));
    float *h = malloc(2 * n * sizeof *h);
    assert_non_null(h);
    cuda_ok(cudaMemcpy(h, oc, n * sizeof *h, cudaMemcpyDeviceToHost), "copy back");
    cuda_ok(cudaMemcpy(h + n, os, n * sizeof *h, cudaMemcpyDeviceToHost), "copy back");
    for (size_t i = 0; i < n; ++i) {
        if (h[i] != 2.0f * kst_expected(i)) fail_msg("coalesced out[%zu] = %g", i, h[i]);
        if (h[n + i] != 2.0f * kst_expected(32 * i)) fail_msg("strided out[%zu] = %g", i, h[n + i]);
    }
    free(h);
    cudaFree(in);
    cudaFree(oc);
    cudaFree(os);
    assert_non_null(strstr(s.kernels[0].name, "kst_read_coalesced_kernel"));
    assert_non_null(strstr(s.kernels[1].name, "kst_read_strided_kernel"));
}

/* ---- bank conflicts ---- */

typedef struct shared_job {
    float *out_free, *out_conflict;
    int blocks, reps;
} shared_job;

static ks_status launch_shared(void *user, void *st)
{
    const shared_job *j = user;
    KS_TRY(kst_shared(j->out_free, j->blocks, 1, j->reps, st));
    return kst_shared(j->out_conflict, j->blocks, 32, j->reps, st);
}

static void test_bank_conflicts(void **state)
{
    (void)state;
    if (counters == NULL) skip();
    shared_job job = {NULL, NULL, 264, 16};
    const size_t n = (size_t)job.blocks * 128;
    cuda_ok(cudaMalloc((void **)&job.out_free, n * sizeof(float)), "cudaMalloc");
    cuda_ok(cudaMalloc((void **)&job.out_conflict, n * sizeof(float)), "cudaMalloc");
    poison(job.out_free, n);
    poison(job.out_conflict, n);
    cuda_ok(cudaDeviceSynchronize(), "sync");
    ks_counter_set s;
    const double ms = measure_timed(launch_shared, &job, &s);
    char title[64];
    snprintf(title, sizeof title, "shared memory, conflict-free then 32-way (%.1f ms)", ms);
    print_set(&s, title, 0.0);
    assert_int_equal(s.nkernels, 2);
    ks_counter_derived f, c;
    ks_counters_derive(&s.kernels[0], 0.0, &f);
    ks_counters_derive(&s.kernels[1], 0.0, &c);
    const double inst = s.kernels[1].values[KS_CTR_SHARED_LD_INST] + s.kernels[1].values[KS_CTR_SHARED_ST_INST];
    const double expect_inst = (double)job.blocks * 4 * 32 * (job.reps + 1);
    printf("  passes per shared instruction: conflict-free %.3f, 32-way %.3f; conflicts %.0f and %.0f; "
           "shared instructions %.0f (expected %.0f)\n",
           f.shared_ways, c.shared_ways, f.bank_conflicts, c.bank_conflicts, inst, expect_inst);
    assert_true(fabs(inst / expect_inst - 1.0) < 0.01);
    assert_true(f.shared_ways < 1.1);
    assert_true(c.shared_ways > 30.0 && c.shared_ways < 33.0);
    assert_true(c.bank_conflicts >= 0.9 * 31.0 * inst);
    assert_true(f.bank_conflicts <= 0.05 * inst);
    float *h = malloc(2 * n * sizeof *h);
    assert_non_null(h);
    cuda_ok(cudaMemcpy(h, job.out_free, n * sizeof *h, cudaMemcpyDeviceToHost), "copy back");
    cuda_ok(cudaMemcpy(h + n, job.out_conflict, n * sizeof *h, cudaMemcpyDeviceToHost), "copy back");
    for (size_t i = 0; i < 2 * n; ++i) {
        const float want = kst_shared_expected((int)(i % 32), job.reps);
        if (h[i] != want) fail_msg("shared out[%zu] = %g, expected %g", i, h[i], want);
    }
    free(h);
    cudaFree(job.out_free);
    cudaFree(job.out_conflict);
    assert_non_null(strstr(s.kernels[0].name, "kst_shared_kernel<1>"));
    assert_non_null(strstr(s.kernels[1].name, "kst_shared_kernel<32>"));
}

/* ---- refusals: permission (faked) and another subscriber (real) ---- */

ks_status launch_small_copy(void *user, void *st)
{
    float *buf = user;
    return kst_copy(buf, buf + (1 << 20), 1 << 20, st);
}

static void test_permission_refused(void **state)
{
    (void)state;
    if (counters == NULL) skip();
    float *buf = NULL;
    cuda_ok(cudaMalloc((void **)&buf, (size_t)2 << 22), "cudaMalloc");
    ks_counter_set s;
    /* the driver's NVreg_RestrictProfilingToAdminUsers answers CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35) */
    setenv("KS_COUNTERS_FAKE", "cuptiRangeProfilerEnable=35", 1);
    const ks_status st = ks_counters_measure(counters, launch_small_copy, buf, stream, &s);
    unsetenv("KS_COUNTERS_FAKE");
    printf("  refused measure: %s\n", ks_error_message());
    assert_int_equal(st, KS_ERR_UNSUPPORTED);
    assert_int_equal(ks_counters_last_why(), KS_CTRS_PERMISSION);
    assert_non_null(strstr(ks_error_message(), "NVreg_RestrictProfilingToAdminUsers"));
    assert_non_null(strstr(ks_error_message(), "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
    /* and at create, where the counter availability is asked for */
    setenv("KS_COUNTERS_FAKE", "cuptiProfilerGetCounterAvailability=35", 1);
    ks_counters *other = NULL;
    ks_counters_desc d = {0};
    d.device = -1;
    const ks_status cst = ks_counters_create(&d, &other);
    unsetenv("KS_COUNTERS_FAKE");
    printf("  refused create: %s\n", ks_error_message());
    assert_int_equal(cst, KS_ERR_UNSUPPORTED);
    assert_null(other);
    assert_int_equal(ks_counters_last_why(), KS_CTRS_PERMISSION);
    /* nothing stuck: the next measure works */
    ok(ks_counters_measure(counters, launch_small_copy, buf, stream, &s), "measure after the refusal");
    assert_int_equal(s.nkernels, 1);
    cudaFree(buf);
}

#if KS_HAVE_CUPTI
static void CUPTIAPI other_tool(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
    (void)u;
    (void)d;
    (void)id;
    (void)data;
}
#endif

static void test_other_profiler(void **state)
{
    (void)state;
#if KS_HAVE_CUPTI
    if (counters == NULL) skip();
    /* our subscriber goes with the last object; then a tool of our own takes CUPTI first */
    ks_counters_destroy(counters);
    counters = NULL;
    CUpti_SubscriberHandle sub = NULL;
    CUpti_SubscriberParams p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = "a test tool";
    const CUptiResult r = cuptiSubscribe_v2(&sub, other_tool, NULL, &p);
    printf("  the test's own cuptiSubscribe_v2: %d\n", (int)r);
    assert_int_equal(r, CUPTI_SUCCESS);
    ks_counters_desc d = {0};
    d.device = -1;
    ks_counters *c = NULL;
    const ks_status st = ks_counters_create(&d, &c);
    printf("  create beside another subscriber: %s\n", ks_error_message());
    assert_int_equal(st, KS_ERR_UNSUPPORTED);
    assert_null(c);
    assert_int_equal(ks_counters_last_why(), KS_CTRS_OTHER_PROFILER);
    assert_non_null(strstr(ks_error_message(), "another profiler"));
    ks_timeline *tl = NULL;
    ks_timeline_desc td = {0};
    td.device = -1;
    assert_int_equal(ks_timeline_create(&td, &tl), KS_ERR_UNSUPPORTED);
    printf("  timeline beside another subscriber: %s\n", ks_error_message());
    assert_int_equal(ks_counters_last_why(), KS_CTRS_OTHER_PROFILER);
    assert_int_equal(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
    /* once it is gone, counters again */
    d.trace = trace;
    ok(ks_counters_create(&d, &counters), "create after the other tool left");
#else
    skip();
#endif
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("device 0: %s, compute capability %d.%d, %d SMs, L2 %d MiB, %.1f GiB\n", prop.name, prop.major,
               prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.totalGlobalMem / 1073741824.0);
    if (cudaStreamCreate(&stream) != cudaSuccess) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create),           cmocka_unit_test(test_copy_dram_bytes),
        cmocka_unit_test(test_sectors_per_request), cmocka_unit_test(test_bank_conflicts),
        cmocka_unit_test(test_permission_refused), cmocka_unit_test(test_other_profiler),
        cmocka_unit_test(test_timeline),         cmocka_unit_test(test_counters_after_timeline),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ks_counters_destroy(counters);
    cudaStreamDestroy(stream);
    return failed;
}
