/* Hardware counters on the CPU: the metric tables of each GPU generation, and
 * the figures, panel rows, JSON and CSV made from a recorded measurement. The
 * words of every "no counters" case and create's refusals are in
 * test_counters_why.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counters/counters.h"
#include "counters/timeline.h"

static void assert_contains(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL) fail_msg("\"%s\" lacks \"%s\"", text, needle);
}

/* ---- tables ---- */

static void test_generations(void **state)
{
    (void)state;
    const struct {
        int cc;
        ks_counter_gen gen;
        int time_trigger;
    } rows[] = {
        {70, KS_GEN_UNSUPPORTED, 0}, {72, KS_GEN_UNSUPPORTED, 0}, {75, KS_GEN_TURING, 0},
        {80, KS_GEN_AMPERE_GA100, 0}, {86, KS_GEN_AMPERE, 1},     {87, KS_GEN_AMPERE, 1},
        {89, KS_GEN_ADA, 1},          {90, KS_GEN_HOPPER, 1},     {100, KS_GEN_BLACKWELL, 1},
        {103, KS_GEN_BLACKWELL, 1},   {110, KS_GEN_BLACKWELL, 1}, {120, KS_GEN_BLACKWELL_RTX, 1},
        {121, KS_GEN_BLACKWELL_RTX, 1}, {130, KS_GEN_NEWER, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        assert_int_equal(ks_counters_generation(rows[i].cc), rows[i].gen);
        assert_int_equal(ks_counters_pm_time_trigger(rows[i].gen), rows[i].time_trigger);
    }
    assert_contains(ks_counters_gen_name(KS_GEN_HOPPER), "sm_90");
    assert_contains(ks_counters_gen_name(KS_GEN_TURING), "sm_75");
}

static void test_info_table(void **state)
{
    (void)state;
    for (int i = 0; i < KS_CTR_NUM; ++i) {
        const ks_counter_info *a = ks_counters_info((ks_counter_id)i);
        assert_non_null(a);
        assert_true(a->key[0] && a->label[0] && a->ncu[0] && a->words[0]);
        for (int j = 0; j < i; ++j) assert_string_not_equal(a->key, ks_counters_info((ks_counter_id)j)->key);
    }
    assert_null(ks_counters_info(KS_CTR_NUM));
    assert_null(ks_counters_info((ks_counter_id)-1));
    /* counts add up, rates average */
    assert_true(ks_counters_info(KS_CTR_DRAM_READ_BYTES)->summed);
    assert_false(ks_counters_info(KS_CTR_L2_HIT_PCT)->summed);
    const ks_counter_info *ls = ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_LONG_SCOREBOARD);
    assert_string_equal(ls->ncu, "Stall Long Scoreboard");
    assert_contains(ls->words, "long scoreboard");
    assert_contains(ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_MIO_THROTTLE)->words, "MIO throttle");
    assert_contains(ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_BARRIER)->words, "__syncthreads");
}

/* Every generation names every metric; Hopper's are Nsight Compute's; Turing's DRAM peak differs. */
static void test_metric_names(void **state)
{
    (void)state;
    for (int g = KS_GEN_TURING; g < KS_GEN_NUM; ++g)
        for (int i = 0; i < KS_CTR_NUM; ++i) {
            const char *names[KS_CTR_CANDIDATES];
            const int n = ks_counters_candidates((ks_counter_gen)g, (ks_counter_id)i, names, KS_CTR_CANDIDATES);
            assert_true(n >= 1);
            for (int k = 0; k < n; ++k) {
                assert_non_null(strstr(names[k], "__")); /* unit__counter */
                assert_true(strlen(names[k]) < KS_COUNTER_METRIC);
            }
        }
    const char *n1[KS_CTR_CANDIDATES];
    const struct {
        ks_counter_id id;
        const char *name;
    } hopper[] = {
        {KS_CTR_DURATION_NS, "gpu__time_duration.sum"},
        {KS_CTR_DRAM_READ_BYTES, "dram__bytes_read.sum"},
        {KS_CTR_DRAM_WRITE_BYTES, "dram__bytes_write.sum"},
        {KS_CTR_DRAM_PEAK_PCT, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
        {KS_CTR_L1_HIT_PCT, "l1tex__t_sector_hit_rate.pct"},
        {KS_CTR_L2_HIT_PCT, "lts__t_sector_hit_rate.pct"},
        {KS_CTR_GLD_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
        {KS_CTR_GLD_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
        {KS_CTR_SHARED_LD_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
        {KS_CTR_SHARED_ST_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
        {KS_CTR_OCC_ACHIEVED_PCT, "sm__warps_active.avg.pct_of_peak_sustained_active"},
        {KS_CTR_OCC_THEORETICAL_PCT, "sm__maximum_warps_per_active_cycle_pct"},
        {KS_CTR_SM_CLOCK_HZ, "sm__cycles_elapsed.avg.per_second"},
        {KS_CTR_STALL_FIRST + KS_STALL_LONG_SCOREBOARD,
         "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"},
        {KS_CTR_STALL_FIRST + KS_STALL_MIO_THROTTLE,
         "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"},
    };
    for (size_t i = 0; i < sizeof hopper / sizeof hopper[0]; ++i) {
        assert_true(ks_counters_candidates(KS_GEN_HOPPER, hopper[i].id, n1, KS_CTR_CANDIDATES) >= 1);
        assert_string_equal(n1[0], hopper[i].name);
    }
    /* a second name where ncu has one: the clock, the stalls' latency form */
    assert_int_equal(ks_counters_candidates(KS_GEN_HOPPER, KS_CTR_SM_CLOCK_HZ, n1, KS_CTR_CANDIDATES), 2);
    assert_string_equal(n1[1], "smsp__cycles_elapsed.avg.per_second");
    assert_int_equal(ks_counters_candidates(KS_GEN_ADA, KS_CTR_STALL_FIRST + KS_STALL_BARRIER, n1, 3), 2);
    assert_string_equal(n1[1], "smsp__average_warp_latency_issue_stalled_barrier.ratio");
    /* Turing names DRAM throughput the older way first */
    assert_int_equal(ks_counters_candidates(KS_GEN_TURING, KS_CTR_DRAM_PEAK_PCT, n1, KS_CTR_CANDIDATES), 2);
    assert_string_equal(n1[0], "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    assert_int_equal(ks_counters_candidates(KS_GEN_AMPERE, KS_CTR_DRAM_PEAK_PCT, n1, KS_CTR_CANDIDATES), 2);
    assert_string_equal(n1[0], "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
    /* cap and bad input */
    assert_int_equal(ks_counters_candidates(KS_GEN_HOPPER, KS_CTR_SM_CLOCK_HZ, n1, 1), 1);
    assert_int_equal(ks_counters_candidates(KS_GEN_UNSUPPORTED, KS_CTR_DURATION_NS, n1, 3), 0);
    assert_int_equal(ks_counters_candidates(KS_GEN_HOPPER, KS_CTR_NUM, n1, 3), 0);

    /* the PM sampler: HBM chips try dram__ first, GDDR chips dramc__ */
    assert_true(ks_tl_candidates(KS_GEN_HOPPER, KS_TL_DRAM, n1, 3) >= 2);
    assert_string_equal(n1[0], "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    assert_true(ks_tl_candidates(KS_GEN_ADA, KS_TL_DRAM_READ, n1, 3) >= 2);
    assert_string_equal(n1[0], "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed");
    assert_string_equal(n1[1], "dram__read_throughput.avg.pct_of_peak_sustained_elapsed");
    assert_true(ks_tl_candidates(KS_GEN_TURING, KS_TL_SM, n1, 3) >= 1);
    assert_string_equal(n1[0], "sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
    assert_int_equal(ks_tl_candidates(KS_GEN_HOPPER, KS_TL_METRICS, n1, 3), 0);
}

/* ---- a recorded measurement ---- */

/* What an H200 run of a copy kernel of 2^28 floats, and of a kernel with a
 * 32-way shared-memory conflict, could look like. Stall reason values per
 * issued instruction; one metric absent (as on a chip that lacks it). */
static void recorded_set(ks_counter_set *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->device, sizeof s->device, "NVIDIA H200");
    snprintf(s->chip, sizeof s->chip, "GH100");
    s->cc = 90;
    s->gen = KS_GEN_HOPPER;
    s->passes = 9;
    s->nkernels = 2;
    for (int id = 0; id < KS_CTR_NUM; ++id) {
        const char *names[KS_CTR_CANDIDATES];
        if (ks_counters_candidates(KS_GEN_HOPPER, (ks_counter_id)id, names, KS_CTR_CANDIDATES) > 0 &&
            id != KS_CTR_L1_HIT_PCT)
            snprintf(s->metric[id], KS_COUNTER_METRIC, "%s", names[0]);
    }
    ks_kernel_counters *k = &s->kernels[0];
    snprintf(k->name, sizeof k->name, "copy_kernel(float const*, float*, unsigned long)");
    for (int id = 0; id < KS_CTR_NUM; ++id) k->present[id] = id != KS_CTR_L1_HIT_PCT;
    k->values[KS_CTR_DURATION_NS] = 450000.0;
    k->values[KS_CTR_DRAM_READ_BYTES] = 1073741824.0;
    k->values[KS_CTR_DRAM_WRITE_BYTES] = 1073741824.0 * 1.01;
    k->values[KS_CTR_DRAM_PEAK_PCT] = 91.5;
    k->values[KS_CTR_L1_HIT_PCT] = NAN;
    k->values[KS_CTR_L2_HIT_PCT] = 12.25;
    k->values[KS_CTR_GLD_SECTORS] = 33554432.0;
    k->values[KS_CTR_GLD_REQUESTS] = 8388608.0;
    k->values[KS_CTR_GST_SECTORS] = 33554432.0;
    k->values[KS_CTR_GST_REQUESTS] = 8388608.0;
    k->values[KS_CTR_SHARED_LD_CONFLICTS] = 0;
    k->values[KS_CTR_SHARED_ST_CONFLICTS] = 0;
    k->values[KS_CTR_SHARED_LD_WAVEFRONTS] = 0;
    k->values[KS_CTR_SHARED_ST_WAVEFRONTS] = 0;
    k->values[KS_CTR_SHARED_LD_INST] = 0;
    k->values[KS_CTR_SHARED_ST_INST] = 0;
    k->values[KS_CTR_OCC_ACHIEVED_PCT] = 81.5;
    k->values[KS_CTR_OCC_THEORETICAL_PCT] = 100.0;
    k->values[KS_CTR_SM_CLOCK_HZ] = 1.98e9;
    k->values[KS_CTR_WARP_CYCLES_PER_INST] = 140.0;
    for (int st = 0; st < KS_STALL_NUM; ++st) k->values[KS_CTR_STALL_FIRST + st] = 0.0;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_LONG_SCOREBOARD] = 120.0;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_LG_THROTTLE] = 12.0;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_WAIT] = 4.0;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_NOT_SELECTED] = 2.0;

    ks_kernel_counters *b = &s->kernels[1];
    *b = *k;
    snprintf(b->name, sizeof b->name, "bank_kernel(float*, int)");
    b->values[KS_CTR_DURATION_NS] = 150000.0;
    b->values[KS_CTR_DRAM_READ_BYTES] = 1e6;
    b->values[KS_CTR_DRAM_WRITE_BYTES] = 3e6;
    b->values[KS_CTR_L2_HIT_PCT] = 52.25;
    b->values[KS_CTR_GLD_SECTORS] = 0;
    b->values[KS_CTR_GLD_REQUESTS] = 0;
    b->values[KS_CTR_GST_SECTORS] = 32768.0;
    b->values[KS_CTR_GST_REQUESTS] = 8192.0;
    b->values[KS_CTR_SHARED_LD_CONFLICTS] = 31.0 * 65536;
    b->values[KS_CTR_SHARED_ST_CONFLICTS] = 31.0 * 4096;
    b->values[KS_CTR_SHARED_LD_WAVEFRONTS] = 32.0 * 65536;
    b->values[KS_CTR_SHARED_ST_WAVEFRONTS] = 32.0 * 4096;
    b->values[KS_CTR_SHARED_LD_INST] = 65536;
    b->values[KS_CTR_SHARED_ST_INST] = 4096;
    b->values[KS_CTR_OCC_ACHIEVED_PCT] = 41.5;
    b->values[KS_CTR_SM_CLOCK_HZ] = 1.755e9;
    for (int st = 0; st < KS_STALL_NUM; ++st) b->values[KS_CTR_STALL_FIRST + st] = 0.0;
    b->values[KS_CTR_STALL_FIRST + KS_STALL_MIO_THROTTLE] = 30.0;
    b->values[KS_CTR_STALL_FIRST + KS_STALL_SHORT_SCOREBOARD] = 10.0;
}

static void test_derive(void **state)
{
    (void)state;
    ks_counter_set s;
    recorded_set(&s);
    ks_counter_derived d;
    ks_counters_derive(&s.kernels[0], 2.0 * 1073741824.0, &d);
    assert_true(fabs(d.duration_ms - 0.45) < 1e-12);
    assert_true(fabs(d.dram_bytes - 1073741824.0 * 2.01) < 1.0);
    assert_true(fabs(d.dram_gbs - 1073741824.0 * 2.01 / 450000.0) < 1e-6);
    assert_true(fabs(d.bytes_vs_model - 1.005) < 1e-9);
    assert_true(fabs(d.gld_sectors_per_request - 4.0) < 1e-12);
    assert_true(fabs(d.sectors_per_request - 4.0) < 1e-12);
    assert_true(isnan(d.l1_hit_pct));          /* absent stays absent */
    assert_true(isnan(d.shared_ways));         /* no shared instructions: nothing to rate */
    assert_true(d.bank_conflicts == 0.0);      /* but zero conflicts is a figure */
    assert_true(fabs(d.occupancy_achieved - 0.815) < 1e-12);
    assert_true(fabs(d.sm_clock_mhz - 1980.0) < 1e-9);
    assert_int_equal(d.nstalls, 4);
    assert_int_equal(d.stall[0], KS_STALL_LONG_SCOREBOARD);
    assert_int_equal(d.stall[1], KS_STALL_LG_THROTTLE);
    assert_int_equal(d.stall[2], KS_STALL_WAIT);
    assert_true(fabs(d.stall_share[0] - 120.0 / 138.0) < 1e-12);
    ks_counters_derive(&s.kernels[0], 0.0, &d);
    assert_true(isnan(d.bytes_vs_model));

    ks_counters_derive(&s.kernels[1], 0.0, &d);
    assert_true(fabs(d.shared_ways - 32.0) < 1e-12);
    assert_true(fabs(d.bank_conflicts - 31.0 * (65536 + 4096)) < 1e-6);
    assert_true(isnan(d.gld_sectors_per_request)); /* no loads */
    assert_true(fabs(d.gst_sectors_per_request - 4.0) < 1e-12);
    assert_int_equal(d.stall[0], KS_STALL_MIO_THROTTLE);

    char w[160];
    assert_contains(ks_counters_model_words(1.31, w, sizeof w), "cache reuse failed");
    assert_contains(ks_counters_model_words(1.31, w, sizeof w), "31 %");
    assert_contains(ks_counters_model_words(0.62, w, sizeof w), "L2 served part of it");
    assert_contains(ks_counters_model_words(1.0, w, sizeof w), "the DRAM traffic the model counts");
    assert_contains(ks_counters_model_words(NAN, w, sizeof w), "no byte model");
}

static void test_combine(void **state)
{
    (void)state;
    ks_counter_set s;
    recorded_set(&s);
    ks_kernel_counters all;
    assert_int_equal(ks_counters_combine(&s, -1, &all), KS_OK);
    assert_string_equal(all.name, "2 kernels");
    assert_true(all.values[KS_CTR_DURATION_NS] == 600000.0);
    assert_true(all.values[KS_CTR_DRAM_READ_BYTES] == 1073741824.0 + 1e6);
    /* rates weighted by time: 3/4 of the copy, 1/4 of the other */
    assert_true(fabs(all.values[KS_CTR_L2_HIT_PCT] - (0.75 * 12.25 + 0.25 * 52.25)) < 1e-9);
    assert_true(fabs(all.values[KS_CTR_SM_CLOCK_HZ] - (0.75 * 1.98e9 + 0.25 * 1.755e9)) < 1.0);
    assert_false(all.present[KS_CTR_L1_HIT_PCT]);
    assert_int_equal(ks_counters_combine(&s, 1, &all), KS_OK);
    assert_string_equal(all.name, "bank_kernel(float*, int)");
    assert_int_equal(ks_counters_combine(&s, 2, &all), KS_ERR_INVALID);
    ks_counter_set empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(ks_counters_combine(&empty, -1, &all), KS_ERR_INVALID);
}

static const ks_counter_row *find_row(const ks_counter_row *rows, int n, const char *key)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(rows[i].key, key) == 0) return &rows[i];
    fail_msg("no row %s", key);
    return &rows[0]; /* not reached: fail_msg leaves the test */
}

static void test_rows(void **state)
{
    (void)state;
    ks_counter_set s;
    recorded_set(&s);
    ks_counter_row rows[KS_COUNTER_ROWS];
    const int n = ks_counters_rows(&s, 0, 2.0 * 1073741824.0, rows, KS_COUNTER_ROWS);
    const char *order[] = {"kernel", "duration", "dram_read", "dram_write", "bytes_vs_model", "dram_peak",
                           "l1_hit", "l2_hit", "gld_sectors_per_request", "gst_sectors_per_request",
                           "bank_conflicts", "occupancy_achieved", "occupancy_theoretical", "sm_clock",
                           "stall_1", "stall_2", "stall_3"};
    assert_int_equal(n, (int)(sizeof order / sizeof order[0]));
    for (int i = 0; i < n; ++i) assert_string_equal(rows[i].key, order[i]);

    const ks_counter_row *r = find_row(rows, n, "kernel");
    assert_string_equal(r->hover, "copy_kernel(float const*, float*, unsigned long)");
    assert_int_equal((int)strlen(r->value), 47); /* cut to the value's room; the hover keeps it whole */
    assert_contains(r->words, "NVIDIA H200, GH100; 9 replay passes");
    r = find_row(rows, n, "duration");
    assert_string_equal(r->value, "0.4500");
    assert_string_equal(r->unit, "ms");
    assert_string_equal(r->hover, "gpu__time_duration.sum");
    r = find_row(rows, n, "dram_read");
    assert_string_equal(r->value, "1073.74");
    assert_string_equal(r->unit, "MB");
    assert_string_equal(r->hover, "dram__bytes_read.sum");
    assert_true(r->present);
    r = find_row(rows, n, "bytes_vs_model");
    assert_string_equal(r->value, "1.005");
    assert_string_equal(r->hover, "dram__bytes_read.sum / dram__bytes_write.sum");
    assert_contains(r->words, "the DRAM traffic the model counts");
    r = find_row(rows, n, "dram_peak");
    assert_string_equal(r->value, "91.5");
    assert_contains(r->words, "4796 GB/s");
    r = find_row(rows, n, "l1_hit"); /* absent on this GPU: said so, never 0 */
    assert_string_equal(r->value, "absent");
    assert_false(r->present);
    assert_true(isnan(r->number));
    assert_string_equal(r->hover, "l1tex__t_sector_hit_rate.pct");
    assert_contains(r->words, "no such counter");
    r = find_row(rows, n, "gld_sectors_per_request");
    assert_string_equal(r->value, "4.00");
    assert_contains(r->words, "ideal = the bytes each thread loads at once: 4 (float)"); /* width not given */
    r = find_row(rows, n, "bank_conflicts");
    assert_string_equal(r->value, "0");
    assert_contains(r->words, "no shared-memory instructions");
    r = find_row(rows, n, "occupancy_achieved");
    assert_string_equal(r->value, "81.5");
    assert_contains(r->words, "of 100 %");
    r = find_row(rows, n, "sm_clock");
    assert_string_equal(r->value, "1980");
    assert_string_equal(r->unit, "MHz");
    r = find_row(rows, n, "stall_1");
    assert_string_equal(r->label, "waiting for data from global memory (long scoreboard)");
    assert_string_equal(r->value, "120.00");
    assert_string_equal(r->hover,
                        "Stall Long Scoreboard: smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
    assert_contains(r->words, "87 % of the stall cycles");
    r = find_row(rows, n, "stall_2");
    assert_contains(r->label, "LG throttle");

    /* the conflicting kernel, without a model */
    const int n2 = ks_counters_rows(&s, 1, 0.0, rows, KS_COUNTER_ROWS);
    r = find_row(rows, n2, "bank_conflicts");
    assert_string_equal(r->value, "2158592");
    assert_contains(r->words, "32.0-way");
    r = find_row(rows, n2, "bytes_vs_model");
    assert_string_equal(r->value, "-");
    assert_contains(r->words, "no byte model");
    r = find_row(rows, n2, "gld_sectors_per_request");
    assert_string_equal(r->value, "-"); /* measured, no loads to rate */
    assert_true(r->present);
    r = find_row(rows, n2, "stall_1");
    assert_contains(r->label, "MIO throttle");
    r = find_row(rows, n2, "stall_3"); /* only two reasons */
    assert_string_equal(r->value, "-");

    /* stalls absent on a chip: one row says so */
    for (int st = 0; st < KS_STALL_NUM; ++st) s.kernels[0].present[KS_CTR_STALL_FIRST + st] = 0;
    const int n3 = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    r = find_row(rows, n3, "stall_1");
    assert_string_equal(r->value, "absent");
    assert_contains(r->words, "no stall counters");

    /* room for fewer rows: cut, never overrun */
    assert_int_equal(ks_counters_rows(&s, 0, 0.0, rows, 3), 3);
    assert_int_equal(ks_counters_rows(&s, 5, 0.0, rows, KS_COUNTER_ROWS), 0);
}

/* Every stall reason: ncu's Warp State Statistics label, words that fit a
 * row's label whole, and Hopper's wgmma stall among them. */
static void test_stall_names(void **state)
{
    (void)state;
    ks_counter_row row;
    for (int st = 0; st < KS_STALL_NUM; ++st) {
        const ks_counter_info *a = ks_counters_info((ks_counter_id)(KS_CTR_STALL_FIRST + st));
        if (strncmp(a->ncu, "Stall ", 6) != 0) fail_msg("%s: ncu label %s", a->key, a->ncu);
        if (strlen(a->words) >= sizeof row.label) fail_msg("%s: \"%s\" is cut in a row", a->key, a->words);
        assert_string_equal(a->unit, "cycles/inst");
        assert_false(a->summed);
    }
    assert_string_equal(ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_TEX_THROTTLE)->ncu, "Stall Tex Throttle");
    assert_string_equal(ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_NO_INSTRUCTION)->ncu, "Stall No Instruction");
    assert_string_equal(ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_GMMA)->ncu, "Stall GMMA");
    assert_string_equal(ks_counters_info(KS_CTR_STALL_FIRST + KS_STALL_GMMA)->key, "stall_gmma");
    const char *n1[KS_CTR_CANDIDATES];
    assert_true(ks_counters_candidates(KS_GEN_HOPPER, KS_CTR_STALL_FIRST + KS_STALL_GMMA, n1, KS_CTR_CANDIDATES) >= 1);
    assert_string_equal(n1[0], "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio");
}

/* The launch's figures: theoretical occupancy where the GPU has no counter
 * (the H200: CUPTI offers none), and the access width that makes a float4
 * copy's 16 sectors a request read as coalesced. */
static void test_launch(void **state)
{
    (void)state;
    ks_counter_set s;
    recorded_set(&s);
    /* as on the H200: no theoretical occupancy counter; the copy with float4 accesses, 16 sectors a request */
    s.metric[KS_CTR_OCC_THEORETICAL_PCT][0] = '\0';
    for (int k = 0; k < 2; ++k) {
        s.kernels[k].present[KS_CTR_OCC_THEORETICAL_PCT] = 0;
        s.kernels[k].values[KS_CTR_OCC_THEORETICAL_PCT] = NAN;
    }
    s.kernels[0].values[KS_CTR_GLD_SECTORS] = 16.0 * 2097152;
    s.kernels[0].values[KS_CTR_GLD_REQUESTS] = 2097152;
    s.kernels[0].values[KS_CTR_GST_SECTORS] = 16.0 * 2097152;
    s.kernels[0].values[KS_CTR_GST_REQUESTS] = 2097152;
    ks_counter_row rows[KS_COUNTER_ROWS];
    int n = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    const ks_counter_row *r = find_row(rows, n, "occupancy_theoretical");
    assert_string_equal(r->value, "absent");
    assert_contains(r->words, "the launch's figure was not given");
    assert_contains(find_row(rows, n, "gld_sectors_per_request")->words, "16 (float4)");

    const ks_counter_launch copy = {0.75, 16, 16};
    ks_counters_set_launch(&s, 0, &copy);
    assert_int_equal(s.kernels[0].load_bytes, 16);
    assert_int_equal(s.kernels[1].load_bytes, 0); /* only the kernel named */
    n = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    r = find_row(rows, n, "occupancy_theoretical");
    assert_string_equal(r->value, "75.0");
    assert_true(r->present);
    assert_contains(r->hover, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    assert_contains(r->words, "occupancy calculator");
    assert_contains(find_row(rows, n, "occupancy_achieved")->words, "of 75 % this launch allows");
    r = find_row(rows, n, "gld_sectors_per_request");
    assert_string_equal(r->value, "16.00");
    assert_contains(r->words, "ideal 16 for 16-byte loads (a warp's 512 consecutive bytes): coalesced");
    assert_contains(find_row(rows, n, "gst_sectors_per_request")->words, "ideal 16 for 16-byte stores");
    ks_counter_derived d;
    ks_counters_derive(&s.kernels[0], 0.0, &d);
    assert_true(d.gld_ideal == 16.0 && d.gst_ideal == 16.0);
    assert_true(fabs(d.occupancy_theoretical - 0.75) < 1e-12);

    /* the same sectors from 4-byte accesses: 4 times what a coalesced warp needs */
    const ks_counter_launch scalar = {0.75, 4, 4};
    ks_counters_set_launch(&s, 0, &scalar);
    n = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    assert_contains(find_row(rows, n, "gld_sectors_per_request")->words,
                    "4.0x the 4 a coalesced warp of 4-byte loads needs: scattered or strided");

    /* every kernel; nonsense left unknown; a counter CUPTI read is kept */
    const ks_counter_launch odd = {1.5, 0, 33};
    ks_counters_set_launch(&s, -1, &odd);
    assert_int_equal(s.kernels[1].load_bytes, 0);
    assert_int_equal(s.kernels[1].store_bytes, 0);
    assert_false(s.kernels[1].present[KS_CTR_OCC_THEORETICAL_PCT]);
    recorded_set(&s); /* theoretical 100 % from a counter */
    const ks_counter_launch half = {0.5, 4, 4};
    ks_counters_set_launch(&s, -1, &half);
    assert_true(s.kernels[0].values[KS_CTR_OCC_THEORETICAL_PCT] == 100.0);
    assert_false(s.kernels[0].occupancy_from_launch);
    n = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    assert_string_equal(find_row(rows, n, "occupancy_theoretical")->hover, "sm__maximum_warps_per_active_cycle_pct");

    /* the kernels as one: a width they share holds, differing ones are unknown */
    ks_kernel_counters all;
    assert_int_equal(ks_counters_combine(&s, -1, &all), KS_OK);
    assert_int_equal(all.load_bytes, 4);
    s.kernels[1].store_bytes = 8;
    assert_int_equal(ks_counters_combine(&s, -1, &all), KS_OK);
    assert_int_equal(all.load_bytes, 4);
    assert_int_equal(all.store_bytes, 0);
    ks_counters_set_launch(NULL, 0, &half); /* no set: nothing happens */
    ks_counters_set_launch(&s, 7, &half);   /* no such kernel */
}

static void test_rows_json(void **state)
{
    (void)state;
    ks_counter_set s;
    recorded_set(&s);
    snprintf(s.kernels[0].name, sizeof s.kernels[0].name, "say \"hi\"\\\n");
    ks_counter_row rows[KS_COUNTER_ROWS];
    const int n = ks_counters_rows(&s, 0, 0.0, rows, KS_COUNTER_ROWS);
    char buf[16384];
    size_t len = 0;
    assert_int_equal(ks_counters_rows_json(rows, n, buf, sizeof buf, &len), KS_OK);
    assert_int_equal(len, strlen(buf));
    assert_true(buf[0] == '[' && buf[len - 1] == ']');
    assert_contains(buf, "{\"key\":\"kernel\",\"label\":\"kernel\",\"value\":\"say \\\"hi\\\"\\\\\\u000a\"");
    assert_contains(buf, "\"key\":\"dram_read\",\"label\":\"DRAM read\",\"value\":\"1073.74\",\"unit\":\"MB\","
                         "\"hover\":\"dram__bytes_read.sum\"");
    assert_contains(buf, "\"number\":1073.741824,\"present\":true}");
    assert_contains(buf, "\"key\":\"l1_hit\"");
    assert_contains(buf, "\"value\":\"absent\"");
    assert_contains(buf, "\"number\":null,\"present\":false}");
    char small[64];
    assert_int_equal(ks_counters_rows_json(rows, n, small, sizeof small, &len), KS_ERR_INVALID);
    assert_string_equal(small, "");
    assert_int_equal(ks_counters_rows_json(rows, 0, small, sizeof small, &len), KS_OK);
    assert_string_equal(small, "[]");
}

static void test_csv(void **state)
{
    (void)state;
    assert_string_equal(ks_counters_csv_header(),
                        "dram_read_bytes,dram_write_bytes,bytes_vs_model,l2_hit,sectors_per_request,bank_conflicts,"
                        "occupancy_achieved,sm_clock_mhz,stall_top");
    ks_counter_set s;
    recorded_set(&s);
    char buf[512];
    int n = ks_counters_csv_values(&s, 0, 2.0 * 1073741824.0, buf, sizeof buf);
    assert_int_equal(n, (int)strlen(buf));
    assert_string_equal(buf, "1073741824,1084479242,1.0050,0.1225,4.000,0,0.8150,1980,long_scoreboard");
    /* no model: that column blank */
    ks_counters_csv_values(&s, 1, 0.0, buf, sizeof buf);
    assert_string_equal(buf, "1000000,3000000,,0.5225,4.000,2158592,0.4150,1755,mio_throttle");
    /* absent metrics: blanks, never zeros */
    s.kernels[0].present[KS_CTR_DRAM_WRITE_BYTES] = 0;
    s.kernels[0].present[KS_CTR_SM_CLOCK_HZ] = 0;
    for (int st = 0; st < KS_STALL_NUM; ++st) s.kernels[0].present[KS_CTR_STALL_FIRST + st] = 0;
    ks_counters_csv_values(&s, 0, 2.0 * 1073741824.0, buf, sizeof buf);
    assert_string_equal(buf, "1073741824,,,0.1225,4.000,0,0.8150,,");
    /* the kernels as one: counts added */
    recorded_set(&s);
    ks_counters_csv_values(&s, -1, 0.0, buf, sizeof buf);
    assert_contains(buf, "1074741824,1087479242,,");
    /* no measurement: the blank row, 9 columns */
    ks_counters_csv_values(NULL, 0, 0.0, buf, sizeof buf);
    assert_string_equal(buf, ",,,,,,,,");
    /* cut like snprintf */
    recorded_set(&s);
    n = ks_counters_csv_values(&s, 0, 0.0, buf, 8);
    assert_true(n > 8);
    assert_int_equal((int)strlen(buf), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generations),
        cmocka_unit_test(test_info_table),
        cmocka_unit_test(test_metric_names),
        cmocka_unit_test(test_derive),
        cmocka_unit_test(test_combine),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_rows_json),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_stall_names),
        cmocka_unit_test(test_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
