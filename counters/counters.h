/* Hardware counters of the kernels a callback launches, read with CUPTI's
 * range profiler (kernel replay: CUPTI replays each kernel once per pass,
 * restoring its memory in between, so a callback that launches a kernel once
 * gets every counter of that one launch), and the text a panel and a CSV
 * make of them. Plain C: no CUDA or CUPTI types here.
 *
 * Two halves:
 *  - ks_counters: create / measure / destroy (counters_cupti.cpp where the
 *    build has CUPTI, counters_none.c otherwise);
 *  - pure functions over a recorded ks_counter_set (the per-generation metric
 *    tables, the derived figures, the panel's rows, the CSV columns, the
 *    words for each "no counters" case), which the cpu tests cover.
 * docs/counters.md says what each figure means and how it is measured. */
#ifndef KS_COUNTERS_H
#define KS_COUNTERS_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- What is measured: logical metrics, each mapped to a CUPTI metric name per GPU generation ---- */

/* The warp-stall reasons, as Nsight Compute's Warp State Statistics names
 * them ("Selected", the cycle a warp issues, is not a stall and not here). */
typedef enum ks_stall_id {
    KS_STALL_LONG_SCOREBOARD = 0,
    KS_STALL_MIO_THROTTLE,
    KS_STALL_LG_THROTTLE,
    KS_STALL_BARRIER,
    KS_STALL_SHORT_SCOREBOARD,
    KS_STALL_MATH_PIPE_THROTTLE,
    KS_STALL_TEX_THROTTLE,
    KS_STALL_WAIT,
    KS_STALL_NOT_SELECTED,
    KS_STALL_NO_INSTRUCTION,
    KS_STALL_BRANCH_RESOLVING,
    KS_STALL_DISPATCH_STALL,
    KS_STALL_DRAIN,
    KS_STALL_IMC_MISS,
    KS_STALL_MEMBAR,
    KS_STALL_SLEEPING,
    KS_STALL_MISC,
    KS_STALL_GMMA,  /* Hopper's warpgroup matrix instructions (wgmma); absent on other chips */
    KS_STALL_NUM
} ks_stall_id;

typedef enum ks_counter_id {
    KS_CTR_DURATION_NS = 0,      /* gpu__time_duration.sum */
    KS_CTR_DRAM_READ_BYTES,      /* dram__bytes_read.sum */
    KS_CTR_DRAM_WRITE_BYTES,     /* dram__bytes_write.sum */
    KS_CTR_DRAM_PEAK_PCT,        /* DRAM throughput, % of peak over the kernel's time */
    KS_CTR_L1_HIT_PCT,           /* l1tex__t_sector_hit_rate.pct */
    KS_CTR_L2_HIT_PCT,           /* lts__t_sector_hit_rate.pct */
    KS_CTR_GLD_SECTORS,          /* global loads: 32-byte sectors the L1 looked up */
    KS_CTR_GLD_REQUESTS,         /*   and the warp-wide requests that asked for them */
    KS_CTR_GST_SECTORS,          /* global stores, the same */
    KS_CTR_GST_REQUESTS,
    KS_CTR_SHARED_LD_CONFLICTS,  /* shared-memory bank conflicts of loads */
    KS_CTR_SHARED_ST_CONFLICTS,  /*   and of stores */
    KS_CTR_SHARED_LD_WAVEFRONTS, /* shared-memory passes of loads (1 a request without conflicts) */
    KS_CTR_SHARED_ST_WAVEFRONTS,
    KS_CTR_SHARED_LD_INST,       /* shared-memory load instructions (warp-wide requests) */
    KS_CTR_SHARED_ST_INST,
    KS_CTR_OCC_ACHIEVED_PCT,     /* active warps / the SM's maximum, % */
    KS_CTR_OCC_THEORETICAL_PCT,  /* what the launch's registers, shared memory and block allow, % */
    KS_CTR_SM_CLOCK_HZ,          /* the SMs' clock during the kernel */
    KS_CTR_WARP_CYCLES_PER_INST, /* warp cycles per issued instruction (the stalls add up to it) */
    KS_CTR_STALL_FIRST,          /* KS_STALL_NUM stall rows follow, in ks_stall_id order */
    KS_CTR_NUM = KS_CTR_STALL_FIRST + KS_STALL_NUM
} ks_counter_id;

/* GPU generations with a metric table (CUDA 13's CUPTI profiles Turing and later). */
typedef enum ks_counter_gen {
    KS_GEN_UNSUPPORTED = 0, /* compute capability below 7.5 */
    KS_GEN_TURING,          /* sm_75: TU10x, GDDR6 */
    KS_GEN_AMPERE_GA100,    /* sm_80: A100, HBM2e */
    KS_GEN_AMPERE,          /* sm_86, sm_87: GA10x, GDDR6/6X; Orin */
    KS_GEN_ADA,             /* sm_89: AD10x, GDDR6/6X */
    KS_GEN_HOPPER,          /* sm_90: GH100, HBM3/3e */
    KS_GEN_BLACKWELL,       /* sm_100, sm_103, sm_110: GB100/GB110, Thor */
    KS_GEN_BLACKWELL_RTX,   /* sm_120, sm_121: GB20x, GDDR7; GB10 */
    KS_GEN_NEWER,           /* above what this table knows: Blackwell's names, each checked by CUPTI */
    KS_GEN_NUM
} ks_counter_gen;

enum { KS_CTR_CANDIDATES = 3 }; /* metric names tried in order; the first CUPTI accepts is used */

typedef struct ks_counter_info {
    const char *key;   /* stable id for JSON and tests: "dram_read_bytes", "stall_long_scoreboard" */
    const char *label; /* the panel's label: "DRAM read" */
    const char *unit;  /* of the raw value: "bytes", "ns", "%", "Hz", "" */
    const char *ncu;   /* Nsight Compute's name for it: "Stall Long Scoreboard", "L2 Hit Rate" */
    const char *words; /* a learner's words: "waiting for data from global memory (long scoreboard)" */
    int summed;        /* 1: a count (kernels add up); 0: a rate (kernels average, weighted by time) */
} ks_counter_info;

const ks_counter_info *ks_counters_info(ks_counter_id id); /* NULL out of range */
/* Generation of a compute capability (10 * major + minor, e.g. 90). */
ks_counter_gen ks_counters_generation(int cc);
const char *ks_counters_gen_name(ks_counter_gen gen); /* "Hopper (sm_90)" */
/* The metric names tried for id on gen, best first; returns how many (<= cap). */
int ks_counters_candidates(ks_counter_gen gen, ks_counter_id id, const char **out, int cap);
/* 1 where the generation's PM sampler triggers on a time interval (GA10x and
 * later); 0 where it counts system clocks (Turing, GA100). */
int ks_counters_pm_time_trigger(ks_counter_gen gen);

/* ---- One measurement ---- */

enum {
    KS_COUNTERS_MAX_KERNELS = 16,
    KS_COUNTER_NAME = 160,   /* kernel name (demangled, cut) */
    KS_COUNTER_METRIC = 96,  /* a CUPTI metric name */
};

typedef struct ks_kernel_counters {
    char name[KS_COUNTER_NAME];
    double values[KS_CTR_NUM];          /* raw, in ks_counters_info(i)->unit */
    unsigned char present[KS_CTR_NUM];  /* 0: this GPU lacks the metric (absent, not zero) */
    /* from the caller (ks_counters_set_launch), 0 unknown */
    int load_bytes, store_bytes;        /* bytes a thread reads (writes) in one global access */
    int occupancy_from_launch;          /* 1: theoretical occupancy is the launch's, not a counter */
} ks_kernel_counters;

typedef struct ks_counter_set {
    char device[64];  /* "NVIDIA H200" */
    char chip[24];    /* CUPTI's chip name: "GH100" */
    int cc;           /* 10 * major + minor */
    ks_counter_gen gen;
    int passes;       /* replays of each kernel CUPTI needed for all metrics */
    int nkernels;     /* kernels measured, in launch order */
    int dropped;      /* kernels launched beyond what the set holds, or ranges CUPTI dropped */
    /* The metric each logical metric was read from on this GPU ("" absent): the hover's text. */
    char metric[KS_CTR_NUM][KS_COUNTER_METRIC];
    ks_kernel_counters kernels[KS_COUNTERS_MAX_KERNELS];
} ks_counter_set;

/* What the caller knows of a kernel's launch that the counters may not give.
 * Zero: unknown. */
typedef struct ks_counter_launch {
    /* the warps the launch's registers, shared memory and block size let an
     * SM hold, of its maximum, 0..1: cudaOccupancyMaxActiveBlocksPerMultiprocessor
     * as ks_cuda_kernel_attrs gives it (ks_kernel_attrs.occupancy) */
    double occupancy_theoretical;
    /* bytes each thread reads (writes) in one global load (store): 4 a float,
     * 8 a double or float2, 16 a float4. A coalesced warp then needs that many
     * 32-byte sectors a request: the ideal the panel holds sectors per request against. */
    int load_bytes, store_bytes;
} ks_counter_launch;

/* Adds the launch's figures to kernel `kernel` of s (< 0: every kernel):
 * theoretical occupancy where the GPU has no counter for it (a counter CUPTI
 * read is kept), and the access widths. Values outside 0..1 or 1..32 bytes
 * are left unknown. */
void ks_counters_set_launch(ks_counter_set *s, int kernel, const ks_counter_launch *launch);

/* ---- Why there are no counters: one status, one line ---- */

typedef enum ks_counters_why {
    KS_CTRS_OK = 0,
    KS_CTRS_NO_CUDA_BUILD,      /* built without CUDA */
    KS_CTRS_NO_CUPTI_BUILD,     /* built with CUDA but without CUPTI */
    KS_CTRS_CPU_BACKEND,        /* the run uses the CPU backend */
    KS_CTRS_NO_DEVICE,          /* no usable CUDA device */
    KS_CTRS_NO_LIBRARY,         /* libcupti could not be loaded at run time */
    KS_CTRS_PERMISSION,         /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (NVreg_RestrictProfilingToAdminUsers) */
    KS_CTRS_OTHER_PROFILER,     /* Nsight Compute / Systems, cuda-gdb, a sanitizer or another CUPTI client */
    KS_CTRS_BUSY,               /* the counters are in use (another process, or this one's timeline) */
    KS_CTRS_DEVICE_UNSUPPORTED, /* vGPU, MIG, confidential computing, CMP, SLI, WSL, too old a GPU */
    KS_CTRS_DRIVER,             /* CUPTI cannot talk to this driver */
    KS_CTRS_METRIC_ABSENT,      /* none of the metrics exists on this GPU */
    KS_CTRS_FAILED,             /* any other CUPTI failure */
    KS_CTRS_NUM
} ks_counters_why;

/* A few words for the panel: "no permission to read GPU counters". */
const char *ks_counters_why_short(ks_counters_why why);
/* The notice line: "hardware counters: <what is wrong>[ (<detail>)]; <what to do>". Returns buf. */
const char *ks_counters_why_line(ks_counters_why why, const char *detail, char *buf, size_t cap);
/* The case a CUPTI status (its CUptiResult value) falls in. */
ks_counters_why ks_counters_why_from_cupti(int cupti_result);
/* The case of the last failed ks_counters_ or ks_timeline_ call on this thread (KS_CTRS_OK after a success). */
ks_counters_why ks_counters_last_why(void);
void ks_counters_set_last_why(ks_counters_why why);
/* Records why as this thread's last case and fails with its line
 * (KS_ERR_NO_DEVICE, KS_ERR_CUDA for KS_CTRS_FAILED, else KS_ERR_UNSUPPORTED). */
ks_status ks_counters_fail(ks_counters_why why, const char *detail);

/* ---- The measuring object ---- */

typedef struct ks_counters ks_counters;

/* One line of what CUPTI was asked and answered (every call, its status and time). */
typedef void (*ks_counters_trace_fn)(void *user, const char *line);

typedef struct ks_counters_desc {
    int device;        /* CUDA device ordinal; < 0: the calling thread's current device */
    int cpu_backend;   /* 1: the run computes on the CPU (create refuses, with words) */
    int max_kernels;   /* kernels one measure keeps (0: 8; at most KS_COUNTERS_MAX_KERNELS) */
    ks_counters_trace_fn trace; /* NULL: silent */
    void *trace_user;
} ks_counters_desc;

/* 1 where this build can read counters (CUDA and CUPTI). */
int ks_counters_built(void);
/* Loads libcupti (as a measure would) and writes the file it came from into
 * path; the "no library" line when it cannot. Needs no GPU. */
ks_status ks_counters_library(char *path, size_t cap);
/* Loads CUPTI, checks the device can be profiled, resolves every logical
 * metric for its chip (a metric the chip lacks is absent, found by asking
 * CUPTI) and builds the config image once. Failures carry one line
 * (ks_error_message) and their case (ks_counters_last_why). */
ks_status ks_counters_create(const ks_counters_desc *desc, ks_counters **out);
void ks_counters_destroy(ks_counters *c);
/* The set's device fields and metric names as create resolved them, before any measure. */
void ks_counters_describe(const ks_counters *c, ks_counter_set *out);
/* Calls launch(user, stream) once with every kernel launch in the device's
 * context profiled (one range each, all passes replayed by CUPTI), waits for
 * stream, and fills out with each kernel's name and values, in launch order.
 * Call on a thread where the device is current. launch's failure is returned
 * as it is. Kernels launched through a CUDA graph are measured but not named. */
ks_status ks_counters_measure(ks_counters *c, ks_status (*launch)(void *user, void *stream), void *user,
                              void *stream, ks_counter_set *out);
/* CUPTI's base metrics for the device's chip whose name contains `contains`
 * (NULL: all), one emit per metric with CUPTI's description; pm_sampling
 * selects the PM sampler's list instead of the range profiler's. For the probe. */
ks_status ks_counters_list_metrics(int device, int pm_sampling, const char *contains,
                                   void (*emit)(void *user, const char *name, const char *description),
                                   void *user);

/* ---- Figures derived from a measurement (pure) ---- */

/* NaN marks a figure that cannot be given (a metric absent, no model, nothing counted). */
typedef struct ks_counter_derived {
    double duration_ms;
    double dram_read_bytes, dram_write_bytes, dram_bytes;
    double dram_gbs;            /* DRAM bytes / duration, GB/s (1e9) */
    double bytes_vs_model;      /* DRAM bytes / the model's bytes */
    double dram_peak_pct;
    double l1_hit_pct, l2_hit_pct;
    double gld_sectors_per_request, gst_sectors_per_request;
    double sectors_per_request; /* loads and stores together */
    double gld_ideal, gst_ideal; /* sectors a request of a coalesced warp at the launch's access width; NaN unknown */
    double bank_conflicts;      /* loads + stores */
    double shared_ways;         /* wavefronts per shared instruction: 1 conflict-free, 32 a 32-way conflict */
    double occupancy_achieved, occupancy_theoretical; /* 0..1 */
    double sm_clock_mhz;
    double warp_cycles_per_inst;
    int nstalls;                /* stall reasons present, largest first */
    ks_stall_id stall[KS_STALL_NUM];
    double stall_cycles[KS_STALL_NUM]; /* warp cycles per issued instruction spent so */
    double stall_share[KS_STALL_NUM];  /* of all stall cycles, 0..1 */
} ks_counter_derived;

/* The kernels of a set as one (kernel < 0): counts added, rates averaged
 * weighted by each kernel's duration; or one kernel as it is. KS_ERR_INVALID
 * when kernel is out of range or the set is empty. */
ks_status ks_counters_combine(const ks_counter_set *s, int kernel, ks_kernel_counters *out);
/* model_bytes: the scene's modelled DRAM bytes of what was measured (<= 0: none). */
void ks_counters_derive(const ks_kernel_counters *k, double model_bytes, ks_counter_derived *out);
/* Words for a bytes-vs-model ratio: "1.31: 31 % more than the model: cache reuse failed". Returns buf. */
const char *ks_counters_model_words(double ratio, char *buf, size_t cap);

/* ---- The Hardware panel's rows: data that the ImGui panel and the page's JSON both read ---- */

enum { KS_COUNTER_ROWS = 24, KS_COUNTER_TOP_STALLS = 3 };

typedef struct ks_counter_row {
    char key[32];      /* stable id: "dram_read", "stall_1" */
    char label[64];    /* left column: "DRAM read", "waiting for data from global memory (long scoreboard)" */
    char value[48];    /* formatted value; "absent" where this GPU lacks the metric */
    char unit[16];     /* "MB", "%", "cycles/inst" */
    char hover[200];   /* the ncu metric name(s) it came from (and ncu's label) */
    char words[160];   /* a line of explanation, "" none */
    double number;     /* the value in the row's unit; NaN when absent */
    int present;
} ks_counter_row;

/* Rows for one kernel of s (kernel < 0: all kernels as one), against
 * model_bytes (<= 0: no model row figure). Returns the number of rows (<= cap). */
int ks_counters_rows(const ks_counter_set *s, int kernel, double model_bytes, ks_counter_row *rows, int cap);
/* The rows as a JSON array of objects {key,label,value,unit,hover,words,number,present}
 * (strings escaped, NaN as null); *len gets the length. KS_ERR_INVALID when it does not fit. */
ks_status ks_counters_rows_json(const ks_counter_row *rows, int n, char *buf, size_t cap, size_t *len);

/* ---- CSV ---- */

/* "dram_read_bytes,dram_write_bytes,bytes_vs_model,l2_hit,sectors_per_request,bank_conflicts,occupancy_achieved,sm_clock_mhz,stall_top" */
const char *ks_counters_csv_header(void);
/* The values of those columns for one kernel (or all, kernel < 0), without a
 * newline; absent figures are left blank; l2_hit and occupancy_achieved are
 * fractions (0..1), like the benches' occupancy column. Returns the length
 * (cut to cap like snprintf). A NULL set gives the blank row. */
int ks_counters_csv_values(const ks_counter_set *s, int kernel, double model_bytes, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
