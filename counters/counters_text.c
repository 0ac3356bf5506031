/* What a measurement says, as figures, panel rows, CSV values and the words
 * of each "no counters" case. Pure C over a recorded ks_counter_set: the cpu
 * tests cover all of it, in builds with and without CUPTI. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "base/ks_util.h"

/* ---- Why there are no counters ---- */

static _Thread_local ks_counters_why last_why;

ks_counters_why ks_counters_last_why(void) { return last_why; }

void ks_counters_set_last_why(ks_counters_why why) { last_why = why; }

typedef struct why_text {
    const char *brief; /* the panel's few words */
    const char *what;  /* the line: what is wrong */
    const char *todo;  /* the line: what to do ("" nothing) */
} why_text;

static const why_text why_texts[KS_CTRS_NUM] = {
    [KS_CTRS_OK] = {"counters available", "counters available", ""},
    [KS_CTRS_NO_CUDA_BUILD] = {"built without CUDA",
                               "kernelscope was built without CUDA, so it has no GPU counters",
                               "install the CUDA Toolkit with its CUPTI and build with -DKS_CUDA=ON"},
    [KS_CTRS_NO_CUPTI_BUILD] = {"built without CUPTI",
                                "kernelscope was built without CUPTI, the CUDA Toolkit's profiling library",
                                "install the toolkit's CUPTI (package cuda-cupti-dev-X-Y for CUDA X.Y) and build "
                                "again with -DKS_CUPTI=ON"},
    [KS_CTRS_CPU_BACKEND] = {"the CPU backend has no GPU counters",
                             "the CPU backend runs no GPU kernels, so there are no GPU counters to read",
                             "run on the CUDA backend to see them"},
    [KS_CTRS_NO_DEVICE] = {"no CUDA device", "no usable CUDA device", ""},
    [KS_CTRS_NO_LIBRARY] = {"libcupti not found", "CUPTI's library (libcupti) could not be loaded",
                            "install the CUDA Toolkit's CUPTI, or set KS_CUPTI_LIBRARY to the path of libcupti.so"},
    [KS_CTRS_PERMISSION] = {"no permission to read GPU counters",
                            "this user may not read the GPU's performance counters: the NVIDIA driver keeps them "
                            "for administrators (NVreg_RestrictProfilingToAdminUsers=1)",
                            "run as root, or have the administrator load the driver with "
                            "NVreg_RestrictProfilingToAdminUsers=0 (docs/counters.md)"},
    [KS_CTRS_OTHER_PROFILER] = {"another profiler is attached",
                                "another profiler holds CUPTI in this process (Nsight Compute, Nsight Systems, "
                                "cuda-gdb, compute-sanitizer or another CUPTI tool)",
                                "run kernelscope without it to see its counters"},
    [KS_CTRS_BUSY] = {"the GPU's counters are in use",
                      "the GPU's performance counters are in use (another process is profiling this GPU, or "
                      "the timeline is sampling them)",
                      "stop the other profiler or the timeline and measure again"},
    [KS_CTRS_DEVICE_UNSUPPORTED] = {"this GPU cannot be profiled here", "this GPU cannot be profiled here",
                                    "counters need a Turing or later GPU, not a MIG slice, a vGPU without "
                                    "profiling, confidential computing, WSL or SLI"},
    [KS_CTRS_DRIVER] = {"the driver does not fit this CUPTI",
                        "CUPTI could not connect to the NVIDIA driver (a driver older than the CUDA Toolkit?)",
                        "install a driver that supports this CUDA Toolkit"},
    [KS_CTRS_METRIC_ABSENT] = {"no counter exists on this GPU", "none of the counters exists on this GPU", ""},
    [KS_CTRS_FAILED] = {"CUPTI failed", "CUPTI failed", ""},
};

const char *ks_counters_why_short(ks_counters_why why)
{
    return (why >= 0 && why < KS_CTRS_NUM) ? why_texts[why].brief : "unknown";
}

const char *ks_counters_why_line(ks_counters_why why, const char *detail, char *buf, size_t cap)
{
    if (buf == NULL || cap == 0) return "";
    if (why < 0 || why >= KS_CTRS_NUM) why = KS_CTRS_FAILED;
    const why_text *t = &why_texts[why];
    char quoted[KS_QUOTE_MAX];
    const int with_detail = detail != NULL && detail[0] != '\0';
    if (with_detail) ks_quote(detail, quoted, sizeof quoted);
    snprintf(buf, cap, "hardware counters: %s%s%s%s%s%s", t->what, with_detail ? " (" : "",
             with_detail ? quoted : "", with_detail ? ")" : "", t->todo[0] ? "; " : "", t->todo);
    return buf;
}

ks_status ks_counters_fail(ks_counters_why why, const char *detail)
{
    if (why <= KS_CTRS_OK || why >= KS_CTRS_NUM) why = KS_CTRS_FAILED;
    last_why = why;
    char line[768];
    ks_counters_why_line(why, detail, line, sizeof line);
    const ks_status st = why == KS_CTRS_NO_DEVICE ? KS_ERR_NO_DEVICE
                         : why == KS_CTRS_FAILED  ? KS_ERR_CUDA
                                                  : KS_ERR_UNSUPPORTED;
    return ks_fail(st, "%s", line);
}

/* CUptiResult values (cupti_result.h; a stable ABI). counters_cupti.cpp
 * checks them against the header at compile time. */
enum {
    CUPTI_NOT_INITIALIZED = 15,
    CUPTI_INVALID_METRIC_NAME = 17,
    CUPTI_DISABLED = 23,
    CUPTI_HARDWARE_BUSY = 26,
    CUPTI_NOT_SUPPORTED = 27,
    CUPTI_VIRTUALIZED_NOT_SUPPORTED = 33,
    CUPTI_INSUFFICIENT_PRIVILEGES = 35,
    CUPTI_OLD_PROFILER_API_INITIALIZED = 36,
    CUPTI_LEGACY_PROFILER_NOT_SUPPORTED = 38,
    CUPTI_MULTIPLE_SUBSCRIBERS = 39,
    CUPTI_VIRTUALIZED_INSUFFICIENT_PRIVILEGES = 40,
    CUPTI_CONFIDENTIAL_COMPUTING = 41,
    CUPTI_CMP_DEVICE = 42,
    CUPTI_MIG_DEVICE = 43,
    CUPTI_SLI_DEVICE = 44,
    CUPTI_WSL_DEVICE = 45,
    CUPTI_INVALID_CHIP_NAME = 46,
};

ks_counters_why ks_counters_why_from_cupti(int r)
{
    switch (r) {
    case 0: return KS_CTRS_OK;
    case CUPTI_INSUFFICIENT_PRIVILEGES:
    case CUPTI_VIRTUALIZED_INSUFFICIENT_PRIVILEGES: return KS_CTRS_PERMISSION;
    case CUPTI_MULTIPLE_SUBSCRIBERS:
    case CUPTI_DISABLED:
    case CUPTI_OLD_PROFILER_API_INITIALIZED: return KS_CTRS_OTHER_PROFILER;
    case CUPTI_HARDWARE_BUSY: return KS_CTRS_BUSY;
    case CUPTI_NOT_SUPPORTED:
    case CUPTI_VIRTUALIZED_NOT_SUPPORTED:
    case CUPTI_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_CONFIDENTIAL_COMPUTING:
    case CUPTI_CMP_DEVICE:
    case CUPTI_MIG_DEVICE:
    case CUPTI_SLI_DEVICE:
    case CUPTI_WSL_DEVICE:
    case CUPTI_INVALID_CHIP_NAME: return KS_CTRS_DEVICE_UNSUPPORTED;
    case CUPTI_NOT_INITIALIZED: return KS_CTRS_DRIVER;
    case CUPTI_INVALID_METRIC_NAME: return KS_CTRS_METRIC_ABSENT;
    default: return KS_CTRS_FAILED;
    }
}

/* ---- What the caller knows of the launch ---- */

static int width_ok(int bytes) { return bytes >= 1 && bytes <= 32; }

static void set_launch_one(ks_kernel_counters *k, const ks_counter_launch *l)
{
    const double occ = l->occupancy_theoretical;
    /* a counter CUPTI read is kept; the launch's figure fills in where the chip has none */
    if (!k->present[KS_CTR_OCC_THEORETICAL_PCT] && occ > 0.0 && occ <= 1.0) {
        k->values[KS_CTR_OCC_THEORETICAL_PCT] = 100.0 * occ;
        k->present[KS_CTR_OCC_THEORETICAL_PCT] = 1;
        k->occupancy_from_launch = 1;
    }
    k->load_bytes = width_ok(l->load_bytes) ? l->load_bytes : 0;
    k->store_bytes = width_ok(l->store_bytes) ? l->store_bytes : 0;
}

void ks_counters_set_launch(ks_counter_set *s, int kernel, const ks_counter_launch *launch)
{
    if (s == NULL || launch == NULL || s->nkernels <= 0 || s->nkernels > KS_COUNTERS_MAX_KERNELS ||
        kernel >= s->nkernels)
        return;
    for (int k = kernel < 0 ? 0 : kernel; k < (kernel < 0 ? s->nkernels : kernel + 1); ++k)
        set_launch_one(&s->kernels[k], launch);
}

/* ---- Derived figures ---- */

ks_status ks_counters_combine(const ks_counter_set *s, int kernel, ks_kernel_counters *out)
{
    if (s == NULL || out == NULL || s->nkernels <= 0 || s->nkernels > KS_COUNTERS_MAX_KERNELS ||
        kernel >= s->nkernels)
        return ks_fail(KS_ERR_INVALID, "hardware counters: no kernel %d in a measurement of %d", kernel,
                       s ? s->nkernels : 0);
    if (kernel >= 0) {
        *out = s->kernels[kernel];
        return KS_OK;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%d kernels", s->nkernels);
    for (int m = 0; m < KS_CTR_NUM; ++m) {
        const int summed = ks_counters_info((ks_counter_id)m)->summed;
        double sum = 0.0, weight = 0.0;
        int present = 1;
        for (int k = 0; k < s->nkernels; ++k) {
            const ks_kernel_counters *kc = &s->kernels[k];
            if (!kc->present[m]) {
                present = 0;
                break;
            }
            if (summed) {
                sum += kc->values[m];
            } else {
                /* rates: weighted by each kernel's time; equal weights when durations are unknown */
                const double w = kc->present[KS_CTR_DURATION_NS] && kc->values[KS_CTR_DURATION_NS] > 0
                                     ? kc->values[KS_CTR_DURATION_NS]
                                     : 1.0;
                if (isnan(kc->values[m])) continue; /* a kernel that had nothing to rate */
                sum += w * kc->values[m];
                weight += w;
            }
        }
        out->present[m] = (unsigned char)present;
        out->values[m] = !present ? NAN : summed ? sum : weight > 0 ? sum / weight : NAN;
    }
    /* an access width holds for the kernels as one only when they share it */
    out->load_bytes = s->kernels[0].load_bytes;
    out->store_bytes = s->kernels[0].store_bytes;
    for (int k = 1; k < s->nkernels; ++k) {
        if (s->kernels[k].load_bytes != out->load_bytes) out->load_bytes = 0;
        if (s->kernels[k].store_bytes != out->store_bytes) out->store_bytes = 0;
    }
    for (int k = 0; k < s->nkernels; ++k) out->occupancy_from_launch |= s->kernels[k].occupancy_from_launch;
    return KS_OK;
}

static double value_of(const ks_kernel_counters *k, ks_counter_id id)
{
    return k->present[id] ? k->values[id] : NAN;
}

/* a / b, NaN when either is missing or b is not positive */
static double ratio(double a, double b) { return (isnan(a) || isnan(b) || b <= 0.0) ? NAN : a / b; }

static double add(double a, double b) { return (isnan(a) || isnan(b)) ? NAN : a + b; }

void ks_counters_derive(const ks_kernel_counters *k, double model_bytes, ks_counter_derived *d)
{
    memset(d, 0, sizeof *d);
    const double ns = value_of(k, KS_CTR_DURATION_NS);
    d->duration_ms = isnan(ns) ? NAN : ns * 1e-6;
    d->dram_read_bytes = value_of(k, KS_CTR_DRAM_READ_BYTES);
    d->dram_write_bytes = value_of(k, KS_CTR_DRAM_WRITE_BYTES);
    d->dram_bytes = add(d->dram_read_bytes, d->dram_write_bytes);
    d->dram_gbs = ratio(d->dram_bytes, ns); /* bytes per ns = GB/s */
    d->bytes_vs_model = model_bytes > 0.0 ? ratio(d->dram_bytes, model_bytes) : NAN;
    d->dram_peak_pct = value_of(k, KS_CTR_DRAM_PEAK_PCT);
    d->l1_hit_pct = value_of(k, KS_CTR_L1_HIT_PCT);
    d->l2_hit_pct = value_of(k, KS_CTR_L2_HIT_PCT);
    const double gld_s = value_of(k, KS_CTR_GLD_SECTORS), gld_r = value_of(k, KS_CTR_GLD_REQUESTS);
    const double gst_s = value_of(k, KS_CTR_GST_SECTORS), gst_r = value_of(k, KS_CTR_GST_REQUESTS);
    d->gld_sectors_per_request = ratio(gld_s, gld_r);
    d->gst_sectors_per_request = ratio(gst_s, gst_r);
    d->sectors_per_request = ratio(add(gld_s, gst_s), add(gld_r, gst_r));
    /* 32 threads of w bytes each: 32 * w bytes, w sectors of 32 bytes */
    d->gld_ideal = width_ok(k->load_bytes) ? (double)k->load_bytes : NAN;
    d->gst_ideal = width_ok(k->store_bytes) ? (double)k->store_bytes : NAN;
    d->bank_conflicts = add(value_of(k, KS_CTR_SHARED_LD_CONFLICTS), value_of(k, KS_CTR_SHARED_ST_CONFLICTS));
    d->shared_ways = ratio(add(value_of(k, KS_CTR_SHARED_LD_WAVEFRONTS), value_of(k, KS_CTR_SHARED_ST_WAVEFRONTS)),
                           add(value_of(k, KS_CTR_SHARED_LD_INST), value_of(k, KS_CTR_SHARED_ST_INST)));
    const double occ = value_of(k, KS_CTR_OCC_ACHIEVED_PCT), occ_t = value_of(k, KS_CTR_OCC_THEORETICAL_PCT);
    d->occupancy_achieved = isnan(occ) ? NAN : occ / 100.0;
    d->occupancy_theoretical = isnan(occ_t) ? NAN : occ_t / 100.0;
    const double hz = value_of(k, KS_CTR_SM_CLOCK_HZ);
    d->sm_clock_mhz = isnan(hz) ? NAN : hz * 1e-6;
    d->warp_cycles_per_inst = value_of(k, KS_CTR_WARP_CYCLES_PER_INST);

    /* stalls, largest first; "not selected" is a ready warp, still a reason it waited */
    double total = 0.0;
    for (int s = 0; s < KS_STALL_NUM; ++s) {
        const double v = value_of(k, (ks_counter_id)(KS_CTR_STALL_FIRST + s));
        if (isnan(v) || v <= 0.0) continue;
        int at = d->nstalls++;
        while (at > 0 && d->stall_cycles[at - 1] < v) {
            d->stall[at] = d->stall[at - 1];
            d->stall_cycles[at] = d->stall_cycles[at - 1];
            --at;
        }
        d->stall[at] = (ks_stall_id)s;
        d->stall_cycles[at] = v;
        total += v;
    }
    for (int i = 0; i < d->nstalls; ++i) d->stall_share[i] = d->stall_cycles[i] / total;
}

const char *ks_counters_model_words(double r, char *buf, size_t cap)
{
    if (buf == NULL || cap == 0) return "";
    if (isnan(r))
        snprintf(buf, cap, "no byte model for this kernel");
    else if (r > 1.02)
        snprintf(buf, cap, "%.2f: %.0f %% more DRAM traffic than the model: cache reuse failed", r, 100.0 * (r - 1.0));
    else if (r < 0.98)
        snprintf(buf, cap, "%.2f: %.0f %% less DRAM traffic than the model: L2 served part of it", r,
                 100.0 * (1.0 - r));
    else
        snprintf(buf, cap, "%.2f: the DRAM traffic the model counts", r);
    return buf;
}

/* ---- Panel rows ---- */

typedef struct row_writer {
    ks_counter_row *rows;
    int cap, n;
    const ks_counter_set *set;
} row_writer;

/* The hover: the ncu metric name(s) of the figure on this GPU (what create
 * resolved), else the first name the table tries. */
static void metric_name(const ks_counter_set *s, ks_counter_id id, char *out, size_t cap)
{
    if (s->metric[id][0]) {
        snprintf(out, cap, "%s", s->metric[id]);
        return;
    }
    const char *names[KS_CTR_CANDIDATES];
    const int n = ks_counters_candidates(s->gen > KS_GEN_UNSUPPORTED ? s->gen : KS_GEN_HOPPER, id, names,
                                         KS_CTR_CANDIDATES);
    snprintf(out, cap, "%s", n > 0 ? names[0] : "");
}

static ks_counter_row *row_add(row_writer *w, const char *key, const char *label, double number, int present,
                               const char *fmt, const char *unit)
{
    if (w->n >= w->cap) return NULL;
    ks_counter_row *r = &w->rows[w->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->key, sizeof r->key, "%s", key);
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->present = present;
    r->number = present ? number : NAN;
    if (!present)
        snprintf(r->value, sizeof r->value, "absent");
    else if (isnan(number))
        snprintf(r->value, sizeof r->value, "-"); /* measured, nothing to rate (no accesses) */
    else
        snprintf(r->value, sizeof r->value, fmt, number);
    return r;
}

/* A row whose presence and hover follow the listed metrics (all must be present). */
static ks_counter_row *metric_row(row_writer *w, const ks_kernel_counters *k, const char *key, const char *label,
                                  double number, const char *fmt, const char *unit, const ks_counter_id *ids,
                                  int nids)
{
    int present = 1;
    char hover[200] = "";
    size_t used = 0;
    for (int i = 0; i < nids; ++i) {
        present &= k->present[ids[i]] != 0;
        char name[KS_COUNTER_METRIC];
        metric_name(w->set, ids[i], name, sizeof name);
        ks_text_append(hover, sizeof hover, &used, "%s%s", i ? " / " : "", name);
    }
    ks_counter_row *r = row_add(w, key, label, number, present, fmt, unit);
    if (r != NULL) snprintf(r->hover, sizeof r->hover, "%s", hover);
    if (r != NULL && !present)
        snprintf(r->words, sizeof r->words, "this GPU has no such counter (CUPTI does not offer it)");
    return r;
}

/* Sectors per request against a coalesced warp's at the access width (ideal; NaN unknown). */
static void sectors_words(double per_request, double ideal, const char *op, char *buf, size_t cap)
{
    if (isnan(ideal))
        snprintf(buf, cap,
                 "ideal = the bytes each thread %ss at once: 4 (float), 8 (double, float2), 16 (float4); above it: "
                 "scattered or strided",
                 op);
    else if (isnan(per_request))
        snprintf(buf, cap, "ideal %.0f for %.0f-byte %ss", ideal, ideal, op);
    else if (per_request <= 1.1 * ideal)
        snprintf(buf, cap, "ideal %.0f for %.0f-byte %ss (a warp's %.0f consecutive bytes): coalesced", ideal, ideal,
                 op, 32.0 * ideal);
    else
        snprintf(buf, cap, "%.1fx the %.0f a coalesced warp of %.0f-byte %ss needs: scattered or strided",
                 per_request / ideal, ideal, ideal, op);
}

int ks_counters_rows(const ks_counter_set *s, int kernel, double model_bytes, ks_counter_row *rows, int cap)
{
    if (s == NULL || rows == NULL || cap <= 0) return 0;
    ks_kernel_counters k;
    if (ks_counters_combine(s, kernel, &k) != KS_OK) return 0;
    ks_counter_derived d;
    ks_counters_derive(&k, model_bytes, &d);
    row_writer w = {rows, cap, 0, s};

    ks_counter_row *r = row_add(&w, "kernel", "kernel", NAN, 1, "%g", "");
    if (r != NULL) {
        snprintf(r->value, sizeof r->value, "%.*s", (int)sizeof r->value - 1, k.name); /* the hover has it whole */
        snprintf(r->hover, sizeof r->hover, "%s", k.name);
        r->number = NAN;
        snprintf(r->words, sizeof r->words, "%s, %s; %d replay pass%s", s->device, s->chip, s->passes,
                 s->passes == 1 ? "" : "es");
    }
    const ks_counter_id dur[] = {KS_CTR_DURATION_NS};
    metric_row(&w, &k, "duration", "duration", d.duration_ms, "%.4f", "ms", dur, 1);
    const ks_counter_id rd[] = {KS_CTR_DRAM_READ_BYTES}, wr[] = {KS_CTR_DRAM_WRITE_BYTES};
    metric_row(&w, &k, "dram_read", "DRAM read", d.dram_read_bytes * 1e-6, "%.2f", "MB", rd, 1);
    metric_row(&w, &k, "dram_write", "DRAM written", d.dram_write_bytes * 1e-6, "%.2f", "MB", wr, 1);

    const ks_counter_id both[] = {KS_CTR_DRAM_READ_BYTES, KS_CTR_DRAM_WRITE_BYTES};
    r = metric_row(&w, &k, "bytes_vs_model", "DRAM bytes / model", d.bytes_vs_model, "%.3f", "x", both, 2);
    if (r != NULL && r->present) {
        if (model_bytes <= 0.0) {
            snprintf(r->value, sizeof r->value, "-");
            r->number = NAN;
        }
        ks_counters_model_words(d.bytes_vs_model, r->words, sizeof r->words);
    }
    const ks_counter_id pk[] = {KS_CTR_DRAM_PEAK_PCT};
    r = metric_row(&w, &k, "dram_peak", "DRAM throughput", d.dram_peak_pct, "%.1f", "% of peak", pk, 1);
    if (r != NULL && r->present && !isnan(d.dram_gbs))
        snprintf(r->words, sizeof r->words, "%.0f GB/s moved over the kernel's %.3f ms", d.dram_gbs, d.duration_ms);
    const ks_counter_id l1[] = {KS_CTR_L1_HIT_PCT}, l2[] = {KS_CTR_L2_HIT_PCT};
    metric_row(&w, &k, "l1_hit", "L1 hit rate", d.l1_hit_pct, "%.1f", "%", l1, 1);
    metric_row(&w, &k, "l2_hit", "L2 hit rate", d.l2_hit_pct, "%.1f", "%", l2, 1);
    const ks_counter_id ld[] = {KS_CTR_GLD_SECTORS, KS_CTR_GLD_REQUESTS};
    r = metric_row(&w, &k, "gld_sectors_per_request", "global load sectors / request", d.gld_sectors_per_request,
                   "%.2f", "", ld, 2);
    if (r != NULL && r->present)
        sectors_words(d.gld_sectors_per_request, d.gld_ideal, "load", r->words, sizeof r->words);
    const ks_counter_id st[] = {KS_CTR_GST_SECTORS, KS_CTR_GST_REQUESTS};
    r = metric_row(&w, &k, "gst_sectors_per_request", "global store sectors / request", d.gst_sectors_per_request,
                   "%.2f", "", st, 2);
    if (r != NULL && r->present)
        sectors_words(d.gst_sectors_per_request, d.gst_ideal, "store", r->words, sizeof r->words);
    const ks_counter_id bc[] = {KS_CTR_SHARED_LD_CONFLICTS, KS_CTR_SHARED_ST_CONFLICTS};
    r = metric_row(&w, &k, "bank_conflicts", "shared bank conflicts", d.bank_conflicts, "%.0f", "", bc, 2);
    if (r != NULL && r->present && !isnan(d.shared_ways))
        snprintf(r->words, sizeof r->words, "%.1f-way: passes per shared-memory instruction (1: conflict-free)",
                 d.shared_ways);
    else if (r != NULL && r->present)
        snprintf(r->words, sizeof r->words, "no shared-memory instructions");
    const ks_counter_id oa[] = {KS_CTR_OCC_ACHIEVED_PCT}, ot[] = {KS_CTR_OCC_THEORETICAL_PCT};
    r = metric_row(&w, &k, "occupancy_achieved", "achieved occupancy", 100.0 * d.occupancy_achieved, "%.1f", "%",
                   oa, 1);
    if (r != NULL && r->present && !isnan(d.occupancy_theoretical))
        snprintf(r->words, sizeof r->words, "of %.0f %% this launch allows (theoretical)",
                 100.0 * d.occupancy_theoretical);
    r = metric_row(&w, &k, "occupancy_theoretical", "theoretical occupancy", 100.0 * d.occupancy_theoretical,
                   "%.1f", "%", ot, 1);
    if (r != NULL && k.occupancy_from_launch) {
        snprintf(r->hover, sizeof r->hover,
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor (the launch's registers, shared memory and block)");
        snprintf(r->words, sizeof r->words, "what the launch's resources allow (CUDA's occupancy calculator)");
    } else if (r != NULL && !r->present) {
        snprintf(r->words, sizeof r->words, "this GPU has no counter for it, and the launch's figure was not given");
    }
    const ks_counter_id ck[] = {KS_CTR_SM_CLOCK_HZ};
    metric_row(&w, &k, "sm_clock", "SM clock", d.sm_clock_mhz, "%.0f", "MHz", ck, 1);

    /* the top stall reasons, in words; the hover names ncu's label and metric */
    for (int i = 0; i < KS_COUNTER_TOP_STALLS; ++i) {
        char key[16];
        snprintf(key, sizeof key, "stall_%d", i + 1);
        if (i >= d.nstalls) {
            int any = 0;
            for (int st_i = 0; st_i < KS_STALL_NUM; ++st_i) any |= k.present[KS_CTR_STALL_FIRST + st_i];
            r = row_add(&w, key, i == 0 ? "warp stalls" : "", NAN, any, "%g", "");
            if (r != NULL && any) {
                snprintf(r->value, sizeof r->value, "-");
                if (i == 0) snprintf(r->words, sizeof r->words, "no stall cycles counted");
            } else if (r != NULL && i == 0) {
                snprintf(r->words, sizeof r->words, "this GPU has no stall counters (CUPTI does not offer them)");
            }
            continue;
        }
        const ks_counter_id id = (ks_counter_id)(KS_CTR_STALL_FIRST + d.stall[i]);
        const ks_counter_info *info = ks_counters_info(id);
        r = row_add(&w, key, info->words, d.stall_cycles[i], 1, "%.2f", "cycles/inst");
        if (r == NULL) break;
        char name[KS_COUNTER_METRIC];
        metric_name(s, id, name, sizeof name);
        snprintf(r->hover, sizeof r->hover, "%s: %s", info->ncu, name);
        snprintf(r->words, sizeof r->words, "%.0f %% of the stall cycles", 100.0 * d.stall_share[i]);
    }
    return w.n;
}

/* ---- JSON ---- */

typedef struct jw {
    char *buf;
    size_t cap, used;
    int overflow;
} jw;

static void jw_raw(jw *w, const char *text, size_t n)
{
    if (w->used + n + 1 > w->cap) {
        w->overflow = 1;
        return;
    }
    memcpy(w->buf + w->used, text, n);
    w->used += n;
    w->buf[w->used] = '\0';
}

static void jw_puts(jw *w, const char *text) { jw_raw(w, text, strlen(text)); }

/* A JSON string: quotes, backslashes and control bytes escaped; other bytes as they are. */
static void jw_str(jw *w, const char *s)
{
    jw_puts(w, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            jw_raw(w, esc, 2);
        } else if (*p < 0x20 || *p == 0x7F) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            jw_puts(w, esc);
        } else {
            jw_raw(w, (const char *)p, 1);
        }
    }
    jw_puts(w, "\"");
}

ks_status ks_counters_rows_json(const ks_counter_row *rows, int n, char *buf, size_t cap, size_t *len)
{
    if (buf == NULL || cap == 0 || (rows == NULL && n > 0))
        return ks_fail(KS_ERR_INVALID, "hardware counters: JSON without rows or buffer");
    jw w = {buf, cap, 0, 0};
    buf[0] = '\0';
    jw_puts(&w, "[");
    for (int i = 0; i < n; ++i) {
        const ks_counter_row *r = &rows[i];
        jw_puts(&w, i ? ",{\"key\":" : "{\"key\":");
        jw_str(&w, r->key);
        jw_puts(&w, ",\"label\":");
        jw_str(&w, r->label);
        jw_puts(&w, ",\"value\":");
        jw_str(&w, r->value);
        jw_puts(&w, ",\"unit\":");
        jw_str(&w, r->unit);
        jw_puts(&w, ",\"hover\":");
        jw_str(&w, r->hover);
        jw_puts(&w, ",\"words\":");
        jw_str(&w, r->words);
        char num[64];
        if (isfinite(r->number))
            snprintf(num, sizeof num, ",\"number\":%.15g", r->number);
        else
            snprintf(num, sizeof num, ",\"number\":null");
        jw_puts(&w, num);
        jw_puts(&w, r->present ? ",\"present\":true}" : ",\"present\":false}");
    }
    jw_puts(&w, "]");
    if (w.overflow) {
        buf[0] = '\0';
        return ks_fail(KS_ERR_INVALID, "hardware counters: %d rows need more than %zu bytes of JSON", n, cap);
    }
    if (len != NULL) *len = w.used;
    return KS_OK;
}

/* ---- CSV ---- */

const char *ks_counters_csv_header(void)
{
    return "dram_read_bytes,dram_write_bytes,bytes_vs_model,l2_hit,sectors_per_request,bank_conflicts,"
           "occupancy_achieved,sm_clock_mhz,stall_top";
}

/* One field: the number, or nothing when it cannot be given. */
static void csv_num(char *buf, size_t cap, size_t *used, const char *fmt, double v, int last)
{
    if (isfinite(v)) ks_text_append(buf, cap, used, fmt, v);
    if (!last) ks_text_append(buf, cap, used, ",");
}

int ks_counters_csv_values(const ks_counter_set *s, int kernel, double model_bytes, char *buf, size_t cap)
{
    ks_counter_derived d;
    ks_kernel_counters k;
    const int have = s != NULL && ks_counters_combine(s, kernel, &k) == KS_OK;
    if (have) {
        ks_counters_derive(&k, model_bytes, &d);
    } else {
        ks_error_clear(); /* a missing measurement is a blank row, not an error */
        memset(&d, 0, sizeof d);
        d.dram_read_bytes = d.dram_write_bytes = d.bytes_vs_model = d.l2_hit_pct = d.sectors_per_request = NAN;
        d.bank_conflicts = d.occupancy_achieved = d.sm_clock_mhz = NAN;
    }
    char tmp[512];
    size_t used = 0;
    tmp[0] = '\0';
    csv_num(tmp, sizeof tmp, &used, "%.0f", d.dram_read_bytes, 0);
    csv_num(tmp, sizeof tmp, &used, "%.0f", d.dram_write_bytes, 0);
    csv_num(tmp, sizeof tmp, &used, "%.4f", d.bytes_vs_model, 0);
    csv_num(tmp, sizeof tmp, &used, "%.4f", d.l2_hit_pct / 100.0, 0);
    csv_num(tmp, sizeof tmp, &used, "%.3f", d.sectors_per_request, 0);
    csv_num(tmp, sizeof tmp, &used, "%.0f", d.bank_conflicts, 0);
    csv_num(tmp, sizeof tmp, &used, "%.4f", d.occupancy_achieved, 0);
    csv_num(tmp, sizeof tmp, &used, "%.0f", d.sm_clock_mhz, 0);
    if (have && d.nstalls > 0) {
        /* the key without its "stall_" prefix: long_scoreboard */
        const char *key = ks_counters_info((ks_counter_id)(KS_CTR_STALL_FIRST + d.stall[0]))->key;
        ks_text_append(tmp, sizeof tmp, &used, "%s", key + strlen("stall_"));
    }
    return snprintf(buf, cap, "%s", tmp);
}
